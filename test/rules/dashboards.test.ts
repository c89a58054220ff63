// Structural checks of grafana/dashboards/*.json (the rules of Grafana's dashboard-linter
// that matter here, written out so they run everywhere), the generator being in sync, the
// provisioning files, and dashboard-linter itself when it is installed.
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/metrics/catalog.js';
import {
  IN_CI,
  ROOT,
  allPanels,
  dashboardPaths,
  findTool,
  loadDashboards,
  parsePromQL,
  run,
  substituteGrafanaVariables,
  type Dashboard,
  type Panel,
} from './lib.js';

const dashboards = loadDashboards();
const EXPECTED_UIDS = ['avalanchego-fleet', 'avalanchego-node', 'avalanchego-validators'];
// Panel types of Grafana's current (React) panels; graph, singlestat, table-old and the
// other Angular panels are gone from Grafana 11.
const ALLOWED_TYPES = new Set(['row', 'timeseries', 'stat', 'table', 'state-timeline', 'gauge', 'bargauge', 'text']);
// Grafana unit ids (packages/grafana-data valueFormats) that make sense for these metrics.
const VALID_UNITS = new Set([
  'none',
  'short',
  's',
  'ms',
  'dtdurations',
  'bytes',
  'decbytes',
  'percent',
  'percentunit',
  'ops',
  'reqps',
  'cps',
  'dateTimeAsIso',
  'dateTimeFromNow',
  'bool',
  'string',
]);
const DS_REF = { type: 'prometheus', uid: '${datasource}' };
// Series with a node label (an L1's set-wide series have none: one per validator, whichever vantage told it).
const perNodeMetrics = new Set(CATALOG.filter((m) => m.labels.includes('node')).map((m) => m.name));

const dataPanels = (d: Dashboard): Panel[] => allPanels(d).filter((p) => p.type !== 'row');

describe.each(dashboards.map(({ path, dashboard }) => [basename(path), dashboard] as const))('%s', (_file, d) => {
  it('has a stable uid, a title and a description, and no import-time placeholders', () => {
    expect(EXPECTED_UIDS).toContain(d.uid);
    expect(d.title).toMatch(/^AvalancheGo \/ /);
    expect(d.description ?? '').not.toBe('');
    expect(d).not.toHaveProperty('__inputs');
    expect(d).not.toHaveProperty('__requires');
    expect(d).not.toHaveProperty('id');
    expect(JSON.stringify(d)).not.toMatch(/\$\{DS_[A-Z_]+\}/);
  });

  it('has a datasource variable, and job and instance variables as dashboard-linter wants them', () => {
    const vars = d.templating.list;
    const ds = vars.find((v) => v.type === 'datasource');
    expect(ds).toMatchObject({ name: 'datasource', label: 'Data source', query: 'prometheus' });
    for (const name of ['job', 'instance']) {
      const v = vars.find((x) => x.name === name);
      expect(v, `${name} variable`).toMatchObject({
        type: 'query',
        label: name.charAt(0).toUpperCase() + name.slice(1),
        datasource: DS_REF,
        multi: true,
        includeAll: true,
        allValue: '.+',
        refresh: 2,
      });
    }
    const node = vars.find((v) => v.name === 'node');
    expect(node, 'node variable').toMatchObject({ type: 'query', datasource: DS_REF, refresh: 2 });
    if (d.uid !== 'avalanchego-node') expect(node).toMatchObject({ multi: true, includeAll: true, allValue: '.+' });
    for (const v of vars.filter((x) => x.type === 'query')) expect(v.datasource, v.name).toEqual(DS_REF);
  });

  it('uses only the datasource variable: every datasource reference is ${datasource}', () => {
    const refs: unknown[] = [];
    const walk = (x: unknown): void => {
      if (Array.isArray(x)) x.forEach((y) => walk(y));
      else if (x && typeof x === 'object') {
        for (const [k, v] of Object.entries(x)) {
          if (k === 'datasource') refs.push(v);
          walk(v);
        }
      }
    };
    walk(d.panels);
    walk(d.templating.list.filter((v) => v.type !== 'datasource'));
    expect(refs.length).toBeGreaterThan(10);
    for (const r of refs) expect(r).toEqual(DS_REF);
    for (const p of dataPanels(d)) {
      expect(p.datasource, p.title).toEqual(DS_REF);
      for (const t of p.targets ?? []) expect(t.datasource, p.title).toEqual(DS_REF);
    }
  });

  it('uses no legacy (Angular) panel type', () => {
    for (const p of allPanels(d)) expect(ALLOWED_TYPES, `${p.title}: ${p.type}`).toContain(p.type);
  });

  it('gives every panel a title, a description, a known unit and a query', () => {
    for (const p of dataPanels(d)) {
      expect(p.title, `panel ${p.id}`).not.toBe('');
      expect(p.description ?? '', p.title).not.toBe('');
      expect(VALID_UNITS, `${p.title}: unit ${p.fieldConfig?.defaults?.unit}`).toContain(p.fieldConfig?.defaults?.unit);
      expect((p.targets ?? []).length, p.title).toBeGreaterThan(0);
    }
  });

  it('has unique panel ids and panels that do not overlap', () => {
    const panels = allPanels(d);
    const ids = panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const cells = new Map<string, string>();
    for (const p of panels) {
      const g = p.gridPos;
      expect(g, p.title).toBeDefined();
      if (!g) continue;
      expect(g.x + g.w, p.title).toBeLessThanOrEqual(24);
      for (let x = g.x; x < g.x + g.w; x++) {
        for (let y = g.y; y < g.y + g.h; y++) {
          const key = `${x},${y}`;
          expect(cells.get(key), `${p.title} overlaps ${cells.get(key)}`).toBeUndefined();
          cells.set(key, p.title);
        }
      }
    }
  });

  it('filters every selector by $job and $instance, and per-node series by $node', () => {
    const problems: string[] = [];
    for (const p of dataPanels(d)) {
      for (const t of p.targets ?? []) {
        const fleetWide = /fleet median/.test(t.legendFormat ?? '');
        for (const s of parsePromQL(t.expr ?? '').selectors) {
          const has = (label: string, value: string) => s.matchers.some((m) => m.label === label && m.op === '=~' && m.value === value);
          if (!has('job', '$job')) problems.push(`${p.title}: ${s.metric} lacks job=~"$job"`);
          if (!has('instance', '$instance')) problems.push(`${p.title}: ${s.metric} lacks instance=~"$instance"`);
          const perNode = (s.metric && perNodeMetrics.has(s.metric)) || s.metric?.startsWith('node_chain:');
          if (perNode && !fleetWide && !has('node', '$node')) problems.push(`${p.title}: ${s.metric} lacks node=~"$node"`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('rates counters over $__rate_interval, and never shows a raw counter', () => {
    const problems: string[] = [];
    for (const p of dataPanels(d)) {
      for (const t of p.targets ?? []) {
        for (const s of parsePromQL(t.expr ?? '').selectors) {
          const inner = s.enclosing[0];
          if ((inner === 'rate' || inner === 'irate') && s.range !== '$__rate_interval') problems.push(`${p.title}: ${inner} over [${s.range}]`);
          if (s.metric?.endsWith('_total') && !['rate', 'irate', 'increase'].includes(inner ?? ''))
            problems.push(`${p.title}: raw counter ${s.metric}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('template variables refresh on time range change and query valid selectors', () => {
    for (const v of d.templating.list.filter((x) => x.type === 'query')) {
      expect(v.refresh, v.name).toBe(2);
      const m = /^label_values\((.*),\s*\w+\)$/.exec(v.definition ?? '');
      expect(m, v.name).not.toBeNull();
      expect(parsePromQL(substituteGrafanaVariables(m?.[1] ?? '')).errors, v.name).toEqual([]);
    }
  });

  it('is not editable in the UI (changes go through grafana/build.mjs)', () => {
    expect(d['editable']).toBe(false);
  });
});

describe('dashboards as a set', () => {
  it('are the fleet overview, the node detail and the validators, with distinct uids', () => {
    expect(dashboards.map((x) => x.dashboard.uid).sort()).toEqual(EXPECTED_UIDS);
  });

  it('the fleet table shows one row per node with the signals of the overview', () => {
    const fleet = dashboards.find((x) => x.dashboard.uid === 'avalanchego-fleet')?.dashboard as Dashboard;
    const nodes = allPanels(fleet).find((p) => p.title === 'Nodes' && p.type === 'table');
    const exprs = (nodes?.targets ?? []).map((t) => t.expr ?? '').join('\n');
    for (const m of [
      'avalanchego_up',
      'avalanchego_healthy',
      'avalanchego_health_check_passing',
      'avalanchego_network_connected_peers',
      'avalanchego_chain_connected_stake_ratio',
      'avalanchego_disk_available_ratio',
      'avalanchego_index_last_accepted_timestamp_seconds',
      'node_chain:avalanchego_chain_last_accepted_height:lag',
    ]) {
      expect(exprs).toContain(m);
    }
    for (const t of nodes?.targets ?? []) expect(t.expr, t.refId).toMatch(/by \(job, instance, node\)/);
  });

  it('the node detail shows checks as a state timeline and disk with a forecast', () => {
    const node = dashboards.find((x) => x.dashboard.uid === 'avalanchego-node')?.dashboard as Dashboard;
    const panels = allPanels(node);
    expect(panels.find((p) => p.title === 'Health checks')?.type).toBe('state-timeline');
    expect(JSON.stringify(panels.find((p) => p.title === 'Disk available')?.targets)).toContain('predict_linear');
  });

  it('the validators table shows one row per node and subnet with uptime, end time, runway, key match and version', () => {
    const v = dashboards.find((x) => x.dashboard.uid === 'avalanchego-validators')?.dashboard as Dashboard;
    const t = allPanels(v).find((p) => p.title === 'Validators' && p.type === 'table');
    const exprs = (t?.targets ?? []).map((x) => x.expr ?? '').join('\n');
    for (const m of [
      'avalanchego_validator{',
      'avalanchego_uptime_weighted_average_ratio',
      'avalanchego_validator_end_timestamp_seconds',
      'node_subnet:avalanchego_l1_validator_balance_navax:runway_seconds',
      'avalanchego_validator_registered_key_match',
      'avalanchego_node_info',
    ]) {
      expect(exprs).toContain(m);
    }
    // Every column has the same row key, so that the merge puts one entry on one row.
    for (const x of t?.targets ?? []) expect(x.expr, x.refId).toMatch(/^max by \(job, instance, node, subnet, node_id, version\) /);
    expect(JSON.stringify(t)).toContain('"version"');
  });

  it("the validators dashboard colours uptime against each validation's own requirement, with the uptime alerts' steps", () => {
    const v = dashboards.find((x) => x.dashboard.uid === 'avalanchego-validators')?.dashboard as Dashboard;
    const text = JSON.stringify(v);
    // The alerts warn below the requirement + 5 points and page below it + 2 (post-Helicon 90 %, else 80 %).
    const rules = readFileSync(join(ROOT, 'deploy', 'prometheus', 'avalanchego-alerts.yml'), 'utf8');
    const offsets = [...rules.matchAll(/< on \(job, instance, node\) \(node:avalanchego_uptime_reward_threshold:ratio \+ (0\.\d+)\)/g)].map((m) =>
      Number(m[1]),
    );
    expect(offsets.sort()).toEqual([0.02, 0.05]);
    const t = allPanels(v).find((p) => p.title === 'Validators' && p.type === 'table');
    const margin = (t?.targets ?? []).find((x) => x.refId === 'margin');
    expect(margin?.expr).toContain('avalanchego_uptime_weighted_average_ratio');
    expect(margin?.expr).toContain('- on (job, instance, node) node:avalanchego_uptime_reward_threshold:ratio');
    const overrides = (
      t as unknown as { fieldConfig: { overrides: Array<{ matcher: { options: string }; properties: Array<{ id: string; value: unknown }> }> } }
    ).fieldConfig.overrides;
    const steps = (name: string) =>
      (
        overrides.find((o) => o.matcher.options === name)?.properties.find((p) => p.id === 'thresholds')?.value as
          { steps: Array<{ value: number | null }> } | undefined
      )?.steps.map((s) => s.value);
    expect(steps('Margin over required')).toEqual([null, ...offsets.sort()]);
    // No fixed uptime colour (0.82/0.85 left a 90 %-validator at 86–91 % green while it paged).
    expect(steps('Perceived uptime')).toBeUndefined();
    // The threshold line is each node's, not the lowest across the nodes in view (0.8 as soon as one pre-Helicon node is).
    expect(text).not.toMatch(/(min|max|avg)\s*\(\s*node:avalanchego_uptime_reward_threshold:ratio/);
    const uptime = allPanels(v).find((p) => p.title === 'Perceived uptime' && p.type === 'timeseries');
    expect((uptime?.targets ?? []).map((x) => x.legendFormat)).toContain('{{node}} required');
  });

  it('the node detail shows the validator and posture panels', () => {
    const node = dashboards.find((x) => x.dashboard.uid === 'avalanchego-node')?.dashboard as Dashboard;
    const titles = allPanels(node).map((p) => p.title);
    for (const t of [
      'Uptime',
      'Validator',
      'Validation time left',
      'L1 runway',
      'Registered BLS key',
      'Peers by version',
      'Admin API',
      'Loggers by level',
    ])
      expect(titles).toContain(t);
  });

  it('are what grafana/build.mjs generates', () => {
    const r = run(process.execPath, [join(ROOT, 'grafana', 'build.mjs'), '--check']);
    expect(r.code, r.output).toBe(0);
  });

  // Grafana cannot run here: the typed builders of @grafana/grafana-foundation-sdk are the
  // schema check of every panel, query, option and enum value the modules set.
  it("are built with Grafana's typed builders, and the modules type-check against them", () => {
    for (const m of ['fleet', 'node', 'validators']) {
      expect(readFileSync(join(ROOT, 'grafana', 'lib', `${m}.mjs`), 'utf8'), m).toContain("from './panels.mjs'");
    }
    expect(readFileSync(join(ROOT, 'grafana', 'lib', 'panels.mjs'), 'utf8')).toContain("from '@grafana/grafana-foundation-sdk/timeseries'");
    const r = run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'grafana', 'tsconfig.json')], 120_000);
    expect(r.code, r.output).toBe(0);
  }, 120_000);
});

describe('provisioning', () => {
  it('has a Prometheus datasource and a file provider for the dashboards', () => {
    const ds = parseYaml(readFileSync(join(ROOT, 'grafana', 'provisioning', 'datasources', 'prometheus.yml'), 'utf8')) as {
      apiVersion: number;
      datasources: Array<{ type: string; url: string }>;
    };
    expect(ds.apiVersion).toBe(1);
    expect(ds.datasources[0]?.type).toBe('prometheus');
    const prov = parseYaml(readFileSync(join(ROOT, 'grafana', 'provisioning', 'dashboards', 'avalanchego.yml'), 'utf8')) as {
      apiVersion: number;
      providers: Array<{ type: string; options: { path: string } }>;
    };
    expect(prov.apiVersion).toBe(1);
    expect(prov.providers[0]).toMatchObject({ type: 'file' });
    expect(prov.providers[0]?.options.path).toBeTruthy();
  });
});

// Grafana's dashboard-linter (go install github.com/grafana/dashboard-linter@<version>).
// Under CI a missing linter fails, unless AVALANCHEGO_SKIP_DASHBOARD_LINTER gives the reason
// it cannot be installed there; the structural checks above cover its rules meanwhile.
const linter = findTool('dashboard-linter', ['--help']);
const skipReason = process.env.AVALANCHEGO_SKIP_DASHBOARD_LINTER;
const LINTER_MISSING = 'dashboard-linter not found on PATH (go install github.com/grafana/dashboard-linter@latest; binary in $(go env GOPATH)/bin)';

describe('dashboard-linter', () => {
  it('is installed (required under CI=true)', (ctx) => {
    if (!linter.path && (!IN_CI || skipReason)) ctx.skip(skipReason ? `${LINTER_MISSING}: ${skipReason}` : LINTER_MISSING);
    expect(linter.path, LINTER_MISSING).toBeDefined();
  });

  it.skipIf(!linter.path).each(dashboardPaths().map((p) => [basename(p), p]))('lint --strict %s', (_name, path) => {
    const r = run('dashboard-linter', ['lint', '--strict', path]);
    expect(r.code, r.output).toBe(0);
  });
});
