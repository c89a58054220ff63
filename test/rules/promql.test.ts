// Every PromQL expression of the rules and dashboards parses (lezer-promql, no error
// nodes), and uses only metrics the exporter serves, with labels those metrics have.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { CATALOG, GLOBAL_CATALOG } from '../../src/metrics/catalog.js';
import { ROOT, alertRules, allRules, panelQueries, parsePromQL, recordingRules, substituteGrafanaVariables, templateSelectors } from './lib.js';

interface Expr {
  where: string;
  expr: string;
}

const ruleExprs: Expr[] = allRules().map((r) => ({ where: `rule ${r.alert ?? r.record}`, expr: r.expr }));
const panelExprs: Expr[] = panelQueries().map((q) => ({ where: `${q.dashboard} / ${q.panel}`, expr: substituteGrafanaVariables(q.expr) }));
const variableExprs: Expr[] = templateSelectors().map((v) => ({
  where: `${v.dashboard} variable ${v.variable}`,
  expr: substituteGrafanaVariables(v.expr),
}));
const everyExpr = [...ruleExprs, ...panelExprs, ...variableExprs];

// Names the rules and panels may use: the catalog, the recording rules' outputs, the
// process and Node.js metrics prom-client registers by default, and Prometheus's own `up`
// (only for the absent-exporter alert).
// A histogram is queried through its _bucket (with the `le` label), _sum and _count series.
const catalogLabels = new Map<string, readonly string[]>(
  [...CATALOG, ...GLOBAL_CATALOG].flatMap((m) => {
    const spec = m as { name: string; labels: readonly string[]; type: string };
    if (spec.type !== 'histogram') return [[spec.name, spec.labels] as const];
    return [
      [`${spec.name}_bucket`, [...spec.labels, 'le']] as const,
      [`${spec.name}_sum`, spec.labels] as const,
      [`${spec.name}_count`, spec.labels] as const,
    ];
  }),
);
/** The catalog name a series name belongs to (a histogram's series map to the histogram). */
const HISTOGRAMS = new Set([...CATALOG, ...GLOBAL_CATALOG].filter((m) => (m.type as string) === 'histogram').map((m) => m.name));
const familyOf = (series: string): string => {
  const base = series.replace(/_(bucket|sum|count)$/, '');
  return HISTOGRAMS.has(base) ? base : series;
};
const recorded = new Set(recordingRules().map((r) => r.record as string));
const defaultRegistry = new Registry();
collectDefaultMetrics({ register: defaultRegistry });
const processMetrics = new Set(defaultRegistry.getMetricsAsArray().map((m) => m.name));
// Labels Prometheus attaches to every scraped series.
const TARGET_LABELS = ['job', 'instance'];

function metricsOf(e: Expr): string[] {
  return parsePromQL(e.expr)
    .selectors.map((s) => s.metric)
    .filter((m): m is string => m !== undefined);
}

describe('PromQL parses', () => {
  it('found expressions to check', () => {
    expect(ruleExprs.length).toBeGreaterThan(20);
    expect(panelExprs.length).toBeGreaterThan(30);
    expect(variableExprs.length).toBeGreaterThan(3);
  });

  it.each(everyExpr.map((e) => [e.where, e.expr]))('%s', (_where, expr) => {
    const { errors } = parsePromQL(expr);
    expect(errors, `syntax errors in:\n${expr}`).toEqual([]);
  });

  it('the parser check rejects broken expressions', () => {
    for (const bad of ['sum(rate(foo[5m])', 'foo{a="b"', 'foo and', 'rate(foo[5m]) >', 'foo{job=~"$job"}[5m']) {
      expect(parsePromQL(bad).errors.length, bad).toBeGreaterThan(0);
    }
  });

  it('substitutes every Grafana variable', () => {
    for (const e of panelExprs) expect(e.expr, e.where).not.toContain('$');
    expect(substituteGrafanaVariables('rate(x{job=~"$job",node=~"${node}"}[$__rate_interval])')).toBe('rate(x{job=~".+",node=~".+"}[1m])');
    expect(substituteGrafanaVariables('label_replace(x, "c", "$1", "e", "(.*)")')).toBe('label_replace(x, "c", "$1", "e", "(.*)")');
  });
});

describe('metrics used exist', () => {
  it.each(everyExpr.map((e) => [e.where, e]))('%s', (_where, e) => {
    const unknown = metricsOf(e).filter((m) => {
      if (catalogLabels.has(m) || recorded.has(m) || processMetrics.has(m)) return false;
      return !(m === 'up' && e.where === 'rule AvalancheGoExporterAbsent');
    });
    expect(unknown, `not in src/metrics/catalog.ts, not a recording rule, not a prom-client default metric`).toEqual([]);
  });

  it('the check catches a made-up metric', () => {
    const fake: Expr = { where: 'test', expr: 'avalanchego_made_up_metric{node="x"} > 0' };
    expect(metricsOf(fake).filter((m) => !catalogLabels.has(m))).toEqual(['avalanchego_made_up_metric']);
  });

  it('the prom-client default metrics used are known to prom-client', () => {
    expect(processMetrics.has('process_cpu_seconds_total')).toBe(true);
    expect(processMetrics.has('process_resident_memory_bytes')).toBe(true);
    expect(processMetrics.has('nodejs_eventloop_lag_p99_seconds')).toBe(true);
  });
});

describe('label matchers name labels the metric has', () => {
  it.each(everyExpr.map((e) => [e.where, e]))('%s', (_where, e) => {
    const wrong: string[] = [];
    for (const s of parsePromQL(e.expr).selectors) {
      const labels = s.metric ? catalogLabels.get(s.metric) : undefined;
      if (!labels) continue;
      for (const m of s.matchers) {
        if (!labels.includes(m.label) && !TARGET_LABELS.includes(m.label)) wrong.push(`${s.metric}{${m.label}}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------
// Coverage: every catalog metric is used by a rule or a panel, or listed with a reason.

interface UnusedList {
  unused: Array<{ metric: string; reason: string }>;
}
const unusedList = (parseYaml(readFileSync(join(ROOT, 'test', 'rules', 'unused-metrics.yml'), 'utf8')) as UnusedList).unused;

describe('catalog coverage', () => {
  const used = new Set([...ruleExprs, ...panelExprs].flatMap(metricsOf).map(familyOf));
  // A recording rule counts as using the metrics of its expression only when it is used itself.
  const unused = new Map(unusedList.map((u) => [u.metric, u.reason]));

  it.each([...CATALOG, ...GLOBAL_CATALOG].map((m) => [m.name]))('%s is used or listed as unused', (name) => {
    expect(used.has(name) || unused.has(name), `${name} is in neither a rule, a panel, nor test/rules/unused-metrics.yml`).toBe(true);
  });

  it('the unused list names only catalog metrics that are really unused, each with a reason', () => {
    for (const u of unusedList) {
      expect(catalogLabels.has(u.metric) || HISTOGRAMS.has(u.metric), `${u.metric} is not in the catalog`).toBe(true);
      expect(used.has(u.metric), `${u.metric} is used now: remove it from unused-metrics.yml`).toBe(false);
      expect(u.reason.length, `${u.metric} needs a reason`).toBeGreaterThan(20);
    }
  });

  // Recording rules kept for what users built on them (their names are a public contract) that
  // no shipped alert or panel reads any more, with the reason.
  const KEPT = new Map([
    [
      'node_chain:avalanchego_chain_last_accepted_height:network',
      'the fleet rules compute it inline since no recording rule may read another one of its group (vmalert)',
    ],
    [
      'job_chain:avalanchego_chain_last_accepted_height:max',
      'the lag and fleet_max rules compute it inline since no recording rule may read another one of its group (vmalert)',
    ],
    [
      'job:avalanchego_nodes:count',
      "a fleet's nodes counted once each by node_id, for queries that sum over a fleet where several targets poll one node (--config.check warns of those); the shipped dashboards count targets",
    ],
  ]);
  it('every recording rule is used by an alert or a panel', () => {
    const usedByAlertsOrPanels = new Set(
      [
        ...alertRules().map((r) => ({ where: '', expr: r.expr })),
        ...panelExprs,
        ...recordingRules().map((r) => ({ where: '', expr: r.expr })),
      ].flatMap(metricsOf),
    );
    for (const r of recordingRules()) expect(usedByAlertsOrPanels.has(r.record as string) || KEPT.has(r.record as string), r.record).toBe(true);
    for (const name of KEPT.keys()) expect(usedByAlertsOrPanels.has(name), `${name} is used again: take it out of KEPT`).toBe(false);
  });
});
