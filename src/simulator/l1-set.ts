// The simulated L1 as a whole: one validator set, the same from every node that tracks it. Its members are the
// fleet's L1 validators (each node's own validation, staking in validator.ts) and a few validators of other operators,
// which no simulated node runs, as on a real L1 whose halt is often another operator's validator (avalanche-cli #2526).
// Every node's P-Chain lists the whole set, and every node's L1 chain serves the same set in its validators API
// (subnet-evm plugin/evm/service.go), each entry connected or not as that vantage sees it.
//
// The other operators hold 1.5 times the fleet's weight (the L1's is 2.5 times the fleet's), so that one node of a
// fleet of two holds 20 % of the L1: a drained node of a small fleet is not the L1's halt. Two scenarios stop other
// operators' validators, seen disconnected by every vantage while any node is in them: l1-validator-stopped a light
// one (3 % of the L1's weight), l1-halted two heavy ones (27.6 %, past the 25 % at which a Snowman poll of k = 20 no
// longer expects alpha = 15 answers).
import { cb58Encode, sha256 } from './ids.js';
import type { ScenarioName } from './scenarios.js';
import { identityFor, type L1Validation, type Staking } from './validator.js';

/** The scenarios that stop other operators' validators, and which (indexes of OTHER_L1_VALIDATORS). */
export const L1_SET_SCENARIOS: Readonly<Partial<Record<ScenarioName, readonly number[]>>> = {
  'l1-validator-stopped': [0],
  'l1-halted': [1, 2],
};

/** Other operators' validators: each one's weight as a share of the fleet's L1 weight (1.5 in all). */
const OTHER_SHARES = [0.075, 0.345, 0.345, 0.735] as const;
/** A healthy validator's balance: 45 days at the minimum fee price (512 nAVAX/s). */
export const OTHER_BALANCE = 1_990_656_000n;
/** Their validations started in December 2024 (wall seconds), a day apart. */
const OTHER_START_S = 1_735_000_000;

/** Another operator's validator of the simulated L1. */
export interface OtherL1Validator extends L1Validation {
  /** The scenarios that stop it. */
  readonly stoppedBy: readonly ScenarioName[];
}

/**
 * The other operators' validators of the fleet whose seed is `seed`, given the fleet's own L1 weight (each weight a
 * share of it, at least 1). Deterministic: a detection run names the validators a scenario stops from the seed.
 */
export function otherL1Validators(seed: string, fleetWeight: bigint): OtherL1Validator[] {
  const base = fleetWeight > 0n ? fleetWeight : 100n;
  return OTHER_SHARES.map((share, i) => {
    const id = identityFor(`other-l1-validator:${seed}:${i}`, 0);
    const stoppedBy = (Object.keys(L1_SET_SCENARIOS) as ScenarioName[]).filter((s) => L1_SET_SCENARIOS[s]?.includes(i));
    const weight = (base * BigInt(Math.round(share * 1000))) / 1000n;
    return {
      nodeId: id.nodeId,
      validationId: cb58Encode(sha256(`other-l1-validation:${seed}:${i}`)),
      weight: weight > 0n ? weight : 1n,
      startS: OTHER_START_S + i * 86_400,
      publicKey: id.publicKey,
      ownerAddress: `P-avax1${'q'.repeat(38)}`,
      stoppedBy,
    };
  });
}

/** A member of the set as one call sees it. */
export interface L1SetEntry {
  readonly validation: L1Validation;
  /** nAVAX now; 0: inactive. */
  readonly balance: bigint;
  /** Stopped by a scenario: no vantage is connected to it. */
  readonly stopped: boolean;
  /** Scenario milliseconds it has been stopped in all. */
  readonly downMs: number;
}

/** What the set needs of a simulated node: its staking, and its scenario. */
interface Member {
  readonly staking: Staking;
  readonly scenario: ScenarioName;
}

export class FleetL1 {
  private members: readonly Member[] = [];
  private others: OtherL1Validator[] | undefined;
  /** Per other validator (by index): since when it is stopped (scenario ms), and its downtime before. */
  private readonly down = new Map<number, { since: number | undefined; totalMs: number }>();
  /** The members by the node ID of their registered validation, for calls with nodeIDs; remade after a scenario change. */
  private byNodeId: Map<string, Member[]> | undefined;

  constructor(private readonly seed: string) {}

  /** The fleet's nodes, once made (the set's other validators are weighed against theirs). */
  attach(members: readonly Member[]): void {
    this.members = members;
  }

  /** Other operators' validators, weighed on first use against the fleet's L1 weight (which does not change). */
  private otherValidators(): OtherL1Validator[] {
    if (!this.others) {
      let fleet = 0n;
      for (const m of this.members) fleet += m.staking.l1?.weight ?? 0n;
      this.others = otherL1Validators(this.seed, fleet);
    }
    return this.others;
  }

  /** Called after a node's scenario changed (the node's own scenario is already `next`). */
  scenarioChanged(nowMs: number): void {
    // A registration or removal (l1-validator-removed) changes who is in the set under which node ID.
    this.byNodeId = undefined;
    const stopped = this.stoppedNow();
    for (let i = 0; i < OTHER_SHARES.length; i++) {
      const d = this.down.get(i) ?? { since: undefined, totalMs: 0 };
      if (stopped.has(i) && d.since === undefined) d.since = nowMs;
      else if (!stopped.has(i) && d.since !== undefined) {
        d.totalMs += nowMs - d.since;
        d.since = undefined;
      }
      this.down.set(i, d);
    }
  }

  private index(): Map<string, Member[]> {
    if (!this.byNodeId) {
      this.byNodeId = new Map();
      for (const m of this.members) {
        const id = m.staking.l1?.nodeId;
        if (id !== undefined) this.byNodeId.set(id, [...(this.byNodeId.get(id) ?? []), m]);
      }
    }
    return this.byNodeId;
  }

  /** The indexes of the other validators that some node's scenario stops now. */
  private stoppedNow(): Set<number> {
    const out = new Set<number>();
    for (const m of this.members) for (const i of L1_SET_SCENARIOS[m.scenario] ?? []) out.add(i);
    return out;
  }

  /**
   * The set at `nowMs`: the fleet's registered L1 validations (a node's old node ID after node-id-changed included:
   * the P-Chain keeps the validation), then the other operators'. `nodeIds`: only those (an empty list: all).
   */
  entries(nowMs: number, nodeIds: readonly string[] = []): L1SetEntry[] {
    const wanted = nodeIds.length > 0 ? new Set(nodeIds) : undefined;
    const out: L1SetEntry[] = [];
    // A call with nodeIDs (each node asks for its own) looks them up: a fleet of N nodes costs N, not N².
    const members = wanted ? [...wanted].flatMap((id) => this.index().get(id) ?? []) : this.members;
    for (const m of members) {
      const v = m.staking.l1;
      if (!v || (wanted && !wanted.has(v.nodeId))) continue;
      out.push({ validation: v, balance: m.staking.l1Balance(nowMs), stopped: false, downMs: 0 });
    }
    this.otherValidators().forEach((v, i) => {
      if (wanted && !wanted.has(v.nodeId)) return;
      const d = this.down.get(i);
      const downMs = (d?.totalMs ?? 0) + (d?.since !== undefined ? nowMs - d.since : 0);
      out.push({ validation: v, balance: OTHER_BALANCE, stopped: d?.since !== undefined, downMs });
    });
    return out;
  }
}
