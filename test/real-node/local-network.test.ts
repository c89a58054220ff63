// The five-node local network (network.ts): every node a real primary-network validator. Its
// info and platform answers are recorded into test/fixtures/real/<version>/local-network/ (RECORD=1)
// or replayed against the live network, with a legacy subnet validator and an L1 validator with a
// P-Chain balance created by real P-Chain transactions (l1.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { RunningSimulator, SimulatorOptions } from '../../src/simulator/index.js';
import { REPO_ROOT, SUBNET_EVM_VM_ID, pinnedVersion } from './build.js';
import { blockNumber, receiptBlock, sendCChainTransfers, sendTransfers, submitTransfer } from './chain.js';
import { compareAnswers } from './compare.js';
import { UNSERVED_PLATFORM_METHODS, explain, type Difference, type KnownDifference } from './differences.js';
import { L1_EVM_CHAIN_ID, setUpSubnets, type SubnetSetup } from './l1.js';
import { compareMetrics, fetchNodeMetrics, readNodeMetrics, recordNodeMetrics } from './node-metrics.js';
import { LOCAL_L1_VALIDATORS, offlineShare, runL1Chain, waitChainRunning, watchStandstill, type RunningL1 } from './l1-chain.js';
import { httpRequest, rpcCall, rpcRequest } from './http.js';
import { startLocalNetwork, type LocalNetwork } from './network.js';
import { select, startExporter, type Sample } from './exporter.js';
import { portableFlags, type RealNode } from './node.js';
import {
  NON_VALIDATOR_PREFIX,
  PRIMARY_NETWORK_ID,
  STAKER_PREFIX,
  l1ChainCases,
  nonValidatorCases,
  readRecording,
  readValidatorFacts,
  recordProfile,
  records,
  requestCase,
  rpc,
  validatorCases,
  type L1ChainFacts,
  type RecordingCase,
  type ValidatorFacts,
} from './record.js';
import { waitFor } from './wait.js';
import { defined } from '../helpers/assert.js';

const SIMULATOR_MAIN = join(REPO_ROOT, 'dist', 'simulator', 'index.js');

/**
 * Differences between the simulator's validators and the real ones that are not simulator bugs
 * (matched as regexes against the case name and the difference text), each with the reason.
 * An unexplained difference, or an entry that no longer matches anything, fails the test.
 */
const KNOWN_VALIDATOR_DIFFERENCES: KnownDifference[] = [
  {
    case: /^platform-getCurrentValidators-subnet$/,
    difference: /^asked only of the real node$/,
    reason: 'the simulator models primary-network and L1 validators, not legacy (permissioned) subnet validators',
  },
  {
    case: /^info-getNodeVersion$/,
    difference: new RegExp(`vmVersions\\.(subnet-evm: missing in first|${SUBNET_EVM_VM_ID}: missing in second)$`),
    reason:
      "both run the Subnet-EVM plugin; the simulated node names it by the alias `subnet-evm` (a node with a VM aliases file, as its admin.loadVMs answer says), the local network's nodes have no aliases file, so the VM's ID is its name",
  },
  UNSERVED_PLATFORM_METHODS,
];

const itRecords = records('answers') ? it : undefined;
const itRecordsL1 = records('l1-chain') ? it : undefined;
const itRecordsMetrics = records('node-metrics') ? it : undefined;
const L1_BALANCE = 1_000_000_000n; // 1 AVAX
/** Transfers on each EVM chain before staker1's /ext/metrics is recorded. */
const METRICS_TRANSFERS = 20;

export interface LocalNetworkMeta {
  version: string;
  /** staker1..5. */
  nodeIds: string[];
  /** The node asked: staker1. */
  nodeId: string;
  flags: string[];
  startSeconds: number;
  subnetId: string;
  subnetValidatorEnd: number;
  l1: {
    subnetId: string;
    chainId: string;
    validationId: string;
    balance: string;
    weight: string;
    inactive: { nodeId: string; validationId: string; balance: string };
  };
  txs: SubnetSetup['txs'];
  cases: string[];
}

interface PrimaryValidator {
  txID: string;
  startTime: string;
  endTime: string;
  weight: string;
  nodeID: string;
  potentialReward?: string;
  delegationFee: string;
  uptime: string;
  connected: boolean;
  signer?: { publicKey: string; proofOfPossession: string };
}
/** An entry of the L1 chain's validators API (Subnet-EVM: plugin/evm/client/client.go, CurrentValidator). */
interface ChainValidator {
  validationID: string;
  nodeID: string;
  weight: number;
  startTimestamp: number;
  isActive: boolean;
  isL1Validator: boolean;
  isConnected: boolean;
  uptimePercentage: number;
  uptimeSeconds: number;
}
const CHAIN_VALIDATOR_KEYS = [
  'validationID',
  'nodeID',
  'weight',
  'startTimestamp',
  'isActive',
  'isL1Validator',
  'isConnected',
  'uptimePercentage',
  'uptimeSeconds',
];
/**
 * The key of the Subnet-EVM plugin in info.getNodeVersion's vmVersions: the VM's primary alias,
 * which for a plugin without a VM aliases file (`--vm-aliases-file`) is its VM ID.
 */
const SUBNET_EVM_VERSION_KEY = SUBNET_EVM_VM_ID;
interface L1ValidatorEntry {
  nodeID: string;
  weight: string;
  startTime: string;
  validationID: string;
  publicKey: string;
  minNonce: string;
  balance: string;
}

describe('a five-node local network of genesis validators', async () => {
  const version = await pinnedVersion();
  // Set by beforeAll; undefined when the network did not start.
  let started: LocalNetwork | undefined;
  const theNetwork = (): LocalNetwork => defined(started, 'the local network');
  let setup: SubnetSetup;
  let l1Chain: RunningL1;
  let facts: ValidatorFacts;
  let url: string;

  beforeAll(async () => {
    const network = await startLocalNetwork();
    started = network;
    const first = network.nodes[0];
    if (!first) throw new Error('no staker1');
    url = first.url;
    const second = network.nodes[1];
    if (!second) throw new Error('no staker2');
    const weight = (staker: number): bigint =>
      defined(
        LOCAL_L1_VALIDATORS.find((v) => v.staker === staker),
        `staker${staker}'s L1 weight`,
      ).weight;
    setup = await setUpSubnets(url, first.nodeId, {
      balance: L1_BALANCE,
      weight: weight(1),
      inactive: { url: second.url, weight: weight(2) },
      others: [3, 4, 5].map((n) => ({ url: network.staker(n).url, weight: weight(n), balance: L1_BALANCE })),
    });
    // Every L1 validator runs the chain, the inactive one too (it keeps its place in the set).
    l1Chain = await runL1Chain(
      network,
      setup.l1,
      LOCAL_L1_VALIDATORS.map((v) => v.staker),
    );
    facts = await readValidatorFacts(url, {
      subnetId: setup.subnetId,
      l1: { subnetId: setup.l1.subnetId, validationId: setup.l1.validationId, inactiveNodeId: setup.l1.inactive.nodeId },
    });
    // info.uptime is the uptime the network perceives: each peer reports its view of staker1 in
    // its pong (every --network-ping-frequency); until they have, only staker1's own 20 % counts.
    await waitFor(
      async () => {
        const up = await rpcCall<{ rewardingStakePercentage: string }>(url, '/ext/info', 'info.uptime');
        return Number(up.rewardingStakePercentage) === 100;
      },
      { timeoutMs: 90_000, what: 'info.uptime of staker1 to reach 100 % (every peer reported)' },
    );
  });
  afterAll(async () => {
    await started?.stop();
  });
  const logs = (): void =>
    onTestFailed(async () => {
      const network = theNetwork();
      for (const node of [...network.nodes, network.nonValidator]) process.stderr.write(`--- ${node.url} ---\n${await node.logTail(20)}\n`);
    });

  itRecords?.('records the info and platform answers of staker1', async () => {
    const network = theNetwork();
    const first = network.nodes[0];
    if (!first) throw new Error('no staker1');
    const meta: Omit<LocalNetworkMeta, 'cases'> = {
      version,
      nodeIds: network.nodes.map((n) => n.nodeId),
      nodeId: first.nodeId,
      flags: portableFlags(first),
      startSeconds: network.startSeconds,
      subnetId: setup.subnetId,
      subnetValidatorEnd: setup.subnetValidatorEnd,
      l1: {
        subnetId: setup.l1.subnetId,
        chainId: setup.l1.chainId,
        validationId: setup.l1.validationId,
        balance: String(setup.l1.balance),
        weight: String(setup.l1.weight),
        inactive: { ...setup.l1.inactive, balance: String(setup.l1.inactive.balance) },
      },
      txs: setup.txs,
    };
    const { dir, cases } = await recordProfile(
      (c) => (c.name.startsWith(NON_VALIDATOR_PREFIX) ? network.nonValidator.url : url),
      'local-network',
      { ...meta, nonValidatorNodeId: network.nonValidator.nodeId },
      [...validatorCases(facts), ...nonValidatorCases(network.nonValidator.nodeId)],
    );
    process.stderr.write(`[real-node] recorded ${cases.length} answers into ${dir}\n`);
  });

  const l1Facts = (): L1ChainFacts => ({
    subnetId: setup.l1.subnetId,
    chainId: setup.l1.chainId,
    nodeId: facts.nodeId,
    validationId: setup.l1.validationId,
    trackers: l1Chain.trackers,
  });
  /** The node a case of l1ChainCases is asked of. */
  const l1CaseUrl = (c: RecordingCase): string => {
    const network = theNetwork();
    if (c.name.startsWith(NON_VALIDATOR_PREFIX)) return network.nonValidator.url;
    const staker = STAKER_PREFIX.exec(c.name)?.[1];
    return staker ? network.staker(Number(staker)).url : url;
  };

  itRecordsL1?.("records the L1 chain's answers", async () => {
    const network = theNetwork();
    const meta = {
      version,
      nodeIds: network.nodes.map((n) => n.nodeId),
      nonValidatorNodeId: network.nonValidator.nodeId,
      l1: {
        subnetId: setup.l1.subnetId,
        chainId: setup.l1.chainId,
        chainName: setup.l1.chainName,
        evmChainId: setup.l1.evmChainId,
        validators: setup.l1.validators.map((v) => ({ ...v, weight: String(v.weight), balance: String(v.balance) })),
        trackers: l1Chain.trackers,
      },
      plugin: { version: l1Chain.plugin.version, rpcChainVm: l1Chain.plugin.rpcChainVm, vmId: SUBNET_EVM_VM_ID },
      trackingFlags: portableFlags(network.staker(1)).filter((f) => /^--(track-subnets|plugin-dir)=/.test(f)),
    };
    const { dir, cases } = await recordProfile(l1CaseUrl, 'l1-chain', meta, l1ChainCases(l1Facts()));
    process.stderr.write(`[real-node] recorded ${cases.length} answers into ${dir}\n`);
  });

  itRecordsMetrics?.("records staker1's /ext/metrics, whole and trimmed, with the C-Chain and the L1 busy", async () => {
    const network = theNetwork();
    const staker1 = network.staker(1);
    // Traffic first, so that the EVM families carry values: transfers on both EVM chains.
    await sendCChainTransfers(staker1.url, METRICS_TRANSFERS);
    await sendTransfers(l1Chain.evm(staker1), METRICS_TRANSFERS);
    const meta = await recordNodeMetrics(staker1.url, version, 'local-network', staker1.nodeId, {
      keepFull: true,
      notes: [
        `staker1 of the five-node local network, a validator of the primary network and of the L1 (chain ${setup.l1.chainId}, Subnet-EVM)`,
        `after ${METRICS_TRANSFERS} transfers on the C-Chain and ${METRICS_TRANSFERS} on the L1`,
      ],
    });
    process.stderr.write(
      `[real-node] recorded /ext/metrics of staker1: ${meta.full.bytes} bytes, ${meta.full.families} families, ${meta.full.series} series\n`,
    );
  });

  it('the recorded /ext/metrics of staker1 are still served, with their types and label names', async () => {
    logs();
    const recorded = await readNodeMetrics(version, 'local-network');
    const live = await fetchNodeMetrics(theNetwork().staker(1).url);
    // The L1's chain label is its blockchain ID, new on every run: compared by name and labels only.
    expect(compareMetrics(recorded.trimmed, live)).toEqual([]);
  });

  it('the recorded L1 chain answers still match the live network', async () => {
    logs();
    const { meta, answers } = await readRecording(version, 'l1-chain');
    const cases = l1ChainCases(l1Facts());
    expect(cases.map((c) => c.name).sort()).toEqual([...answers.keys()].sort());
    // The L1's subnet and chain IDs are new on every run, and the health report keys its check
    // by the chain ID: the recorded IDs are read as this run's.
    const recordedL1 = (meta as { l1: { subnetId: string; chainId: string } }).l1;
    const asThisRun = (body: string): string =>
      body.replaceAll(recordedL1.chainId, setup.l1.chainId).replaceAll(recordedL1.subnetId, setup.l1.subnetId);
    const differences: string[] = [];
    for (const c of cases) {
      const recorded = answers.get(c.name);
      if (!recorded) continue;
      const live = await requestCase(l1CaseUrl(c), c);
      for (const d of compareAnswers({ ...recorded, body: asThisRun(recorded.body) }, live)) {
        // Go writes a map's keys sorted: where the chain ID falls among the check names depends on the ID.
        if (c.name === 'health-rpc-health-tag-l1' && d.startsWith('shape $.result.checks: key order ')) continue;
        differences.push(`${c.name}: ${d}`);
      }
    }
    expect(differences).toEqual([]);
  });

  it('the recorded answers still match the live network', async () => {
    const network = theNetwork();
    logs();
    const recording = await readRecording(version, 'local-network');
    const meta = recording.meta as LocalNetworkMeta;
    const { answers } = recording;
    // The genesis keys give the same node IDs on every run.
    expect(network.nodes.map((n) => n.nodeId)).toEqual(meta.nodeIds);
    const cases = [...validatorCases(facts), ...nonValidatorCases(network.nonValidator.nodeId)];
    expect(cases.map((c) => c.name).sort()).toEqual([...answers.keys()].sort());
    const differences: string[] = [];
    for (const c of cases) {
      const recorded = answers.get(c.name);
      if (!recorded) continue;
      const live = await requestCase(c.name.startsWith(NON_VALIDATOR_PREFIX) ? network.nonValidator.url : url, c);
      for (const d of compareAnswers(recorded, live)) differences.push(`${c.name}: ${d}`);
    }
    expect(differences).toEqual([]);
  });

  it('staker1 is a connected primary-network validator with its registered BLS key', async () => {
    const network = theNetwork();
    logs();
    const { nodeID, nodePOP } = await rpcCall<{ nodeID: string; nodePOP: { publicKey: string } }>(url, '/ext/info', 'info.getNodeID');
    const { validators } = await rpcCall<{ validators: PrimaryValidator[] }>(url, '/ext/bc/P', 'platform.getCurrentValidators', {
      nodeIDs: [nodeID],
    });
    expect(validators).toHaveLength(1);
    const [own] = validators as [PrimaryValidator];
    expect(own.nodeID).toBe(nodeID);
    expect(Number(own.endTime)).toBeGreaterThan(Date.now() / 1000);
    expect(Number(own.startTime)).toBeLessThan(Number(own.endTime));
    expect(own.connected).toBe(true);
    expect(own.signer?.publicKey).toBe(nodePOP.publicKey);
    expect(BigInt(own.weight)).toBeGreaterThan(0n);
    expect(own.potentialReward).toMatch(/^\d+$/);
    expect(own.uptime).toMatch(/^\d+\.\d{4}$/);
    const uptime = await rpcCall<{ rewardingStakePercentage: string; weightedAveragePercentage: string }>(url, '/ext/info', 'info.uptime');
    expect(uptime.rewardingStakePercentage).toMatch(/^\d+\.\d{4}$/);
    expect(Number(uptime.weightedAveragePercentage)).toBeGreaterThan(0);
    const { validators: all } = await rpcCall<{ validators: PrimaryValidator[] }>(url, '/ext/bc/P', 'platform.getCurrentValidators', {
      subnetID: PRIMARY_NETWORK_ID,
    });
    expect(all.map((v) => v.nodeID).sort()).toEqual(network.nodes.map((n) => n.nodeId).sort());
  });

  it('a node with a key no validator has: info.uptime says so, and no validator entry', async () => {
    const network = theNetwork();
    logs();
    const { nonValidator } = network;
    const res = await httpRequest(nonValidator.url, rpcRequest('/ext/info', 'info.uptime'));
    // The fact sheet has the wrapped error only ("node is not a validator"); the node prefixes it.
    expect(JSON.parse(res.body)).toMatchObject({
      error: { code: -32000, message: "couldn't get node uptime: node is not a validator" },
    });
    const { validators } = await rpcCall<{ validators: unknown[] }>(nonValidator.url, '/ext/bc/P', 'platform.getCurrentValidators', {
      nodeIDs: [nonValidator.nodeId],
    });
    expect(validators).toEqual([]);
  });

  it('the legacy subnet lists staker1 with its end time; the L1 with its balance and no end time', async () => {
    logs();
    const subnet = await rpcCall<{ validators: Array<Record<string, unknown>> }>(url, '/ext/bc/P', 'platform.getCurrentValidators', {
      subnetID: setup.subnetId,
      nodeIDs: [facts.nodeId],
    });
    expect(subnet.validators).toHaveLength(1);
    expect(subnet.validators[0]?.endTime).toBe(String(setup.subnetValidatorEnd));
    expect(subnet.validators[0]).not.toHaveProperty('balance');

    const l1 = await rpcCall<{ validators: L1ValidatorEntry[] }>(url, '/ext/bc/P', 'platform.getCurrentValidators', {
      subnetID: setup.l1.subnetId,
      nodeIDs: [facts.nodeId],
    });
    expect(l1.validators).toHaveLength(1);
    const [entry] = l1.validators as [L1ValidatorEntry];
    expect(entry.validationID).toBe(setup.l1.validationId);
    expect(entry.weight).toBe(String(setup.l1.weight));
    expect(entry).not.toHaveProperty('endTime');
    // The balance pays the continuous fee: at most what was deposited, and not yet exhausted.
    expect(BigInt(entry.balance)).toBeGreaterThan(0n);
    expect(BigInt(entry.balance)).toBeLessThanOrEqual(L1_BALANCE);
    // staker2's 3 nAVAX ran out: still listed, balance exactly "0" (inactive).
    const inactive = await rpcCall<{ validators: L1ValidatorEntry[] }>(url, '/ext/bc/P', 'platform.getCurrentValidators', {
      subnetID: setup.l1.subnetId,
      nodeIDs: [setup.l1.inactive.nodeId],
    });
    expect(inactive.validators.map((v) => [v.validationID, v.balance])).toEqual([[setup.l1.inactive.validationId, '0']]);
    const fee = await rpcCall<{ price: number; excess: number; timestamp: string }>(url, '/ext/bc/P', 'platform.getValidatorFeeState', {});
    expect(fee.price).toBeGreaterThan(0);
  });
  it('eth_blockNumber, platform.getHeight and proposervm.getCurrentEpoch answer on the C-Chain as the v1.15 fact sheet says', async () => {
    logs();
    const health = await rpcCall<{ checks: Record<string, { message?: { engine?: { consensus?: { lastAcceptedHeight?: number } } } }> }>(
      url,
      '/ext/health',
      'health.health',
    );
    const accepted = (chain: string) => defined(health.checks[chain]?.message?.engine?.consensus?.lastAcceptedHeight, `${chain}'s accepted height`);
    // go-ethereum's server: a hex quantity; before Helicon the executed height is the accepted one.
    const executed = await rpcCall<string>(url, '/ext/bc/C/rpc', 'eth_blockNumber', []);
    expect(executed).toMatch(/^0x(0|[1-9a-f][0-9a-f]*)$/);
    expect(Number.parseInt(executed.slice(2), 16)).toBeGreaterThanOrEqual(accepted('C'));
    // The P-Chain height is a json.Uint64 string, at least what health reported a moment earlier.
    const { height } = await rpcCall<{ height: string }>(url, '/ext/bc/P', 'platform.getHeight');
    expect(height).toMatch(/^\d+$/);
    expect(Number(height)).toBeGreaterThanOrEqual(accepted('P'));
    // The C-Chain's ProposerVM epoch: three json.Uint64 strings, in GetEpochResponse's order; its
    // P-Chain height is one the P-Chain has reached.
    const epoch = await rpcCall<Record<string, string>>(url, '/ext/bc/C/proposervm', 'proposervm.getCurrentEpoch');
    expect(Object.keys(epoch)).toEqual(['number', 'startTime', 'pChainHeight']);
    for (const v of Object.values(epoch)) expect(v).toMatch(/^\d+$/);
    expect(Number(epoch.pChainHeight)).toBeLessThanOrEqual(Number(height));
    // go-ethereum refuses object params (the exporter sends []).
    const refused = await httpRequest(url, rpcRequest('/ext/bc/C/rpc', 'eth_blockNumber', {}));
    expect((JSON.parse(refused.body) as { error?: { code: number } }).error?.code).toBe(-32602);
  });

  it('the exporter reports the real validators: uptime, stake end, weight, reward, key, L1 balance, fee, version', async () => {
    const network = theNetwork();
    logs();
    const [staker1, staker2] = network.nodes;
    if (!staker1 || !staker2) throw new Error('no staker1/staker2');
    const own = (await rpcCall<{ validators: PrimaryValidator[] }>(url, '/ext/bc/P', 'platform.getCurrentValidators', { nodeIDs: [staker1.nodeId] }))
      .validators[0];
    if (!own) throw new Error('staker1 is not listed');
    const targets: Array<[string, RealNode]> = [
      ['staker1', staker1],
      ['staker2', staker2],
      ['nonvalidator', network.nonValidator],
    ];
    const exporter = await startExporter(
      [
        'defaults:',
        '  interval: 2s',
        '  timeout: 1s',
        '  info: { enabled: true, interval: 2s }',
        `  platform: { enabled: true, interval: 2s, subnets: [${setup.subnetId}, ${setup.l1.subnetId}] }`,
        '  evm: { chains: [C] }',
        '  proposervm: { chains: [C], interval: 2s }',
        'targets:',
        ...targets.flatMap(([name, node]) => [`  - name: ${name}`, `    url: ${node.url}`]),
        '',
      ].join('\n'),
    );
    try {
      onTestFailed(() => {
        process.stderr.write(`--- exporter output (tail) ---\n${exporter.output().split('\n').slice(-40).join('\n')}\n`);
      });
      const at = (s: Sample[], name: string, node: string, labels: Record<string, string> = {}): number | undefined =>
        select(s, name, { node, ...labels })[0]?.value;
      const primary = { subnet: PRIMARY_NETWORK_ID };
      const legacy = { subnet: setup.subnetId };
      const l1 = { subnet: setup.l1.subnetId };
      const samples = await waitFor(
        async () => {
          const s = await exporter.metrics();
          const ready =
            at(s, 'avalanchego_uptime_rewarding_stake_ratio', 'staker1') !== undefined &&
            at(s, 'avalanchego_l1_validator_balance_navax', 'staker1', l1) !== undefined &&
            at(s, 'avalanchego_l1_validator_balance_navax', 'staker2', l1) !== undefined &&
            at(s, 'avalanchego_validator', 'nonvalidator', primary) !== undefined &&
            at(s, 'avalanchego_validator_fee_price_navax_per_second', 'staker1') !== undefined &&
            at(s, 'avalanchego_platform_height', 'staker1') !== undefined &&
            at(s, 'avalanchego_proposervm_epoch_pchain_height', 'staker1', { chain: 'C' }) !== undefined &&
            at(s, 'avalanchego_chain_executed_height', 'staker1', { chain: 'C' }) !== undefined;
          return ready ? s : false;
        },
        { timeoutMs: 60_000, intervalMs: 500, what: 'info and platform series of the three targets' },
      );

      // Identity and version.
      expect(select(samples, 'avalanchego_node_info', { node: 'staker1' }).map((x) => x.labels)).toEqual([
        { node: 'staker1', node_id: staker1.nodeId, version: '1.14.2', network_id: '12345' },
      ]);
      expect(at(samples, 'avalanchego_node_version_number', 'staker1')).toBe(1014002);
      // Six nodes, all v1.14.2: staker1's five peers are on its minor version, none newer.
      expect(at(samples, 'avalanchego_network_peers_by_version', 'staker1', { version: '1.14' })).toBe(5);
      expect(at(samples, 'avalanchego_network_peers_newer_version_ratio', 'staker1')).toBe(0);
      // Helicon is the only future upgrade, at 9999-12-01: unscheduled, so no next upgrade.
      expect(at(samples, 'avalanchego_next_upgrade_timestamp_seconds', 'staker1')).toBeUndefined();

      // The network's view of staker1's uptime: all the stake sees it above the reward threshold
      // once every peer reported; the average may dip below 100 % if a peer saw it connect late.
      expect(at(samples, 'avalanchego_uptime_rewarding_stake_ratio', 'staker1')).toBe(1);
      const weighted = at(samples, 'avalanchego_uptime_weighted_average_ratio', 'staker1') ?? -1;
      expect(weighted).toBeGreaterThan(0.8);
      expect(weighted).toBeLessThanOrEqual(1);
      expect(at(samples, 'avalanchego_info_method_state', 'staker1', { method: 'info.uptime', state: 'ok' })).toBe(1);

      // Primary network: the node's own entry.
      expect(at(samples, 'avalanchego_validator', 'staker1', primary)).toBe(1);
      expect(at(samples, 'avalanchego_validator_end_timestamp_seconds', 'staker1', primary)).toBe(Number(own.endTime));
      expect(at(samples, 'avalanchego_validator_start_timestamp_seconds', 'staker1', primary)).toBe(Number(own.startTime));
      expect(at(samples, 'avalanchego_validator_weight', 'staker1', primary)).toBe(Number(own.weight));
      expect(at(samples, 'avalanchego_validator_potential_reward_navax', 'staker1')).toBe(Number(own.potentialReward));
      expect(at(samples, 'avalanchego_validator_registered_key_match', 'staker1', primary)).toBe(1);

      // The legacy subnet: an end time, no BLS key registered on the entry.
      expect(at(samples, 'avalanchego_validator', 'staker1', legacy)).toBe(1);
      expect(at(samples, 'avalanchego_validator_end_timestamp_seconds', 'staker1', legacy)).toBe(setup.subnetValidatorEnd);
      expect(at(samples, 'avalanchego_validator_weight', 'staker1', legacy)).toBe(100);
      expect(at(samples, 'avalanchego_l1_validator_balance_navax', 'staker1', legacy)).toBeUndefined();

      // The L1: a balance and no end time; staker2's ran out.
      expect(at(samples, 'avalanchego_validator', 'staker1', l1)).toBe(1);
      expect(at(samples, 'avalanchego_validator_end_timestamp_seconds', 'staker1', l1)).toBeUndefined();
      expect(at(samples, 'avalanchego_validator_registered_key_match', 'staker1', l1)).toBe(1);
      const balance = at(samples, 'avalanchego_l1_validator_balance_navax', 'staker1', l1) ?? -1;
      expect(balance).toBeGreaterThan(0);
      expect(balance).toBeLessThanOrEqual(Number(L1_BALANCE));
      expect(at(samples, 'avalanchego_l1_validator_active', 'staker1', l1)).toBe(1);
      expect(at(samples, 'avalanchego_l1_validator_balance_navax', 'staker2', l1)).toBe(0);
      expect(at(samples, 'avalanchego_l1_validator_active', 'staker2', l1)).toBe(0);
      expect(at(samples, 'avalanchego_validator', 'staker2', legacy)).toBe(0);
      expect(at(samples, 'avalanchego_validator_fee_price_navax_per_second', 'staker1')).toBe(1);

      // Helicon's series on v1.14.2: Helicon unscheduled, so the 80 % requirement; no auto-renewal.
      expect(at(samples, 'avalanchego_validator_uptime_requirement_ratio', 'staker1', primary)).toBe(0.8);
      expect(at(samples, 'avalanchego_validator_auto_renew', 'staker1', primary)).toBe(0);
      expect(at(samples, 'avalanchego_validator_next_period_seconds', 'staker1', primary)).toBeUndefined();
      // The C-Chain's executed height (eth_blockNumber) agrees with its accepted one before Helicon;
      // the P-Chain height and the C-Chain's ProposerVM epoch are real heights of this network.
      const executed = at(samples, 'avalanchego_chain_executed_height', 'staker1', { chain: 'C' }) ?? -1;
      const acceptedC = at(samples, 'avalanchego_chain_last_accepted_height', 'staker1', { chain: 'C' }) ?? -2;
      expect(Math.abs(executed - acceptedC)).toBeLessThanOrEqual(2);
      const pHeight = at(samples, 'avalanchego_platform_height', 'staker1') ?? -1;
      expect(pHeight).toBeGreaterThan(0);
      const epochP = at(samples, 'avalanchego_proposervm_epoch_pchain_height', 'staker1', { chain: 'C' }) ?? -1;
      expect(epochP).toBeGreaterThanOrEqual(0);
      expect(epochP).toBeLessThanOrEqual(pHeight);
      expect(at(samples, 'avalanchego_proposervm_epoch_number', 'staker1', { chain: 'C' })).toBeGreaterThanOrEqual(0);
      expect(at(samples, 'avalanchego_platform_method_state', 'staker1', { method: 'platform.getHeight', state: 'ok' })).toBe(1);

      // The non-validator: a state of its own, not a failed poll, and not a validator anywhere.
      expect(at(samples, 'avalanchego_info_method_state', 'nonvalidator', { method: 'info.uptime', state: 'not_validator' })).toBe(1);
      expect(at(samples, 'avalanchego_uptime_rewarding_stake_ratio', 'nonvalidator')).toBeUndefined();
      for (const subnet of [primary, legacy, l1]) expect(at(samples, 'avalanchego_validator', 'nonvalidator', subnet)).toBe(0);

      for (const [name] of targets) {
        for (const source of ['health', 'info', 'platform', 'evm', 'proposervm']) {
          expect(at(samples, 'avalanchego_exporter_poll_success', name, { source }), `${name} ${source}`).toBe(1);
        }
      }
    } finally {
      await exporter.stop();
    }
  });

  it('the L1 runs its Subnet-EVM chain on its validators: a transfer makes a block that every one of them accepts', async () => {
    const network = theNetwork();
    logs();
    const chain = setup.l1.chainId;
    // The plugin speaks the node's RPC chain VM protocol (the node refuses a plugin that does not).
    const version = await rpcCall<{ rpcProtocolVersion: string; vmVersions: Record<string, string> }>(url, '/ext/info', 'info.getNodeVersion');
    expect(Number(version.rpcProtocolVersion)).toBe(l1Chain.plugin.rpcChainVm);
    expect(version.vmVersions[SUBNET_EVM_VERSION_KEY]).toBe(l1Chain.plugin.version);
    const evmChainId = await rpcCall<string>(url, `/ext/bc/${chain}/rpc`, 'eth_chainId', []);
    expect(Number.parseInt(evmChainId.slice(2), 16)).toBe(L1_EVM_CHAIN_ID);

    const staker1 = network.staker(1);
    const before = await blockNumber(l1Chain.evm(staker1));
    const { lastBlock } = await sendTransfers(l1Chain.evm(staker1), 2);
    expect(Number(lastBlock)).toBeGreaterThan(before);
    for (const n of l1Chain.trackers) {
      await waitFor(async () => (await blockNumber(l1Chain.evm(network.staker(n)))) >= Number(lastBlock), {
        timeoutMs: 30_000,
        what: `staker${n} to accept L1 block ${lastBlock}`,
      });
    }
    // A node that does not track the L1 does not run its chain: no API under /ext/bc/<chain>.
    const elsewhere = await httpRequest(network.nonValidator.url, rpcRequest(`/ext/bc/${chain}/rpc`, 'eth_blockNumber', []));
    expect(elsewhere.status).toBe(404);
  });

  it("the P-Chain names the L1's chain, and each node says whether it validates it", async () => {
    const network = theNetwork();
    logs();
    const { blockchains } = await rpcCall<{ blockchains: Array<{ id: string; name: string; subnetID: string; vmID: string }> }>(
      url,
      '/ext/bc/P',
      'platform.getBlockchains',
      {},
    );
    expect(blockchains.find((b) => b.id === setup.l1.chainId)).toEqual({
      id: setup.l1.chainId,
      name: setup.l1.chainName,
      subnetID: setup.l1.subnetId,
      vmID: SUBNET_EVM_VM_ID,
    });
    const status = async (node: RealNode): Promise<string> =>
      (await rpcCall<{ status: string }>(node.url, '/ext/bc/P', 'platform.getBlockchainStatus', { blockchainID: setup.l1.chainId })).status;
    // An inactive L1 validator's weight sits under the empty node ID, so its node is not in the
    // set it validates: it runs the chain, and the P-Chain says Syncing, not Validating.
    for (const n of l1Chain.trackers) expect(await status(network.staker(n)), `staker${n}`).toBe(n === 2 ? 'Syncing' : 'Validating');
    expect(await status(network.nonValidator)).toBe('Created');
  });

  it("the L1's chain: no index even with --index-enabled (the indexer takes primary network chains only), and its ProposerVM epoch", async () => {
    logs();
    const chain = setup.l1.chainId;
    // staker1 runs with --index-enabled=true: the C-Chain is indexed, the L1's chain is not.
    expect((await httpRequest(url, rpc(`/ext/index/C/block`, 'index.getLastAccepted', { encoding: 'hex' }))).status).toBe(200);
    const index = await httpRequest(url, rpc(`/ext/index/${chain}/block`, 'index.getLastAccepted', { encoding: 'hex' }));
    expect([index.status, index.body]).toEqual([404, '404 page not found\n']);

    const { height } = await rpcCall<{ height: string }>(url, '/ext/bc/P', 'platform.getHeight');
    const epoch = await rpcCall<Record<string, string>>(url, `/ext/bc/${chain}/proposervm`, 'proposervm.getCurrentEpoch');
    expect(Object.keys(epoch)).toEqual(['number', 'startTime', 'pChainHeight']);
    for (const v of Object.values(epoch)) expect(v).toMatch(/^\d+$/);
    expect(Number(epoch.pChainHeight)).toBeLessThanOrEqual(Number(height));
  });

  it("every L1 validator answers the chain's validators API, and its set is the P-Chain's", async () => {
    const network = theNetwork();
    logs();
    const chain = setup.l1.chainId;
    const { validators: pSet } = await rpcCall<{ validators: L1ValidatorEntry[] }>(url, '/ext/bc/P', 'platform.getCurrentValidators', {
      subnetID: setup.l1.subnetId,
    });
    // The P-Chain's view: each validation ID with its node, weight, start and whether it still has a balance.
    const fromP = pSet
      .map((v) => ({
        validationID: v.validationID,
        nodeID: v.nodeID,
        weight: Number(v.weight),
        startTimestamp: Number(v.startTime),
        isActive: BigInt(v.balance) > 0n,
      }))
      .sort((a, b) => a.nodeID.localeCompare(b.nodeID));
    expect(fromP.map((v) => [v.nodeID, v.weight, v.isActive])).toEqual(
      LOCAL_L1_VALIDATORS.map((v) => [network.staker(v.staker).nodeId, Number(v.weight), v.staker !== 2]).sort((a, b) =>
        String(a[0]).localeCompare(String(b[0])),
      ),
    );
    for (const n of l1Chain.trackers) {
      const node = network.staker(n);
      const res = await httpRequest(node.url, rpcRequest(`/ext/bc/${chain}/validators`, 'validators.getCurrentValidators', {}));
      expect(res.status, `staker${n}`).toBe(200);
      const { validators } = (JSON.parse(res.body) as { result: { validators: ChainValidator[] } }).result;
      // Subnet-EVM's encoding (plugin/evm/client/client.go): weight and startTimestamp are JSON
      // numbers, uptimePercentage a float in 0..100, in this key order.
      for (const v of validators) {
        expect(Object.keys(v)).toEqual(CHAIN_VALIDATOR_KEYS);
        expect(typeof v.weight).toBe('number');
        expect(typeof v.startTimestamp).toBe('number');
        expect(v.uptimePercentage).toBeGreaterThanOrEqual(0);
        expect(v.uptimePercentage).toBeLessThanOrEqual(100);
        expect(v.isL1Validator).toBe(true);
      }
      const seen = validators
        .map(({ validationID, nodeID, weight, startTimestamp, isActive }) => ({ validationID, nodeID, weight, startTimestamp, isActive }))
        .sort((a, b) => a.nodeID.localeCompare(b.nodeID));
      expect(seen, `staker${n}'s view`).toEqual(fromP);
      // Connectivity as the vantage sees it: every active validator is up and connected (its own
      // entry included); the inactive one is connected as a peer, but not in the set the chain's
      // network knows (its weight sits under the empty node ID), so it reads as not connected.
      const connected = Object.fromEntries(validators.map((v) => [v.nodeID, v.isConnected]));
      expect(connected, `staker${n}'s view`).toEqual(
        Object.fromEntries(LOCAL_L1_VALIDATORS.map((v) => [network.staker(v.staker).nodeId, v.staker !== 2])),
      );
    }
    // Filtered by node ID, as the exporter asks for one node.
    const own = await rpcCall<{ validators: ChainValidator[] }>(url, `/ext/bc/${chain}/validators`, 'validators.getCurrentValidators', {
      nodeIDs: [facts.nodeId],
    });
    expect(own.validators.map((v) => v.validationID)).toEqual([setup.l1.validationId]);
  });

  it('the simulator answers the info and platform requests like the real validator and non-validator', async () => {
    const network = theNetwork();
    logs();
    if (!existsSync(SIMULATOR_MAIN)) throw new Error(`${SIMULATOR_MAIN} is missing: run npm run build`);
    const { startSimulator, L1_SUBNET_ID } = (await import(SIMULATOR_MAIN)) as {
      startSimulator: (o: SimulatorOptions) => Promise<RunningSimulator>;
      L1_SUBNET_ID: string;
    };
    // Node 0: a primary-network and L1 validator (as staker1); node 1: in no validator set.
    const sim = await startSimulator({
      nodes: 2,
      // Each node at the root of its own port, as a real node is (requests use absolute paths).
      portPerNode: true,
      scenario: 'healthy',
      trackL1: (i) => i === 0,
      validator: (i) => i === 0,
      l1Validator: (i) => i === 0,
    });
    try {
      const [simValidator, simOther] = sim.nodes;
      if (!simValidator || !simOther) throw new Error('the simulator started fewer than 2 nodes');
      const simL1 = await rpcCall<{ validators: L1ValidatorEntry[] }>(simValidator.baseUrl, '/ext/bc/P', 'platform.getCurrentValidators', {
        subnetID: L1_SUBNET_ID,
        nodeIDs: [simValidator.nodeId],
      });
      const simValidationId = simL1.validators[0]?.validationID;
      if (!simValidationId) throw new Error(`the simulated validator has no L1 entry: ${JSON.stringify(simL1)}`);
      // Each side's cases from its own IDs. The simulator has one L1 validator: the real inactive
      // one (balance "0") is compared with it by shape, values aside.
      const simFacts = await readValidatorFacts(simValidator.baseUrl, {
        l1: { subnetId: L1_SUBNET_ID, validationId: simValidationId, inactiveNodeId: simValidator.nodeId },
      });
      const sides = [
        { real: validatorCases(facts), realUrl: url, simulated: validatorCases(simFacts), simUrl: simValidator.baseUrl },
        {
          real: nonValidatorCases(network.nonValidator.nodeId),
          realUrl: network.nonValidator.url,
          simulated: nonValidatorCases(simOther.nodeId),
          simUrl: simOther.baseUrl,
        },
      ];
      const found: Difference[] = [];
      for (const side of sides) {
        const simCases = new Map(side.simulated.map((c) => [c.name, c]));
        const realCases = new Map(side.real.map((c) => [c.name, c]));
        for (const name of new Set([...realCases.keys(), ...simCases.keys()])) {
          const realCase = realCases.get(name);
          const simCase = simCases.get(name);
          if (!realCase || !simCase) {
            found.push({ case: name, difference: `asked only of the ${realCase ? 'real node' : 'simulator'}` });
            continue;
          }
          const real = await requestCase(side.realUrl, realCase);
          const simulated = await requestCase(side.simUrl, simCase);
          for (const difference of compareAnswers(real, simulated)) found.push({ case: name, difference });
        }
      }
      const { unexplained, stale } = explain(found, KNOWN_VALIDATOR_DIFFERENCES);
      process.stderr.write(
        `[real-node] simulator vs real validators: ${sides.reduce((n, s) => n + s.real.length, 0)} cases, ` +
          `${found.length - unexplained.length} known differences, ${unexplained.length} unexplained\n`,
      );
      expect(unexplained).toEqual([]);
      expect(stale).toEqual([]);
    } finally {
      await sim.close();
    }
  });

  // Last: it stops validators (each started again, but the network is not what it was).
  it('the L1 finalizes with staker5 stopped (18 % of its weight silent), stands still with staker3 stopped (51 %) while the C-Chain goes on, and resumes', async () => {
    const network = theNetwork();
    logs();
    const staker1 = network.staker(1);
    const chain = l1Chain.evm(staker1);
    const inactive = [setup.l1.inactive.nodeId];

    // One validator of 100 down: 110 of 610 silent with the inactive 10. Polls still succeed often enough.
    await network.stopStaker(5, 'kill');
    expect(offlineShare(setup.l1, inactive, [network.staker(5).nodeId])).toBeCloseTo(110 / 610);
    const oneDown = Date.now();
    const { lastBlock } = await sendTransfers(chain, 1, 60_000);
    const oneDownMs = Date.now() - oneDown;
    process.stderr.write(`[real-node] L1 block ${lastBlock} accepted ${oneDownMs / 1000}s after its transfer, staker5 stopped\n`);
    await network.startStaker(5);
    await waitChainRunning(network.staker(5), setup.l1.chainId);

    // The validator of 300 down: 310 of 610 silent. Its primary network stake is one fifth: the
    // C-Chain keeps 80 % and accepts transfers meanwhile, the L1 accepts nothing.
    await network.stopStaker(3, 'kill');
    expect(offlineShare(setup.l1, inactive, [network.staker(3).nodeId])).toBeCloseTo(310 / 610);
    const pending = await submitTransfer(chain);
    const still = await watchStandstill(staker1, chain, pending, Math.max(20_000, 5 * oneDownMs), () => sendCChainTransfers(staker1.url, 3));
    process.stderr.write(`[real-node] L1 stood still at ${still.height} for ${still.seconds}s with staker3 stopped: ${JSON.stringify(still)}\n`);

    // staker3 back: the transfer submitted during the standstill is accepted.
    await network.startStaker(3);
    const included = await waitFor(() => receiptBlock(chain, pending), {
      timeoutMs: 120_000,
      what: 'the pending L1 transfer to be accepted once staker3 is back',
    });
    expect(Number(included)).toBeGreaterThan(still.height);
  });
});
