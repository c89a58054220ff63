// The five-node local network (network.ts): every node a real primary-network validator. Its
// info and platform answers are recorded into test/fixtures/real/<version>/local-network/ (RECORD=1)
// or replayed against the live network, with a legacy subnet validator and an L1 validator with a
// P-Chain balance created by real P-Chain transactions (l1.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { RunningSimulator, SimulatorOptions } from '../../src/simulator/index.js';
import { REPO_ROOT, pinnedVersion } from './build.js';
import { compareAnswers } from './compare.js';
import { UNSERVED_PLATFORM_METHODS, explain, type Difference, type KnownDifference } from './differences.js';
import { setUpSubnets, type SubnetSetup } from './l1.js';
import { httpRequest, rpcCall, rpcRequest } from './http.js';
import { startLocalNetwork, type LocalNetwork } from './network.js';
import { select, startExporter, type Sample } from './exporter.js';
import { portableFlags, type RealNode } from './node.js';
import {
  NON_VALIDATOR_PREFIX,
  PRIMARY_NETWORK_ID,
  nonValidatorCases,
  readRecording,
  readValidatorFacts,
  recordProfile,
  requestCase,
  validatorCases,
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
    difference: /vmVersions\.subnet-evm: missing in first/,
    reason:
      'the simulated L1 validator runs the Subnet-EVM plugin; the real local network runs no plugin (the L1 chain is registered on the P-Chain only)',
  },
  UNSERVED_PLATFORM_METHODS,
];

const RECORD = process.env.RECORD === '1';
const itRecords = RECORD ? it : undefined;
const L1_BALANCE = 1_000_000_000n; // 1 AVAX

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
    setup = await setUpSubnets(url, first.nodeId, second.url, L1_BALANCE);
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
});
