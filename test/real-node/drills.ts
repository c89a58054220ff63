// Fault drills on real AvalancheGo: the five-node local network (network.ts) polled by the
// exporter, scraped by a real Prometheus with the shipped rules, which alerts a real Alertmanager
// with the shipped configuration; a webhook receiver on loopback records what Alertmanager sends.
// Real faults are made on real nodes (SIGKILL, SIGSTOP, a filling tmpfs, a delayed or reset link,
// another staking key, an L1 balance running out, validators stopped, a new node joining) and
// each drill reports what paged, what the inhibitions held back, and how fast.
//
// Time is compressed as in the simulator's report (test/rules/detection-harness.ts): Prometheus
// scrapes and evaluates every second, the rules run from a copy with every `for:` and window
// divided by `speedup`, Alertmanager's timers too. The nodes run in real time, so every time
// here is real seconds × speedup ("production" seconds).
//
// Used by test/real-node/drills.test.ts (CI) and `npm run detection:real` (docs/detection.md).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { rm, statfs, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, ensureSubnetEvm, log as realLog, pinnedVersion } from './build.js';
import { rpcCall } from './http.js';
import { L1_EVM_CHAIN_ID, convertToL1, prepareL1, type L1Setup, type PreparedL1 } from './l1.js';
import { trackingFlags, waitChainRunning } from './l1-chain.js';
import { localNodeOptions, mergeFlags, startLocalNetwork, stakerOf, waitPrimaryBootstrapped, type LocalNetwork } from './network.js';
import { freePort, signal, startRealNode, type RealNode, type StartOptions } from './node.js';
import {
  JOB,
  forSeconds,
  observeAlerts,
  startAlertingStack,
  summarize,
  type AlertRecord,
  type NodeResult,
  type Notification,
  type SubjectOf,
  type Summary,
} from '../rules/detection-harness.js';
import { currentAlertmanager, prometheus3 } from '../helpers/monitoring.js';
import { defined } from '../helpers/assert.js';
import { ProcessGroup } from '../helpers/processes.js';
import type { TestPrometheus } from '../helpers/prometheus.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';

export const DRILL_NAMES = [
  'killed',
  'frozen',
  'disk-filling',
  'isolated',
  'quorum-lost',
  'new-staking-key',
  'l1-balance-drained',
  'l1-validator-stopped',
  'l1-halted',
  'slow-link',
  'fresh-node',
] as const;
export type DrillName = (typeof DRILL_NAMES)[number];

/** The drills on L1s: any of them needs the L1 set's nodes (l1a, l1b). */
const L1_DRILLS: DrillName[] = ['l1-balance-drained', 'l1-validator-stopped', 'l1-halted'];

/** The drills in the order they run: the ones in one group at once (they take no stake away), the groups one after the other. */
const PHASES: DrillName[][] = [
  ['slow-link', 'l1-balance-drained', 'fresh-node', 'disk-filling'],
  // Each alone: the halt's page holds back the L1's validator tickets (equal subnet), the stopped validator's among them.
  ['l1-validator-stopped'],
  ['l1-halted'],
  ['killed'],
  ['frozen'],
  ['new-staking-key'],
  ['quorum-lost'],
  ['isolated'],
];

/** The exporter's poll interval and timeout in the drills (real time), as in the simulator's report. */
export const POLL_INTERVAL_S = 2;
export const POLL_TIMEOUT_MS = 1500;
/** The slow link delays the node's answers this long: past the poll timeout. */
const SLOW_LINK_DELAY_MS = 4000;
/** The disk drill's tmpfs: small, so that the ballast is small. */
const DISK_MIB = 64;
/**
 * The disk drill's node: its data directory on the tmpfs, and a database on disk. With the
 * network's `--db-type=memdb` there is no database directory to measure, and the node's
 * diskspace check reports 100 % and 2^64 - 1 bytes whatever the disk holds.
 */
const DISK_NODE = (tmpfs: string): Partial<StartOptions> => ({ ...localNodeOptions(undefined, ['--db-type=leveldb']), dataDir: join(tmpfs, 'node') });
/** The L1 validator's balance lasts this long at the fee price (real seconds): shorter than L1ValidatorBalanceLow's `for:`. */
const L1_RUNWAY_REAL_S = 20;
/**
 * The watched L1 of the L1 drills, with a real Subnet-EVM chain: staker1 and staker3 validate it and are its vantages
 * (they run its chain; the exporter lists the L1 under `l1s:`), l1a and l1b validate it for another operator (nodes with
 * their own keys, not the exporter's targets). l1a holds 7.9 % of the weight (the vantages' L1 chain check stays above
 * its 85 % warning), l1b 39.5 %: past the 25 % of AvalancheGoL1WeightAtRisk. Not staker2, staker4 or staker5: the
 * killed, quorum-lost and new-staking-key drills take them down for longer than AvalancheGoL1ValidatorDown's `for:`
 * (staker3's SIGSTOP in the frozen drill ends before its peers' ping timeout).
 */
const L1_SET = { name: 'drillset', stakers: [1, 3], stakerWeight: 100n, others: { l1a: 30n, l1b: 150n } } as const;
/** Its validators' balances: this many seconds at the fee price (real time), far from every runway alert. */
const L1_SET_BALANCE_S = 30n * 86_400n;
/** The drained L1's weights: staker1 light (4.8 %), so that its running dry is not the L1's halt (AvalancheGoL1WeightAtRisk). */
const DRAINED_WEIGHTS = { staker1: 10n, other: 100n } as const;
/**
 * How long (real seconds) the halt drill keeps l1b down at most: the vantages' L1 chain check fails below 80 % of its
 * weight connected, and AvalancheGoConnectedStakeLow (for: 10m, 30 s here) would page for the L1's chain on each
 * vantage; the drill brings l1b back before, once the L1's page is sent (docs/runbook.md#avalanchegol1weightatrisk).
 */
const HALT_MAX_REAL_S = 20;

export interface Expectation {
  node: string;
  /** The alerts the pages name, in order (one page each); none: nothing pages. */
  pages: string[];
  tickets: number;
  /** Alerts that must fire and be held back by an inhibition, as the report's column says it: `NodeDown (critical) by DiskSpaceLow (critical)`. */
  heldBack?: string[];
}

export interface DrillSpec {
  name: DrillName;
  /** How the fault is made, for the report. */
  how: string;
  /** What the report expects, in words. */
  expected: string;
  expect: Expectation[];
  /**
   * A fault of the whole network: the pages (notification groups) all subjects share, counted
   * once for the drill, as the operator gets them (Alertmanager groups the alert by the network).
   * Each subject must still be named in one of them; the latency is the first page's, from the
   * fault's first condition on any subject. Unset: each subject's pages are its own.
   */
  pages?: number;
  /** Poll-error reasons of the drilled node's health polls: each `want` must be counted, no `not`. */
  reasons?: { node: string; want: string[]; not?: string[] };
}

/** A validator's share of the watched L1's weight, in percent (one decimal). */
function share(name: keyof typeof L1_SET.others): number {
  const total = BigInt(L1_SET.stakers.length) * L1_SET.stakerWeight + L1_SET.others.l1a + L1_SET.others.l1b;
  return Math.round((1000 * Number(L1_SET.others[name])) / Number(total)) / 10;
}

export const DRILLS: Record<DrillName, DrillSpec> = {
  killed: {
    name: 'killed',
    how: 'SIGKILL staker2; restarted on its ports once the page is sent',
    expected: '1 page: NodeDown; resolves after the restart',
    expect: [{ node: 'staker2', pages: ['NodeDown'], tickets: 0 }],
    reasons: { node: 'staker2', want: ['connect'] },
  },
  frozen: {
    name: 'frozen',
    how: 'SIGSTOP staker3 (its sockets still accept), SIGCONT once the page is sent',
    expected: '1 page: NodeDown, polls failing with reason `timeout`, not `connect`',
    expect: [{ node: 'staker3', pages: ['NodeDown'], tickets: 0 }],
    reasons: { node: 'staker3', want: ['timeout'], not: ['connect'] },
  },
  'disk-filling': {
    name: 'disk-filling',
    how: `the non-validator's data dir on a ${DISK_MIB} MiB tmpfs: a ballast file to 7 % free, to 4.5 % a minute later, then to 1.5 %, below the 3 % at which the node shuts itself down`,
    expected:
      "1 page: DiskSpaceLow (critical; the warning never tickets); once the node has shut itself down, NodeDown fires and the inhibition holds it back: the incident stays the disk's",
    expect: [{ node: 'nonvalidator', pages: ['DiskSpaceLow'], tickets: 0, heldBack: ['NodeDown (critical) by DiskSpaceLow (critical)'] }],
  },
  isolated: {
    name: 'isolated',
    how: "every peer of staker1 stopped (first taken out of the exporter's targets, as nodes of other operators): staker1 alone",
    expected: '1 page: TooFewPeers; its stake and chains held back',
    expect: [{ node: 'staker1', pages: ['TooFewPeers'], tickets: 0 }],
  },
  'quorum-lost': {
    name: 'quorum-lost',
    how: "staker4 and staker5 stopped (first taken out of the exporter's targets): 60 % of the stake left, the 80 % the chains need gone",
    expected: '1 page (ConnectedStakeLow) naming every node, not one a node or a chain',
    pages: 1,
    // Every node still polled when the drill starts (the fresh node and the non-validator if their drills ran).
    expect: ['staker1', 'staker2', 'staker3', 'fresh', 'nonvalidator'].map((node) => ({ node, pages: ['ConnectedStakeLow'], tickets: 0 })),
  },
  'new-staking-key': {
    name: 'new-staking-key',
    how: 'staker5 restarted on its ports with another (ephemeral) staking key and BLS key: a new node ID; then back on its own key',
    expected: '1 page: NoLongerValidator',
    expect: [{ node: 'staker5', pages: ['NoLongerValidator'], tickets: 0 }],
  },
  'l1-balance-drained': {
    name: 'l1-balance-drained',
    how: `a subnet converted to an L1 (watched under \`l1s:\`) with staker1 as its validator with a balance of ${L1_RUNWAY_REAL_S} s at the fee price (real time) and ${Math.round((1000 * Number(DRAINED_WEIGHTS.staker1)) / Number(DRAINED_WEIGHTS.staker1 + 2n * DRAINED_WEIGHTS.other)) / 10} % of its weight, l1a and l1b the rest`,
    expected:
      'L1ValidatorBalanceLow pending (the balance runs out before its `for:`), then 1 page: L1ValidatorInactive; the set-wide series show staker1 inactive (active 0, balance 0); the L1 is not at risk',
    expect: [
      { node: 'staker1', pages: ['L1ValidatorInactive'], tickets: 0 },
      { node: 'drilll1', pages: [], tickets: 0 },
    ],
  },
  'l1-validator-stopped': {
    name: 'l1-validator-stopped',
    how: `SIGKILL l1a, another operator's validator of a real Subnet-EVM L1 (${share('l1a')} % of its weight) watched from staker1 and staker3; restarted on its ports and key once the ticket is sent`,
    expected: '1 ticket: L1ValidatorDown for l1a (seen disconnected by every vantage); no page: the weight at risk is under 25 %',
    expect: [
      { node: 'l1a', pages: [], tickets: 1 },
      { node: L1_SET.name, pages: [], tickets: 0 },
    ],
  },
  'l1-halted': {
    name: 'l1-halted',
    how: `SIGKILL l1b, another operator's validator of the same L1 (${share('l1b')} % of its weight: its consensus cannot finalize); restarted once the page is sent`,
    expected: "1 page: L1WeightAtRisk for the L1; l1b's L1ValidatorDown, if it fires, held back by it (no ticket)",
    expect: [
      { node: L1_SET.name, pages: ['L1WeightAtRisk'], tickets: 0 },
      { node: 'l1b', pages: [], tickets: 0 },
    ],
  },
  'slow-link': {
    name: 'slow-link',
    how: `staker4 polled through a TCP proxy: answers delayed ${SLOW_LINK_DELAY_MS / 1000} s (real; the poll timeout is ${POLL_TIMEOUT_MS / 1000} s), then every connection reset, then the link restored`,
    expected: '1 page: NodeDown, polls failing with reason `timeout`, then `connect`',
    expect: [{ node: 'staker4', pages: ['NodeDown'], tickets: 0 }],
    reasons: { node: 'staker4', want: ['timeout', 'connect'] },
  },
  'fresh-node': {
    name: 'fresh-node',
    how: 'a new node (ephemeral key) starts, is added to the targets at once, and bootstraps from the network',
    expected: 'nothing',
    expect: [{ node: 'fresh', pages: [], tickets: 0 }],
  },
};

/** What one subject of a drill got: the simulator report's summary, and the page alerts in order. */
export interface SubjectResult {
  node: string;
  expect: Expectation;
  summary: Summary;
  /** The alert names of the pages (distinct groups) that name this subject, in order. */
  pagedFor: string[];
  /** Those pages' groups (receiver and group key), in the same order. */
  pageGroups: string[];
  /** Alerts whose condition held in the drill but that never fired (their `for:` not reached). */
  pendingOnly: string[];
  /** Alerts that fired before the drill, still firing, and held back by an alert the drill fired. */
  alsoHeldBack: string[];
}

export interface DrillResult {
  name: DrillName;
  spec: DrillSpec;
  /** Production seconds from the start of the run to the drill's start, and its length. */
  startedAt: number;
  durationSeconds: number;
  subjects: SubjectResult[];
  /** Poll-error reasons of the node named by spec.reasons over the drill (failed polls). */
  reasons: Record<string, number>;
  /** Pages and tickets of the nodes that were no subject of a drill running at the time. */
  controls: { pages: string[]; tickets: string[] };
  /** Set when the drill could not run: why. */
  skipped?: string;
  /** Set when the drill threw. */
  error?: string;
}

export interface DrillRun {
  version: string;
  speedup: number;
  versions: { prometheus: string; alertmanager: string };
  /** Real seconds: the network's start, and the whole run. */
  networkSeconds: number;
  totalSeconds: number;
  drills: DrillResult[];
  /** What Alertmanager sent and every alert's course over the whole run (production seconds). */
  timeline: { notifications: Notification[]; records: AlertRecord[] };
}

// ---------------------------------------------------------------------------------------
// Judging a drill

const short = (alertname: string): string => alertname.replace(/^AvalancheGo/, '');

/** Latency target of a page: the alert's `for:` plus two scrape intervals (production seconds). */
export function pageTarget(alert: string, speedup: number): number {
  return forSeconds(`AvalancheGo${alert}`, 'critical') + 2 * speedup;
}

export function judge(d: DrillResult, speedup: number): { ok: boolean; why: string } {
  if (d.skipped) return { ok: false, why: d.skipped };
  if (d.error) return { ok: false, why: d.error };
  const misses: string[] = [];
  const shared = d.spec.pages !== undefined;
  for (const s of d.subjects) {
    const want = s.expect.pages;
    if (s.pagedFor.join(',') !== want.join(','))
      misses.push(
        `${s.node}: paged for ${s.pagedFor.length ? s.pagedFor.join(', then ') : 'nothing'}, expected ${want.length ? want.join(', then ') : 'nothing'}`,
      );
    if (s.summary.tickets !== s.expect.tickets) misses.push(`${s.node}: ${s.summary.tickets} tickets, expected ${s.expect.tickets}`);
    for (const h of s.expect.heldBack ?? []) if (!s.summary.inhibited.includes(h)) misses.push(`${s.node}: ${h} not seen held back`);
    const first = want[0];
    if (!shared && first && s.summary.latency !== undefined && s.summary.latency > pageTarget(first, speedup))
      misses.push(`${s.node}: paged ${Math.round(s.summary.latency)}s after the condition held, target ${pageTarget(first, speedup)}s`);
  }
  if (shared) {
    const groups = pagesOf(d);
    if (groups !== d.spec.pages) misses.push(`${groups} pages for ${d.subjects.map((s) => s.node).join(', ')} together, expected ${d.spec.pages}`);
    const first = d.subjects.find((s) => s.expect.pages[0])?.expect.pages[0];
    const latency = sharedLatency(d);
    if (first && latency !== undefined && latency > pageTarget(first, speedup))
      misses.push(`the first page came ${Math.round(latency)}s after the fault's first condition, target ${pageTarget(first, speedup)}s`);
  }
  if (d.controls.pages.length) misses.push(`the healthy controls paged: ${d.controls.pages.join(', ')}`);
  const r = d.spec.reasons;
  if (r) {
    for (const w of r.want) if (!(d.reasons[w] ?? 0)) misses.push(`no poll of ${r.node} failed with reason ${w}`);
    for (const n of r.not ?? []) if (d.reasons[n]) misses.push(`${d.reasons[n]} polls of ${r.node} failed with reason ${n}`);
  }
  return { ok: misses.length === 0, why: misses.join('; ') };
}

/** The pages of a drill: its subjects' page groups, each counted once (a shared page is one). */
function pagesOf(d: DrillResult): number {
  return new Set(d.subjects.flatMap((s) => s.pageGroups)).size;
}

/** A shared page's latency: from the first condition on any subject to the first page naming any. */
function sharedLatency(d: DrillResult): number | undefined {
  const paged = d.subjects.filter((s) => s.summary.latency !== undefined && s.summary.firstNotificationAt !== undefined);
  if (paged.length === 0) return undefined;
  const onset = Math.min(...paged.map((s) => (s.summary.firstNotificationAt ?? 0) - (s.summary.latency ?? 0)));
  return Math.min(...paged.map((s) => s.summary.firstNotificationAt ?? 0)) - onset;
}

/**
 * Why a drill failed, as lines to print (bounded): the notifications sent over it, and the course of
 * every alert of the nodes its verdict names, so that a failure in CI can be read from its log.
 */
export function explain(run: DrillRun, d: DrillResult, why: string): string[] {
  const from = d.startedAt;
  const to = d.startedAt + d.durationSeconds;
  const named = [...run.timeline.records.map((r) => r.node)].filter((n, i, all) => n && all.indexOf(n) === i && why.includes(`${n}:`));
  const at = (t: number | undefined): string => (t === undefined ? '-' : String(Math.round(t - from)));
  const lines = run.timeline.notifications
    .filter((x) => x.at >= from && x.at <= to)
    .map((x) =>
      `notification ${at(x.at)}s ${x.receiver} ${x.status} [${x.alerts.map((a) => `${a.node}:${short(a.alertname)}(${a.severity}):${a.status}`).join(' ')}]`.slice(
        0,
        400,
      ),
    )
    .slice(0, 40);
  const courses = run.timeline.records
    .filter((r) => named.includes(r.node) && (r.resolvedAt ?? Infinity) >= from - 60 && r.activeAt <= to)
    .map(
      (r) =>
        `alert ${r.node} ${short(r.alertname)}(${r.severity}) ${JSON.stringify(r.labels['chain'] ?? '')} pending ${at(r.activeAt)}s firing ${at(r.firingAt)}s resolved ${at(r.resolvedAt)}s${r.inhibited ? ` inhibited by ${[...r.inhibitedBy].map(short).join(', ')}` : ''}`,
    )
    .slice(0, 60);
  return [`${d.name}: times in production seconds from the drill's start (${Math.round(from)}s into the run)`, ...lines, ...courses];
}

/** The drill's JSON line (`npm run detection:real` prints one a drill). */
export function jsonLine(d: DrillResult, speedup: number): Record<string, unknown> {
  const pages = pagesOf(d);
  const tickets = d.subjects.reduce((t, s) => t + s.summary.tickets, 0);
  const firstPaged = d.subjects
    .filter((s) => s.summary.firstNotificationAt !== undefined && s.pagedFor.length)
    .sort((a, b) => (a.summary.firstNotificationAt ?? 0) - (b.summary.firstNotificationAt ?? 0))[0];
  // The slowest subject's first page, against its target.
  const slowest = d.subjects
    .filter((s) => s.summary.latency !== undefined && s.pagedFor[0])
    .sort((a, b) => (b.summary.latency ?? 0) - (a.summary.latency ?? 0))[0];
  const verdict = judge(d, speedup);
  const shared = d.spec.pages === undefined ? undefined : sharedLatency(d);
  const sharedFirst = d.subjects.find((s) => s.pagedFor[0])?.pagedFor[0];
  return {
    drill: d.name,
    pages,
    tickets,
    first_page_alert: firstPaged ? `AvalancheGo${defined(firstPaged.pagedFor[0], 'the first page')}` : null,
    ...(d.spec.pages !== undefined
      ? {
          latency_s: shared === undefined ? null : Math.round(shared),
          target_s: sharedFirst ? pageTarget(sharedFirst, speedup) : null,
        }
      : {
          latency_s: slowest?.summary.latency === undefined ? null : Math.round(slowest.summary.latency),
          target_s: slowest ? pageTarget(defined(slowest.pagedFor[0], 'the first page'), speedup) : null,
        }),
    meets_target: verdict.ok,
    ...(verdict.ok ? {} : { why: verdict.why }),
  };
}

// ---------------------------------------------------------------------------------------
// The stack

interface Stack {
  network: LocalNetwork;
  /** The exporter's targets by name: the nodes it polls now. */
  nodes: Map<string, RealNode>;
  /** Every node started, for the final stop (restarts included). */
  started: Set<RealNode>;
  proxy: TcpProxy;
  /** The URL the exporter polls for each target (staker4 through the proxy). */
  urls: Map<string, string>;
  prom: TestPrometheus;
  group: ProcessGroup;
  exporterPid: number;
  configFile: string;
  exporterUrl: string;
  records: Map<string, AlertRecord>;
  notifications: Notification[];
  /** Production seconds since the start of the run. */
  now(): number;
  speedup: number;
  l1?: PreparedL1;
  /** The L1 drills' watched L1, and its other operator's validators by name (not targets). */
  l1set?: L1Set;
  tmpfs?: string;
  log(line: string): void;
}

function exporterConfig(s: Pick<Stack, 'urls' | 'l1' | 'l1set'>): string {
  // Both L1s watched as a whole: their vantages are the targets (platform.subnets lists them); those that do not run
  // an L1's chain answer its validators API 404, a state, not a failure.
  const subnets = [s.l1?.subnetId, s.l1set?.setup.subnetId].filter((x) => x !== undefined);
  return [
    'defaults:',
    `  interval: ${POLL_INTERVAL_S}s`,
    `  timeout: ${POLL_TIMEOUT_MS}ms`,
    '  info:',
    '    interval: 3s',
    '  platform:',
    '    interval: 3s',
    ...(subnets.length ? [`    subnets: [${subnets.join(', ')}]`] : []),
    'targets:',
    ...[...s.urls].flatMap(([name, url]) => [`  - name: ${name}`, `    url: ${url}`]),
    ...(subnets.length ? ['l1s:', ...subnets.flatMap((subnet) => [`  - subnet: ${subnet}`, '    interval: 3s'])] : []),
    '',
  ].join('\n');
}

/** The L1 drills' L1: its setup and its other operator's validators (l1a, l1b), which keep their keys across a kill. */
interface L1Set {
  setup: L1Setup;
  others: Map<keyof typeof L1_SET.others, RealNode>;
  /** The flags that make a node run the L1's chain. */
  flags: string[];
}

/** A node with its own staking and BLS keys, kept in its data directory (generated at its first start). */
const KEPT_KEY_FLAGS = ['--staking-ephemeral-cert-enabled=false', '--staking-ephemeral-signer-enabled=false'];

/**
 * Stops `node` with `how` (SIGKILL: a crash) and starts it again on its ports and in its data directory, so with its
 * keys (a node of another operator, not a genesis staker), with `extraFlags` added, bootstrapping from staker1.
 * The old node's stop() is not called: it would remove the data directory the new one runs in.
 */
async function restartKept(
  network: LocalNetwork,
  started: Set<RealNode>,
  node: RealNode,
  how: 'SIGTERM' | 'SIGKILL',
  extraFlags: string[] = [],
): Promise<RealNode> {
  const alive = (): boolean => {
    try {
      process.kill(node.pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (alive()) signal(node.pid, how);
  const deadline = Date.now() + 30_000;
  while (alive()) {
    if (Date.now() > deadline) throw new Error(`node pid ${node.pid} still running 30 s after ${how}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  started.delete(node);
  const staker1 = network.staker(1);
  const next = await startRealNode({
    ...node.options,
    extraFlags: mergeFlags(node.options.extraFlags ?? [], extraFlags),
    bootstrap: [{ ip: `127.0.0.1:${staker1.stakingPort}`, nodeId: staker1.nodeId }],
  });
  started.add(next);
  if (next.nodeId !== node.nodeId) throw new Error(`${node.url} came back as ${next.nodeId}, not ${node.nodeId}: its keys were not kept`);
  return next;
}

/**
 * The L1 drills' L1, set up before the drills: a subnet with a Subnet-EVM chain, l1a and l1b started (their own keys,
 * not targets), the subnet converted to an L1 validated by staker1, staker3, l1a and l1b (balances for 30 days), then each
 * restarted tracking the subnet (the chain runs only on nodes started with --track-subnets naming it), and every one
 * running the chain.
 */
async function startL1Set(network: LocalNetwork, started: Set<RealNode>, log: (line: string) => void): Promise<L1Set> {
  const t0 = Date.now();
  const plugin = await ensureSubnetEvm();
  const staker1 = network.staker(1);
  const prepared = await prepareL1(staker1.url, L1_SET.name, L1_EVM_CHAIN_ID - 2);
  const flags = trackingFlags(plugin, prepared.subnetId);
  const others = new Map<keyof typeof L1_SET.others, RealNode>();
  for (const name of Object.keys(L1_SET.others) as Array<keyof typeof L1_SET.others>) {
    const ports = { http: await freePort(), staking: await freePort() };
    const dataDir = mkdtempSync(join(tmpdir(), `avalanchego-drill-${name}-`));
    const node = await startRealNode({
      ...localNodeOptions(undefined, KEPT_KEY_FLAGS),
      bootstrap: [{ ip: `127.0.0.1:${staker1.stakingPort}`, nodeId: staker1.nodeId }],
      ports,
      dataDir,
    });
    started.add(node);
    others.set(name, node);
  }
  await Promise.all([...others.values()].map((n) => waitPrimaryBootstrapped(n)));
  const fee = await rpcCall<{ price: number }>(staker1.url, '/ext/bc/P', 'platform.getValidatorFeeState', {});
  const balance = BigInt(Math.max(1, Math.round(fee.price))) * L1_SET_BALANCE_S;
  const setup = await convertToL1(prepared, [
    ...L1_SET.stakers.map((n) => ({ url: network.staker(n).url, weight: L1_SET.stakerWeight, balance })),
    ...[...others].map(([name, node]) => ({ url: node.url, weight: L1_SET.others[name], balance })),
  ]);
  // One at a time: the others keep the primary network's quorum while each re-bootstraps.
  for (const n of L1_SET.stakers) started.add(await network.startStaker(n, flags));
  for (const [name, node] of others) others.set(name, await restartKept(network, started, node, 'SIGTERM', flags));
  await Promise.all([...L1_SET.stakers.map((n) => network.staker(n)), ...others.values()].map((node) => waitChainRunning(node, setup.chainId)));
  log(
    `L1 ${setup.subnetId} (chain ${setup.chainId}) validated by staker${L1_SET.stakers.join(', staker')}, ${[...others.keys()].join(', ')}: running in ${Math.round((Date.now() - t0) / 1000)}s`,
  );
  return { setup, others, flags };
}

/** The value of the sample of `name` whose labels include `labels`, in an exposition text; undefined without one. */
function sampleOf(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

async function exporterMetrics(s: Stack): Promise<string> {
  const res = await fetch(`${s.exporterUrl}/metrics`);
  return res.ok ? res.text() : '';
}

/** Rewrites the exporter's targets and reloads it (SIGHUP); waits until its /metrics shows them. */
async function setTargets(s: Stack, change: (urls: Map<string, string>) => void): Promise<void> {
  change(s.urls);
  writeFileSync(s.configFile, exporterConfig(s));
  signal(s.exporterPid, 'SIGHUP');
  await until(s, `the exporter to poll ${[...s.urls.keys()].join(', ')}`, 30, async () => {
    const text = await exporterMetrics(s);
    const polled = new Set([...text.matchAll(/^avalanchego_up\{[^}]*node="([^"]+)"/gm)].map((m) => m[1]));
    return [...s.urls.keys()].every((n) => polled.has(n)) && [...polled].every((n) => n !== undefined && s.urls.has(n));
  });
}

/** Waits for `check` (every 250 ms) at most `realSeconds`; fails with `what`. */
async function until(s: Stack, what: string, realSeconds: number, check: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + realSeconds * 1000;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${realSeconds}s (real) waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Waits `productionSeconds` of compressed time: how long a fault is held, not a wait for a condition. */
async function hold(s: Stack, productionSeconds: number): Promise<void> {
  await new Promise((r) => setTimeout(r, (productionSeconds * 1000) / s.speedup));
}

const paged = (s: Stack, node: string, alert: string, after = 0): boolean =>
  s.notifications.some(
    (n) =>
      n.at >= after &&
      n.receiver === 'pager' &&
      n.status === 'firing' &&
      n.alerts.some((a) => a.node === node && a.alertname === `AvalancheGo${alert}`),
  );
const ticketed = (s: Stack, node: string, alert: string, after = 0): boolean =>
  s.notifications.some(
    (n) =>
      n.at >= after &&
      n.receiver === 'tickets' &&
      n.status === 'firing' &&
      n.alerts.some((a) => a.node === node && a.alertname === `AvalancheGo${alert}` && a.status === 'firing'),
  );
const resolved = (s: Stack, node: string, alert: string, after: number): boolean =>
  s.notifications.some(
    (n) =>
      n.at >= after &&
      n.status === 'resolved' &&
      n.alerts.some((a) => a.node === node && a.alertname === `AvalancheGo${alert}` && a.status === 'resolved'),
  );
/** A live validator to bootstrap from, other than `except`. */
function bootstrapper(s: Stack, except: RealNode): { ip: string; nodeId: string } {
  const from = s.network.nodes.find((n) => n !== except && [...s.started].includes(n) && s.nodes.get(`staker${stakerOf(n)}`) === n);
  const first = defined(from ?? s.network.nodes[0], 'a node to bootstrap from');
  return { ip: `127.0.0.1:${first.stakingPort}`, nodeId: first.nodeId };
}

/**
 * Stops `name`'s node and starts it again on the same ports: as it was (its flags, a tracked L1
 * included), or with the options `o` replacing them (another profile, another key).
 */
async function restart(s: Stack, name: string, o: Partial<StartOptions> = {}): Promise<RealNode> {
  const old = defined(s.nodes.get(name), `the node ${name}`);
  await old.stop();
  s.started.delete(old);
  const node = await startRealNode({
    ...old.options,
    ...o,
    bootstrap: [bootstrapper(s, old)],
    ports: old.options.ports,
  });
  s.started.add(node);
  s.nodes.set(name, node);
  return node;
}

/** Restarts a killed validator of the L1 set's other operator on its ports and keys, running the L1's chain. */
async function restartL1Validator(s: Stack, name: keyof typeof L1_SET.others): Promise<void> {
  const set = defined(s.l1set, 'the L1 set');
  const node = defined(set.others.get(name), name);
  set.others.set(name, await restartKept(s.network, s.started, node, 'SIGKILL'));
}

async function stopNode(s: Stack, name: string): Promise<void> {
  const node = s.nodes.get(name);
  if (!node) return;
  await node.stop();
  s.started.delete(node);
  s.nodes.delete(name);
}

// ---------------------------------------------------------------------------------------
// The drills: each makes its fault, holds it until the page (or a deadline), recovers, and
// returns when the recovery has shown (production seconds since the drill's start).

type Run = (s: Stack, at: () => number) => Promise<{ recoveryAt?: number }>;

const RUNS: Record<DrillName, Run> = {
  async killed(s, at) {
    const node = defined(s.nodes.get('staker2'), 'staker2');
    signal(node.pid, 'SIGKILL');
    const start = s.now();
    await until(s, 'the NodeDown page of staker2', 60, () => paged(s, 'staker2', 'NodeDown', start));
    await restart(s, 'staker2');
    const recoveryAt = at();
    const back = s.now();
    await until(s, 'the resolved NodeDown of staker2', 90, () => resolved(s, 'staker2', 'NodeDown', back));
    return { recoveryAt };
  },

  async frozen(s, at) {
    const node = defined(s.nodes.get('staker3'), 'staker3');
    signal(node.pid, 'SIGSTOP');
    const start = s.now();
    try {
      await until(s, 'the NodeDown page of staker3', 60, () => paged(s, 'staker3', 'NodeDown', start));
    } finally {
      signal(node.pid, 'SIGCONT');
    }
    const recoveryAt = at();
    const back = s.now();
    await until(s, 'the resolved NodeDown of staker3', 90, () => resolved(s, 'staker3', 'NodeDown', back));
    return { recoveryAt };
  },

  async 'slow-link'(s, at) {
    s.proxy.set({ mode: 'delay', delayMs: SLOW_LINK_DELAY_MS });
    const start = s.now();
    try {
      await until(s, 'the NodeDown page of staker4', 60, () => paged(s, 'staker4', 'NodeDown', start));
      // The link breaks for good: connections reset for two minutes.
      s.proxy.set({ mode: 'reset' });
      await hold(s, 120);
    } finally {
      s.proxy.set({ mode: 'pass' });
    }
    const recoveryAt = at();
    const back = s.now();
    await until(s, 'the resolved NodeDown of staker4', 90, () => resolved(s, 'staker4', 'NodeDown', back));
    return { recoveryAt };
  },

  async 'disk-filling'(s, at) {
    const dir = defined(s.tmpfs, 'the tmpfs');
    const ballast = join(dir, 'ballast');
    // The node's own files grow a little meanwhile: each step measures the disk again.
    const fillTo = async (freeRatio: number): Promise<void> => {
      const fs = await statfs(dir);
      const blocksToFill = fs.bavail - Math.ceil(fs.blocks * freeRatio);
      if (blocksToFill <= 0) return;
      const more = Buffer.alloc(blocksToFill * fs.bsize, 1);
      await writeFile(ballast, more, { flag: 'a' });
    };
    await fillTo(0.07);
    // Past 5 % within a minute: the critical level inhibits the warning before its ticket's group_wait (2m) ends.
    await hold(s, 60);
    await fillTo(0.045);
    const start = s.now();
    await until(s, 'the DiskSpaceLow page of the non-validator', 60, () => paged(s, 'nonvalidator', 'DiskSpaceLow', start));
    await fillTo(0.015);
    const node = defined(s.nodes.get('nonvalidator'), 'the non-validator');
    const exited = s.now();
    await until(s, 'the non-validator to shut itself down', 60, async () => (await node.logTail(400)).includes('low on disk space. Shutting down'));
    // NodeDown fires, and Alertmanager holds it back: the critical DiskSpaceLow keeps firing on the node's last reading.
    await until(s, "the non-validator's NodeDown firing and held back by DiskSpaceLow", 60, () =>
      [...s.records.values()].some(
        (r) =>
          r.node === 'nonvalidator' &&
          r.alertname === 'AvalancheGoNodeDown' &&
          (r.firingAt ?? -1) >= exited &&
          r.inhibitedBy.has('AvalancheGoDiskSpaceLow (critical)'),
      ),
    );
    // Held a little longer: a page of NodeDown (group_wait 10s) would show now.
    await hold(s, 60);
    await rm(ballast, { force: true });
    await restart(s, 'nonvalidator', DISK_NODE(dir));
    const recoveryAt = at();
    const back = s.now();
    await until(s, 'the resolved DiskSpaceLow page of the non-validator', 90, () => resolved(s, 'nonvalidator', 'DiskSpaceLow', back));
    return { recoveryAt };
  },

  async 'new-staking-key'(s, at) {
    await restart(s, 'staker5', { ...localNodeOptions(undefined) });
    const start = s.now();
    await until(s, 'the NoLongerValidator page of staker5', 120, () => paged(s, 'staker5', 'NoLongerValidator', start));
    await restart(s, 'staker5');
    const recoveryAt = at();
    const back = s.now();
    await until(s, 'the resolved NoLongerValidator of staker5', 120, () => resolved(s, 'staker5', 'NoLongerValidator', back));
    return { recoveryAt };
  },

  async 'l1-balance-drained'(s) {
    const l1 = defined(s.l1, 'the prepared L1');
    const staker1 = defined(s.nodes.get('staker1'), 'staker1');
    const others = [...defined(s.l1set, 'the L1 set (its other validators)').others.values()];
    const fee = await rpcCall<{ price: number }>(staker1.url, '/ext/bc/P', 'platform.getValidatorFeeState', {});
    const balance = BigInt(Math.max(1, Math.round(fee.price * L1_RUNWAY_REAL_S)));
    s.log(`l1-balance-drained: fee price ${fee.price} nAVAX/s; balance ${balance} nAVAX`);
    // staker1 light among validators with a long runway: its running dry is its own page, not the L1's halt.
    const long = BigInt(Math.max(1, Math.round(fee.price))) * L1_SET_BALANCE_S;
    await convertToL1(l1, [
      { url: staker1.url, balance, weight: DRAINED_WEIGHTS.staker1 },
      ...others.map((n) => ({ url: n.url, balance: long, weight: DRAINED_WEIGHTS.other })),
    ]);
    const start = s.now();
    await until(s, 'the L1ValidatorInactive page of staker1', 90, () => paged(s, 'staker1', 'L1ValidatorInactive', start));
    // The set-wide series (l1s:, no node label) say it too: the whole set, staker1 inactive with a balance of 0.
    const mine = { subnet: l1.subnetId, validator_node_id: staker1.nodeId };
    await until(s, "staker1 inactive in the L1's set-wide series", 30, async () => {
      const text = await exporterMetrics(s);
      return (
        sampleOf(text, 'avalanchego_l1_set_validators', { subnet: l1.subnetId }) === 1 + others.length &&
        sampleOf(text, 'avalanchego_l1_set_validator_active', mine) === 0 &&
        sampleOf(text, 'avalanchego_l1_set_validator_balance_navax', mine) === 0 &&
        sampleOf(text, 'avalanchego_l1_set_validator_runway_seconds', mine) === 0
      );
    });
    // No recovery: topping the balance up is another transaction (IncreaseL1ValidatorBalanceTx); the L1 stays inactive.
    return {};
  },

  async 'l1-validator-stopped'(s, at) {
    const set = defined(s.l1set, 'the L1 set');
    signal(defined(set.others.get('l1a'), 'l1a').pid, 'SIGKILL');
    const start = s.now();
    await until(s, 'the L1ValidatorDown ticket of l1a', 60, () => ticketed(s, 'l1a', 'L1ValidatorDown', start));
    await restartL1Validator(s, 'l1a');
    const recoveryAt = at();
    const back = s.now();
    await until(s, 'the resolved L1ValidatorDown of l1a', 90, () => resolved(s, 'l1a', 'L1ValidatorDown', back));
    return { recoveryAt };
  },

  async 'l1-halted'(s, at) {
    const set = defined(s.l1set, 'the L1 set');
    signal(defined(set.others.get('l1b'), 'l1b').pid, 'SIGKILL');
    const start = s.now();
    try {
      await until(s, 'the L1WeightAtRisk page of the L1', HALT_MAX_REAL_S, () => paged(s, L1_SET.name, 'L1WeightAtRisk', start));
    } finally {
      await restartL1Validator(s, 'l1b');
    }
    const recoveryAt = at();
    const back = s.now();
    await until(s, 'the resolved L1WeightAtRisk of the L1', 90, () => resolved(s, L1_SET.name, 'L1WeightAtRisk', back));
    return { recoveryAt };
  },

  async 'fresh-node'(s, at) {
    const ports = { http: await freePort(), staking: await freePort() };
    // Monitored from its first second, as a node added to the fleet while it starts.
    await setTargets(s, (urls) => urls.set('fresh', `http://127.0.0.1:${ports.http}`));
    const node = await startRealNode({ ...localNodeOptions(undefined), bootstrap: [bootstrapper(s, s.network.nonValidator)], ports });
    s.started.add(node);
    s.nodes.set('fresh', node);
    await until(s, 'the fresh node to be bootstrapped (exporter)', 120, async () =>
      (await exporterMetrics(s))
        .split('\n')
        .some(
          (l) =>
            l.startsWith('avalanchego_health_check_passing{') && l.includes('check="bootstrapped"') && l.includes('node="fresh"') && l.endsWith(' 1'),
        ),
    );
    const readyAt = at();
    // Quiet for the longest `for:` a bootstrapped node's alerts could reach meanwhile (10m).
    await hold(s, 15 * 60);
    return { recoveryAt: readyAt };
  },

  async 'quorum-lost'(s) {
    const gone = ['staker4', 'staker5'].filter((n) => s.nodes.has(n));
    await setTargets(s, (urls) => gone.forEach((n) => urls.delete(n)));
    await Promise.all(gone.map((n) => stopNode(s, n)));
    const start = s.now();
    const subjects = DRILLS['quorum-lost'].expect.map((e) => e.node).filter((n) => s.nodes.has(n));
    await until(s, `a ConnectedStakeLow page of ${subjects.join(', ')}`, 120, () => subjects.every((n) => paged(s, n, 'ConnectedStakeLow', start)));
    // A little longer: a second page of a node (another chain) would show now.
    await hold(s, 5 * 60);
    return {};
  },

  async isolated(s) {
    const peers = [...s.nodes.keys()].filter((n) => n !== 'staker1');
    await setTargets(s, (urls) => peers.forEach((n) => urls.delete(n)));
    // The L1 set's other operator's validators are staker1's peers too.
    await Promise.all([
      ...peers.map((n) => stopNode(s, n)),
      s.network.nonValidator.stop(),
      ...[...(s.l1set?.others.values() ?? [])].map((n) => n.stop()),
    ]);
    const start = s.now();
    await until(s, 'the TooFewPeers page of staker1', 120, () => paged(s, 'staker1', 'TooFewPeers', start));
    await hold(s, 5 * 60);
    return {};
  },
};

// ---------------------------------------------------------------------------------------
// A run

export interface DrillOptions {
  drills?: readonly DrillName[];
  speedup?: number;
  log?: (line: string) => void;
}

/** The mounts this process made, unmounted at exit if a run could not. */
const mounts = new Set<string>();
process.once('exit', () => {
  for (const m of mounts) spawnSync('umount', ['-l', m]);
});

function mountTmpfs(mib: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'avalanchego-drill-disk-'));
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${mib}m`, 'avalanchego-drill', dir], { encoding: 'utf8' });
  if (r.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`mount -t tmpfs failed (root is needed): ${r.stderr || r.error?.message}`);
  }
  mounts.add(dir);
  return dir;
}

function unmount(dir: string): void {
  const r = spawnSync('umount', [dir], { encoding: 'utf8' });
  if (r.status !== 0) spawnSync('umount', ['-l', dir]);
  mounts.delete(dir);
  rmSync(dir, { recursive: true, force: true });
}

/** Runs the drills on one local network and returns what each gave. */
export async function runDrills(opts: DrillOptions = {}): Promise<DrillRun> {
  const speedup = opts.speedup ?? 20;
  const wanted = new Set(opts.drills ?? DRILL_NAMES);
  const asked = DRILL_NAMES.filter((n) => wanted.has(n));
  const skipped = new Map<DrillName, string>();
  const log = opts.log ?? ((line: string) => realLog(`[drills] ${line}`));
  // The binaries the simulator's report runs (test/helpers/monitoring.ts).
  const am = currentAlertmanager().alertmanager;
  if (!am.path) throw new Error(am.missing);
  const promTool = prometheus3().prometheus;
  if (!promTool.path) throw new Error(promTool.missing);
  const version = await pinnedVersion();
  const runStarted = Date.now();

  const group = new ProcessGroup(REPO_ROOT);
  const dir = mkdtempSync(join(tmpdir(), 'avalanchego-drills-'));
  const notifications: Notification[] = [];
  const records = new Map<string, AlertRecord>();
  let t0 = Date.now();
  const now = (): number => ((Date.now() - t0) * speedup) / 1000;
  let network: LocalNetwork | undefined;
  let proxy: TcpProxy | undefined;
  let hook: Server | undefined;
  let tmpfs: string | undefined;
  const started = new Set<RealNode>();
  const watching = { on: false };
  let watcher: Promise<void> | undefined;

  try {
    network = await startLocalNetwork();
    const networkSeconds = network.startSeconds;
    for (const n of [...network.nodes, network.nonValidator]) started.add(n);
    // The L1 drills' watched L1 (a real chain on staker1, staker3, l1a, l1b): before the targets are listed, as it restarts stakers.
    const l1set = L1_DRILLS.some((n) => wanted.has(n)) ? await startL1Set(network, started, log) : undefined;
    const nodes = new Map<string, RealNode>(network.nodes.map((n) => [`staker${stakerOf(n)}`, n]));
    nodes.set('nonvalidator', network.nonValidator);
    const staker1 = defined(nodes.get('staker1'), 'staker1');
    const staker4 = defined(nodes.get('staker4'), 'staker4');
    proxy = await TcpProxy.start({ host: '127.0.0.1', port: Number(new URL(staker4.url).port) });
    const urls = new Map<string, string>([...nodes].map(([name, n]) => [name, n.url]));
    urls.set('staker4', `http://127.0.0.1:${proxy.port}`);
    const l1 = wanted.has('l1-balance-drained') ? await prepareL1(staker1.url) : undefined;

    const expPort = await freePort();
    const configFile = join(dir, 'exporter.yaml');
    writeFileSync(configFile, exporterConfig({ urls, l1, ...(l1set ? { l1set } : {}) }));
    // Whom an L1 set alert is about (it has no node label): the validator's name, else its L1's.
    const names = new Map<string, string>([...nodes].map(([name, n]) => [n.nodeId, name]));
    for (const [name, n] of l1set?.others ?? []) names.set(n.nodeId, name);
    if (l1) names.set(l1.subnetId, l1.chainName);
    if (l1set) names.set(l1set.setup.subnetId, L1_SET.name);
    const l1Subjects = new Set([l1?.chainName, ...(l1set ? [L1_SET.name, ...l1set.others.keys()] : [])].filter((x) => x !== undefined));
    const subjectOf: SubjectOf = (labels) =>
      labels['node'] ?? names.get(labels['validator_node_id'] ?? '') ?? names.get(labels['subnet'] ?? '') ?? labels['subnet'] ?? '';
    const exporter = group.start('exporter', process.execPath, [
      join(REPO_ROOT, 'dist', 'main.js'),
      `--config.file=${configFile}`,
      `--web.listen-address=127.0.0.1:${expPort}`,
      '--log.level=warn',
    ]);
    const stack = await startAlertingStack(group, {
      dir,
      speedup,
      exporter: `127.0.0.1:${expPort}`,
      alertmanager: am,
      prometheus: promTool,
      notifications,
      now,
      log,
      subjectOf,
    });
    hook = stack.hook;
    const { prom, amUrl } = stack;
    const s: Stack = {
      network,
      nodes,
      started,
      proxy,
      urls,
      prom,
      group,
      exporterPid: defined(exporter.child.pid, 'the exporter pid'),
      configFile,
      exporterUrl: `http://127.0.0.1:${expPort}`,
      records,
      notifications,
      now,
      speedup,
      ...(l1 ? { l1 } : {}),
      ...(l1set ? { l1set } : {}),
      log,
    };

    if (wanted.has('disk-filling')) {
      try {
        tmpfs = mountTmpfs(DISK_MIB);
      } catch (err) {
        // Listed in the report with the reason, not left out.
        skipped.set('disk-filling', `this machine cannot run it: ${(err as Error).message}`);
        wanted.delete('disk-filling');
      }
    }
    if (tmpfs) {
      s.tmpfs = tmpfs;
      await restart(s, 'nonvalidator', DISK_NODE(tmpfs));
    }
    await prom.waitFor('every node up and healthy in Prometheus', 120_000, async () =>
      (await prom.vector(`avalanchego_healthy{job="${JOB}"} == 1`)).length === urls.size ? true : undefined,
    );

    // The start: from here the alerts are watched, every figure counted from it.
    t0 = Date.now();
    watching.on = true;
    watcher = (async () => {
      while (watching.on) {
        const tick = Date.now();
        await observeAlerts(prom, amUrl, records, (iso) => ((Date.parse(iso) - t0) * speedup) / 1000, now, subjectOf).catch((err: unknown) =>
          log(`watching the alerts: ${String(err)}`),
        );
        await new Promise((r) => setTimeout(r, Math.max(0, 500 - (Date.now() - tick))));
      }
    })();

    const results: DrillResult[] = [];
    for (const phase of PHASES) {
      const names = phase.filter((n) => wanted.has(n));
      if (names.length === 0) continue;
      const phaseStart = now();
      const subjects = new Set(names.flatMap((n) => DRILLS[n].expect.map((e) => e.node)));
      const targeted = new Set(s.urls.keys());
      const controlsBefore = new Set([...targeted].filter((n) => !subjects.has(n)));
      log(`drills ${names.join(', ')} (controls: ${[...controlsBefore].join(', ') || 'none'})`);
      const outcomes = await Promise.all(
        names.map(async (name): Promise<{ name: DrillName; start: number; end: number; recoveryAt?: number; error?: string }> => {
          const start = now();
          try {
            const r = await RUNS[name](s, () => now() - start);
            return { name, start, end: now(), ...r };
          } catch (err) {
            log(`${name} failed: ${(err as Error).message}`);
            return { name, start, end: now(), error: (err as Error).message.split('\n')[0] ?? 'failed' };
          }
        }),
      );
      const phaseEnd = now();
      // Control pages and tickets: the nodes no drill of the phase is about, over the phase.
      const opened = incidents(notifications);
      const inPhase = notifications.filter((x) => x.at >= phaseStart && x.at <= phaseEnd && opened.has(x));
      const controlOf = (receiver: string): string[] => [
        ...new Set(
          inPhase
            .filter((x) => x.receiver === receiver)
            .flatMap((x) =>
              x.alerts
                .filter((a) => controlsBefore.has(a.node) && a.status === 'firing')
                .map((a) => `${a.node}: ${short(a.alertname)} (${a.severity})`),
            ),
        ),
      ];
      const controls = { pages: controlOf('pager'), tickets: controlOf('tickets') };
      for (const o of outcomes) {
        const spec = DRILLS[o.name];
        const reasonNode = spec.reasons?.node;
        const realSeconds = Math.max(1, Math.ceil((o.end - o.start) / speedup));
        const reasons: Record<string, number> = {};
        if (reasonNode) {
          // Over the drill itself (its end may be well before the phase's).
          const q = new URLSearchParams({
            query: `sum by (reason) (increase(avalanchego_exporter_poll_errors_total{job="${JOB}",node="${reasonNode}",source="health"}[${realSeconds}s]))`,
            time: String((t0 + (o.end * 1000) / speedup) / 1000),
          });
          const body = (await (await fetch(`${prom.url}/api/v1/query?${q.toString()}`)).json()) as {
            data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
          };
          for (const v of body.data.result) reasons[defined(v.metric['reason'], 'a reason')] = Math.round(Number(v.value[1]));
        }
        results.push({
          name: o.name,
          spec,
          startedAt: o.start,
          durationSeconds: o.end - o.start,
          // The nodes polled at the phase's start, or added by a drill of it (the fresh node); an L1 or its validator.
          subjects: spec.expect
            .filter((e) => targeted.has(e.node) || s.urls.has(e.node) || l1Subjects.has(e.node))
            .map((e) => subjectResult(e, o, records, notifications, speedup)),
          reasons,
          controls,
          ...(o.error === undefined ? {} : { error: o.error }),
        });
      }
    }
    // AVALANCHEGO_DRILLS_DUMP=<file>: every notification and alert record, to read a drill's verdict by.
    const dump = process.env.AVALANCHEGO_DRILLS_DUMP;
    if (dump)
      writeFileSync(
        dump,
        JSON.stringify(
          { t0, speedup, notifications, records: [...records.values()].map((r) => ({ ...r, inhibitedBy: [...r.inhibitedBy] })) },
          null,
          1,
        ),
      );
    return {
      version,
      speedup,
      timeline: { notifications, records: [...records.values()] },
      versions: { prometheus: promTool.version, alertmanager: am.version },
      networkSeconds,
      totalSeconds: Math.round((Date.now() - runStarted) / 1000),
      drills: asked.map((n) => {
        const why = skipped.get(n);
        if (why !== undefined)
          return {
            name: n,
            spec: DRILLS[n],
            startedAt: 0,
            durationSeconds: 0,
            subjects: [],
            reasons: {},
            controls: { pages: [], tickets: [] },
            skipped: why,
          };
        return defined(
          results.find((r) => r.name === n),
          `the result of ${n}`,
        );
      }),
    };
  } finally {
    watching.on = false;
    await watcher;
    await group.stopAll();
    await proxy?.close();
    const server = hook;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    await Promise.all([...started].map((n) => n.stop()));
    await network?.stop();
    if (tmpfs) unmount(tmpfs);
    rmSync(dir, { recursive: true, force: true });
  }
}

const groupOf = (n: Notification): string => `${n.receiver} ${n.groupKey}`;

/**
 * The notifications that open an incident: the first firing one of a group, or the first since
 * the group's last resolved one. A repeat (repeat_interval) or an update of an open group is not
 * a new page, as a paging service keys its incidents by the group.
 */
function incidents(all: Notification[]): Set<Notification> {
  const open = new Set<string>();
  const out = new Set<Notification>();
  for (const n of [...all].sort((a, b) => a.at - b.at)) {
    const key = groupOf(n);
    if (n.status === 'resolved') open.delete(key);
    else if (!open.has(key)) {
      open.add(key);
      out.add(n);
    }
  }
  return out;
}

/** One subject of a drill, its times shifted to the drill's start (the simulator report's summary). */
export function subjectResult(
  e: Expectation,
  o: { start: number; end: number; recoveryAt?: number },
  records: Map<string, AlertRecord>,
  notifications: Notification[],
  speedup: number,
): SubjectResult {
  const shift = (t: number | undefined): number | undefined => (t === undefined ? undefined : t - o.start);
  const alerts = [...records.values()]
    .filter((r) => r.node === e.node && (r.firingAt ?? r.activeAt) >= o.start && r.activeAt <= o.end)
    .map((r) => {
      const firingAt = shift(r.firingAt);
      const resolvedAt = shift(r.resolvedAt);
      return {
        ...r,
        activeAt: r.activeAt - o.start,
        ...(firingAt === undefined ? {} : { firingAt }),
        ...(resolvedAt === undefined ? {} : { resolvedAt }),
      };
    })
    .sort((a, b) => a.activeAt - b.activeAt);
  // The incidents the drill opened (a page still open from an earlier drill is that drill's). A
  // group the node shares with others (a network's fault) may have been opened by another node's
  // alert, and name this node in a later update.
  const inDrill = (x: Notification): boolean => x.at >= o.start && x.at <= o.end;
  const openedHere = new Set([...incidents(notifications)].filter(inDrill).map(groupOf));
  const inWindow = notifications.filter((x) => inDrill(x) && x.alerts.some((a) => a.node === e.node));
  const ownGroups = new Set(inWindow.map(groupOf).filter((g) => openedHere.has(g)));
  const own = inWindow
    .filter((x) => ownGroups.has(groupOf(x)))
    .map((x) => {
      // The node's view of a notification: an update of a shared group that names only this node's
      // resolved alerts resolves it for the node (it was paged or ticketed for the others).
      const alerts = x.alerts.filter((a) => a.node === e.node);
      const status = x.status === 'firing' && !alerts.some((a) => a.status === 'firing') ? 'resolved' : x.status;
      return { ...x, at: x.at - o.start, status, alerts };
    });
  const n: NodeResult = {
    node: e.node,
    plan: { label: e.node, steps: [], ...(o.recoveryAt === undefined ? {} : { recoveryAt: o.recoveryAt }) },
    alerts,
    notifications: own,
  };
  const pagedFor: string[] = [];
  const pageGroups: string[] = [];
  for (const x of own) {
    if (x.receiver !== 'pager' || x.status !== 'firing' || pageGroups.includes(groupOf(x))) continue;
    const a = x.alerts.find((y) => y.status === 'firing');
    if (!a) continue;
    pageGroups.push(groupOf(x));
    pagedFor.push(short(a.alertname));
  }
  const summary = summarize(n, speedup);
  const label = (r: AlertRecord): string => `${short(r.alertname)} (${r.severity})`;
  const pendingOnly = [...new Set(alerts.filter((r) => r.firingAt === undefined).map(label))];
  const firedHere = new Set(alerts.filter((r) => r.firingAt !== undefined).map((r) => `${r.alertname} (${r.severity})`));
  const alsoHeldBack = [
    ...new Set(
      [...records.values()]
        .filter(
          (r) => r.node === e.node && r.firingAt !== undefined && r.firingAt < o.start && (r.resolvedAt === undefined || r.resolvedAt > o.start),
        )
        .flatMap((r) => {
          const by = [...r.inhibitedBy].filter((x) => firedHere.has(x));
          return by.length ? [`${label(r)} by ${by.map(short).join(', ')}`] : [];
        }),
    ),
  ];
  return { node: e.node, expect: e, summary, pagedFor, pageGroups, pendingOnly, alsoHeldBack };
}

// ---------------------------------------------------------------------------------------
// The report: the section "Real AvalancheGo" of docs/detection.md

/** The section's bounds in docs/detection.md: the simulator's report keeps what lies between them. */
export const SECTION_START = '<!-- real-avalanchego:start -->';
export const SECTION_END = '<!-- real-avalanchego:end -->';

function fmt(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return '–';
  const t = Math.round(seconds);
  const m = Math.floor(t / 60);
  return m === 0 ? `${t}s` : `${m}m${t % 60 ? ` ${String(t % 60).padStart(2, '0')}s` : ''}`;
}
const cell = (xs: string[]): string => (xs.length ? xs.join('<br>') : '–');

export function renderSection(run: DrillRun, started: Date, command: string): string {
  const k = run.speedup;
  const lines: string[] = [
    SECTION_START,
    '## Real AvalancheGo',
    '',
    `Generated by \`${command}\` on ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC: AvalancheGo ${run.version},`,
    `${run.versions.prometheus}; ${run.versions.alertmanager}. The drills took ${fmt(run.totalSeconds)} of real time (the network's start ${fmt(run.networkSeconds)}).`,
    '',
    'The same path as above, with real faults on real nodes instead of simulated ones: the five-node local network of the',
    'real-node suite (`test/real-node/network.ts`: five genesis validators and a non-validator, v' +
      run.version.slice(1) +
      ', health checks every 2s),',
    'polled by the exporter, scraped by a real Prometheus with the shipped rules, which alerts a real Alertmanager with the',
    'shipped configuration. The drills are `test/real-node/drills.ts`; CI runs them (`test/real-node/drills.test.ts`), and a',
    'drill that misses its target fails it. What differs from the simulator is in [`real-node.md`](real-node.md#fault-drills-real-nodes-against-the-simulator).',
    '',
    `Time is compressed ${k} times as above (rules, windows and Alertmanager timers divided by ${k}; Prometheus every 1s, the exporter every`,
    `${POLL_INTERVAL_S}s with a ${POLL_TIMEOUT_MS / 1000}s timeout), and **every time below is in production time** (real seconds × ${k}). The nodes themselves`,
    `run in real time: a restart that takes 10 real seconds shows as ${fmt(10 * k)}.`,
    '',
    'Drills that take no stake away run at once (slow link, L1 balance, fresh node, disk); the others one after the other,',
    'each with the nodes it is not about as the healthy control (**Other nodes**: what they got meanwhile). A node taken out of',
    `a 5-validator network leaves the others connected to 80 % of the stake, below ConnectedStakeLow's 85 % warning: held longer`,
    "than its `for:` (10m), that opens a ticket on each of them, which is the rule's intent, not noise. Each drill holds its fault until",
    "its page is sent, then recovers. **Latency** is from the paged alert's condition becoming true to the page; the target is its `for:`",
    `plus two scrape intervals (${fmt(2 * k)}).`,
    '',
  ];
  const ran = run.drills.filter((d) => !d.skipped);
  const ok = ran.filter((d) => judge(d, k).ok);
  const skipped = run.drills.filter((d) => d.skipped);
  lines.push(
    `${ok.length} of ${run.drills.length} drills meet their target` +
      (ran.length - ok.length
        ? `; ${ran
            .filter((d) => !judge(d, k).ok)
            .map((d) => `**${d.name}** misses it (${judge(d, k).why})`)
            .join('; ')}`
        : '') +
      (skipped.length ? `; not run: ${skipped.map((d) => `**${d.name}** (${d.skipped})`).join('; ')}` : '') +
      '.',
    '',
    '| Drill | How | Expected | Node | Pages | Tickets | Notifications | Sent for | First notification | Latency (target) | Alerts that fired | Held back by inhibition | Resolved (notification) | Failed polls | Other nodes | Meets target |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const d of run.drills) {
    const verdict = judge(d, k);
    const reasons = Object.entries(d.reasons)
      .filter(([, n]) => n > 0)
      .map(([r, n]) => `${r}: ${n}`);
    const others = [...d.controls.pages.map((p) => `page ${p}`), ...d.controls.tickets.map((t) => `ticket ${t}`)];
    const rows = d.subjects.length ? d.subjects : [undefined];
    rows.forEach((s, i) => {
      const first = s?.expect.pages[0];
      const target = first ? pageTarget(first, k) : undefined;
      const head = i === 0 ? [`\`${d.name}\``, d.spec.how, d.spec.expected] : ['', '', ''];
      const tail = i === 0 ? [cell(reasons), cell(others), verdict.ok ? 'yes' : `**no**: ${verdict.why}`] : ['', '', ''];
      if (!s) {
        lines.push(`| ${[...head, '–', '–', '–', '–', '–', '–', '–', '–', '–', '–', ...tail].join(' | ')} |`);
        return;
      }
      const m = s.summary;
      lines.push(
        `| ${[
          ...head,
          s.node,
          String(s.pagedFor.length),
          String(m.tickets),
          String(m.notifications),
          cell(m.notified),
          fmt(m.firstNotificationAt),
          m.latency === undefined ? '–' : `${fmt(m.latency)} (${fmt(target)})`,
          cell([...m.fired, ...s.pendingOnly.map((x) => `${x}: pending, never fired`)]),
          cell([...m.inhibited, ...s.alsoHeldBack.map((x) => `${x} (firing since an earlier drill)`)]),
          `${fmt(m.resolvedAfter)} (${fmt(m.resolvedNotificationAfter)})`,
          ...tail,
        ].join(' | ')} |`,
      );
    });
  }
  lines.push('', SECTION_END);
  return lines.join('\n');
}

/** `doc` with its real-AvalancheGo section replaced by `section` (appended when it has none). */
export function spliceSection(doc: string, section: string): string {
  const a = doc.indexOf(SECTION_START);
  const b = doc.indexOf(SECTION_END);
  if (a < 0 || b < a) return `${doc.trimEnd()}\n\n${section}\n`;
  return doc.slice(0, a) + section + doc.slice(b + SECTION_END.length);
}
