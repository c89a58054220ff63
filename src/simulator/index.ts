// The AvalancheGo API simulator: a fleet of fake nodes that answer the
// health, index, admin, info and P-Chain APIs byte for byte like AvalancheGo
// v1.14.2 (or an older version), driven by scenarios switchable at runtime.
// See docs/simulator.md.

import { SimClock } from './clock.js';
import { SimNode } from './node.js';
import { DEFAULT_TIMINGS, DOWN_MODES, GARBAGE_MODES, SCENARIOS, isScenario, type ScenarioName, type ScenarioTimings } from './scenarios.js';
import { FleetServer, type ScenarioOverrides } from './server.js';
import { FleetL1 } from './l1-set.js';
import type { MetricsFiller } from './metrics.js';

export { SCENARIOS, DEFAULT_TIMINGS, DOWN_MODES, GARBAGE_MODES };
export { HELICON_SCENARIOS, MAINNET_HELICON, MAINNET_HELICON_S } from './scenarios.js';
export type { ScenarioName, ScenarioTimings, ScenarioOverrides };
export type { DownMode, GarbageMode } from './scenarios.js';
export { L1_CHAIN, L1_SUBNET_ID } from './chain.js';
export { L1_SET_SCENARIOS, otherL1Validators } from './l1-set.js';
export { PRIMARY_NETWORK_ID } from './ids.js';

export interface SimulatorOptions {
  /** Listen address; default 127.0.0.1. */
  host?: string;
  /** Listen port; 0 (the default) picks a free one. */
  port?: number;
  /** How many nodes; default 1. */
  nodes?: number;
  /** Each node's starting scenario; default 'healthy'. */
  scenario?: ScenarioName | ((index: number) => ScenarioName);
  /** Real milliseconds between health-check runs (--health-check-frequency); default 30 s divided by timeScale. */
  checkFrequencyMs?: number;
  /** How much faster than real time heights and scenario timelines run; default 1. */
  timeScale?: number;
  /** Serve /ext/admin (--api-admin-enabled); default true. */
  admin?: boolean;
  /** Serve /ext/index/… (--index-enabled); default true. */
  index?: boolean;
  /** Serve /ext/metrics (--api-metrics-enabled); default true. */
  metrics?: boolean;
  /** A real v1.11+ node's families added to the /ext/metrics of every v1.11+ node (parseMetricsFiller): a body of a real node's size. */
  metricsFiller?: MetricsFiller;
  /** Indexing began when the simulator started: indexes start empty and X/vtx stays empty; default false (complete history). */
  freshIndex?: boolean | ((index: number) => boolean);
  /** The node also tracks an L1 (a subnet-evm chain keyed by its chain ID, tagged with its subnet ID); default false. */
  trackL1?: boolean | ((index: number) => boolean);
  /** The node validates the primary network (info.uptime, platform.getCurrentValidators); default every third node (index % 3 === 0). */
  validator?: boolean | ((index: number) => boolean);
  /** Peers each node is connected to (the network check's connectedPeers, info.peers); default 1,500 to 1,899 a node. */
  peers?: number;
  /** A node that tracks the L1 is also one of its ACP-77 validators, with a balance; default true. */
  l1Validator?: boolean | ((index: number) => boolean);
  /** --http-allowed-hosts: host names accepted besides IP literals, or '*'; default ['localhost']. */
  allowedHosts?: string[] | '*';
  /** Give every node its own port (needed for downMode 'refused'); default false. */
  portPerNode?: boolean;
  /** Seed for node IDs and per-node variation; default 'avalanchego-simulator'. */
  seed?: string;
  /** Each node's local zone as minutes east of UTC; default cycles -240, 0, 60, 330, -420, 540. */
  utcOffsetMinutes?: number | ((index: number) => number);
  /** Scenario timings (scenario-clock seconds); see DEFAULT_TIMINGS. */
  timings?: Partial<ScenarioTimings>;
}

export interface SimulatedNodeInfo {
  name: string;
  /** What an exporter target's `url` should be. */
  baseUrl: string;
  /** The node ID now (it changes while the node is in node-id-changed). */
  readonly nodeId: string;
}

export interface RunningSimulator {
  /** Where the control API is (and, with one node, the node API). */
  readonly url: string;
  readonly nodes: ReadonlyArray<SimulatedNodeInfo>;
  setScenario(node: string, scenario: ScenarioName, overrides?: ScenarioOverrides): void;
  scenarioOf(node: string): ScenarioName;
  /** Closes every socket and timer. */
  close(): Promise<void>;
}

/** Zones that make clients meet `-04:00`, `Z`, `+05:30` … timestamps. */
const DEFAULT_OFFSETS = [-240, 0, 60, 330, -420, 540];

export async function startSimulator(opts: SimulatorOptions = {}): Promise<RunningSimulator> {
  const count = opts.nodes ?? 1;
  if (!Number.isInteger(count) || count < 1 || count > 100_000) throw new Error(`nodes must be an integer from 1 to 100000, got ${count}`);
  const timeScale = opts.timeScale ?? 1;
  const clock = new SimClock(timeScale);
  // Timers cannot wait longer than 2^31-1 ms (Node would fire them at once instead).
  const MAX_TIMER_MS = 2_147_483_647;
  const checkFrequencyMs = opts.checkFrequencyMs ?? Math.min(30_000 / timeScale, MAX_TIMER_MS);
  if (!(checkFrequencyMs >= 1 && checkFrequencyMs <= MAX_TIMER_MS)) {
    throw new Error(`check frequency must be from 1 ms to ${MAX_TIMER_MS} ms, got ${checkFrequencyMs}`);
  }
  const timings: ScenarioTimings = { ...DEFAULT_TIMINGS, ...opts.timings };
  validateTimings(timings);
  const portPerNode = opts.portPerNode ?? false;
  if (timings.downMode === 'refused' && !portPerNode) throw new Error('downMode "refused" needs portPerNode');
  const seed = opts.seed ?? 'avalanchego-simulator';
  const nodes: SimNode[] = [];
  const l1Set = new FleetL1(seed);
  for (let i = 0; i < count; i++) {
    const scenario = typeof opts.scenario === 'function' ? opts.scenario(i) : (opts.scenario ?? 'healthy');
    if (!isScenario(scenario)) throw new Error(`unknown scenario ${JSON.stringify(scenario)} for node ${i}`);
    const offset = opts.utcOffsetMinutes;
    const offsetMinutes = typeof offset === 'function' ? offset(i) : (offset ?? DEFAULT_OFFSETS[i % DEFAULT_OFFSETS.length] ?? 0);
    nodes.push(
      new SimNode({
        index: i,
        name: `node-${i}`,
        seed,
        offsetMinutes,
        clock,
        timings,
        checkFrequencyMs,
        scenario,
        adminEnabled: opts.admin ?? true,
        indexEnabled: opts.index ?? true,
        metricsEnabled: opts.metrics ?? true,
        ...(opts.metricsFiller ? { metricsFiller: opts.metricsFiller } : {}),
        trackL1: typeof opts.trackL1 === 'function' ? opts.trackL1(i) : (opts.trackL1 ?? false),
        validator: typeof opts.validator === 'function' ? opts.validator(i) : (opts.validator ?? i % 3 === 0),
        l1Validator: typeof opts.l1Validator === 'function' ? opts.l1Validator(i) : (opts.l1Validator ?? true),
        freshIndex: typeof opts.freshIndex === 'function' ? opts.freshIndex(i) : (opts.freshIndex ?? false),
        ...(opts.peers !== undefined ? { peers: opts.peers } : {}),
        l1Set,
      }),
    );
  }
  l1Set.attach(nodes);
  // Nodes that start in a scenario that stops other operators' L1 validators stop them from the start.
  l1Set.scenarioChanged(clock.simMs());
  const server = new FleetServer({
    host: opts.host ?? '127.0.0.1',
    port: opts.port ?? 0,
    nodes,
    allowedHosts: opts.allowedHosts ?? ['localhost'],
    portPerNode,
    defaultDownMode: timings.downMode,
  });
  try {
    await server.listen();
  } catch (err) {
    await server.close();
    throw err;
  }
  for (const node of nodes) node.start();
  const byName = new Map(nodes.map((n) => [n.name, n]));
  let closed: Promise<void> | undefined;
  return {
    url: server.url,
    nodes: server.nodeInfo(),
    setScenario(node, scenario, overrides) {
      if (!isScenario(scenario)) throw new Error(`unknown scenario ${JSON.stringify(scenario)}`);
      server.setScenario(node, scenario, overrides);
    },
    scenarioOf(node) {
      const n = byName.get(node);
      if (!n) throw new Error(`unknown node ${JSON.stringify(node)}`);
      return n.scenario;
    },
    close() {
      closed ??= (async () => {
        for (const node of nodes) node.stop();
        await server.close();
      })();
      return closed;
    },
  };
}

function validateTimings(t: ScenarioTimings): void {
  const positive: Array<keyof ScenarioTimings> = [
    'stallPileupPerSecond',
    'peersDropSeconds',
    'diskFillSeconds',
    'diskShutdownSeconds',
    'routerOverloadSeconds',
    'flapTicks',
    'uptimeDropSeconds',
    'stakeExpirySeconds',
    'l1DrainSeconds',
    'heliconUptimeFloor',
    'autoRenewCycleEndSeconds',
    'nextPeriodSeconds',
    'executionLagBlocksPerSecond',
    'flapPeriodSeconds',
    'flapFailSeconds',
  ];
  for (const key of positive) {
    const v = t[key];
    if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v)) throw new Error(`timings.${key} must be a positive number`);
  }
  if (!(t.slowResponseMs >= 0)) throw new Error('timings.slowResponseMs must be zero or more');
  if (!['C', 'P', 'X'].includes(t.stalledChain)) throw new Error('timings.stalledChain must be C, P or X');
  if (t.downMode !== undefined && !DOWN_MODES.includes(t.downMode)) throw new Error(`timings.downMode must be one of ${DOWN_MODES.join(', ')}`);
  if (!GARBAGE_MODES.includes(t.garbageMode)) throw new Error(`timings.garbageMode must be one of ${GARBAGE_MODES.join(', ')}`);
}
