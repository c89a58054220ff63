// The requests recorded from the real node into test/fixtures/real/<version>/, and the code that
// records them. The same case list drives the live comparison tests, so a recording and a check
// can never ask different questions.
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT } from './build.js';
import { httpRequest, rpcCall, type RawRequest, type RawResponse } from './http.js';
import type { NodeProfile } from './node.js';

/** The primary network's subnet ID: the tag of the P, X and C chain checks. */
export const PRIMARY_NETWORK_ID = '11111111111111111111111111111111LpoYY';
/** A well-formed cb58 ID that no container has: the SHA-256 checksum is valid, the bytes are all 0x01. */
export const UNKNOWN_ID = 'SeLqn3UAUoRymWmwW7axrzJK7JfNaBR2cHCryA6cFscgkny8';

export const INDEX_ENDPOINTS = ['C/block', 'P/block', 'X/block', 'X/tx', 'X/vtx'] as const;
export type IndexEndpoint = (typeof INDEX_ENDPOINTS)[number];

export interface RecordedAnswer {
  request: RawRequest;
  status: number;
  /** Response headers without `date` (it changes on every request). */
  headers: Record<string, string>;
  /** The body exactly as received. */
  body: string;
}

export interface RecordingCase {
  /** File name without `.json`. */
  name: string;
  request: RawRequest;
}

/** A recording: one node profile, the five-node local network (network.ts), or its L1's chain (l1-chain.ts). */
export type RecordingProfile = Exclude<NodeProfile, 'local-validator'> | 'local-network' | 'l1-chain';

/** Where a profile's answers are recorded: the single node at the top, others in a subdirectory. */
export function fixturesDir(version: string, profile: RecordingProfile = 'single-node'): string {
  const dir = join(REPO_ROOT, 'test', 'fixtures', 'real', version);
  return profile === 'single-node' ? dir : join(dir, profile);
}

/** What a run may re-record: the API answers, the node's /ext/metrics, the L1 chain's answers. */
export type RecordingKind = 'answers' | 'node-metrics' | 'l1-chain';

/**
 * Whether this run re-records `kind`: `RECORD=1` records everything; `RECORD=node-metrics` (a
 * comma-separated list of kinds) only those, leaving the other recordings as they are.
 */
export function records(kind: RecordingKind, env: string | undefined = process.env.RECORD): boolean {
  if (env === '1') return true;
  return (env ?? '').split(',').some((k) => k.trim() === kind);
}

/** Request ids are fixed at 1 so that recorded bodies are reproducible. */
export function rpc(path: string, method: string, params?: unknown): RawRequest {
  const envelope: Record<string, unknown> = { jsonrpc: '2.0', id: 1, method };
  if (params !== undefined) envelope.params = params;
  return { method: 'POST', path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(envelope) };
}

function get(path: string, headers?: Record<string, string>): RawRequest {
  return headers ? { method: 'GET', path, headers } : { method: 'GET', path };
}

function fileSafe(endpoint: IndexEndpoint): string {
  return endpoint.replace('/', '-');
}

export interface NodeFacts {
  /** Per endpoint, the last accepted container (undefined when the index is empty). */
  lastAccepted: Record<IndexEndpoint, { id: string; index: number } | undefined>;
  /** The C-Chain's blockchain ID (admin.getChainAliases takes an ID, not an alias). */
  cChainId: string;
}

/** Reads what the cases need from the node; `cChainId` skips asking the info API. */
export async function readNodeFacts(url: string, cChainId?: string): Promise<NodeFacts> {
  const lastAccepted = {} as NodeFacts['lastAccepted'];
  for (const endpoint of INDEX_ENDPOINTS) {
    const res = await httpRequest(url, rpc(`/ext/index/${endpoint}`, 'index.getLastAccepted', { encoding: 'hex' }));
    const parsed = JSON.parse(res.body) as { result?: { id: string; index: string } };
    lastAccepted[endpoint] = parsed.result ? { id: parsed.result.id, index: Number(parsed.result.index) } : undefined;
  }
  return { lastAccepted, cChainId: cChainId ?? (await blockchainId(url, 'C')) };
}

/** info.getBlockchainID (the info API; the simulator does not serve it). */
export async function blockchainId(url: string, alias: string): Promise<string> {
  const { blockchainID } = await rpcCall<{ blockchainID: string }>(url, '/ext/info', 'info.getBlockchainID', { alias });
  return blockchainID;
}

/** The health requests recorded from every node profile: GET forms, tags, and the three JSON-RPC methods. */
function addHealthCases(add: (name: string, request: RawRequest) => void): void {
  add('health-get', get('/ext/health'));
  add('health-get-health-path', get('/ext/health/health'));
  add('health-get-readiness', get('/ext/health/readiness'));
  add('health-get-liveness', get('/ext/health/liveness'));
  add('health-get-tag-primary', get(`/ext/health?tag=${PRIMARY_NETWORK_ID}`));
  add('health-get-tag-unknown', get('/ext/health?tag=no-such-tag'));
  add('health-rpc-health', rpc('/ext/health', 'health.health'));
  add('health-rpc-health-tag-primary', rpc('/ext/health', 'health.health', { tags: [PRIMARY_NETWORK_ID] }));
  add('health-rpc-readiness', rpc('/ext/health', 'health.readiness'));
  add('health-rpc-liveness', rpc('/ext/health', 'health.liveness'));
}

/** Every request we record, named. `facts` supplies IDs and indices that exist on this node. */
export function recordingCases(facts: NodeFacts): RecordingCase[] {
  const cases: RecordingCase[] = [];
  const add = (name: string, request: RawRequest): void => {
    cases.push({ name, request });
  };

  // Health: GET forms (status 200/503, plain body) and JSON-RPC (always 200, envelope).
  addHealthCases(add);
  add('health-get-tag-primary-and-unknown', get(`/ext/health?tag=${PRIMARY_NETWORK_ID}&tag=no-such-tag`));
  add('health-get-health-path-tag-primary', get(`/ext/health/health?tag=${PRIMARY_NETWORK_ID}`));
  add('health-head', { method: 'HEAD', path: '/ext/health' });
  add('health-head-health-path', { method: 'HEAD', path: '/ext/health/health' });
  add('health-rpc-health-tag-unknown', rpc('/ext/health', 'health.health', { tags: ['no-such-tag'] }));
  add('health-rpc-health-tag-all', rpc('/ext/health', 'health.health', { tags: ['all'] }));
  add('health-rpc-to-health-path', rpc('/ext/health/health', 'health.health'));
  add('health-rpc-uppercase-method', rpc('/ext/health', 'health.Health'));

  // Index: every method on every endpoint, with the errors each can give.
  for (const endpoint of INDEX_ENDPOINTS) {
    const path = `/ext/index/${endpoint}`;
    const prefix = `index-${fileSafe(endpoint)}`;
    const last = facts.lastAccepted[endpoint];
    add(`${prefix}-getLastAccepted`, rpc(path, 'index.getLastAccepted', { encoding: 'hex' }));
    add(`${prefix}-getLastAccepted-no-params`, rpc(path, 'index.getLastAccepted'));
    add(`${prefix}-getLastAccepted-encoding-json`, rpc(path, 'index.getLastAccepted', { encoding: 'json' }));
    add(`${prefix}-getContainerByIndex-0`, rpc(path, 'index.getContainerByIndex', { index: 0, encoding: 'hex' }));
    add(`${prefix}-getContainerByIndex-out-of-range`, rpc(path, 'index.getContainerByIndex', { index: (last?.index ?? 0) + 1000, encoding: 'hex' }));
    add(`${prefix}-getContainerRange`, rpc(path, 'index.getContainerRange', { startIndex: 0, numToFetch: 100, encoding: 'hex' }));
    add(`${prefix}-getContainerRange-numToFetch-0`, rpc(path, 'index.getContainerRange', { startIndex: 0, numToFetch: 0, encoding: 'hex' }));
    add(`${prefix}-getContainerRange-numToFetch-1025`, rpc(path, 'index.getContainerRange', { startIndex: 0, numToFetch: 1025, encoding: 'hex' }));
    add(
      `${prefix}-getContainerRange-start-beyond-end`,
      rpc(path, 'index.getContainerRange', { startIndex: (last?.index ?? 0) + 10, numToFetch: 1, encoding: 'hex' }),
    );
    add(`${prefix}-getIndex-unknown-id`, rpc(path, 'index.getIndex', { id: UNKNOWN_ID }));
    add(`${prefix}-getContainerByID-unknown-id`, rpc(path, 'index.getContainerByID', { id: UNKNOWN_ID, encoding: 'hex' }));
    add(`${prefix}-isAccepted-unknown-id`, rpc(path, 'index.isAccepted', { id: UNKNOWN_ID }));
    if (last) {
      add(`${prefix}-getIndex`, rpc(path, 'index.getIndex', { id: last.id }));
      add(`${prefix}-getContainerByID`, rpc(path, 'index.getContainerByID', { id: last.id, encoding: 'hex' }));
      add(`${prefix}-isAccepted`, rpc(path, 'index.isAccepted', { id: last.id }));
      add(
        `${prefix}-getContainerRange-past-end`,
        rpc(path, 'index.getContainerRange', { startIndex: last.index, numToFetch: 1024, encoding: 'hex' }),
      );
    }
  }
  add('index-C-block-getIndex-invalid-id', rpc('/ext/index/C/block', 'index.getIndex', { id: 'not-an-id' }));
  add('index-C-block-getContainerByIndex-string-index', rpc('/ext/index/C/block', 'index.getContainerByIndex', { index: '0', encoding: 'hex' }));
  add('index-C-block-getContainerByIndex-negative-index', rpc('/ext/index/C/block', 'index.getContainerByIndex', { index: -1, encoding: 'hex' }));
  add('index-C-block-unknown-method', rpc('/ext/index/C/block', 'index.getFoo'));

  // Admin.
  add('admin-getLoggerLevel', rpc('/ext/admin', 'admin.getLoggerLevel', {}));
  add('admin-getLoggerLevel-C', rpc('/ext/admin', 'admin.getLoggerLevel', { loggerName: 'C' }));
  add('admin-getLoggerLevel-unknown-logger', rpc('/ext/admin', 'admin.getLoggerLevel', { loggerName: 'nope' }));
  add('admin-getChainAliases', rpc('/ext/admin', 'admin.getChainAliases', { chain: facts.cChainId }));
  add('admin-getChainAliases-alias', rpc('/ext/admin', 'admin.getChainAliases', { chain: 'C' }));
  add('admin-setLoggerLevel-no-level', rpc('/ext/admin', 'admin.setLoggerLevel', { loggerName: 'C' }));
  add('admin-setLoggerLevel-unknown-logger', rpc('/ext/admin', 'admin.setLoggerLevel', { loggerName: 'nope', logLevel: 'INFO' }));
  add('admin-setLoggerLevel-invalid-level', rpc('/ext/admin', 'admin.setLoggerLevel', { loggerName: 'C', logLevel: 'LOUD' }));
  // Sets the level it already has: the success shape without changing the node.
  add('admin-setLoggerLevel', rpc('/ext/admin', 'admin.setLoggerLevel', { loggerName: 'C', logLevel: 'INFO' }));

  // HTTP and JSON-RPC edge cases.
  add('http-404-unknown-path', get('/ext/no-such-api'));
  add('http-404-trailing-slash', get('/ext/health/'));
  add('http-404-unknown-chain-index', rpc('/ext/index/Q/block', 'index.getLastAccepted'));
  add('http-405-get-index', get('/ext/index/C/block'));
  add('http-405-get-admin', get('/ext/admin'));
  add('http-415-text-plain', {
    ...rpc('/ext/index/C/block', 'index.getLastAccepted'),
    headers: { 'content-type': 'text/plain' },
  });
  add('http-415-no-content-type', { ...rpc('/ext/index/C/block', 'index.getLastAccepted'), headers: {} });
  add('http-200-content-type-charset', {
    ...rpc('/ext/health', 'health.liveness'),
    headers: { 'content-type': 'application/json; charset=UTF-8' },
  });
  add('http-403-host-not-allowed', get('/ext/health', { host: 'avalanchego.example:9650' }));
  add('http-403-host-not-allowed-rpc', {
    ...rpc('/ext/health', 'health.liveness'),
    headers: { 'content-type': 'application/json', host: 'avalanchego.example:9650' },
  });
  add('http-200-host-localhost', get('/ext/health/liveness', { host: 'localhost:9650' }));
  add('rpc-parse-error', {
    method: 'POST',
    path: '/ext/index/C/block',
    headers: { 'content-type': 'application/json' },
    body: '{"jsonrpc":"2.0","id":1,"method":',
  });
  add('rpc-bad-version', {
    method: 'POST',
    path: '/ext/health',
    headers: { 'content-type': 'application/json' },
    body: '{"jsonrpc":"1.0","id":1,"method":"health.liveness"}',
  });
  add('rpc-unknown-service', rpc('/ext/health', 'foo.bar'));
  add('rpc-notification-no-id', {
    method: 'POST',
    path: '/ext/health',
    headers: { 'content-type': 'application/json' },
    body: '{"jsonrpc":"2.0","method":"health.liveness"}',
  });
  add('rpc-string-id', {
    method: 'POST',
    path: '/ext/health',
    headers: { 'content-type': 'application/json' },
    body: '{"jsonrpc":"2.0","id":"abc","method":"health.liveness"}',
  });
  return cases;
}

/**
 * The requests recorded from the bootstrapping validator: what a monitoring client sees from a
 * node that is up but not bootstrapped (health, readiness, index, chain APIs).
 */
export function bootstrappingCases(): RecordingCase[] {
  const cases: RecordingCase[] = [];
  const add = (name: string, request: RawRequest): void => {
    cases.push({ name, request });
  };
  addHealthCases(add);
  for (const endpoint of INDEX_ENDPOINTS) {
    const path = `/ext/index/${endpoint}`;
    const prefix = `index-${fileSafe(endpoint)}`;
    add(`${prefix}-getLastAccepted`, rpc(path, 'index.getLastAccepted', { encoding: 'hex' }));
    add(`${prefix}-getContainerByIndex-0`, rpc(path, 'index.getContainerByIndex', { index: 0, encoding: 'hex' }));
  }
  add('admin-getLoggerLevel', rpc('/ext/admin', 'admin.getLoggerLevel', {}));
  add('info-isBootstrapped-C', rpc('/ext/info', 'info.isBootstrapped', { chain: 'C' }));
  // Chain APIs (not index/health/admin) are rejected until the chain has bootstrapped.
  add('bc-C-rpc-eth_blockNumber', {
    method: 'POST',
    path: '/ext/bc/C/rpc',
    headers: { 'content-type': 'application/json' },
    body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}',
  });
  add('bc-P-platform.getHeight', rpc('/ext/bc/P', 'platform.getHeight', {}));
  return cases;
}

/** The zero node ID: well-formed (valid checksum), never a validator. */
export const UNKNOWN_NODE_ID = 'NodeID-111111111111111111116DBWJs';

/** What the info and platform cases need to know about the node and its network. */
export interface ValidatorFacts {
  /** The asked node's own ID (`info.getNodeID`). */
  nodeId: string;
  /** A subnet the node validates as a legacy (permissioned) subnet validator. */
  subnetId?: string;
  /** A subnet converted to an L1 whose validator the node is, and that validator's ID. */
  l1?: { subnetId: string; validationId: string; inactiveNodeId: string };
}

export async function readValidatorFacts(url: string, extra: Omit<ValidatorFacts, 'nodeId'> = {}): Promise<ValidatorFacts> {
  const { nodeID } = await rpcCall<{ nodeID: string }>(url, '/ext/info', 'info.getNodeID');
  return { nodeId: nodeID, ...extra };
}

/**
 * The info and platform requests a validator monitor sends (issue 9): identity, version, network,
 * uptime, upgrades, peers, and the node's own entry in the current validator set of the primary
 * network, a subnet and an L1, the fee state. Older releases lack some methods: their answers
 * (the JSON-RPC error) are recorded as they are.
 */
export function validatorCases(facts: ValidatorFacts): RecordingCase[] {
  const cases: RecordingCase[] = [];
  const add = (name: string, request: RawRequest): void => {
    cases.push({ name, request });
  };
  add('info-getNodeID', rpc('/ext/info', 'info.getNodeID'));
  add('info-getNodeVersion', rpc('/ext/info', 'info.getNodeVersion'));
  add('info-getNetworkID', rpc('/ext/info', 'info.getNetworkID'));
  add('info-getNetworkName', rpc('/ext/info', 'info.getNetworkName'));
  add('info-uptime', rpc('/ext/info', 'info.uptime'));
  add('info-upgrades', rpc('/ext/info', 'info.upgrades'));
  add('info-peers', rpc('/ext/info', 'info.peers'));
  add('info-peers-unknown-node', rpc('/ext/info', 'info.peers', { nodeIDs: [UNKNOWN_NODE_ID] }));
  add('info-isBootstrapped-P', rpc('/ext/info', 'info.isBootstrapped', { chain: 'P' }));
  add('info-isBootstrapped-unknown-chain', rpc('/ext/info', 'info.isBootstrapped', { chain: 'Q' }));

  const validators = (params: Record<string, unknown>): RawRequest => rpc('/ext/bc/P', 'platform.getCurrentValidators', params);
  add('platform-getHeight', rpc('/ext/bc/P', 'platform.getHeight', {}));
  add('platform-getValidatorFeeState', rpc('/ext/bc/P', 'platform.getValidatorFeeState', {}));
  add('platform-getValidatorFeeConfig', rpc('/ext/bc/P', 'platform.getValidatorFeeConfig', {}));
  add('platform-getCurrentValidators-own', validators({ nodeIDs: [facts.nodeId] }));
  add('platform-getCurrentValidators-own-primary-id', validators({ subnetID: PRIMARY_NETWORK_ID, nodeIDs: [facts.nodeId] }));
  add('platform-getCurrentValidators-unknown-node', validators({ nodeIDs: [UNKNOWN_NODE_ID] }));
  add('platform-getCurrentValidators-invalid-node-id', validators({ nodeIDs: ['NodeID-nope'] }));
  add('platform-getCurrentValidators-unknown-subnet', validators({ subnetID: UNKNOWN_ID, nodeIDs: [facts.nodeId] }));
  add('platform-getCurrentValidators-all', validators({}));
  if (facts.subnetId) {
    add('platform-getCurrentValidators-subnet', validators({ subnetID: facts.subnetId, nodeIDs: [facts.nodeId] }));
  }
  if (facts.l1) {
    add('platform-getCurrentValidators-l1', validators({ subnetID: facts.l1.subnetId, nodeIDs: [facts.nodeId] }));
    add('platform-getCurrentValidators-l1-inactive', validators({ subnetID: facts.l1.subnetId, nodeIDs: [facts.l1.inactiveNodeId] }));
    add('platform-getL1Validator', rpc('/ext/bc/P', 'platform.getL1Validator', { validationID: facts.l1.validationId }));
    add('platform-getSubnet-l1', rpc('/ext/bc/P', 'platform.getSubnet', { subnetID: facts.l1.subnetId }));
  }
  return cases;
}

/** Prefix of the cases asked of the local network's non-validator (a node ID no validator has). */
export const NON_VALIDATOR_PREFIX = 'non-validator-';

/** What a node that is not (or no longer) a validator answers: its node ID, uptime, validator entry. */
export function nonValidatorCases(nodeId: string): RecordingCase[] {
  return [
    { name: `${NON_VALIDATOR_PREFIX}info-getNodeID`, request: rpc('/ext/info', 'info.getNodeID') },
    { name: `${NON_VALIDATOR_PREFIX}info-uptime`, request: rpc('/ext/info', 'info.uptime') },
    {
      name: `${NON_VALIDATOR_PREFIX}platform-getCurrentValidators-own`,
      request: rpc('/ext/bc/P', 'platform.getCurrentValidators', { nodeIDs: [nodeId] }),
    },
  ];
}

/** What the L1 chain cases need: the L1, the asked validator's IDs and the stakers that run the chain. */
export interface L1ChainFacts {
  subnetId: string;
  chainId: string;
  /** The asked node (staker1): its node ID and its validation ID on the L1. */
  nodeId: string;
  validationId: string;
  /** The stakers (1..5) that track the L1. */
  trackers: number[];
}

/** The prefix of a case asked of staker<N> (`staker3-…`) rather than of staker1. */
export const STAKER_PREFIX = /^staker(\d)-/;

/**
 * The L1's chain as a monitor reads it (issue 30): its validators API from every vantage (each
 * staker that tracks it) and its errors, a chain without that API, a node that does not run the
 * chain, the P-Chain's view of the whole set (balances), the fee state that prices the balances,
 * the chain's name and status, its RPC, ProposerVM epoch, index (none) and health. Cases named
 * `staker<N>-…` are asked of staker<N>, `non-validator-…` of the non-validator, the rest of staker1.
 */
export function l1ChainCases(f: L1ChainFacts): RecordingCase[] {
  const cases: RecordingCase[] = [];
  const add = (name: string, request: RawRequest): void => {
    cases.push({ name, request });
  };
  const validatorsApi = `/ext/bc/${f.chainId}/validators`;
  for (const n of f.trackers) add(`staker${n}-validators-getCurrentValidators`, rpc(validatorsApi, 'validators.getCurrentValidators', {}));
  add('validators-getCurrentValidators-no-params', rpc(validatorsApi, 'validators.getCurrentValidators'));
  add('validators-getCurrentValidators-own', rpc(validatorsApi, 'validators.getCurrentValidators', { nodeIDs: [f.nodeId] }));
  add('validators-getCurrentValidators-unknown-node', rpc(validatorsApi, 'validators.getCurrentValidators', { nodeIDs: [UNKNOWN_NODE_ID] }));
  add('validators-getCurrentValidators-invalid-node-id', rpc(validatorsApi, 'validators.getCurrentValidators', { nodeIDs: ['NodeID-nope'] }));
  add('validators-unknown-method', rpc(validatorsApi, 'validators.getFoo', {}));
  add('validators-get', get(validatorsApi));
  // The C-Chain's VM (coreth) has no validators API; a node that does not track the L1 runs no chain for it.
  add('validators-C-chain', rpc('/ext/bc/C/validators', 'validators.getCurrentValidators', {}));
  add(`${NON_VALIDATOR_PREFIX}validators-getCurrentValidators`, rpc(validatorsApi, 'validators.getCurrentValidators', {}));

  add('platform-getCurrentValidators-l1-all', rpc('/ext/bc/P', 'platform.getCurrentValidators', { subnetID: f.subnetId }));
  add('platform-getValidatorFeeState', rpc('/ext/bc/P', 'platform.getValidatorFeeState', {}));
  add('platform-getBlockchains', rpc('/ext/bc/P', 'platform.getBlockchains', {}));
  add('platform-getBlockchainStatus-l1', rpc('/ext/bc/P', 'platform.getBlockchainStatus', { blockchainID: f.chainId }));
  add(`${NON_VALIDATOR_PREFIX}platform-getBlockchainStatus-l1`, rpc('/ext/bc/P', 'platform.getBlockchainStatus', { blockchainID: f.chainId }));
  add('platform-getL1Validator', rpc('/ext/bc/P', 'platform.getL1Validator', { validationID: f.validationId }));

  const evm = `/ext/bc/${f.chainId}/rpc`;
  add('l1-eth_blockNumber', rpc(evm, 'eth_blockNumber', []));
  add('l1-eth_chainId', rpc(evm, 'eth_chainId', []));
  add('l1-web3_clientVersion', rpc(evm, 'web3_clientVersion', []));
  add('l1-proposervm-getCurrentEpoch', rpc(`/ext/bc/${f.chainId}/proposervm`, 'proposervm.getCurrentEpoch'));
  add('l1-index-block-getLastAccepted', rpc(`/ext/index/${f.chainId}/block`, 'index.getLastAccepted', { encoding: 'hex' }));
  add('info-isBootstrapped-l1', rpc('/ext/info', 'info.isBootstrapped', { chain: f.chainId }));
  add('info-getNodeVersion', rpc('/ext/info', 'info.getNodeVersion'));
  add('health-rpc-health-tag-l1', rpc('/ext/health', 'health.health', { tags: [f.subnetId] }));
  return cases;
}

export async function requestCase(url: string, c: RecordingCase): Promise<RecordedAnswer> {
  const res: RawResponse = await httpRequest(url, c.request);
  // The date changes on every answer: not recorded.
  const headers = Object.fromEntries(Object.entries(res.headers).filter(([name]) => name !== 'date'));
  return { request: c.request, status: res.status, headers, body: res.body };
}

/** Prefix of the answers observed while the node starts: timing-dependent, never replayed live. */
export const STARTUP_PREFIX = 'startup-';

/** What distinguishes one startup state of GET /ext/health from another. */
function startupSignature(answer: RecordedAnswer): string {
  let parsed: { checks?: Record<string, { error?: string; message?: unknown }> } = {};
  try {
    parsed = JSON.parse(answer.body) as typeof parsed;
  } catch {
    return `${answer.status} ${answer.body}`;
  }
  const parts = Object.entries(parsed.checks ?? {}).map(([name, check]) => {
    const consensus = (check.message as { engine?: { consensus?: object } } | undefined)?.engine?.consensus;
    const bootstrapping = consensus !== undefined && Object.keys(consensus).length === 0 ? ' (consensus {})' : '';
    return `${name}: ${check.error ?? 'ok'}${bootstrapping}`;
  });
  return `${answer.status} ${parts.sort().join('; ')}`;
}

/**
 * Observes a starting node: keeps the first GET /ext/health answer of each distinct state
 * (checks `not yet run`, chains bootstrapping, …) and the first not-ready readiness answers.
 * Pass `poll` as `onStartupPoll` to startRealNode, then `write` the result.
 */
export function startupObserver(): {
  poll: (url: string) => Promise<void>;
  answers: Map<string, RecordedAnswer>;
  states: string[];
} {
  const answers = new Map<string, RecordedAnswer>();
  const states: string[] = [];
  const seen = new Set<string>();
  const once = async (url: string, name: string, request: RawRequest): Promise<void> => {
    if (answers.has(name)) return;
    const answer = await requestCase(url, { name, request });
    if (answer.status !== 200) answers.set(name, answer);
  };
  const poll = async (url: string): Promise<void> => {
    const health = await requestCase(url, { name: 'health', request: get('/ext/health') });
    const signature = startupSignature(health);
    if (!seen.has(signature)) {
      seen.add(signature);
      states.push(signature);
      answers.set(`${STARTUP_PREFIX}health-get-${states.length}`, health);
    }
    await once(url, `${STARTUP_PREFIX}readiness-get`, get('/ext/health/readiness'));
    if (!answers.has(`${STARTUP_PREFIX}health-rpc`) && health.status !== 200) {
      answers.set(`${STARTUP_PREFIX}health-rpc`, await requestCase(url, { name: 'rpc', request: rpc('/ext/health', 'health.health') }));
    }
  };
  return { poll, answers, states };
}

export interface RecordingMeta {
  version: string;
  nodeId: string;
  recordedAt: string;
  /** Node flags, with the temporary directory and ports replaced by placeholders. */
  flags: string[];
  cChainTransfers: number;
  lastAccepted: NodeFacts['lastAccepted'];
  cChainId: string;
  cases: string[];
  /** The startup states seen (status and per-check error), in order; see `startup-health-get-<n>`. */
  startupStates: string[];
}

/** The single node's cases: health, index, admin, HTTP edges, then info and platform. */
export async function singleNodeCases(url: string): Promise<{ facts: NodeFacts; cases: RecordingCase[] }> {
  const facts = await readNodeFacts(url);
  return { facts, cases: [...recordingCases(facts), ...validatorCases(await readValidatorFacts(url))] };
}

/** Replaces the recording directory with fresh answers from the node at `url`. */
export async function recordAll(
  url: string,
  meta: Omit<RecordingMeta, 'recordedAt' | 'cases' | 'lastAccepted' | 'cChainId' | 'startupStates'>,
  startup: { answers: Map<string, RecordedAnswer>; states: string[] },
): Promise<{ dir: string; cases: RecordingCase[] }> {
  const { facts, cases } = await singleNodeCases(url);
  const dir = fixturesDir(meta.version);
  await mkdir(dir, { recursive: true });
  // Replace this recording's files only: other profiles live in subdirectories.
  for (const file of await readdir(dir)) if (file.endsWith('.json')) await rm(join(dir, file));
  for (const c of cases) {
    const answer = await requestCase(url, c);
    await writeFile(join(dir, `${c.name}.json`), `${JSON.stringify(answer, null, 2)}\n`);
  }
  for (const [name, answer] of startup.answers) {
    await writeFile(join(dir, `${name}.json`), `${JSON.stringify(answer, null, 2)}\n`);
  }
  const full: RecordingMeta = {
    ...meta,
    recordedAt: new Date().toISOString(),
    lastAccepted: facts.lastAccepted,
    cChainId: facts.cChainId,
    cases: cases.map((c) => c.name),
    startupStates: startup.states,
  };
  await writeFile(join(dir, '_meta.json'), `${JSON.stringify(full, null, 2)}\n`);
  return { dir, cases };
}

export interface BootstrappingMeta {
  version: string;
  profile: 'bootstrapping-validator';
  nodeId: string;
  recordedAt: string;
  flags: string[];
  cases: string[];
}

/** Replaces the bootstrapping validator's recording with fresh answers from the node at `url`. */
export function recordBootstrapping(
  url: string,
  meta: Omit<BootstrappingMeta, 'recordedAt' | 'cases' | 'profile'>,
): Promise<{ dir: string; cases: RecordingCase[] }> {
  return recordProfile(url, 'bootstrapping-validator', meta, bootstrappingCases());
}

/**
 * Replaces a profile's recording (a subdirectory) with fresh answers from the node at `url`
 * (a function: the node that answers each case).
 */
export async function recordProfile(
  url: string | ((c: RecordingCase) => string),
  profile: Exclude<RecordingProfile, 'single-node'>,
  meta: { version: string } & Record<string, unknown>,
  cases: RecordingCase[],
): Promise<{ dir: string; cases: RecordingCase[] }> {
  const dir = fixturesDir(meta.version, profile);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  for (const c of cases) {
    const answer = await requestCase(typeof url === 'string' ? url : url(c), c);
    await writeFile(join(dir, `${c.name}.json`), `${JSON.stringify(answer, null, 2)}\n`);
  }
  const full = { ...meta, profile, recordedAt: new Date().toISOString(), cases: cases.map((c) => c.name) };
  await writeFile(join(dir, '_meta.json'), `${JSON.stringify(full, null, 2)}\n`);
  return { dir, cases };
}

export interface Recording<M> {
  /** `_meta.json`: what recordAll, recordBootstrapping or recordProfile wrote. */
  meta: M;
  answers: Map<string, RecordedAnswer>;
}

/** A profile's recording: its metadata and its answers by case name. */
export async function readRecording(version: string, profile?: 'single-node'): Promise<Recording<RecordingMeta>>;
export async function readRecording(version: string, profile: 'bootstrapping-validator'): Promise<Recording<BootstrappingMeta>>;
export async function readRecording(version: string, profile: RecordingProfile): Promise<Recording<unknown>>;
export async function readRecording(version: string, profile: RecordingProfile = 'single-node'): Promise<Recording<unknown>> {
  const dir = fixturesDir(version, profile);
  const meta = JSON.parse(await readFile(join(dir, '_meta.json'), 'utf8')) as unknown;
  const answers = new Map<string, RecordedAnswer>();
  for (const file of (await readdir(dir)).sort()) {
    if (!file.endsWith('.json') || file.startsWith('_')) continue;
    answers.set(file.slice(0, -'.json'.length), JSON.parse(await readFile(join(dir, file), 'utf8')) as RecordedAnswer);
  }
  return { meta, answers };
}
