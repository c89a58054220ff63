// What the end-to-end rule tests share, whatever engine evaluates the rules (Prometheus:
// e2e-prometheus.test.ts; VictoriaMetrics: e2e-victoriametrics.test.ts): the simulated fleet
// and the exporter polling it, and the check of every dashboard panel query against the
// engine's query API.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CATALOG, GLOBAL_CATALOG } from '../../src/metrics/catalog.js';
import { ROOT, allRules, panelQueries, parsePromQL, recordingRules } from './lib.js';
import type { ProcessGroup } from '../helpers/processes.js';
import { freePort } from '../helpers/net.js';
import { waitFor, type Alert, type QueryApi } from '../helpers/prometheus.js';

export const NODES = ['node-0', 'node-1', 'node-2', 'node-3', 'node-4'];
export const JOB = 'avalanchego-exporter';
/** Rules run 20 times faster: for: 3m → 9s, [10m] → 30s. */
export const SPEEDUP = 20;

/**
 * Waits until `api` has what the end-to-end checks read: every node up, a recording rule's
 * block rate (two samples of its range, written back by the engine) and, where the exporter
 * polls the platform source, every node's validator series.
 */
export async function waitForFleetData(group: ProcessGroup, api: QueryApi, engine: string): Promise<void> {
  await waitFor(group, `every node up in ${engine}`, 30_000, async () =>
    (await api.vector(`avalanchego_up{job="${JOB}"} == 1`)).length === NODES.length ? true : undefined,
  );
  await waitFor(group, 'recorded block rates', 30_000, async () =>
    (await api.vector('node_chain:avalanchego_chain_last_accepted_height:deriv5m > 0')).length > 0 ? true : undefined,
  );
  await waitFor(group, 'validator series, if the platform source runs', 30_000, async () =>
    (await api.vector(`avalanchego_exporter_poll_success{job="${JOB}", source="platform"}`)).length === 0 ||
    (await api.vector(`avalanchego_validator{job="${JOB}"}`)).length === NODES.length
      ? true
      : undefined,
  );
}

/**
 * The simulator's fleet of NODES (ten times faster than real time) and the exporter polling
 * it every second, started in `group` with the exporter's config in `dir`. Resolves once both
 * answer: the simulator's URL and the exporter's host:port.
 */
export async function startFleet(group: ProcessGroup, dir: string): Promise<{ simUrl: string; exporter: string }> {
  const [simPort, expPort] = [await freePort(), await freePort()];
  const simUrl = `http://127.0.0.1:${simPort}`;
  const ready = (what: string, url: string) => waitFor(group, what, 20_000, async () => ((await fetch(url)).ok ? true : undefined));
  group.start('simulator', process.execPath, [
    join(ROOT, 'dist', 'main.js'),
    'simulate',
    `--web.listen-address=127.0.0.1:${simPort}`,
    `--nodes=${NODES.length}`,
    '--time-scale=10',
    '--seed=avalanchego-e2e-rules',
  ]);
  await ready('the simulator', `${simUrl}/sim/nodes`);
  writeFileSync(
    join(dir, 'exporter.yaml'),
    [
      // info and platform every 5 s (not 30 s / 1 m): a first poll lost to load is soon retried.
      'defaults:',
      '  interval: 1s',
      '  timeout: 800ms',
      '  info: { interval: 5s }',
      '  platform: { interval: 5s }',
      'targets:',
      ...NODES.flatMap((n) => [`  - name: ${n}`, `    url: ${simUrl}/${n}`]),
      '',
    ].join('\n'),
  );
  group.start('exporter', process.execPath, [
    join(ROOT, 'dist', 'main.js'),
    `--config.file=${join(dir, 'exporter.yaml')}`,
    `--web.listen-address=127.0.0.1:${expPort}`,
  ]);
  await ready('the exporter', `http://127.0.0.1:${expPort}/metrics`);
  return { simUrl, exporter: `127.0.0.1:${expPort}` };
}

/** Grafana's variables as a user who selects the job and "All" elsewhere would set them. */
export function forEngine(expr: string): string {
  return expr
    .replaceAll('$__rate_interval', '4s')
    .replaceAll('$job', JOB)
    .replaceAll(/\$(instance|node|chain|subnet)\b/g, '.+');
}

// Panel queries that may rightly return nothing while every simulated node is healthy.
const MAY_BE_EMPTY = new Map<string, string>([
  ['Failing since', 'only failing checks have a first-failure time'],
  ['Unknown network upgrade', 'only a node that sees an unknown upgrade reports it'],
  ['Poll errors', 'no poll has failed yet (the fault tests run after this one)'],
]);

// Series this setup does not produce, with the reason. A panel query may be empty when a
// metric it reads has no series at all in the engine and is listed here, or comes from a
// source (info, platform, admin, node_metrics, chain_info, an L1 of l1s) that the exporter does not poll here (no poll_success
// series of that source): once a source runs, the panels that read it must have data.
const ABSENT_HERE = new Map<string, string>([
  ['avalanchego_l1_validator_balance_navax', 'the configuration lists no L1 in platform.subnets'],
  ['avalanchego_l1_validator_active', 'the configuration lists no L1 in platform.subnets'],
  ['avalanchego_next_upgrade_timestamp_seconds', 'served only while an upgrade is scheduled on the simulated network'],
  ['avalanchego_exporter_file_descriptor_errors_total', 'no connection fails for lack of file descriptors'],
  ['avalanchego_exporter_series_dropped', 'served only when a node reports more than the per-node limits allow'],
  ['avalanchego_exporter_poll_start_delay_seconds_bucket', 'served by the scheduler that measures poll-start delay (issue 10)'],
]);
const SOURCE_OF = new Map<string, string>([...CATALOG, ...GLOBAL_CATALOG].map((m) => [m.name, m.source as string]));
/** The recording rules' inputs, so that a recorded series inherits the reasons of what it reads. */
const RECORDED_FROM = new Map<string, string[]>(
  recordingRules().map((r) => [
    r.record as string,
    parsePromQL(r.expr)
      .selectors.map((x) => x.metric)
      .filter((m): m is string => m !== undefined),
  ]),
);

/** Every rule expression through `api`: the ones the engine refuses, with its error. */
export async function failingRuleExpressions(api: QueryApi): Promise<string[]> {
  const failures: string[] = [];
  for (const r of allRules()) {
    const res = await api.query(r.expr);
    if (res.status !== 'success') failures.push(`${r.alert ?? r.record}: ${res.error}`);
  }
  return failures;
}

/** The firing alerts among `alerts`, as "name node severity". */
export const firingNames = (alerts: Alert[]): string[] =>
  alerts.filter((a) => a.state === 'firing').map((a) => `${a.labels['alertname']} ${a.labels['node'] ?? ''} ${a.labels['severity']}`);

/** Whether the query reads a metric that this setup rightly does not produce (ABSENT_HERE, or a source not polled here). */
async function readsAbsentSeries(api: QueryApi, expr: string): Promise<boolean> {
  const allowed = async (metric: string, depth = 0): Promise<boolean> => {
    if (depth < 3 && RECORDED_FROM.has(metric)) {
      for (const m of RECORDED_FROM.get(metric) ?? []) if (await allowed(m, depth + 1)) return true;
      return false;
    }
    if ((await api.vector(`count({__name__="${metric}"})`)).length > 0) return false;
    if (ABSENT_HERE.has(metric)) return true;
    const source = SOURCE_OF.get(metric);
    return (
      ['info', 'platform', 'admin', 'node_metrics', 'chain_info', 'l1'].includes(source ?? '') &&
      (await api.vector(`avalanchego_exporter_poll_success{job="${JOB}", source="${source}"}`)).length === 0
    );
  };
  for (const s of parsePromQL(expr).selectors) if (s.metric && (await allowed(s.metric))) return true;
  return false;
}

/**
 * Every dashboard panel query through `api`: the ones the engine refuses (`failures`, with its
 * error), and the ones that return nothing although the fleet has their data (`empty`).
 */
export async function checkPanelQueries(api: QueryApi): Promise<{ failures: string[]; empty: string[] }> {
  const failures: string[] = [];
  const empty: string[] = [];
  for (const q of panelQueries()) {
    const expr = forEngine(q.expr);
    const res = await api.query(expr);
    if (res.status !== 'success') {
      failures.push(`${q.dashboard} / ${q.panel}: ${res.error}\n  ${expr}`);
      continue;
    }
    const n = Array.isArray(res.data?.result) ? res.data.result.length : 1;
    if (n === 0 && !MAY_BE_EMPTY.has(q.panel) && !(await readsAbsentSeries(api, expr))) empty.push(`${q.dashboard} / ${q.panel}: ${expr}`);
  }
  return { failures, empty };
}
