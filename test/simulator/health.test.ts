// Conformance of the health API: GET and JSON-RPC forms, statuses, content
// types, key order, tag selection, readiness and liveness (fact sheet §1, §3).

import { describe, expect, it } from 'vitest';
import { defined } from '../helpers/assert.js';
import { http, post, report, result, rpc, RFC3339, simulator, waitFor } from './helpers.js';

const PRIMARY = '11111111111111111111111111111111LpoYY';
const APP_CHECKS = ['bls', 'bootstrapped', 'database', 'diskspace', 'futureupgrade', 'network', 'router'];
const ALL_CHECKS = ['C', 'P', 'X', ...APP_CHECKS];
/** No tick during a test: results stay those of the start. */
const STILL = { checkFrequencyMs: 3_600_000 };

describe('GET /ext/health', () => {
  it('answers 200 with the full report, compact, application/json, a trailing newline and the node-id header', async () => {
    const sim = await simulator(STILL);
    const r = await http(`${sim.url}/ext/health`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    const node = defined(sim.nodes[0], 'node-0');
    expect(r.headers['node-id']).toBe(node.nodeId);
    expect(node.nodeId).toMatch(/^NodeID-[1-9A-HJ-NP-Za-km-z]{30,34}$/);
    expect(r.body.endsWith('}\n')).toBe(true);
    expect(r.body).not.toMatch(/\n./); // compact: the only newline is the last byte
    const rep = report(r.body);
    expect(rep.healthy).toBe(true);
    expect(Object.keys(rep.checks)).toEqual(ALL_CHECKS);
    expect(r.body.startsWith('{"checks":{"C":{"message":{"engine":{"consensus":{"avgAcceptanceTime":"')).toBe(true);
    expect(r.body.endsWith(',"healthy":true}\n')).toBe(true);
  });

  it('writes every result with the keys of api/health/result.go in order, durations as integer nanoseconds', async () => {
    const sim = await simulator(STILL);
    const rep = report((await http(`${sim.url}/ext/health`)).body);
    for (const [name, result] of Object.entries(rep.checks)) {
      const keys = Object.keys(result);
      const expected = name === 'database' ? ['timestamp', 'duration'] : ['message', 'timestamp', 'duration'];
      expect(keys, name).toEqual(expected);
      expect(Number.isInteger(result.duration) && result.duration > 0, name).toBe(true);
      expect(result.timestamp, name).toMatch(RFC3339);
    }
  });

  it('shapes each message as v1.14.2 does, map keys sorted', async () => {
    const sim = await simulator(STILL);
    const { checks } = report((await http(`${sim.url}/ext/health`)).body);
    for (const chain of ['C', 'P', 'X'] as const) {
      const m = defined(checks[chain].message, `the ${chain} message`);
      expect(Object.keys(m)).toEqual(['engine', 'networking']);
      expect(Object.keys(m.engine)).toEqual(['consensus', 'vm']);
      expect(m.engine.vm).toBeNull();
      expect(Object.keys(m.engine.consensus)).toEqual([
        'avgAcceptanceTime',
        'lastAcceptedHeight',
        'lastAcceptedID',
        'longestProcessingBlock',
        'processingBlocks',
      ]);
      expect(Number.isInteger(m.engine.consensus.lastAcceptedHeight)).toBe(true);
      expect(m.engine.consensus.longestProcessingBlock).toBe('0s');
      expect(m.engine.consensus.processingBlocks).toBe(0);
      expect(m.engine.consensus.avgAcceptanceTime).toMatch(/^\d+(\.\d+)?s$/);
      expect(m.networking.disconnectedValidators).toEqual([]);
      expect(m.networking.percentConnected).toBeGreaterThan(0.99);
      expect(m.networking.percentConnected).toBeLessThanOrEqual(1);
    }
    expect(checks.bootstrapped.message).toEqual([]);
    expect(checks.database.message).toBeUndefined();
    const disk = defined(checks.diskspace.message, 'the diskspace message');
    expect(Object.keys(disk)).toEqual(['availableDiskBytes', 'availableDiskPercentage']);
    expect(Number.isInteger(disk.availableDiskPercentage)).toBe(true);
    expect(disk.availableDiskPercentage).toBeGreaterThan(10);
    expect(disk.availableDiskBytes).toBeGreaterThan(1e11);
    const network = defined(checks.network.message, 'the network message');
    expect(Object.keys(network)).toEqual([
      'connectedPeers',
      'primary network validator health',
      'sendFailRate',
      'timeSinceLastMsgReceived',
      'timeSinceLastMsgSent',
    ]);
    expect(network.timeSinceLastMsgReceived).toMatch(/^\d+(\.\d+)?(ns|µs|ms|s)$/);
    expect(Object.keys(defined(checks.router.message, 'the router message'))).toEqual(['longestRunningRequest', 'outstandingRequests']);
    expect(['node is not a validator', 'node has the correct BLS key']).toContain(checks.bls.message);
    expect(Object.keys(defined(checks.futureupgrade.message, 'the futureupgrade message'))).toEqual([
      'localUpgradeTime',
      'modeUpgradeTime',
      'modeUpgradeWeightPercentage',
      'numUpgradeTimes',
    ]);
  });

  it("stamps results in the node's local zone: -04:00 on node-0, Z on node-1, +05:30 on node-3", async () => {
    const sim = await simulator({ ...STILL, nodes: 4 });
    const zoneOf = async (i: number) => report((await http(`${defined(sim.nodes[i], `node-${i}`).baseUrl}/ext/health`)).body).checks.C.timestamp;
    expect(await zoneOf(0)).toMatch(/-04:00$/);
    expect(await zoneOf(1)).toMatch(/\dZ$/);
    expect(await zoneOf(3)).toMatch(/\+05:30$/);
    const ts = Date.parse(await zoneOf(0));
    expect(Math.abs(ts - Date.now())).toBeLessThan(60_000);
  });

  it('selects checks by tag: subnet ID, unknown tag, all, repeated tags', async () => {
    const sim = await simulator(STILL);
    const names = async (query: string) => Object.keys(report((await http(`${sim.url}/ext/health${query}`)).body).checks);
    expect(await names(`?tag=${PRIMARY}`)).toEqual(ALL_CHECKS);
    expect(await names('?tag=C')).toEqual(APP_CHECKS); // a chain alias is not a tag
    expect(await names('?tag=nope')).toEqual(APP_CHECKS);
    expect(await names('?tag=')).toEqual(APP_CHECKS);
    expect(await names('?tag=all')).toEqual(ALL_CHECKS);
    expect(await names(`?tag=nope&tag=${PRIMARY}`)).toEqual(ALL_CHECKS);
    expect(await names('?tag=application')).toEqual(APP_CHECKS);
    expect(await names('?tags=nope')).toEqual(ALL_CHECKS); // the parameter is singular
    // Go's query parsing drops a pair holding ';' or a bad escape: no tag left means all.
    expect(await names('?tag=nope;x')).toEqual(ALL_CHECKS);
    expect(await names('?tag=%zz')).toEqual(ALL_CHECKS);
    expect(await names(`?tag=nope;x&tag=%zz&tag=n+o`)).toEqual(APP_CHECKS);
    expect(await names(`?tag=${PRIMARY.slice(0, 5)}%31${PRIMARY.slice(6)}`)).toEqual(ALL_CHECKS);
  });

  it('answers /ext/health/health for any method, HEAD without a body, and HEAD /ext/health with 405', async () => {
    const sim = await simulator(STILL);
    const get = await http(`${sim.url}/ext/health/health?tag=nope`);
    expect(get.status).toBe(200);
    expect(Object.keys(report(get.body).checks)).toEqual(APP_CHECKS);
    const viaPost = await post(`${sim.url}/ext/health/health`, '{"jsonrpc":"2.0","id":1,"method":"health.health"}');
    expect(viaPost.status).toBe(200);
    expect(viaPost.body).toBe((await http(`${sim.url}/ext/health/health`)).body);
    const head = await http(`${sim.url}/ext/health/health`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    const head405 = await http(`${sim.url}/ext/health`, { method: 'HEAD' });
    expect(head405.status).toBe(405);
    const put = await http(`${sim.url}/ext/health`, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.body).toBe('rpc: POST method required, received PUT');
  });

  it('serves readiness (bootstrapped only) and liveness (no checks) in both forms', async () => {
    const sim = await simulator(STILL);
    const ready = await http(`${sim.url}/ext/health/readiness`);
    expect(ready.status).toBe(200);
    const rep = report(ready.body);
    expect(Object.keys(rep.checks)).toEqual(['bootstrapped']);
    expect(Object.keys(rep.checks.bootstrapped)).toEqual(['message', 'timestamp', 'duration']);
    expect(rep.checks.bootstrapped.message).toEqual([]);
    const live = await http(`${sim.url}/ext/health/liveness?tag=anything`);
    expect(live.status).toBe(200);
    expect(live.body).toBe('{"checks":{},"healthy":true}\n');
    expect(live.headers['content-type']).toBe('application/json');
    const liveRpc = await rpc(`${sim.url}/ext/health`, 'health.liveness');
    expect(liveRpc.body).toBe('{"jsonrpc":"2.0","result":{"checks":{},"healthy":true},"id":1}\n');
    const readyRpc = await rpc(`${sim.url}/ext/health`, 'health.readiness', { tags: ['nope'] });
    expect(readyRpc.body).toBe(`{"jsonrpc":"2.0","result":${ready.body.trimEnd()},"id":1}\n`);
  });
});

describe('JSON-RPC health.*', () => {
  it('wraps the same report in the envelope with status 200, charset and nosniff', async () => {
    const sim = await simulator(STILL);
    const get = await http(`${sim.url}/ext/health`);
    const r = await rpc(`${sim.url}/ext/health`, 'health.health', undefined, 7);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(r.body).toBe(`{"jsonrpc":"2.0","result":${get.body.trimEnd()},"id":7}\n`);
  });

  it('applies tags like the GET form; an empty list means all', async () => {
    const sim = await simulator(STILL);
    const names = async (params: unknown) => Object.keys((await result(`${sim.url}/ext/health`, 'health.health', params)).checks);
    expect(await names({ tags: [] })).toEqual(ALL_CHECKS);
    expect(await names({ tags: ['nope'] })).toEqual(APP_CHECKS);
    expect(await names({ tags: [PRIMARY] })).toEqual(ALL_CHECKS);
    expect(await names([{ tags: ['nope'] }])).toEqual(APP_CHECKS); // params as a one-element array
    expect(await names({})).toEqual(ALL_CHECKS);
  });

  it('reports an unhealthy node with healthy:false and HTTP 200, while GET says 503', async () => {
    const sim = await simulator({ ...STILL, scenario: 'bootstrapping' });
    const r = await rpc(`${sim.url}/ext/health`, 'health.readiness');
    expect(r.status).toBe(200);
    expect(r.body).toMatch(/"healthy":false\},"id":1}\n$/);
    expect((await http(`${sim.url}/ext/health/readiness`)).status).toBe(503);
    expect((await http(`${sim.url}/ext/health`)).status).toBe(503);
  });
});

describe('a node that has just started', () => {
  it('shows chain and bootstrapped checks as not yet run, byte for byte, and fails', async () => {
    const sim = await simulator({ ...STILL, scenario: 'starting' });
    const r = await http(`${sim.url}/ext/health`);
    expect(r.status).toBe(503);
    for (const name of ['C', 'P', 'X', 'bootstrapped']) {
      expect(r.body).toContain(`"${name}":{"error":"not yet run","timestamp":"0001-01-01T00:00:00Z","duration":0}`);
    }
    const rep = report(r.body);
    expect(rep.checks.network).toMatchObject({
      message: { connectedPeers: 0, sendFailRate: 0 },
      error:
        'network layer is unhealthy reason: not connected to a minimum of 1 peer(s) only 0, no messages received from network, no messages sent to network',
      contiguousFailures: 1,
    });
    expect(Object.keys(rep.checks.network)).toEqual(['message', 'error', 'timestamp', 'duration', 'contiguousFailures', 'timeOfFirstFailure']);
    expect(rep.checks.network.timeOfFirstFailure).toBe(rep.checks.network.timestamp);
    expect(rep.checks.futureupgrade).toMatchObject({ error: 'no validators in the current validator set', contiguousFailures: 1 });
    expect(rep.checks.futureupgrade.message).toBeUndefined();
    const ready = await http(`${sim.url}/ext/health/readiness`);
    expect(ready.status).toBe(503);
    expect(ready.body).toBe('{"checks":{"bootstrapped":{"error":"not yet run","timestamp":"0001-01-01T00:00:00Z","duration":0}},"healthy":false}\n');
  });

  it('runs its checks on the next tick of the health worker and counts contiguous failures', async () => {
    const sim = await simulator({ checkFrequencyMs: 40, scenario: 'bootstrapping' });
    const rep = await waitFor(
      async () => report((await http(`${sim.url}/ext/health`)).body),
      (r) => (r.checks.bootstrapped.contiguousFailures ?? 0) >= 3,
      5_000,
      'three failed bootstrapped runs',
    );
    expect(rep.checks.bootstrapped).toMatchObject({ message: [PRIMARY], error: 'subnets not bootstrapped' });
    const firstFailure = defined(rep.checks.bootstrapped.timeOfFirstFailure, 'the time of the first failure');
    expect(Date.parse(firstFailure)).toBeLessThan(Date.parse(rep.checks.bootstrapped.timestamp));
    // While bootstrapping, the consensus details are an empty object.
    expect(defined(rep.checks.C.message, 'the C message').engine).toEqual({ consensus: {}, vm: null });
    expect(rep.checks.C.error).toBeUndefined();
  });
});

describe('a node tracking an L1', () => {
  it('keys the L1 check by chain ID, tags it with the subnet ID and wraps the plugin VM details', async () => {
    const { L1_CHAIN, L1_SUBNET_ID } = await import('../../src/simulator/index.js');
    const sim = await simulator({ ...STILL, trackL1: true });
    const l1 = L1_CHAIN.chainId;
    const full = report((await http(`${sim.url}/ext/health`)).body);
    expect(Object.keys(full.checks)).toEqual([...ALL_CHECKS.slice(0, 3), l1, ...APP_CHECKS].sort());
    const l1Message = defined(defined(full.checks[l1], 'the L1 check').message, 'the L1 message');
    expect(l1Message.engine.vm).toEqual({ database: null, health: null });
    expect(l1Message.engine.consensus.lastAcceptedHeight).toBeGreaterThan(1_000_000);
    const names = async (tag: string) => Object.keys(report((await http(`${sim.url}/ext/health?tag=${tag}`)).body).checks);
    expect(await names(L1_SUBNET_ID)).toEqual([l1, ...APP_CHECKS].sort());
    expect(await names(PRIMARY)).toEqual(ALL_CHECKS);
    const aliases = await result(`${sim.url}/ext/admin`, 'admin.getChainAliases', { chain: l1 });
    expect(aliases.aliases).toEqual([l1]);
    const levels = await result(`${sim.url}/ext/admin`, 'admin.getLoggerLevel');
    expect(Object.keys(levels.loggerLevels)).toEqual([l1, 'C', 'P', 'X', 'main', 'vm-factory'].sort());
  });

  it('lists both subnets while bootstrapping', async () => {
    const { L1_SUBNET_ID } = await import('../../src/simulator/index.js');
    const sim = await simulator({ checkFrequencyMs: 40, trackL1: true, scenario: 'bootstrapping' });
    const rep = await waitFor(
      async () => report((await http(`${sim.url}/ext/health/readiness`)).body),
      (r) => (r.checks.bootstrapped.contiguousFailures ?? 0) >= 1,
      5_000,
      'bootstrapped to run',
    );
    expect(rep.checks.bootstrapped.message).toEqual([PRIMARY, L1_SUBNET_ID].sort());
  });
});
