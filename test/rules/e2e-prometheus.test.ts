// End to end: the simulator's fleet, the exporter polling it, and a real Prometheus (the
// Debian package) scraping the exporter with the project's rules, their `for:` and range
// windows shortened 20 times. Every rule expression and every panel query runs through
// /api/v1/query; pushing a simulated node into a fault (down, disk filling, stalled chain,
// peers dropping, router overload) through the simulator's control API fires the matching
// alert in /api/v1/alerts, and the alert resolves after the node recovers. Everything listens on 127.0.0.1; every process is
// started here and stopped by its PID. Conditions are awaited by polling with deadlines.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_CI, ROOT, RULES_DIR, allRules, findTool, panelQueries } from './lib.js';
import { ProcessGroup, type Proc } from '../helpers/processes.js';
import { freePort } from '../helpers/net.js';

const prometheus = findTool('prometheus', ['--version']);
const MISSING = 'prometheus not found on PATH (install the Debian package "prometheus")';

const NODES = ['node-0', 'node-1', 'node-2', 'node-3', 'node-4'];
const JOB = 'avalanchego-exporter';
/** Rules run 20 times faster: for: 3m → 9s, [10m] → 30s. */
const SPEEDUP = 20;

// ---------------------------------------------------------------------------------------
// Processes

const group = new ProcessGroup(ROOT);
const procs = group.procs;
const start = (name: string, cmd: string, args: string[]): Proc => group.start(name, cmd, args);
const logs = (): string => group.logs();

/** Polls `check` until it returns a value other than undefined, or fails at the deadline. */
async function waitFor<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    for (const p of procs) {
      if (p.child.exitCode !== null) throw new Error(`${p.name} exited (${p.child.exitCode}) while waiting for ${what}\n${logs()}`);
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}\n${logs()}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

// ---------------------------------------------------------------------------------------
// Prometheus API

let promUrl = '';
let simUrl = '';

interface Sample { metric: Record<string, string>; value: [number, string] }
async function query(expr: string): Promise<{ status: string; error?: string; data?: { resultType: string; result: Sample[] | [number, string] } }> {
  const res = await fetch(`${promUrl}/api/v1/query?${new URLSearchParams({ query: expr })}`);
  return (await res.json()) as { status: string; error?: string; data?: { resultType: string; result: Sample[] } };
}
async function vector(expr: string): Promise<Sample[]> {
  const r = await query(expr);
  if (r.status !== 'success') throw new Error(`${expr}: ${r.error}`);
  return r.data?.result as Sample[];
}

interface Alert { labels: Record<string, string>; annotations: Record<string, string>; state: string; activeAt: string }
async function alerts(): Promise<Alert[]> {
  const res = await fetch(`${promUrl}/api/v1/alerts`);
  const body = (await res.json()) as { data: { alerts: Alert[] } };
  return body.data.alerts;
}
const firing = async (name: string, node: string, severity?: string) =>
  (await alerts()).find((a) => a.labels['alertname'] === name && a.labels['node'] === node && a.state === 'firing'
    && (severity === undefined || a.labels['severity'] === severity));

async function setScenario(node: string, scenario: string): Promise<void> {
  const res = await fetch(`${simUrl}/sim/nodes/${node}/scenario`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ scenario }),
  });
  expect(res.status, await res.text()).toBe(200);
}

// ---------------------------------------------------------------------------------------
// The rules, sped up

function scaleDuration(value: number, unit: string): string {
  const seconds = value * ({ s: 1, m: 60, h: 3600, d: 86400 } as Record<string, number>)[unit]!;
  return `${Math.max(2, Math.round(seconds / SPEEDUP))}s`;
}
/** The rule file with every `for:`, range window and offset divided by SPEEDUP. */
function speedUpRules(text: string): string {
  return text
    .replace(/^(\s+for: )(\d+)([smhd])$/gm, (_m, pre: string, n: string, u: string) => pre + scaleDuration(Number(n), u))
    .replace(/\[(\d+)([smhd])\]/g, (_m, n: string, u: string) => `[${scaleDuration(Number(n), u)}]`)
    .replace(/\boffset (\d+)([smhd])\b/g, (_m, n: string, u: string) => `offset ${scaleDuration(Number(n), u)}`);
}

/** Grafana's variables as a user who selects the job and "All" elsewhere would set them. */
function forPrometheus(expr: string): string {
  return expr
    .replaceAll('$__rate_interval', '4s')
    .replaceAll('$job', JOB)
    .replaceAll(/\$(instance|node|chain)\b/g, '.+');
}

// Panel queries that may rightly return nothing while every simulated node is healthy.
const MAY_BE_EMPTY = new Map<string, string>([
  ['Failing since', 'only failing checks have a first-failure time'],
  ['Unknown network upgrade', 'only a node that sees an unknown upgrade reports it'],
  ['Poll errors', 'no poll has failed yet (the fault tests run after this one)'],
]);

// ---------------------------------------------------------------------------------------

function buildIfStale(): void {
  const main = join(ROOT, 'dist', 'main.js');
  const newest = (dir: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce((t, e) => {
      const p = join(dir, e.name);
      return Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
    }, 0);
  if (existsSync(main) && statSync(main).mtimeMs >= newest(join(ROOT, 'src'))) return;
  const r = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8', timeout: 180_000 });
  if (r.status !== 0) throw new Error(`npm run build failed:\n${r.stdout}${r.stderr}`);
}

describe('end to end with a real Prometheus', () => {
  it('prometheus is installed (required under CI=true)', (ctx) => {
    if (!prometheus.path && !IN_CI) ctx.skip(MISSING);
    expect(prometheus.path, MISSING).toBeDefined();
  });

  it('speedUpRules shortens for:, ranges and offsets', () => {
    expect(speedUpRules('        for: 10m\n  x[10m] offset 10m [6h] [5m]\n        for: 3m')).toBe('        for: 30s\n  x[30s] offset 30s [1080s] [15s]\n        for: 9s');
  });

  describe.skipIf(!prometheus.path)(`${prometheus.version}`, () => {
    let dir = '';

    beforeAll(async () => {
      buildIfStale();
      dir = mkdtempSync(join(tmpdir(), 'avalanchego-e2e-'));
      const [simPort, expPort, promPort] = [await freePort(), await freePort(), await freePort()];
      simUrl = `http://127.0.0.1:${simPort}`;
      promUrl = `http://127.0.0.1:${promPort}`;

      start('simulator', process.execPath, [join(ROOT, 'dist', 'main.js'), 'simulate', `--web.listen-address=127.0.0.1:${simPort}`,
        `--nodes=${NODES.length}`, '--time-scale=10', '--seed=avalanchego-e2e-rules']);
      await waitFor('the simulator', 20_000, async () => ((await fetch(`${simUrl}/sim/nodes`)).ok ? true : undefined));

      writeFileSync(join(dir, 'exporter.yaml'), [
        'defaults:', '  interval: 1s', '  timeout: 800ms', 'targets:',
        ...NODES.flatMap((n) => [`  - name: ${n}`, `    url: ${simUrl}/${n}`]), '',
      ].join('\n'));
      start('exporter', process.execPath, [join(ROOT, 'dist', 'main.js'), `--config.file=${join(dir, 'exporter.yaml')}`,
        `--web.listen-address=127.0.0.1:${expPort}`]);
      await waitFor('the exporter', 20_000, async () => ((await fetch(`http://127.0.0.1:${expPort}/metrics`)).ok ? true : undefined));

      for (const f of ['avalanchego-recording.yml', 'avalanchego-alerts.yml']) {
        writeFileSync(join(dir, f), speedUpRules(readFileSync(join(RULES_DIR, f), 'utf8')));
      }
      writeFileSync(join(dir, 'prometheus.yml'), [
        'global:', '  scrape_interval: 1s', '  evaluation_interval: 1s',
        'rule_files:', '  - avalanchego-recording.yml', '  - avalanchego-alerts.yml',
        'scrape_configs:', `  - job_name: ${JOB}`, '    static_configs:', `      - targets: ['127.0.0.1:${expPort}']`, '',
      ].join('\n'));
      start('prometheus', 'prometheus', [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${promPort}`, '--log.level=warn']);
      await waitFor('Prometheus to be ready', 30_000, async () => ((await fetch(`${promUrl}/-/ready`)).ok ? true : undefined));
      // Data for every node, and the recording rules' rate (needs two samples of a range).
      await waitFor('every node up in Prometheus', 30_000, async () =>
        (await vector(`avalanchego_up{job="${JOB}"} == 1`)).length === NODES.length ? true : undefined);
      await waitFor('recorded block rates', 30_000, async () =>
        (await vector('node_chain:avalanchego_chain_last_accepted_height:deriv5m > 0')).length > 0 ? true : undefined);
    }, 120_000);

    afterAll(async () => {
      await group.stopAll();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }, 30_000);

    it('loaded every rule group without evaluation errors', async () => {
      const res = await fetch(`${promUrl}/api/v1/rules`);
      const body = (await res.json()) as { data: { groups: Array<{ name: string; rules: Array<{ name: string; health: string; lastError?: string }> }> } };
      const rules = body.data.groups.flatMap((g) => g.rules);
      expect(rules.length).toBe(allRules().length);
      const unhealthy = rules.filter((r) => r.health !== 'ok' && r.health !== 'unknown').map((r) => `${r.name}: ${r.lastError}`);
      expect(unhealthy).toEqual([]);
    });

    it('every rule expression runs', async () => {
      const failures: string[] = [];
      for (const r of allRules()) {
        const res = await query(r.expr);
        if (res.status !== 'success') failures.push(`${r.alert ?? r.record}: ${res.error}`);
      }
      expect(failures).toEqual([]);
    });

    it('every panel query runs and returns data where the fleet has data', async () => {
      const failures: string[] = [];
      const empty: string[] = [];
      for (const q of panelQueries()) {
        const expr = forPrometheus(q.expr);
        const res = await query(expr);
        if (res.status !== 'success') {
          failures.push(`${q.dashboard} / ${q.panel}: ${res.error}\n  ${expr}`);
          continue;
        }
        const n = Array.isArray(res.data?.result) ? res.data.result.length : 1;
        if (n === 0 && !MAY_BE_EMPTY.has(q.panel)) empty.push(`${q.dashboard} / ${q.panel}: ${expr}`);
      }
      expect(failures).toEqual([]);
      expect(empty).toEqual([]);
    }, 60_000);

    it('no alert fires for the healthy fleet', async () => {
      const active = (await alerts()).filter((a) => a.state === 'firing').map((a) => `${a.labels['alertname']} ${a.labels['node'] ?? ''} ${a.labels['severity']}`);
      expect(active).toEqual([]);
    });

    it('a node that goes down fires AvalancheGoNodeDown, which resolves when it is back', async () => {
      await setScenario('node-1', 'down');
      const a = await waitFor('AvalancheGoNodeDown firing for node-1', 60_000, () => firing('AvalancheGoNodeDown', 'node-1'));
      expect(a.labels).toMatchObject({ severity: 'critical', job: JOB, node: 'node-1' });
      // The description's template query names the poll errors' reasons.
      expect(a.annotations['description']).toMatch(/^The exporter has not read a valid health report from node node-1 .* Poll errors in the last 5 minutes:( [a-z_]+)+\.$/);
      // The other nodes are unaffected, and no stall is reported for the node that is down.
      expect((await alerts()).filter((x) => x.labels['node'] !== 'node-1')).toEqual([]);
      expect(await firing('AvalancheGoChainStalled', 'node-1')).toBeUndefined();
      await setScenario('node-1', 'healthy');
      await waitFor('AvalancheGoNodeDown to resolve', 60_000, async () =>
        (await alerts()).some((x) => x.labels['alertname'] === 'AvalancheGoNodeDown') ? undefined : true);
    }, 150_000);

    it('a filling disk fires AvalancheGoDiskSpaceLow, warning then critical, and it resolves', async () => {
      await setScenario('node-2', 'disk-filling');
      await waitFor('AvalancheGoDiskSpaceLow warning', 90_000, () => firing('AvalancheGoDiskSpaceLow', 'node-2', 'warning'));
      await waitFor('AvalancheGoDiskSpaceLow critical', 90_000, () => firing('AvalancheGoDiskSpaceLow', 'node-2', 'critical'));
      await setScenario('node-2', 'healthy');
      await waitFor('AvalancheGoDiskSpaceLow to resolve', 60_000, async () =>
        (await alerts()).some((x) => x.labels['alertname'] === 'AvalancheGoDiskSpaceLow') ? undefined : true);
    }, 240_000);

    it('dropping peers and an overloaded router fire their alerts, which resolve after recovery', async () => {
      await setScenario('node-3', 'peers-dropping');
      await setScenario('node-4', 'router-overload');
      for (const [name, node] of [
        ['AvalancheGoConnectedStakeLow', 'node-3'],
        ['AvalancheGoTooFewPeers', 'node-3'],
        ['AvalancheGoRouterOverloaded', 'node-4'],
      ] as const) {
        await waitFor(`${name} critical for ${node}`, 90_000, () => firing(name, node, 'critical'));
      }
      await setScenario('node-3', 'healthy');
      await setScenario('node-4', 'healthy');
      const names = ['AvalancheGoConnectedStakeLow', 'AvalancheGoTooFewPeers', 'AvalancheGoRouterOverloaded'];
      await waitFor('the network and router alerts to resolve', 90_000, async () =>
        (await alerts()).some((x) => names.includes(x.labels['alertname'] ?? '')) ? undefined : true);
    }, 240_000);

    it('a stalled chain fires AvalancheGoChainStalled, and it resolves when the chain moves again', async () => {
      await setScenario('node-0', 'stalled-chain');
      const a = await waitFor('AvalancheGoChainStalled for node-0', 120_000, () => firing('AvalancheGoChainStalled', 'node-0'));
      expect(a.labels).toMatchObject({ severity: 'critical', node: 'node-0', chain: 'C' });
      expect(a.annotations['description']).toMatch(/^Chain C of node node-0 has stayed at height \d{5,} for 15 minutes/);
      await setScenario('node-0', 'healthy');
      await waitFor('AvalancheGoChainStalled to resolve', 90_000, async () =>
        (await alerts()).some((x) => x.labels['alertname'] === 'AvalancheGoChainStalled') ? undefined : true);
    }, 240_000);
  });
});
