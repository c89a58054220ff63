// The simulated L1 as one set for the fleet (src/simulator/l1-set.ts): every node's P-Chain and every node's L1 chain
// validators API list the same validators, and the scenarios l1-validator-stopped and l1-halted stop other operators'
// validators, seen disconnected from every vantage, with the shares of the L1's weight they are named for.
import { describe, expect, it } from 'vitest';
import { L1_CHAIN, L1_SET_SCENARIOS, L1_SUBNET_ID, otherL1Validators, type RunningSimulator } from '../../src/simulator/index.js';
import { defined } from '../helpers/assert.js';
import { result, simulator, waitFor } from './helpers.js';

const FAST = { timeScale: 60, checkFrequencyMs: 40 };
const SEED = 'l1-set-test';

interface PEntry {
  nodeID: string;
  validationID: string;
  weight: string;
  balance: string;
}
interface ChainEntry {
  validationID: string;
  nodeID: string;
  weight: number;
  isActive: boolean;
  isConnected: boolean;
  uptimePercentage: number;
}

const pSet = async (base: string, nodeIDs?: string[]): Promise<PEntry[]> =>
  (
    await result<{ validators: PEntry[] }>(`${base}/ext/bc/P`, 'platform.getCurrentValidators', {
      subnetID: L1_SUBNET_ID,
      ...(nodeIDs ? { nodeIDs } : {}),
    })
  ).validators;
const chainSet = async (base: string): Promise<ChainEntry[]> =>
  (await result<{ validators: ChainEntry[] }>(`${base}/ext/bc/${L1_CHAIN.chainId}/validators`, 'validators.getCurrentValidators', {})).validators;

/** Three nodes that validate the L1; a fourth tracks it without validating. */
const fleet = (): Promise<RunningSimulator> => simulator({ ...FAST, nodes: 4, seed: SEED, trackL1: true, l1Validator: (i) => i < 3 });

/** The share of the L1's weight (P-Chain) held by the validators `stopped` names, by node ID. */
const share = (set: PEntry[], stopped: (id: string) => boolean): number => {
  const total = set.reduce((t, v) => t + Number(v.weight), 0);
  return set.filter((v) => stopped(v.nodeID)).reduce((t, v) => t + Number(v.weight), 0) / total;
};

describe('the L1 set: one set for the fleet', () => {
  it("every node's P-Chain and validators API list the same set: the fleet's validations and four of other operators'", async () => {
    const sim = await fleet();
    const bases = sim.nodes.map((n) => n.baseUrl);
    const first = await pSet(defined(bases[0], 'node-0'));
    const members = sim.nodes.slice(0, 3).map((n) => n.nodeId);
    const fleetWeight = first.filter((v) => members.includes(v.nodeID)).reduce((t, v) => t + BigInt(v.weight), 0n);
    const others = otherL1Validators(SEED, fleetWeight);
    expect(first.map((v) => v.nodeID)).toEqual([...members, ...others.map((o) => o.nodeId)]);
    // The other operators' weights are shares of the fleet's: 7.5 %, 34.5 %, 34.5 %, 73.5 %.
    expect(first.slice(3).map((v) => BigInt(v.weight))).toEqual(others.map((o) => o.weight));
    // The balances drain as time runs (every balance pays the fee price): compared without them.
    const same = (vs: PEntry[]) => vs.map(({ balance: _balance, ...v }) => v);
    for (const base of bases) {
      expect(same(await pSet(base)), base).toEqual(same(first));
      const seen = await chainSet(base);
      expect(
        seen.map((v) => [v.validationID, v.nodeID, v.weight, v.isActive, v.isConnected]),
        base,
      ).toEqual(first.map((v) => [v.validationID, v.nodeID, Number(v.weight), true, true]));
    }
    // Asked by node ID, as each node's platform source asks for its own entry: that one only.
    expect((await pSet(defined(bases[3], 'node-3'), [defined(members[1], 'node-1')])).map((v) => v.nodeID)).toEqual([members[1]]);
    expect(await pSet(defined(bases[3], 'node-3'), [defined(sim.nodes[3], 'node-3').nodeId])).toEqual([]);
  });

  it('l1-validator-stopped: one light validator of another operator is disconnected for every vantage, 3 % of the weight; back when the scenario ends', async () => {
    const sim = await fleet();
    const bases = sim.nodes.map((n) => n.baseUrl);
    const set = await pSet(defined(bases[0], 'node-0'));
    const stoppedIds = (L1_SET_SCENARIOS['l1-validator-stopped'] ?? []).map((i) => defined(set[3 + i], `other ${i}`).nodeID);
    expect(stoppedIds).toHaveLength(1);
    expect(share(set, (id) => stoppedIds.includes(id))).toBeCloseTo(0.075 / 2.5, 2);
    sim.setScenario('node-2', 'l1-validator-stopped');
    for (const base of bases) {
      const seen = await waitFor(
        () => chainSet(base),
        (vs) => vs.some((v) => stoppedIds.includes(v.nodeID) && v.uptimePercentage < 100),
        5_000,
        `the stopped validator's uptime falling on ${base}`,
      );
      expect(
        seen.filter((v) => !v.isConnected).map((v) => v.nodeID),
        base,
      ).toEqual(stoppedIds);
      // Still active: it has its balance, as the P-Chain says.
      expect(seen.every((v) => v.isActive)).toBe(true);
    }
    sim.setScenario('node-2', 'healthy');
    for (const base of bases)
      expect(
        (await chainSet(base)).every((v) => v.isConnected),
        base,
      ).toBe(true);
  });

  it('l1-halted: two heavy validators of other operators, 27.6 % of the weight, past 25 %; two nodes in it stop them once', async () => {
    const sim = await fleet();
    const bases = sim.nodes.map((n) => n.baseUrl);
    const set = await pSet(defined(bases[0], 'node-0'));
    const stoppedIds = (L1_SET_SCENARIOS['l1-halted'] ?? []).map((i) => defined(set[3 + i], `other ${i}`).nodeID);
    expect(share(set, (id) => stoppedIds.includes(id))).toBeCloseTo(0.69 / 2.5, 2);
    sim.setScenario('node-0', 'l1-halted');
    sim.setScenario('node-1', 'l1-halted');
    for (const base of bases) {
      expect(
        (await chainSet(base)).filter((v) => !v.isConnected).map((v) => v.nodeID),
        base,
      ).toEqual(stoppedIds);
    }
    // One node leaving the scenario does not restart them: the other still has them stopped.
    sim.setScenario('node-0', 'healthy');
    expect((await chainSet(defined(bases[3], 'node-3'))).filter((v) => !v.isConnected).map((v) => v.nodeID)).toEqual(stoppedIds);
    sim.setScenario('node-1', 'healthy');
    expect((await chainSet(defined(bases[3], 'node-3'))).every((v) => v.isConnected)).toBe(true);
  });

  it("a drained validator is inactive in every node's set and reads not connected, as on a real node", async () => {
    const sim = await simulator({ ...FAST, nodes: 2, seed: SEED, trackL1: true, timings: { l1DrainSeconds: 30 } });
    const drained = defined(sim.nodes[0], 'node-0').nodeId;
    sim.setScenario('node-0', 'l1-balance-draining');
    for (const n of sim.nodes) {
      const seen = await waitFor(
        () => chainSet(n.baseUrl),
        (vs) => vs.some((v) => v.nodeID === drained && !v.isActive),
        5_000,
        `node-0 inactive on ${n.name}`,
      );
      expect(seen.filter((v) => !v.isConnected).map((v) => v.nodeID)).toEqual([drained]);
      expect((await pSet(n.baseUrl)).find((v) => v.nodeID === drained)?.balance).toBe('0');
    }
  });
});
