// The validator scenarios: each develops in the info and P-Chain answers
// within its (scaled) time and clears after recovery. Time runs 60 times
// faster than real time; every wait has a deadline.

import { describe, expect, it } from 'vitest';
import { L1_SUBNET_ID } from '../../src/simulator/index.js';
import { defined } from '../helpers/assert.js';
import { control, http, post, report, result, rpc, serviceError, simulator, waitFor } from './helpers.js';

const FAST = { timeScale: 60, checkFrequencyMs: 40 };
const NOT_A_VALIDATOR = serviceError("couldn't get node uptime: node is not a validator");

const info = (base: string) => `${base}/ext/info`;
const pchain = (base: string) => `${base}/ext/bc/P`;
const uptime = async (base: string) => {
  const r = await result(info(base), 'info.uptime');
  return { rewarding: Number(r.rewardingStakePercentage), average: Number(r.weightedAveragePercentage) };
};
const own = async (base: string, nodeId: string, subnetID?: string) =>
  (await result(pchain(base), 'platform.getCurrentValidators', { nodeIDs: [nodeId], ...(subnetID ? { subnetID } : {}) })).validators;
/** The one validator entry of `nodeId` (a test failure when there is none). */
const ownOne = async (base: string, nodeId: string, subnetID?: string) =>
  defined((await own(base, nodeId, subnetID))[0], `the validator entry of ${nodeId}`);

describe('peers-dropping, on a validator', () => {
  it('the uptime the network perceives falls with the connected stake (a real node counts validators it is not connected to as 0)', async () => {
    const sim = await simulator({ ...FAST, timings: { peersDropSeconds: 60 } });
    const base = sim.url;
    expect((await uptime(base)).average).toBeGreaterThan(99);
    sim.setScenario('node-0', 'peers-dropping');
    const alone = await waitFor(
      () => uptime(base),
      (u) => u.average === 0,
      5_000,
      'no perceived uptime once no peer is left',
    );
    expect(alone.rewarding).toBe(0);
    sim.setScenario('node-0', 'healthy');
    await waitFor(
      () => uptime(base),
      (u) => u.average > 99 && u.rewarding === 100,
      5_000,
      'the perceived uptime back',
    );
  });
});

describe('uptime-dropping', () => {
  it('the uptime the network perceives falls below the reward threshold, then the rewarding stake; recovery restores both', async () => {
    const sim = await simulator({ ...FAST, timings: { uptimeDropSeconds: 60 } });
    const base = sim.url;
    const before = await uptime(base);
    expect(before.average).toBeGreaterThan(99);
    expect(before.rewarding).toBe(100);
    sim.setScenario('node-0', 'uptime-dropping');
    const below = await waitFor(
      () => uptime(base),
      (u) => u.average < 80,
      5_000,
      'weighted average below 80 %',
    );
    expect(below.rewarding).toBeLessThan(100);
    const floor = await waitFor(
      () => uptime(base),
      (u) => u.average === 55,
      5_000,
      'the floor',
    );
    expect(floor.rewarding).toBe(0);
    // Peers report what they observed: mostly below the requirement now.
    const peers = (await result(info(base), 'info.peers')).peers as Array<{ observedUptime: string }>;
    expect(peers.filter((p) => Number(p.observedUptime) < 80).length / peers.length).toBeGreaterThan(0.9);
    // Still a validator: the stake is untouched.
    expect(await own(base, defined(sim.nodes[0], 'node-0').nodeId)).toHaveLength(1);
    sim.setScenario('node-0', 'healthy');
    expect(await uptime(base)).toEqual(before);
  });
});

describe('stake-expiring', () => {
  it('moves endTime close, drops the node from the set at endTime, and a re-stake resolves it', async () => {
    const sim = await simulator({ ...FAST, timings: { stakeExpirySeconds: 2 } });
    const base = sim.url;
    const nodeId = defined(sim.nodes[0], 'node-0').nodeId;
    const before = await ownOne(base, nodeId);
    expect(Number(before.endTime) - Date.now() / 1000).toBeGreaterThan(30 * 86_400);
    sim.setScenario('node-0', 'stake-expiring');
    const expiring = await ownOne(base, nodeId);
    const left = Number(expiring.endTime) - Date.now() / 1000;
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(2);
    expect(expiring.txID).toBe(before.txID);
    // At endTime the P-Chain removes the staker: an empty list, and the node is no validator.
    await waitFor(
      () => own(base, nodeId),
      (v) => v.length === 0,
      5_000,
      'the stake to expire',
    );
    expect((await rpc(info(base), 'info.uptime')).body).toBe(NOT_A_VALIDATOR);
    await waitFor(
      async () => report((await http(`${base}/ext/health`)).body).checks.bls.message,
      (m) => m === 'node is not a validator',
      5_000,
      'the bls check to notice',
    );
    sim.setScenario('node-0', 'healthy');
    const restaked = await ownOne(base, nodeId);
    expect(restaked.txID).not.toBe(before.txID);
    expect(Number(restaked.endTime) - Date.now() / 1000).toBeGreaterThan(364 * 86_400);
    expect(Number(restaked.startTime)).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) - 5);
    expect((await uptime(base)).average).toBeGreaterThan(99);
  });
});

describe('l1-balance-draining', () => {
  it('starts with l1DrainSeconds of fees and drains to 0 (inactive); a top-up restores it', async () => {
    const sim = await simulator({ ...FAST, trackL1: true, timings: { l1DrainSeconds: 60 } });
    const base = sim.url;
    const nodeId = defined(sim.nodes[0], 'node-0').nodeId;
    const price = (await result(pchain(base), 'platform.getValidatorFeeState')).price;
    const balance = async () => BigInt(defined((await ownOne(base, nodeId, L1_SUBNET_ID)).balance, 'the L1 balance'));
    const healthy = await balance();
    expect(healthy / BigInt(price)).toBeGreaterThan(30n * 86_400n);
    sim.setScenario('node-0', 'l1-balance-draining');
    const first = await balance();
    expect(first / BigInt(price)).toBeLessThanOrEqual(60n);
    const lower = await waitFor(balance, (b) => b < first, 5_000, 'the balance to fall');
    expect(lower).toBeGreaterThan(0n);
    await waitFor(balance, (b) => b === 0n, 5_000, 'the balance to reach 0');
    // An inactive L1 validator is still listed, with balance "0".
    const inactive = await ownOne(base, nodeId, L1_SUBNET_ID);
    expect(inactive.balance).toBe('0');
    // The primary-network stake is untouched.
    expect(await own(base, nodeId)).toHaveLength(1);
    sim.setScenario('node-0', 'healthy');
    expect((await balance()) / BigInt(price)).toBeGreaterThan(44n * 86_400n);
  });

  // The runway a client derives, balance / price, is the scenario time the balance really has left: every answer,
  // read between two instants of the test's clock, lies between the runways those instants allow.
  it.for([
    { timeScale: 60, l1DrainSeconds: 120 },
    { timeScale: 10, l1DrainSeconds: 60 },
    { timeScale: 1, l1DrainSeconds: 2 },
  ])(
    'the runway balance / price is the time the drain takes: time scale $timeScale, $l1DrainSeconds s of fees',
    async ({ timeScale, l1DrainSeconds }) => {
      const sim = await simulator({ timeScale, checkFrequencyMs: 40, trackL1: true, timings: { l1DrainSeconds } });
      const base = sim.url;
      const nodeId = defined(sim.nodes[0], 'node-0').nodeId;
      const { price } = await result(pchain(base), 'platform.getValidatorFeeState');
      const runway = async () => Number(defined((await ownOne(base, nodeId, L1_SUBNET_ID)).balance, 'the L1 balance')) / price;
      // The switch happens between these two readings of the test's clock.
      const switching = performance.now();
      sim.setScenario('node-0', 'l1-balance-draining');
      const switched = performance.now();
      /** Scenario seconds from a reading of the test's clock to another. */
      const between = (from: number, to: number) => ((to - from) / 1000) * timeScale;
      const drainWallMs = (l1DrainSeconds / timeScale) * 1000;
      // Readings spread over the drain, each bracketed by the test's clock; the last ones at 0.
      for (;;) {
        const before = performance.now();
        const r = await runway();
        const after = performance.now();
        // One second of slack for the whole nAVAX the balance is counted in.
        expect(r).toBeLessThanOrEqual(Math.max(0, l1DrainSeconds - between(switched, before) + 1));
        expect(r).toBeGreaterThanOrEqual(Math.max(0, l1DrainSeconds - between(switching, after) - 1));
        if (r === 0) break;
        expect(after - switching, 'the balance is still above 0 past its runway').toBeLessThan(drainWallMs + 5_000);
        await new Promise((resolve) => setTimeout(resolve, drainWallMs / 8));
      }
      // It reached 0 no sooner than its first runway said.
      expect(performance.now() - switching).toBeGreaterThanOrEqual(drainWallMs - 1_000 / timeScale);
    },
  );
});

describe('node-id-changed', () => {
  it('restarts under a new node ID and BLS key: healthy but no longer a validator; the old ID keeps the stake; restoring the certificate resolves it', async () => {
    const sim = await simulator({ ...FAST, trackL1: true });
    const base = sim.url;
    const original = defined(sim.nodes[0], 'node-0').nodeId;
    const originalKey = defined((await result(info(base), 'info.getNodeID')).nodePOP, 'nodePOP').publicKey;
    sim.setScenario('node-0', 'node-id-changed');
    const changed = defined(sim.nodes[0], 'node-0').nodeId;
    expect(changed).not.toBe(original);
    const id = await result(info(base), 'info.getNodeID');
    expect(id.nodeID).toBe(changed);
    expect(defined(id.nodePOP, 'nodePOP').publicKey).not.toBe(originalKey);
    expect((await http(`${base}/ext/health/liveness`)).headers['node-id']).toBe(changed);
    expect((await rpc(info(base), 'info.uptime')).body).toBe(NOT_A_VALIDATOR);
    expect(await own(base, changed)).toEqual([]);
    expect(await own(base, changed, L1_SUBNET_ID)).toEqual([]);
    // The stake stays registered to the old node ID, with its old key, and nobody is connected to it.
    const old = await ownOne(base, original);
    expect(old.connected).toBe(false);
    expect(old.signer?.publicKey).toBe(originalKey);
    // Healthy otherwise, once the restarted node's checks have run.
    const h = await waitFor(
      async () => http(`${base}/ext/health`),
      (r) => r.status === 200,
      5_000,
      'a healthy report',
    );
    expect(report(h.body).checks.bls.message).toBe('node is not a validator');
    const described = control((await http(`${sim.url}/sim/nodes/node-0`)).body, 'node');
    expect([described.nodeId, described.validator, described.l1Validator]).toEqual([changed, false, false]);

    sim.setScenario('node-0', 'healthy');
    expect(defined(sim.nodes[0], 'node-0').nodeId).toBe(original);
    expect((await result(info(base), 'info.getNodeID')).nodePOP?.publicKey).toBe(originalKey);
    expect((await ownOne(base, original)).connected).toBe(true);
    expect((await uptime(base)).average).toBeGreaterThan(99);
  });
});

describe('version-behind', () => {
  it('restarts into v1.13.5: most peers run a newer version; Granite unknown to it; recovery returns to v1.14.2', async () => {
    const sim = await simulator(FAST);
    const base = sim.url;
    const switched = await post(`${sim.url}/sim/nodes/node-0/scenario`, '{"scenario":"version-behind"}');
    expect(switched.status).toBe(200);
    expect((await result(info(base), 'info.getNodeVersion')).version).toBe('avalanchego/1.13.5');
    const peers = (await result(info(base), 'info.peers')).peers as Array<{ version: string }>;
    const newer = peers.filter((p) => /^avalanchego\/1\.14\./.test(p.version)).length;
    expect(newer / peers.length).toBeGreaterThan(0.5);
    expect((await result(info(base), 'info.upgrades')).graniteTime).toBe('9999-12-01T00:00:00Z');
    // Still validating.
    expect((await uptime(base)).average).toBeGreaterThan(99);
    sim.setScenario('node-0', 'healthy');
    expect((await result(info(base), 'info.getNodeVersion')).version).toBe('avalanchego/1.14.2');
    expect((await result(info(base), 'info.upgrades')).graniteTime).toBe('2025-11-19T16:00:00Z');
  });
});
