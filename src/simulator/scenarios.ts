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
  'uptime-dropping',
  'stake-expiring',
  'l1-balance-draining',
  'node-id-changed',
  'version-behind',
  'chain-added',
  'l1-validator-removed',
  // The L1 as a whole (l1-set.ts): other operators' validators of the fleet's L1 stop.
  'l1-validator-stopped',
  'l1-halted',
  // AvalancheGo v1.15.0 (Helicon): these run the v1.15.0 release profile.
  'helicon-uptime',
  'auto-renewed',
  'auto-renew-exiting',
  'auto-renewed-at-risk',
  'c-chain-execution-lag',
  'l1-proposer-view-frozen',
  'c-chain-flapping',
  // AvalancheGo v1.15.1: the C-Chain's SAE executor stopped (vms/saevm/sae/health.go).
  'c-chain-executor-dead',
] as const;

/** The scenarios that run AvalancheGo v1.15.0 (Helicon) instead of v1.14.2. */
export const HELICON_SCENARIOS: readonly ScenarioName[] = [
  'helicon-uptime',
  'auto-renewed',
  'auto-renew-exiting',
  'auto-renewed-at-risk',
  'c-chain-execution-lag',
  'l1-proposer-view-frozen',
  'c-chain-flapping',
  'c-chain-executor-dead',
];

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
  /**
   * disk-filling: seconds for the free space to fall from its start to 4.5 % (past the node's 10 %
   * warning level and the shipped rules' 5 % critical level).
   */
  diskFillSeconds: number;
  /**
   * disk-filling: seconds the free space then takes to fall from 4.5 % to the node's 3 % minimum,
   * where the node shuts itself down (it stops answering until it is switched to another scenario).
   */
  diskShutdownSeconds: number;
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
  /** uptime-dropping: seconds for the uptime the network perceives to fall from its start to 55 %. */
  uptimeDropSeconds: number;
  /**
   * stake-expiring: WALL-CLOCK seconds from the switch to the stake's endTime (endTime is
   * compared with the wall clock by whoever reads it); at endTime the node leaves the validator set.
   */
  stakeExpirySeconds: number;
  /**
   * l1-balance-draining: the scenario seconds of fees the L1 validator's balance holds at the switch; it pays the fee
   * price per scenario second, as every balance does, so it reaches 0 (inactive) that long after, as its runway says.
   */
  l1DrainSeconds: number;
  /** helicon-uptime: the perceived uptime (percent) it falls to, over uptimeDropSeconds, and stays at. */
  heliconUptimeFloor: number;
  /**
   * auto-renewed: WALL-CLOCK seconds from the switch to the end of the current cycle; the cycle
   * renews then, for nextPeriodSeconds. auto-renew-exiting and auto-renewed-at-risk end their cycle
   * after stakeExpirySeconds.
   */
  autoRenewCycleEndSeconds: number;
  /** auto-renewed: `nextPeriod` of the validator, wall-clock seconds. */
  nextPeriodSeconds: number;
  /** c-chain-execution-lag: blocks the C-Chain's execution falls further behind acceptance per second. */
  executionLagBlocksPerSecond: number;
  /** c-chain-flapping: seconds between the starts of two failures of the C check, and how long each lasts. */
  flapPeriodSeconds: number;
  flapFailSeconds: number;
}

export const DEFAULT_TIMINGS: ScenarioTimings = {
  stalledChain: 'C',
  stallPileupPerSecond: 5,
  peersDropSeconds: 60,
  diskFillSeconds: 120,
  diskShutdownSeconds: 900,
  routerOverloadSeconds: 60,
  flapTicks: 2,
  slowResponseMs: 4_000,
  garbageMode: 'rotate',
  uptimeDropSeconds: 120,
  stakeExpirySeconds: 1_800,
  l1DrainSeconds: 120,
  heliconUptimeFloor: 86,
  autoRenewCycleEndSeconds: 60,
  nextPeriodSeconds: 3 * 3600,
  executionLagBlocksPerSecond: 1 / 3,
  flapPeriodSeconds: 480,
  flapFailSeconds: 60,
};

/** Node-side thresholds (AvalancheGo defaults) the scenarios cross. */
export const THRESHOLDS = {
  maxProcessingBlocks: 256,
  maxBlockProcessingNs: 30_000_000_000,
  minPercentConnected: 0.8,
  diskWarningPercent: 10,
  /** Below it the node logs `low on disk space. Shutting down...` and exits (node/node.go). */
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

/** The release a scenario runs: what info.getNodeVersion reports and which methods exist. */
export interface Release {
  /** MAJOR.MINOR.PATCH */
  version: string;
  /** The application name before the slash: `avalanche` until v1.8, then `avalanchego`. */
  client: 'avalanche' | 'avalanchego';
  /** version.RPCChainVMProtocol; getNodeVersion has no rpcProtocolVersion before v1.7.? (absent here for v1.7.3). */
  rpcProtocol: number | undefined;
  /** The C-Chain VM's version (coreth), as vmVersions.evm shows it. */
  evm: string;
  /** vmVersions.avm and .platform: `v1.13.5` until v1.13, the application string (`avalanchego/1.14.2`) since v1.14 (recorded). */
  vm: string;
  gitCommit: string;
  /** info.upgrades (v1.11.11+) and the upgrade names its Config has. */
  upgrades: 'v1.15' | 'v1.14' | 'v1.13' | undefined;
  /** platform.getValidatorFeeState and L1 validators (v1.12.2+). */
  l1: boolean;
  /** getNodeID has nodePOP (v1.8.6+). */
  nodePop: boolean;
  /**
   * Helicon (v1.15): heliconTime scheduled, chain checks without avgAcceptanceTime, the 90 % uptime
   * requirement for validations started after it, info.uptime's start-time errors, auto-renewed
   * validators (ACP-236) and the C-Chain's executed height apart from its accepted one.
   */
  helicon: boolean;
  /** info.acps: constants.CurrentACPs of the release. */
  acps: number[];
}

/** Helicon on Mainnet (upgrade/upgrade.go of v1.15.0): 2026-09-22 15:00:00 UTC. */
export const MAINNET_HELICON = '2026-09-22T15:00:00Z';
export const MAINNET_HELICON_S = Date.parse(MAINNET_HELICON) / 1000;

const RELEASES: Record<'v1.15' | 'v1.14' | 'behind' | 'v1.10' | 'v1.7', Release> = {
  'v1.15': {
    version: '1.15.0',
    client: 'avalanchego',
    // version.RPCChainVMProtocol of v1.15.0 (47 from v1.15.2).
    rpcProtocol: 46,
    evm: 'v1.15.0',
    vm: 'avalanchego/1.15.0',
    gitCommit: 'c0a5b7e2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2c4',
    upgrades: 'v1.15',
    l1: true,
    nodePop: true,
    helicon: true,
    // utils/constants/acps.go of v1.15.0.
    acps: [194, 224, 236, 247, 267, 273, 283, 285],
  },
  'v1.14': {
    version: '1.14.2',
    client: 'avalanchego',
    rpcProtocol: 45,
    evm: 'v1.14.2',
    vm: 'avalanchego/1.14.2',
    gitCommit: '5b0d3b3a0f2a7d0c2b0e0bcbe6a3a1ad4fb4c8a1',
    upgrades: 'v1.14',
    l1: true,
    nodePop: true,
    helicon: false,
    acps: [],
  },
  behind: {
    version: '1.13.5',
    client: 'avalanchego',
    rpcProtocol: 43,
    evm: 'v0.15.4',
    vm: 'v1.13.5',
    gitCommit: '9c1f3a4e0d7b2c6a8e5f1d3b7a9c0e2f4b6d8a1c',
    upgrades: 'v1.13',
    l1: true,
    nodePop: true,
    helicon: false,
    acps: [176],
  },
  'v1.10': {
    version: '1.10.19',
    client: 'avalanchego',
    rpcProtocol: 31,
    evm: 'v0.12.11',
    vm: 'v1.10.19',
    gitCommit: '3e1f2d5c7b9a0e4d6c8b1a3f5e7d9c0b2a4f6e8d',
    upgrades: undefined,
    l1: false,
    nodePop: true,
    helicon: false,
    acps: [23, 24, 25, 30, 31, 41, 62],
  },
  'v1.7': {
    version: '1.7.3',
    client: 'avalanche',
    rpcProtocol: undefined,
    evm: 'v0.8.3',
    vm: 'v1.7.3',
    gitCommit: '7a2c4e6b8d0f1a3c5e7b9d2f4a6c8e0b1d3f5a7c',
    upgrades: undefined,
    l1: false,
    nodePop: false,
    helicon: false,
    acps: [],
  },
};

/** v1.15.1: v1.15.0's shapes, with the SAE executor's health check (c-chain-executor-dead). */
const V1_15_1: Release = { ...RELEASES['v1.15'], version: '1.15.1', evm: 'v1.15.1', vm: 'avalanchego/1.15.1' };

export function releaseOf(scenario: ScenarioName): Release {
  if (scenario === 'c-chain-executor-dead') return V1_15_1;
  if (scenario === 'version-behind') return RELEASES.behind;
  if (HELICON_SCENARIOS.includes(scenario)) return RELEASES['v1.15'];
  return RELEASES[versionOf(scenario)];
}
