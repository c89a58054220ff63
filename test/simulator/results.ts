// The `result` of each JSON-RPC method the simulator tests call, as AvalancheGo writes it
// (shared/reference/avalanchego-api.md and validator-apis.md): numbers string-encoded,
// optional what older releases or other kinds of validators leave out. The tests assert
// the shapes key by key; these types say which fields they may read.

export interface Signer {
  publicKey: string;
  proofOfPossession: string;
}

export interface Owner {
  locktime: string;
  threshold: string;
  addresses: string[];
}

/** A primary-network or legacy subnet validator, an ACP-77 L1 validator, or a delegator. */
export interface ValidatorEntry {
  txID?: string;
  startTime?: string;
  endTime?: string;
  weight?: string;
  stakeAmount?: string;
  nodeID: string;
  validationRewardOwner?: Owner;
  delegationRewardOwner?: Owner;
  rewardOwner?: Owner;
  potentialReward?: string;
  accruedDelegateeReward?: string;
  delegationFee?: string;
  uptime?: string;
  connected?: boolean;
  signer?: Signer;
  delegatorCount?: string;
  delegatorWeight?: string;
  delegators?: ValidatorEntry[];
  validationID?: string;
  publicKey?: string;
  remainingBalanceOwner?: Owner;
  deactivationOwner?: Owner;
  minNonce?: string;
  balance?: string;
}

export interface Peer {
  ip: string;
  publicIP: string;
  nodeID: string;
  version: string;
  /** v1.13+: the upgrade time the peer announced (a JSON number). */
  upgradeTime?: number;
  lastSent: string;
  lastReceived: string;
  observedUptime: string;
  observedSubnetUptimes?: Record<string, string>;
  trackedSubnets: string[];
  supportedACPs: number[];
  objectedACPs: number[];
  benched?: string[];
}

/** An index API container (index/service.go FormattedContainer). */
export interface FormattedContainer {
  id: string;
  bytes: string;
  timestamp: string;
  encoding: string;
  index: string;
}

export interface LoggerLevels {
  logLevel: string;
  displayLevel: string;
}

/** A JSON-RPC 2.0 reply: a result or an error. */
export interface RpcEnvelope<Result> {
  jsonrpc: string;
  result?: Result;
  error?: { code: number; message: string; data: unknown };
  id: unknown;
}

export interface RpcResults {
  'info.getNodeID': { nodeID: string; nodePOP?: Signer };
  'info.getNodeVersion': {
    version: string;
    databaseVersion: string;
    rpcProtocolVersion: string;
    gitCommit: string;
    vmVersions: Record<string, string>;
  };
  'info.getNetworkID': { networkID: string };
  'info.getNodeIP': { ip: string };
  'info.getBlockchainID': { blockchainID: string };
  'info.uptime': { rewardingStakePercentage: string; weightedAveragePercentage: string };
  'info.upgrades': Record<string, string | number>;
  'info.peers': { numPeers: string; peers: Peer[] };
  'platform.getCurrentValidators': { validators: ValidatorEntry[] };
  'platform.getL1Validator': ValidatorEntry & { subnetID: string; height: string };
  /** excess and price are JSON numbers (uint64), timestamp RFC 3339. */
  'platform.getValidatorFeeState': { excess: number; price: number; timestamp: string };
  'platform.getHeight': { height: string };
  'index.getLastAccepted': FormattedContainer;
  'index.getContainerByIndex': FormattedContainer;
  'index.getContainerRange': { containers: FormattedContainer[] };
  /** null for a valid ID the node has no aliases for (Go's nil slice). */
  'admin.getChainAliases': { aliases: string[] | null };
  'admin.getLoggerLevel': { loggerLevels: Record<string, LoggerLevels> };
  /** failedVMs only when a plugin failed to load. */
  'admin.loadVMs': { newVMs: Record<string, string[]>; failedVMs?: Record<string, string> };
  /** The node's whole configuration: the tests match a few keys. */
  'admin.getConfig': Record<string, unknown>;
  'health.health': HealthReport | LegacyHealthReport;
}

// The health API (api/health/result.go, worker.go; src/simulator/health.ts writes it, the
// exporter's src/sources/health.ts reads it). v1.7.4 and later unless marked legacy.

/**
 * One check's result. `message` is absent while the check has not run and for checks
 * without details (database); the failure fields are written only while it fails.
 */
export interface CheckResult<Message = unknown> {
  message?: Message;
  error?: string;
  /** RFC 3339 with nanoseconds in the node's zone; Go's zero time while never run. */
  timestamp: string;
  /** Integer nanoseconds. */
  duration: number;
  contiguousFailures?: number;
  timeOfFirstFailure?: string;
}

/**
 * A chain's consensus details: v1.10.16+ writes the first five keys, v1.10 before .16
 * the last two; while the chain bootstraps the object is empty.
 */
export interface ConsensusDetails {
  avgAcceptanceTime?: string;
  lastAcceptedHeight?: number;
  lastAcceptedID?: string;
  longestProcessingBlock?: string;
  processingBlocks?: number;
  longestRunningBlock?: string;
  outstandingBlocks?: number;
}

/** The message of a chain check (C, P, X, or an L1 chain keyed by its chain ID). */
export interface ChainMessage {
  engine: {
    consensus: ConsensusDetails;
    /** null for P, X and C; a plugin VM's wrapped details (an L1); the P-Chain's percentConnected on v1.10. */
    vm: Record<string, unknown> | null;
  };
  /** disconnectedValidators since v1.11. */
  networking: { disconnectedValidators?: string[]; percentConnected: number };
}

export interface DiskspaceMessage {
  availableDiskBytes: number;
  /** Since v1.11. */
  availableDiskPercentage?: number;
}

export interface NetworkMessage {
  connectedPeers: number;
  sendFailRate: number;
  /** Absent until something was received / sent. */
  timeSinceLastMsgReceived?: string;
  timeSinceLastMsgSent?: string;
  /** v1.14+, after a grace period of 10 minutes of uptime. */
  'primary network validator health'?: { ingressConnectionCount: number; primaryNetworkValidator: boolean };
}

export interface RouterMessage {
  longestRunningRequest: string;
  outstandingRequests: number;
}

export interface FutureUpgradeMessage {
  localUpgradeTime: string;
  modeUpgradeTime: string;
  modeUpgradeWeightPercentage: number;
  numUpgradeTimes: number;
}

/**
 * The checks of a report by name. A report selected by tags, or of an older release,
 * lacks some of the named ones (the tests assert the key list); any other key is a chain
 * check keyed by its chain ID (an L1's).
 */
export type HealthChecks = Record<string, CheckResult<ChainMessage>> & {
  C: CheckResult<ChainMessage>;
  P: CheckResult<ChainMessage>;
  X: CheckResult<ChainMessage>;
  /** The subnets still bootstrapping. */
  bootstrapped: CheckResult<string[]>;
  database: CheckResult<never>;
  diskspace: CheckResult<DiskspaceMessage>;
  network: CheckResult<NetworkMessage>;
  router: CheckResult<RouterMessage>;
  /** Since v1.11: a sentence. */
  bls: CheckResult<string>;
  /** Since v1.13. */
  futureupgrade: CheckResult<FutureUpgradeMessage>;
};

/** The APIReply of health.health, health.readiness, health.liveness and their GET forms. */
export interface HealthReport {
  checks: HealthChecks;
  healthy: boolean;
}

/** A result of v1.7.3 and earlier (go-sundheit): the error is an object, the failure fields always there. */
export interface LegacyCheckResult<Message = unknown> {
  message?: Message | null;
  error?: { message: string };
  timestamp: string;
  duration: number;
  contiguousFailures: number;
  /** null while the check passes. */
  timeOfFirstFailure: string | null;
}

/** The report of a v1.7 node: the chain checks by alias and two checks of that era. */
export interface LegacyHealthReport {
  checks: {
    C: LegacyCheckResult;
    P: LegacyCheckResult<{ percentConnected: number }>;
    X: LegacyCheckResult;
    'chains.default.bootstrapped': LegacyCheckResult;
    'network.validators.heartbeat': LegacyCheckResult<{ heartbeat: number }>;
  };
  healthy: boolean;
}

// The simulator's control API (/sim/…, src/simulator/server.ts).

/** A node as the control API describes it. */
export interface ControlNode {
  name: string;
  baseUrl: string;
  nodeId: string;
  scenario: string;
  version: string;
  release: string;
  utcOffsetMinutes: number;
  heights: Record<string, number>;
  validator: boolean;
  l1Validator: boolean;
  downMode?: string;
  garbageMode?: string;
  /** Why the node shut itself down (disk-filling below 3 %); absent while it runs. */
  exited?: string;
}

/** The JSON bodies of the control API, by what was asked. */
export interface ControlReplies {
  /** GET /sim/nodes; POST /sim/scenario. */
  nodes: { nodes: ControlNode[] };
  /** GET /sim/nodes/<name>; POST /sim/nodes/<name>/scenario. */
  node: ControlNode;
  /** GET /sim/scenarios. */
  scenarios: { scenarios: string[] };
  /** A refused request (4xx). */
  error: { error: string };
}
