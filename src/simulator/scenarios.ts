// Scenario names and the timings that shape them. Timings are in seconds of
// the scenario clock (see clock.ts), so a test with timeScale 60 sees a
// one-minute fault develop in one second.

export const SCENARIOS = [
  'healthy',
  'starting',
  'bootstrapping',
  'stalled-chain',
  'peers-dropping',
  'disk-filling',
  'router-overload',
  'flapping',
  'slow',
  'down',
  'garbage',
  'old-version',
  'old-version-v1.7',
] as const;

export type ScenarioName = (typeof SCENARIOS)[number];

export function isScenario(name: unknown): name is ScenarioName {
  return typeof name === 'string' && (SCENARIOS as readonly string[]).includes(name);
}

/** How a `down` node fails: refuse connections (own port only), accept and never answer, or reset. */
export type DownMode = 'refused' | 'hang' | 'reset';
export const DOWN_MODES: readonly DownMode[] = ['refused', 'hang', 'reset'];

/** What a `garbage` node sends: one kind, or each in turn per request. */
export type GarbageMode = 'rotate' | 'html' | 'truncated' | 'wrong-types';
export const GARBAGE_MODES: readonly GarbageMode[] = ['rotate', 'html', 'truncated', 'wrong-types'];

export interface ScenarioTimings {
  /** stalled-chain: which chain stops. */
  stalledChain: 'C' | 'P' | 'X';
  /** stalled-chain: processing blocks added per second of the stall (over 256 fails the check). */
  stallPileupPerSecond: number;
  /** peers-dropping: seconds until peers and connected stake reach zero. */
  peersDropSeconds: number;
  /** disk-filling: seconds for the free space to fall from its start to 1 %. */
  diskFillSeconds: number;
  /** router-overload: seconds until outstanding requests pass 1024. */
  routerOverloadSeconds: number;
  /** flapping: health ticks failing, then the same number passing, repeatedly. */
  flapTicks: number;
  /** slow: real milliseconds every response is held back. */
  slowResponseMs: number;
  /** down: how the node is down; default refused with a port per node, else reset. */
  downMode?: DownMode;
  /** garbage: which kind of garbage. */
  garbageMode: GarbageMode;
}

export const DEFAULT_TIMINGS: ScenarioTimings = {
  stalledChain: 'C',
  stallPileupPerSecond: 5,
  peersDropSeconds: 60,
  diskFillSeconds: 120,
  routerOverloadSeconds: 60,
  flapTicks: 2,
  slowResponseMs: 4_000,
  garbageMode: 'rotate',
};

/** Node-side thresholds (AvalancheGo defaults) the scenarios cross. */
export const THRESHOLDS = {
  maxProcessingBlocks: 256,
  maxBlockProcessingNs: 30_000_000_000,
  minPercentConnected: 0.8,
  diskWarningPercent: 10,
  diskRequiredPercent: 3,
  maxOutstandingRequests: 1024,
  maxOutstandingNs: 300_000_000_000,
  maxTimeSinceMsgNs: 60_000_000_000,
  maxSendFailRate: 0.9,
  /** network-no-ingress-connections-grace-period: the validator-health key appears after it. */
  ingressGraceMs: 600_000,
} as const;

/** The node version whose wire shapes a scenario shows. */
export type NodeVersion = 'v1.14' | 'v1.10' | 'v1.7';

export function versionOf(scenario: ScenarioName): NodeVersion {
  if (scenario === 'old-version') return 'v1.10';
  if (scenario === 'old-version-v1.7') return 'v1.7';
  return 'v1.14';
}
