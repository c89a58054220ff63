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
}
