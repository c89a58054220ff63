// The info and P-Chain APIs of the simulator against the shapes of the
// AvalancheGo source (api/info/service.go, vms/platformvm/service.go and
// api/validator.go of v1.14.2, v1.13.5, v1.10.19 and v1.7.3): key order,
// string-encoded numbers, errors, and what older releases lack.

import { describe, expect, it } from 'vitest';
import { L1_SUBNET_ID, PRIMARY_NETWORK_ID } from '../../src/simulator/index.js';
import { cb58Encode, sha256 } from '../../src/simulator/ids.js';
import { INVALID_ARG } from '../../src/simulator/rpc.js';
import { defined } from '../helpers/assert.js';
import { control, envelope, http, post, report, result, rpc, serviceError, simulator, waitFor } from './helpers.js';

const STILL = { checkFrequencyMs: 3_600_000 };
const UINT = /^(0|[1-9]\d*)$/;
const FIXED4 = /^\d+\.\d{4}$/;
const HEX48 = /^0x[0-9a-f]{96}$/;
const HEX96 = /^0x[0-9a-f]{192}$/;
const NODE_ID = /^NodeID-[1-9A-HJ-NP-Za-km-z]+$/;
const P_ADDRESS = /^P-avax1[02-9ac-hj-np-z]{38}$/;

const PRIMARY_KEYS = [
  'txID',
  'startTime',
  'endTime',
  'weight',
  'nodeID',
  'validationRewardOwner',
  'delegationRewardOwner',
  'potentialReward',
  'accruedDelegateeReward',
  'delegationFee',
  'uptime',
  'connected',
  'signer',
  'delegatorCount',
  'delegatorWeight',
];
const L1_KEYS = ['nodeID', 'weight', 'startTime', 'validationID', 'publicKey', 'remainingBalanceOwner', 'deactivationOwner', 'minNonce', 'balance'];

const info = (base: string) => `${base}/ext/info`;
const pchain = (base: string) => `${base}/ext/bc/P`;

describe('info API (v1.14.2)', () => {
  it('answers identity, version, network and upgrades with the node’s exact shapes', async () => {
    const sim = await simulator({ ...STILL, nodes: 2, trackL1: (i) => i === 1 });
    const validator = defined(sim.nodes[0], 'node-0');
    const l1 = defined(sim.nodes[1], 'node-1');
    const id = await result(info(validator.baseUrl), 'info.getNodeID');
    expect(Object.keys(id)).toEqual(['nodeID', 'nodePOP']);
    expect(id.nodeID).toBe(validator.nodeId);
    const nodePop = defined(id.nodePOP, 'nodePOP');
    expect(Object.keys(nodePop)).toEqual(['publicKey', 'proofOfPossession']);
    expect(nodePop.publicKey).toMatch(HEX48);
    expect(nodePop.proofOfPossession).toMatch(HEX96);

    const version = await rpc(info(validator.baseUrl), 'info.getNodeVersion');
    expect(version.body).toMatch(
      /^\{"jsonrpc":"2\.0","result":\{"version":"avalanchego\/1\.14\.2","databaseVersion":"v1\.4\.5","rpcProtocolVersion":"45","gitCommit":"[0-9a-f]{40}","vmVersions":\{"avm":"avalanchego\/1\.14\.2","evm":"v1\.14\.2","platform":"avalanchego\/1\.14\.2"\}\},"id":1\}\n$/,
    );
    // A node running the L1's plugin lists its VM too (map keys sorted).
    expect(Object.keys((await result(info(l1.baseUrl), 'info.getNodeVersion')).vmVersions)).toEqual(['avm', 'evm', 'platform', 'subnet-evm']);

    expect((await rpc(info(validator.baseUrl), 'info.getNetworkID')).body).toBe('{"jsonrpc":"2.0","result":{"networkID":"1"},"id":1}\n');
    expect((await rpc(info(validator.baseUrl), 'info.getNetworkName')).body).toBe('{"jsonrpc":"2.0","result":{"networkName":"mainnet"},"id":1}\n');
    expect((await result(info(validator.baseUrl), 'info.getNodeIP')).ip).toMatch(/^\d+\.\d+\.\d+\.\d+:9651$/);
    expect((await rpc(info(validator.baseUrl), 'info.acps')).body).toBe('{"jsonrpc":"2.0","result":{"acps":{}},"id":1}\n');

    const upgrades = await result(info(validator.baseUrl), 'info.upgrades');
    expect(Object.keys(upgrades)).toEqual([
      'apricotPhase1Time',
      'apricotPhase2Time',
      'apricotPhase3Time',
      'apricotPhase4Time',
      'apricotPhase4MinPChainHeight',
      'apricotPhase5Time',
      'apricotPhasePre6Time',
      'apricotPhase6Time',
      'apricotPhasePost6Time',
      'banffTime',
      'cortinaTime',
      'cortinaXChainStopVertexID',
      'durangoTime',
      'etnaTime',
      'fortunaTime',
      'graniteTime',
      'graniteEpochDuration',
      'heliconTime',
    ]);
    expect(upgrades.graniteTime).toBe('2025-11-19T16:00:00Z');
    expect(upgrades.graniteEpochDuration).toBe(300_000_000_000);
    expect(upgrades.apricotPhase4MinPChainHeight).toBe(793005);
    // Helicon is not scheduled: upgrade.UnscheduledActivationTime.
    expect(upgrades.heliconTime).toBe('9999-12-01T00:00:00Z');
  });

  it('info.uptime: string percentages for a validator, the node’s error for a non-validator', async () => {
    const sim = await simulator({ ...STILL, nodes: 2 });
    const u = await rpc(info(defined(sim.nodes[0], 'node-0').baseUrl), 'info.uptime');
    expect(u.body).toMatch(
      /^\{"jsonrpc":"2\.0","result":\{"rewardingStakePercentage":"\d+\.\d{4}","weightedAveragePercentage":"\d+\.\d{4}"\},"id":1\}\n$/,
    );
    const parsed = defined(envelope(u.body, 'info.uptime').result, 'the uptime');
    expect(Number(parsed.weightedAveragePercentage)).toBeGreaterThan(99);
    expect(Number(parsed.weightedAveragePercentage)).toBeLessThanOrEqual(100);
    expect(parsed.rewardingStakePercentage).toBe('100.0000');
    // node-1 is no validator (default: every third node validates).
    expect((await rpc(info(defined(sim.nodes[1], 'node-1').baseUrl), 'info.uptime')).body).toBe(
      serviceError("couldn't get node uptime: node is not a validator"),
    );
    // The bls check agrees.
    const h0 = report((await http(`${defined(sim.nodes[0], 'node-0').baseUrl}/ext/health`)).body);
    const h1 = report((await http(`${defined(sim.nodes[1], 'node-1').baseUrl}/ext/health`)).body);
    expect(h0.checks.bls.message).toBe('node has the correct BLS key');
    expect(h1.checks.bls.message).toBe('node is not a validator');
  });

  it('info.peers: the connected peers (as many as the network check counts), versions mostly current, filtered by nodeIDs', async () => {
    const sim = await simulator(STILL);
    const base = defined(sim.nodes[0], 'node-0').baseUrl;
    const peers = await result(info(base), 'info.peers');
    expect(peers.numPeers).toMatch(UINT);
    expect(peers.peers).toHaveLength(Number(peers.numPeers));
    const connected = defined(report((await http(`${base}/ext/health`)).body).checks.network.message, 'the network message').connectedPeers;
    expect(Number(peers.numPeers)).toBe(connected);
    const p = defined(peers.peers[0], 'the first peer');
    expect(Object.keys(p)).toEqual([
      'ip',
      'publicIP',
      'nodeID',
      'version',
      'upgradeTime',
      'lastSent',
      'lastReceived',
      'observedUptime',
      'trackedSubnets',
      'supportedACPs',
      'objectedACPs',
      'benched',
    ]);
    expect(p.nodeID).toMatch(NODE_ID);
    expect(p.observedUptime).toMatch(UINT);
    expect(typeof p.upgradeTime).toBe('number');
    const versions = new Map<string, number>();
    for (const peer of peers.peers) versions.set(peer.version, (versions.get(peer.version) ?? 0) + 1);
    expect([...versions.keys()].every((v) => /^avalanchego\/1\.1[234]\.\d+$/.test(v))).toBe(true);
    expect((versions.get('avalanchego/1.14.2') ?? 0) / peers.peers.length).toBeGreaterThan(0.7);
    const two = [defined(peers.peers[3], 'peer 3').nodeID, defined(peers.peers[7], 'peer 7').nodeID];
    const filtered = await result(info(base), 'info.peers', { nodeIDs: two });
    expect(filtered.numPeers).toBe('2');
    expect(filtered.peers.map((x) => x.nodeID).sort()).toEqual([...two].sort());
    expect((await rpc(info(base), 'info.peers', { nodeIDs: ['NodeID-nope'] })).body).toBe(serviceError(INVALID_ARG));
  });

  it('info.getBlockchainID and info.isBootstrapped resolve aliases; unknown ones get the node’s errors', async () => {
    const sim = await simulator(STILL);
    const url = info(sim.url);
    expect((await result(url, 'info.getBlockchainID', { alias: 'P' })).blockchainID).toBe(PRIMARY_NETWORK_ID);
    expect((await result(url, 'info.getBlockchainID', { alias: 'evm' })).blockchainID).toBe('2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5');
    expect((await rpc(url, 'info.getBlockchainID', { alias: 'nope' })).body).toBe(serviceError('there is no ID with alias: nope'));
    expect((await rpc(url, 'info.isBootstrapped', { chain: 'X' })).body).toBe('{"jsonrpc":"2.0","result":{"isBootstrapped":true},"id":1}\n');
    expect((await rpc(url, 'info.isBootstrapped', {})).body).toBe(serviceError("argument 'chain' not given"));
    expect((await rpc(url, 'info.isBootstrapped', { chain: 'Q' })).body).toBe(serviceError("there is no chain with alias/ID 'Q'"));
  });
});

describe('P-Chain API (v1.14.2)', () => {
  it('getCurrentValidators for the node’s own ID: the primary-network entry in wire order, its signer the node’s key', async () => {
    const sim = await simulator(STILL);
    const node = defined(sim.nodes[0], 'node-0');
    const pop = (await result(info(node.baseUrl), 'info.getNodeID')).nodePOP;
    const r = await result(pchain(node.baseUrl), 'platform.getCurrentValidators', { nodeIDs: [node.nodeId] });
    expect(r.validators).toHaveLength(1);
    const v = defined(r.validators[0], 'the validator entry');
    // One node ID asked: the delegators are listed.
    expect(Object.keys(v)).toEqual([...PRIMARY_KEYS, 'delegators']);
    expect(v.nodeID).toBe(node.nodeId);
    for (const k of ['startTime', 'endTime', 'weight', 'potentialReward', 'accruedDelegateeReward', 'delegatorCount', 'delegatorWeight'] as const) {
      expect(v[k], k).toMatch(UINT);
    }
    expect(v.delegationFee).toMatch(FIXED4);
    expect(v.uptime).toMatch(FIXED4);
    expect(v.connected).toBe(true);
    expect(v.signer).toEqual(pop);
    const owner = defined(v.validationRewardOwner, 'validationRewardOwner');
    expect(owner.addresses[0]).toMatch(P_ADDRESS);
    expect(Object.keys(owner)).toEqual(['locktime', 'threshold', 'addresses']);
    const now = Date.now() / 1000;
    expect(Number(v.startTime)).toBeLessThan(now);
    expect(Number(v.endTime)).toBeGreaterThan(now + 30 * 86_400);
    const delegators = defined(v.delegators, 'delegators');
    expect(Number(v.delegatorCount)).toBe(delegators.length);
    const sum = delegators.reduce((total, d) => total + BigInt(defined(d.weight, 'a delegator weight')), 0n);
    expect(v.delegatorWeight).toBe(String(sum));
    for (const d of delegators)
      expect(Object.keys(d)).toEqual(['txID', 'startTime', 'endTime', 'weight', 'nodeID', 'rewardOwner', 'potentialReward']);

    // Two node IDs: no delegators list; the subnetID defaults to the primary network.
    const emptyNodeId = `NodeID-${cb58Encode(Buffer.alloc(20))}`;
    const two = await result(pchain(node.baseUrl), 'platform.getCurrentValidators', {
      subnetID: PRIMARY_NETWORK_ID,
      nodeIDs: [node.nodeId, emptyNodeId],
    });
    expect(two.validators).toHaveLength(1);
    expect(Object.keys(defined(two.validators[0], 'the validator entry'))).toEqual(PRIMARY_KEYS);
  });

  it('getCurrentValidators without nodeIDs walks the set; unknown node IDs and subnets give an empty list; bad arguments the generic error', async () => {
    const sim = await simulator({ ...STILL, nodes: 2 });
    const url = pchain(defined(sim.nodes[1], 'node-1').baseUrl);
    const all = await result(url, 'platform.getCurrentValidators');
    expect(all.validators.length).toBeGreaterThanOrEqual(4);
    const ends = all.validators.map((v) => Number(v.endTime));
    expect(ends).toEqual([...ends].sort((a, b) => a - b));
    // A non-validator asking for itself: an empty list, not an error.
    expect((await rpc(url, 'platform.getCurrentValidators', { nodeIDs: [defined(sim.nodes[1], 'node-1').nodeId] })).body).toBe(
      '{"jsonrpc":"2.0","result":{"validators":[]},"id":1}\n',
    );
    // Another subnet (valid ID, not converted): empty.
    expect((await result(url, 'platform.getCurrentValidators', { subnetID: cb58Encode(sha256('another subnet')) })).validators).toEqual([]);
    for (const params of [{ nodeIDs: ['NodeID-abc'] }, { nodeIDs: 'NodeID-x' }, { nodeIDs: [5] }, { subnetID: 'xyz' }]) {
      expect((await rpc(url, 'platform.getCurrentValidators', params)).body, JSON.stringify(params)).toBe(serviceError(INVALID_ARG));
    }
  });

  it('getCurrentValidators of the L1: the ACP-77 entry with its balance; the fee state and height', async () => {
    const sim = await simulator({ ...STILL, nodes: 2, trackL1: true, l1Validator: (i) => i === 0 });
    const node = defined(sim.nodes[0], 'node-0');
    // docs/simulator.md names it, for the exporter's platform.subnets.
    expect(L1_SUBNET_ID).toBe('2b8ydpN1KbPWFS2QodieQ1y9iSbJnPCARgH9jRo6BiLRSjVrMo');
    const r = await result(pchain(node.baseUrl), 'platform.getCurrentValidators', { subnetID: L1_SUBNET_ID, nodeIDs: [node.nodeId] });
    expect(r.validators).toHaveLength(1);
    const v = defined(r.validators[0], 'the L1 validator entry');
    expect(Object.keys(v)).toEqual(L1_KEYS);
    expect(v.publicKey).toBe((await result(info(node.baseUrl), 'info.getNodeID')).nodePOP?.publicKey);
    expect(v.balance).toMatch(UINT);
    expect(v.minNonce).toBe('0');
    const fee = await rpc(pchain(node.baseUrl), 'platform.getValidatorFeeState');
    expect(fee.body).toMatch(
      /^\{"jsonrpc":"2\.0","result":\{"excess":\d+,"price":\d+,"timestamp":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)"\},"id":1\}\n$/,
    );
    const { price } = await result(pchain(node.baseUrl), 'platform.getValidatorFeeState');
    // A healthy L1 validator holds more than 30 days of fees.
    expect(Number(BigInt(defined(v.balance, 'balance')) / BigInt(price))).toBeGreaterThan(30 * 86_400);
    // The other node tracks the L1 without validating it.
    expect(
      (
        await result(pchain(defined(sim.nodes[1], 'node-1').baseUrl), 'platform.getCurrentValidators', {
          subnetID: L1_SUBNET_ID,
          nodeIDs: [defined(sim.nodes[1], 'node-1').nodeId],
        })
      ).validators,
    ).toEqual([]);
    const l1 = await result(pchain(node.baseUrl), 'platform.getL1Validator', { validationID: v.validationID });
    expect(Object.keys(l1)).toEqual([...L1_KEYS, 'subnetID', 'height']);
    expect(l1.subnetID).toBe(L1_SUBNET_ID);
    const height = await result(pchain(node.baseUrl), 'platform.getHeight');
    expect(height.height).toMatch(UINT);
    const consensus = defined(report((await http(`${node.baseUrl}/ext/health`)).body).checks.P.message, 'the P message').engine.consensus;
    expect(Number(height.height)).toBeGreaterThanOrEqual(defined(consensus.lastAcceptedHeight, 'lastAcceptedHeight'));
  });

  it('is served at /ext/bc/P, /ext/bc/platform, its chain ID and any alias the admin API adds', async () => {
    const sim = await simulator(STILL);
    const expected = await rpc(`${sim.url}/ext/bc/P`, 'platform.getValidatorFeeState');
    for (const path of ['/ext/bc/platform', `/ext/bc/${PRIMARY_NETWORK_ID}`]) {
      expect((await rpc(`${sim.url}${path}`, 'platform.getHeight')).status, path).toBe(200);
    }
    expect(expected.status).toBe(200);
    expect((await rpc(`${sim.url}/ext/admin`, 'admin.aliasChain', { chain: 'P', alias: 'pee' })).body).toBe('{"jsonrpc":"2.0","result":{},"id":1}\n');
    expect((await result(`${sim.url}/ext/bc/pee`, 'platform.getHeight')).height).toMatch(UINT);
    expect((await http(`${sim.url}/ext/bc/P`)).body).toBe('rpc: POST method required, received GET');
  });

  it('answers 503 while the P-Chain bootstraps and 404 before the chain exists', async () => {
    const sim = await simulator({ ...STILL, nodes: 2, scenario: (i) => (i === 0 ? 'bootstrapping' : 'starting') });
    const r = await post(pchain(defined(sim.nodes[0], 'node-0').baseUrl), '{"jsonrpc":"2.0","id":1,"method":"platform.getHeight"}');
    expect(r.status).toBe(503);
    expect(r.body).toBe('API call rejected because chain is not done bootstrapping\n');
    expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect((await rpc(info(defined(sim.nodes[0], 'node-0').baseUrl), 'info.isBootstrapped', { chain: 'P' })).body).toBe(
      '{"jsonrpc":"2.0","result":{"isBootstrapped":false},"id":1}\n',
    );
    const starting = await post(pchain(defined(sim.nodes[1], 'node-1').baseUrl), '{}');
    expect(starting.status).toBe(404);
    expect(starting.body).toBe('404 page not found\n');
    // The info API is up from the start.
    expect((await result(info(defined(sim.nodes[1], 'node-1').baseUrl), 'info.getNodeID')).nodeID).toBe(defined(sim.nodes[1], 'node-1').nodeId);
    sim.setScenario('node-0', 'healthy');
    expect((await rpc(pchain(defined(sim.nodes[0], 'node-0').baseUrl), 'platform.getHeight')).status).toBe(200);
  });
});

describe('older releases', () => {
  it('v1.13.5 (version-behind): no Granite date, no epoch or Helicon fields; the fee state exists', async () => {
    const sim = await simulator({ ...STILL, scenario: 'version-behind' });
    expect((await result(info(sim.url), 'info.getNodeVersion')).version).toBe('avalanchego/1.13.5');
    const upgrades = await result(info(sim.url), 'info.upgrades');
    expect(Object.keys(upgrades).at(-1)).toBe('graniteTime');
    expect(upgrades.graniteTime).toBe('9999-12-01T00:00:00Z');
    expect((await rpc(info(sim.url), 'info.acps')).body).toContain(
      '"176":{"supportWeight":"0","supporters":[],"objectWeight":"0","objectors":[],"abstainWeight":"',
    );
    expect((await rpc(pchain(sim.url), 'platform.getValidatorFeeState')).body).toContain('"price":512');
  });

  it('v1.10.19 (old-version): info.upgrades and getValidatorFeeState are not found; uptime takes a subnetID; entries carry stakeAmount and rewardOwner', async () => {
    const sim = await simulator({ ...STILL, scenario: 'old-version' });
    const node = defined(sim.nodes[0], 'node-0');
    expect((await rpc(info(sim.url), 'info.upgrades')).body).toBe(serviceError('rpc: can\'t find method "info.Upgrades"'));
    expect((await rpc(pchain(sim.url), 'platform.getValidatorFeeState')).body).toBe(
      serviceError('rpc: can\'t find method "platform.GetValidatorFeeState"'),
    );
    expect((await result(info(sim.url), 'info.getNodeVersion')).rpcProtocolVersion).toBe('31');
    expect(Number((await result(info(sim.url), 'info.uptime', { subnetID: PRIMARY_NETWORK_ID })).weightedAveragePercentage)).toBeGreaterThan(99);
    expect((await rpc(info(sim.url), 'info.uptime', { subnetID: L1_SUBNET_ID })).body).toBe(
      serviceError("couldn't get node uptime: node is not a validator"),
    );
    const v = defined(
      (await result(pchain(sim.url), 'platform.getCurrentValidators', { nodeIDs: [node.nodeId] })).validators[0],
      'the validator entry',
    );
    expect(Object.keys(v).slice(0, 8)).toEqual([
      'txID',
      'startTime',
      'endTime',
      'weight',
      'nodeID',
      'stakeAmount',
      'rewardOwner',
      'validationRewardOwner',
    ]);
    expect(v.stakeAmount).toBe(v.weight);
    const peer = defined((await result(info(sim.url), 'info.peers')).peers[0], 'the first peer');
    expect(Object.keys(peer)).toContain('observedSubnetUptimes');
    expect(Object.keys(peer)).not.toContain('upgradeTime');
  });

  it('v1.7.3 (old-version-v1.7): `avalanche/` version, no nodePOP, its own non-validator error, uptime as a fraction', async () => {
    const sim = await simulator({ ...STILL, nodes: 2, scenario: 'old-version-v1.7' });
    const version = await result(info(sim.url + '/node-0'), 'info.getNodeVersion');
    expect(Object.keys(version)).toEqual(['version', 'databaseVersion', 'gitCommit', 'vmVersions']);
    expect(version.version).toBe('avalanche/1.7.3');
    expect(await result(info(`${sim.url}/node-0`), 'info.getNodeID')).toEqual({ nodeID: defined(sim.nodes[0], 'node-0').nodeId });
    expect((await rpc(info(`${sim.url}/node-1`), 'info.uptime')).body).toBe(serviceError('this is not a validator node'));
    expect((await rpc(info(`${sim.url}/node-0`), 'info.acps')).body).toBe(serviceError('rpc: can\'t find method "info.Acps"'));
    const v = defined(
      (await result(pchain(`${sim.url}/node-0`), 'platform.getCurrentValidators', { nodeIDs: [defined(sim.nodes[0], 'node-0').nodeId] }))
        .validators[0],
      'the validator entry',
    );
    expect(Object.keys(v)).toEqual([
      'txID',
      'startTime',
      'endTime',
      'stakeAmount',
      'nodeID',
      'rewardOwner',
      'potentialReward',
      'delegationFee',
      'uptime',
      'connected',
      'delegators',
    ]);
    expect(Number(v.uptime)).toBeLessThanOrEqual(1);
    expect(Number(v.uptime)).toBeGreaterThan(0.99);
  });
});

describe('the control API', () => {
  it('lists the new scenarios and shows each node’s release and staking roles', async () => {
    const sim = await simulator({ ...STILL, nodes: 3, trackL1: (i) => i === 1 });
    const scenarios = control((await http(`${sim.url}/sim/scenarios`)).body, 'scenarios').scenarios;
    expect(scenarios).toEqual(
      expect.arrayContaining(['uptime-dropping', 'stake-expiring', 'l1-balance-draining', 'node-id-changed', 'version-behind']),
    );
    const nodes = control((await http(`${sim.url}/sim/nodes`)).body, 'nodes').nodes;
    expect(nodes.map((n) => [n.validator, n.l1Validator, n.release])).toEqual([
      [true, false, '1.14.2'],
      [false, true, '1.14.2'],
      [false, false, '1.14.2'],
    ]);
    const switched = await post(`${sim.url}/sim/nodes/node-0/scenario`, '{"scenario":"version-behind"}');
    expect(control(switched.body, 'node').release).toBe('1.13.5');
    await waitFor(
      () => result(info(defined(sim.nodes[0], 'node-0').baseUrl), 'info.getNodeVersion'),
      (v) => v.version === 'avalanchego/1.13.5',
      2_000,
      'the new version',
    );
  });
});
