// Detection quality, end to end: the simulator's fleet, the exporter polling it, a real
// Prometheus with the shipped rules and a real Alertmanager with the shipped configuration,
// and a webhook receiver on loopback counting what Alertmanager sends. Time is compressed
// `speedup` times: the simulator runs that much faster, Prometheus scrapes and evaluates
// every second, and copies of the rules and of the Alertmanager configuration have every
// duration divided by `speedup` (see compressRules, compressAlertmanager). Every figure of
// a result is in compressed time ("production" seconds: real seconds × speedup).
//
// The same run on VictoriaMetrics (engine 'victoriametrics'): the single-node server scrapes the
// exporter and vmalert evaluates the same compressed rules against it and alerts the same
// Alertmanager, with the evaluation delay of docs/victoriametrics.md compressed too.
//
// Used by test/rules/detection.test.ts (a short run) and scripts/detection.mjs (the report
// in docs/detection.md). Everything listens on 127.0.0.1; every process is stopped by PID.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { ROOT, alertRules } from './lib.js';
import { currentAlertmanager, prometheus3, victoriaMetrics, type Binary, type VictoriaMetrics } from '../helpers/monitoring.js';
import { L1_CHAIN, L1_SUBNET_ID, otherL1Validators } from '../../src/simulator/index.js';
import { isScenario, releaseOf } from '../../src/simulator/scenarios.js';
import { defined } from '../helpers/assert.js';
import { ProcessGroup } from '../helpers/processes.js';
import { freePort } from '../helpers/net.js';
import { buildIfStale } from '../helpers/build.js';
import { TestPrometheus, speedUpRules, waitFor as waitForProcs, type Alert, type Sample } from '../helpers/prometheus.js';
import { EVAL_DELAY_SECONDS, TestVictoriaMetrics } from '../helpers/victoriametrics.js';

export const AM_CONFIG = join(ROOT, 'deploy', 'alertmanager', 'alertmanager.yml');
export const JOB = 'avalanchego-exporter';
/**
 * The exporter's poll interval in the run (real seconds; also evm's; info, platform and proposervm every 3s), with a
 * 1.5s timeout: generous enough that a loaded machine does not turn slow polls into a node down.
 */
export const POLL_INTERVAL_S = 2;

// ---------------------------------------------------------------------------------------
// Compressed copies of the configuration

const SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 };
/** The length in seconds of a duration unit matched by a regular expression's group. */
function unitSeconds(unit: string | undefined): number {
  const u = defined(unit, 'a duration unit');
  return defined(SECONDS[u], `the length of the duration unit "${u}"`);
}

/**
 * The rule files with time compressed: every `for:`, `keep_firing_for:`, range and offset divided by `speedup`
 * (speedUpRules), and the thresholds in seconds of wall-clock time (ages and time left
 * against `time()`, runways, the disk forecast horizon), written as `N * 3600`, `N * 86400`
 * or as a comparison with 86400, 3600 or 1800, divided too: node timestamps are real time
 * while heights, disk, balances and scenarios run `speedup` times faster.
 */
export function compressRules(text: string, speedup: number): string {
  const scaled = (seconds: number) => String(Math.round(seconds / speedup));
  return speedUpRules(text, speedup)
    .replace(/\b(\d+) \* (3600|86400)\b/g, (_m, n: string, unit: string) => scaled(Number(n) * Number(unit)))
    .replace(/([<>]=?) (86400|3600|1800)\b/g, (_m, op: string, n: string) => `${op} ${scaled(Number(n))}`);
}

function compressDuration(d: string, speedup: number): string {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(d);
  if (!m) throw new Error(`unexpected Alertmanager duration "${d}"`);
  return `${Math.max(100, Math.round((Number(m[1]) * unitSeconds(m[2]) * 1000) / speedup))}ms`;
}

interface AmRoute {
  group_wait?: string;
  group_interval?: string;
  repeat_interval?: string;
  routes?: AmRoute[];
}
/** The shipped Alertmanager configuration with its timers divided by `speedup` and every webhook sent to `webhookBase`. */
export function compressAlertmanager(text: string, speedup: number, webhookBase: string): string {
  const cfg = parseYaml(text) as {
    global?: { resolve_timeout?: string };
    route: AmRoute;
    receivers: Array<{ webhook_configs?: Array<{ url: string }> }>;
  };
  const walk = (r: AmRoute) => {
    for (const k of ['group_wait', 'group_interval', 'repeat_interval'] as const) {
      if (r[k]) r[k] = compressDuration(r[k], speedup);
    }
    r.routes?.forEach(walk);
  };
  walk(cfg.route);
  if (cfg.global?.resolve_timeout) cfg.global.resolve_timeout = compressDuration(cfg.global.resolve_timeout, speedup);
  for (const r of cfg.receivers) {
    for (const w of r.webhook_configs ?? []) w.url = webhookBase + new URL(w.url).pathname;
  }
  return stringifyYaml(cfg);
}

/** `for:` of each alert and severity, in seconds (uncompressed). */
export function forSeconds(alertname: string, severity: string): number {
  const r = alertRules().find((a) => a.alert === alertname && a.labels?.['severity'] === severity);
  const m = /^(\d+)([smhd])$/.exec(r?.for ?? '0s');
  return m ? Number(m[1]) * unitSeconds(m[2]) : 0;
}

// ---------------------------------------------------------------------------------------
// A run

/** A node's plan: the scenario it switches to at each compressed second after the start. */
export interface NodePlan {
  /** What the report calls this node (a scenario, or "blips"). */
  label: string;
  steps: Array<[atSeconds: number, scenario: string]>;
  /** The scenario the node runs from its start, before the run begins (default healthy). */
  initial?: string;
  /** When the node is back to healthy for good (compressed seconds), for time to resolve. */
  recoveryAt?: number;
}

/** What evaluates the rules: Prometheus, or VictoriaMetrics' single-node server and vmalert. */
export type Engine = 'prometheus' | 'victoriametrics';

/** What a run reads its alerts and series from: TestPrometheus, or TestVictoriaMetrics. */
export interface RuleEngine {
  alerts(): Promise<Alert[]>;
  vector(expr: string): Promise<Sample[]>;
  waitFor<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T>;
}

export interface RunOptions {
  speedup: number;
  /** Default 'prometheus'. */
  engine?: Engine;
  nodes: NodePlan[];
  /** Length of the run after the start, in compressed seconds. */
  durationSeconds: number;
  seed?: string;
  /** Simulator flags besides the fleet's size, time scale and seed (default: every node validates the primary network and an L1). */
  simulatorArgs?: string[];
  log?: (line: string) => void;
  /** The Prometheus, VictoriaMetrics and Alertmanager binaries (default: the current ones, test/helpers/monitoring.ts). */
  prometheus?: Binary;
  victoriaMetrics?: VictoriaMetrics;
  alertmanager?: Binary;
}

export interface Notification {
  /** Compressed seconds since the start. */
  at: number;
  receiver: string;
  status: 'firing' | 'resolved';
  groupKey: string;
  alerts: Array<{ alertname: string; node: string; severity: string; status: string; description?: string }>;
}

export interface AlertRecord {
  alertname: string;
  severity: string;
  node: string;
  labels: Record<string, string>;
  /** Compressed seconds since the start: pending since (Prometheus activeAt), firing, resolved. */
  activeAt: number;
  firingAt?: number;
  resolvedAt?: number;
  /** Seen suppressed by an inhibition in Alertmanager, and by which alerts. */
  inhibited: boolean;
  inhibitedBy: Set<string>;
}

export interface NodeResult {
  node: string;
  plan: NodePlan;
  alerts: AlertRecord[];
  notifications: Notification[];
}

export interface RunResult {
  speedup: number;
  engine: Engine;
  scrapeSeconds: number;
  /** How late the rules are evaluated, production seconds: vmalert's -rule.evalDelay (0 for Prometheus). */
  evalDelaySeconds: number;
  durationSeconds: number;
  nodes: NodeResult[];
  /** The rule engine's versions ("prometheus, version 3.16.0 …", or victoria-metrics' and vmalert's) and Alertmanager's. */
  versions: { engine: string; alertmanager: string };
  /** Scrapes of the exporter in the run, how many failed, the slowest (real seconds); failed polls of the nodes (any source). */
  stats: {
    scrapes: number;
    failedScrapes: number;
    slowestScrapeSeconds: number;
    failedPolls: number;
    /** Polls begun (answered, failed or skipped) and those skipped as saturated; the worst share skipped in any 10 production minutes. */
    polls?: number;
    skippedPolls?: number;
    worstSkipRatio10m?: number;
  };
}

const alertKey = (l: Record<string, string>): string =>
  Object.keys(l)
    .sort()
    .map((k) => `${k}=${l[k]}`)
    .join(',');

/**
 * Whom an alert is about, for a run's per-node results: its `node` label, else (the L1 set's alerts: one per validator
 * or per L1, with no node label) whom the run's `subjectOf` names. Default: the node label, or ''.
 */
export type SubjectOf = (labels: Record<string, string>) => string;
const byNodeLabel: SubjectOf = (labels) => labels['node'] ?? '';

export interface AlertingStackOptions {
  /** Working directory: the compressed Alertmanager configuration and rule files, both stores. */
  dir: string;
  speedup: number;
  /** host:port of the exporter Prometheus scrapes (job JOB). */
  exporter: string;
  alertmanager: Binary;
  prometheus: Binary;
  /** Where the webhook receiver pushes each notification, stamped with `now()`. */
  notifications: Notification[];
  now: () => number;
  log: (line: string) => void;
  /** Whom each alert is about (default: its node label). */
  subjectOf?: SubjectOf;
}

export interface AlertingStack<E extends RuleEngine = TestPrometheus> {
  prom: E;
  amUrl: string;
  /** The webhook receiver: the caller closes it (the processes are `group`'s). */
  hook: Server;
}

/**
 * The alerting path of a run, in time compressed `speedup` times: a webhook receiver on
 * loopback, a real Alertmanager with the shipped configuration (compressAlertmanager, every
 * webhook to the receiver), ready, and a real Prometheus scraping `exporter` every second with
 * the shipped rules (compressRules) and alerting that Alertmanager. The processes are started
 * in `group`; if a start fails, the receiver is closed here.
 */
export async function startAlertingStack(group: ProcessGroup, o: AlertingStackOptions): Promise<AlertingStack> {
  const promBinary = o.prometheus.path;
  if (!promBinary) throw new Error(o.prometheus.missing);
  return withAlertmanager(group, o, (amAddress) =>
    TestPrometheus.start(group, {
      binary: promBinary,
      dir: o.dir,
      job: JOB,
      targets: [o.exporter],
      speedup: o.speedup,
      rules: (text) => compressRules(text, o.speedup),
      alertmanager: amAddress,
    }),
  );
}

/**
 * The alerting path of a run on VictoriaMetrics: as startAlertingStack, with the single-node
 * server scraping `exporter` every second and vmalert evaluating the compressed rules every
 * second against it (test/helpers/victoriametrics.ts), alerting the same Alertmanager.
 */
export async function startVmAlertingStack(
  group: ProcessGroup,
  o: Omit<AlertingStackOptions, 'prometheus'> & { victoriaMetrics: VictoriaMetrics },
): Promise<AlertingStack<TestVictoriaMetrics>> {
  const { victoriaMetrics: vmBin, vmalert } = o.victoriaMetrics;
  if (!vmBin.path) throw new Error(vmBin.missing);
  if (!vmalert.path) throw new Error(vmalert.missing);
  const [vmPath, vmalertPath] = [vmBin.path, vmalert.path];
  return withAlertmanager(group, o, (amAddress) =>
    TestVictoriaMetrics.start(group, {
      victoriaMetrics: vmPath,
      vmalert: vmalertPath,
      dir: o.dir,
      job: JOB,
      targets: [o.exporter],
      speedup: o.speedup,
      rules: (text) => compressRules(text, o.speedup),
      alertmanager: amAddress,
      // As docs/victoriametrics.md shows: the rules must hold with it (it labels the recorded series too).
      externalLabels: { cluster: 'detection' },
    }),
  );
}

/** The webhook receiver and Alertmanager of a stack, then its rule engine (`start`, given Alertmanager's host:port). */
async function withAlertmanager<E extends RuleEngine>(
  group: ProcessGroup,
  o: Omit<AlertingStackOptions, 'prometheus'>,
  start: (amAddress: string) => Promise<E>,
): Promise<AlertingStack<E>> {
  const am = o.alertmanager.path;
  if (!am) throw new Error(o.alertmanager.missing);
  const [amPort, hookPort] = [await freePort(), await freePort()];
  const amUrl = `http://127.0.0.1:${amPort}`;
  const hook = await startWebhook(hookPort, o.notifications, o.now, o.log, o.subjectOf);
  try {
    writeFileSync(join(o.dir, 'alertmanager.yml'), compressAlertmanager(readFileSync(AM_CONFIG, 'utf8'), o.speedup, `http://127.0.0.1:${hookPort}`));
    group.start('alertmanager', am, [
      `--config.file=${join(o.dir, 'alertmanager.yml')}`,
      `--storage.path=${join(o.dir, 'am')}`,
      `--web.listen-address=127.0.0.1:${amPort}`,
      '--cluster.listen-address=',
      '--log.level=warn',
    ]);
    await waitForProcs(group, 'Alertmanager to be ready', 30_000, async () => ((await fetch(`${amUrl}/-/ready`)).ok ? true : undefined));
    return { prom: await start(`127.0.0.1:${amPort}`), amUrl, hook };
  } catch (err) {
    await new Promise<void>((resolve) => hook.close(() => resolve()));
    throw err;
  }
}

/** Runs the plan once and returns what fired and what Alertmanager sent, per node. */
export async function runDetection(opts: RunOptions): Promise<RunResult> {
  const { speedup } = opts;
  const engine = opts.engine ?? 'prometheus';
  const log = opts.log ?? (() => {});
  const am = opts.alertmanager ?? currentAlertmanager().alertmanager;
  if (!am.path) throw new Error(am.missing);
  const promTool = opts.prometheus ?? prometheus3().prometheus;
  const vm = opts.victoriaMetrics ?? victoriaMetrics();
  if (engine === 'prometheus' && !promTool.path) throw new Error(promTool.missing);
  if (engine === 'victoriametrics' && (!vm.victoriaMetrics.path || !vm.vmalert.path))
    throw new Error(vm.victoriaMetrics.missing || vm.vmalert.missing);
  buildIfStale(ROOT);

  const group = new ProcessGroup(ROOT);
  const dir = mkdtempSync(join(tmpdir(), 'avalanchego-detection-'));
  const notifications: Notification[] = [];
  let t0 = 0;
  const now = () => ((Date.now() - t0) * speedup) / 1000;
  let hook: Server | undefined;
  const timers: NodeJS.Timeout[] = [];

  const waitFor = (what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<true> =>
    waitForProcs(group, what, timeoutMs, async () => ((await check()) ? true : undefined));

  try {
    const [simPort, expPort] = await Promise.all([freePort(), freePort()]);
    const simUrl = `http://127.0.0.1:${simPort}`;
    const names = opts.nodes.map((_, i) => `node-${i}`);
    group.start('simulator', process.execPath, [
      join(ROOT, 'dist', 'main.js'),
      'simulate',
      `--web.listen-address=127.0.0.1:${simPort}`,
      `--nodes=${names.length}`,
      `--time-scale=${speedup}`,
      `--seed=${opts.seed ?? 'avalanchego-detection'}`,
      ...(opts.simulatorArgs ?? ['--validators=all', '--track-l1']),
      // The simulator deals the list out in turn: node-i starts in the i-th plan's scenario.
      `--scenario=${opts.nodes.map((plan) => plan.initial ?? 'healthy').join(',')}`,
    ]);
    await waitFor('the simulator', 20_000, async () => (await fetch(`${simUrl}/sim/nodes`)).ok);
    const listed = (await (await fetch(`${simUrl}/sim/nodes`)).json()) as { nodes: Array<{ name: string; nodeId: string }> };
    const subjectOf = l1Subjects(opts.nodes, listed.nodes, opts.seed ?? 'avalanchego-detection');

    writeFileSync(
      join(dir, 'exporter.yaml'),
      [
        'defaults:',
        `  interval: ${POLL_INTERVAL_S}s`,
        '  timeout: 1500ms',
        '  info:',
        '    interval: 3s',
        '  platform:',
        '    interval: 3s',
        `    subnets: [${L1_SUBNET_ID}]`,
        // The executed height as often as health's accepted one: the backlog rule compares them.
        '  evm:',
        `    interval: ${POLL_INTERVAL_S}s`,
        '  proposervm:',
        '    interval: 3s',
        `    chains: [${L1_CHAIN.chainId}]`,
        'targets:',
        ...names.flatMap((n) => [`  - name: ${n}`, `    url: ${simUrl}/${n}`]),
        // The L1 watched as a whole, from every node that runs a release with L1s (a v1.10 node's P-Chain lists none).
        'l1s:',
        `  - subnet: ${L1_SUBNET_ID}`,
        '    interval: 3s',
        `    vantages: [${names.filter((_, i) => l1Release(defined(opts.nodes[i], `the plan of node ${i}`))).join(', ')}]`,
        '',
      ].join('\n'),
    );
    group.start('exporter', process.execPath, [
      join(ROOT, 'dist', 'main.js'),
      `--config.file=${join(dir, 'exporter.yaml')}`,
      `--web.listen-address=127.0.0.1:${expPort}`,
      '--log.level=warn',
    ]);
    await waitFor('the exporter', 20_000, async () => (await fetch(`http://127.0.0.1:${expPort}/metrics`)).ok);

    // The webhook receiver (every POST Alertmanager sends, with its arrival time), Alertmanager, Prometheus or VictoriaMetrics.
    // The webhook stamps wall-clock milliseconds, turned into compressed seconds once the start is known (below):
    // a node that runs its fault from its start (fromStart) may page before it, and that page is no later for it.
    const common = { dir, speedup, exporter: `127.0.0.1:${expPort}`, alertmanager: am, notifications, now: () => Date.now(), log, subjectOf };
    const stack: AlertingStack<RuleEngine> =
      engine === 'prometheus'
        ? await startAlertingStack(group, { ...common, prometheus: promTool })
        : await startVmAlertingStack(group, { ...common, victoriaMetrics: vm });
    hook = stack.hook;
    const { prom, amUrl } = stack;
    await waitFor(`every node up in ${engine === 'prometheus' ? 'Prometheus' : 'VictoriaMetrics'}`, 60_000, async () => {
      return (await prom.vector(`avalanchego_up{job="${JOB}"} == 1`)).length === names.length;
    });

    // The start: every node follows its plan from here.
    t0 = Date.now();
    log(`start: ${names.length} nodes, ${opts.durationSeconds}s compressed ${speedup}x (${Math.round(opts.durationSeconds / speedup)}s real)`);
    const switchTo = async (node: string, scenario: string) => {
      const res = await fetch(`${simUrl}/sim/nodes/${node}/scenario`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ scenario }),
      });
      if (!res.ok) throw new Error(`switching ${node} to ${scenario}: ${res.status} ${await res.text()}`);
    };
    const switchErrors: string[] = [];
    opts.nodes.forEach((plan, i) => {
      for (const [at, scenario] of plan.steps) {
        timers.push(
          setTimeout(
            () => {
              switchTo(defined(names[i], `the name of node ${i}`), scenario).catch((err: unknown) => switchErrors.push(String(err)));
            },
            (at * 1000) / speedup,
          ),
        );
      }
    });

    // Watch Prometheus's alerts and Alertmanager's view of them until the end.
    const records = new Map<string, AlertRecord>();
    const end = t0 + (opts.durationSeconds * 1000) / speedup;
    while (Date.now() < end) {
      const tick = Date.now();
      await observeAlerts(prom, amUrl, records, (iso) => ((Date.parse(iso) - t0) * speedup) / 1000, now, subjectOf);
      await new Promise((r) => setTimeout(r, Math.max(0, 500 - (Date.now() - tick))));
    }
    if (switchErrors.length) throw new Error(switchErrors.join('\n'));

    // How healthy the run itself was: scrapes of the exporter that failed, polls of the nodes that failed.
    const realSeconds = Math.ceil(opts.durationSeconds / speedup);
    const scalar = async (expr: string): Promise<number> => Number((await prom.vector(expr))[0]?.value[1] ?? 0);
    const stats = {
      scrapes: await scalar(`sum(count_over_time(up{job="${JOB}"}[${realSeconds}s]))`),
      failedScrapes: await scalar(`sum(count_over_time(up{job="${JOB}"}[${realSeconds}s])) - sum(sum_over_time(up{job="${JOB}"}[${realSeconds}s]))`),
      slowestScrapeSeconds: await scalar(`max(max_over_time(scrape_duration_seconds{job="${JOB}"}[${realSeconds}s]))`),
      failedPolls: await scalar(`sum(increase(avalanchego_exporter_poll_errors_total{job="${JOB}"}[${realSeconds}s]))`),
      // The exporter's own saturation on this machine: what AvalancheGoExporterSaturated's threshold is set against.
      polls: await scalar(`sum(increase(avalanchego_exporter_poll_start_delay_seconds_count{job="${JOB}"}[${realSeconds}s]))`),
      skippedPolls: await scalar(`sum(increase(avalanchego_exporter_polls_skipped_total{job="${JOB}"}[${realSeconds}s]))`),
      worstSkipRatio10m: await scalar(
        `max_over_time((sum(increase(avalanchego_exporter_polls_skipped_total{job="${JOB}"}[${Math.ceil(600 / speedup)}s])) / sum(increase(avalanchego_exporter_poll_start_delay_seconds_count{job="${JOB}"}[${Math.ceil(600 / speedup)}s])))[${realSeconds}s:1s])`,
      ),
    };

    const all = [...records.values()];
    // Those the webhook got until now (a later one is past the run's end), in compressed seconds since the start.
    const sent = notifications.map((n): Notification => ({ ...n, at: ((n.at - t0) * speedup) / 1000 }));
    return {
      speedup,
      engine,
      scrapeSeconds: speedup,
      evalDelaySeconds: engine === 'prometheus' ? 0 : EVAL_DELAY_SECONDS,
      durationSeconds: opts.durationSeconds,
      versions: {
        engine: engine === 'prometheus' ? promTool.version : `${vm.victoriaMetrics.version}; ${vm.vmalert.version}`,
        alertmanager: am.version,
      },
      stats,
      nodes: opts.nodes.map((plan, i) => ({
        node: defined(names[i], `the name of node ${i}`),
        plan,
        alerts: all.filter((a) => a.node === names[i]).sort((a, b) => a.activeAt - b.activeAt),
        notifications: sent.filter((n) => n.alerts.some((a) => a.node === names[i])),
      })),
    };
  } finally {
    for (const t of timers) clearTimeout(t);
    await group.stopAll();
    const server = hook;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every scenario a plan runs. */
const scenariosOf = (plan: NodePlan): string[] => [plan.initial ?? 'healthy', ...plan.steps.map(([, sc]) => sc)];

/** The node runs releases with L1s all along (a pre-Etna release lists no L1 validator: not a vantage of the L1). */
function l1Release(plan: NodePlan): boolean {
  return scenariosOf(plan).every((sc) => !isScenario(sc) || releaseOf(sc).l1);
}

/**
 * Whom the simulated L1's alerts are about (the L1 set's carry no node label): a validator of the fleet is its node;
 * another operator's validator is the node whose plan runs the scenario that stops it (L1_SET_SCENARIOS); the L1 itself
 * (AvalancheGoL1WeightAtRisk) is the node whose plan halts it (l1-halted), else the subnet.
 */
export function l1Subjects(plans: NodePlan[], nodes: ReadonlyArray<{ name: string; nodeId: string }>, seed: string): SubjectOf {
  const byId = new Map(nodes.map((n) => [n.nodeId, n.name]));
  const running = (scenario: string): string | undefined => {
    const i = plans.findIndex((p) => scenariosOf(p).includes(scenario));
    return i < 0 ? undefined : nodes[i]?.name;
  };
  // Their weights do not matter here: the IDs come from the seed.
  otherL1Validators(seed, 0n).forEach((v) => {
    const by = v.stoppedBy.map(running).find((n) => n !== undefined);
    if (by) byId.set(v.nodeId, by);
  });
  const halted = running('l1-halted');
  return (labels) => {
    const validator = labels['validator_node_id'];
    if (labels['node'] !== undefined) return labels['node'];
    if (validator !== undefined) return byId.get(validator) ?? validator;
    return labels['subnet'] === L1_SUBNET_ID && halted !== undefined ? halted : (labels['subnet'] ?? '');
  };
}

/**
 * A webhook receiver on 127.0.0.1:`port`: every notification Alertmanager sends is pushed to
 * `notifications`, stamped with `now()` (compressed seconds) and its receiver (the URL path).
 */
export async function startWebhook(
  port: number,
  notifications: Notification[],
  now: () => number,
  log: (line: string) => void,
  subjectOf: SubjectOf = byNodeLabel,
): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const at = now();
      try {
        const msg = JSON.parse(body) as {
          status: 'firing' | 'resolved';
          groupKey: string;
          alerts: Array<{ status: string; labels: Record<string, string>; annotations?: Record<string, string> }>;
        };
        notifications.push({
          at,
          receiver: (req.url ?? '/').slice(1),
          status: msg.status,
          groupKey: msg.groupKey,
          alerts: msg.alerts.map((a) => ({
            alertname: a.labels['alertname'] ?? '',
            node: subjectOf(a.labels),
            severity: a.labels['severity'] ?? '',
            status: a.status,
            description: a.annotations?.['description'] ?? '',
          })),
        });
      } catch (err) {
        log(`webhook: unreadable body: ${String(err)}`);
      }
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

/**
 * One look at Prometheus's alerts and at Alertmanager's view of them: a new alert (or a new
 * episode of one that resolved) starts a record, `firingAt` and `resolvedAt` are stamped with
 * `now()`, and an alert Alertmanager holds back is marked inhibited, with the inhibiting alerts.
 * `at` turns Prometheus's `activeAt` into compressed seconds since the start.
 */
export async function observeAlerts(
  prom: Pick<RuleEngine, 'alerts'>,
  amUrl: string,
  records: Map<string, AlertRecord>,
  at: (iso: string) => number,
  now: () => number,
  subjectOf: SubjectOf = byNodeLabel,
): Promise<void> {
  const promAlerts = await prom.alerts();
  const seen = new Set<string>();
  for (const a of promAlerts) {
    const key = alertKey(a.labels);
    seen.add(key);
    let r = records.get(key);
    if (!r || r.resolvedAt !== undefined) {
      // A new episode of an alert that resolved before starts a new record.
      if (r) records.set(`${key}#${r.resolvedAt}`, r);
      r = {
        alertname: a.labels['alertname'] ?? '',
        severity: a.labels['severity'] ?? '',
        node: subjectOf(a.labels),
        labels: a.labels,
        activeAt: at(a.activeAt),
        inhibited: false,
        inhibitedBy: new Set(),
      };
      records.set(key, r);
    }
    if (a.state === 'firing' && r.firingAt === undefined) r.firingAt = now();
  }
  for (const [key, r] of records) {
    if (!key.includes('#') && r.resolvedAt === undefined && !seen.has(key)) r.resolvedAt = now();
  }
  const amAlerts = (await (await fetch(`${amUrl}/api/v2/alerts?active=true&inhibited=true&silenced=true&unprocessed=true`)).json()) as Array<{
    labels: Record<string, string>;
    fingerprint: string;
    status: { state: string; inhibitedBy: string[] };
  }>;
  const byFingerprint = new Map(amAlerts.map((a) => [a.fingerprint, a.labels]));
  for (const a of amAlerts) {
    const r = records.get(alertKey(a.labels));
    if (!r || a.status.inhibitedBy.length === 0) continue;
    r.inhibited = true;
    for (const f of a.status.inhibitedBy) {
      const src = byFingerprint.get(f);
      r.inhibitedBy.add(src ? `${src['alertname']} (${src['severity']})` : f);
    }
  }
}

// ---------------------------------------------------------------------------------------
// Reading a result

export interface Summary {
  /** Incidents: notification groups of the pager (a paging service keys its incidents by the group, so an update of a group is not a new page). */
  pages: number;
  /** Notification groups of the ticket receiver (one per node). */
  tickets: number;
  digests: number;
  /** Firing notifications of any receiver, group updates included. */
  notifications: number;
  /** Distinct alert names that fired in Prometheus, with severity. */
  fired: string[];
  /** Of those, the ones Alertmanager held back by an inhibition, with the inhibiting alert. */
  inhibited: string[];
  /** What the pages and tickets named. */
  notified: string[];
  firstNotificationAt: number | undefined;
  /** From the notified alert becoming pending (condition true) to its first notification. */
  latency: number | undefined;
  /** That alert's `for:` plus two scrape intervals, plus the engine's evaluation delay (vmalert's -rule.evalDelay). */
  latencyTarget: number | undefined;
  /** From recovery to every alert of the node resolved in Prometheus / to the last resolved notification. */
  resolvedAfter: number | undefined;
  resolvedNotificationAfter: number | undefined;
}

export function summarize(n: NodeResult, scrapeSeconds: number, evalDelaySeconds = 0): Summary {
  const firing = n.notifications.filter((x) => x.status === 'firing');
  const first = firing[0];
  const firstAlert = first?.alerts.find((a) => a.node === n.node && a.status === 'firing');
  const rec =
    firstAlert && n.alerts.find((a) => a.alertname === firstAlert.alertname && a.severity === firstAlert.severity && a.firingAt !== undefined);
  const label = (a: { alertname: string; severity: string }) => `${a.alertname.replace(/^AvalancheGo/, '')} (${a.severity})`;
  const uniq = (xs: string[]) => [...new Set(xs)];
  const fired = n.alerts.filter((a) => a.firingAt !== undefined);
  const recovery = n.plan.recoveryAt;
  const resolvedTimes = recovery === undefined ? [] : fired.map((a) => a.resolvedAt ?? Infinity);
  const resolvedNotes = recovery === undefined ? [] : n.notifications.filter((x) => x.status === 'resolved' && x.at >= recovery).map((x) => x.at);
  return {
    pages: new Set(firing.filter((x) => x.receiver === 'pager').map((x) => x.groupKey)).size,
    tickets: new Set(firing.filter((x) => x.receiver === 'tickets').map((x) => x.groupKey)).size,
    digests: firing.filter((x) => x.receiver === 'digest').length,
    notifications: firing.length,
    fired: uniq(fired.map(label)),
    inhibited: uniq(
      fired.filter((a) => a.inhibited).map((a) => `${label(a)} by ${[...a.inhibitedBy].map((s) => s.replace(/^AvalancheGo/, '')).join(', ')}`),
    ),
    notified: uniq(
      firing.flatMap((x) => x.alerts.filter((a) => a.status === 'firing' && a.node === n.node).map((a) => `${label(a)} → ${x.receiver}`)),
    ),
    firstNotificationAt: first?.at,
    latency: first && rec ? first.at - rec.activeAt : undefined,
    latencyTarget: firstAlert ? forSeconds(firstAlert.alertname, firstAlert.severity) + 2 * scrapeSeconds + evalDelaySeconds : undefined,
    resolvedAfter: recovery === undefined || fired.length === 0 ? undefined : Math.max(...resolvedTimes) - recovery,
    resolvedNotificationAfter: recovery !== undefined && resolvedNotes.length ? Math.max(...resolvedNotes) - recovery : undefined,
  };
}
