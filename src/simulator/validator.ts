// The staking side of a simulated node: its identity (node ID and BLS key),
// its primary-network stake, its L1 validation, the uptime the network
// perceives of it, and the L1 validator fee state, as the P-Chain and the
// network layer of a node would report them. Values derive from the clocks,
// so nothing is stored per block or per second.

import type { SimClock } from './clock.js';
import { blsPointFor, cb58Encode, nodeIdFor, pChainAddressFor, prng, sha256 } from './ids.js';
import { MAINNET_HELICON_S, type ScenarioName, type ScenarioTimings } from './scenarios.js';

const DAY_S = 86_400;
const YEAR_S = 365 * DAY_S;
const NAVAX_PER_AVAX = 1_000_000_000n;

/** The validator fee state: mainnet's minimum price at zero excess (fewer L1 validators than the target). */
export const FEE_STATE = { excess: 0, price: 512 } as const;
/** A healthy L1 validator holds this many days of fees. */
const HEALTHY_RUNWAY_DAYS = 45;
/** uptime-dropping: where the weighted average ends. */
const UPTIME_FLOOR = 55;
/** The mainnet reward threshold (uptime-requirement 0.8); 90 for validations from Helicon on (ACP-267). */
export const UPTIME_REQUIREMENT = 80;
export const UPTIME_REQUIREMENT_HELICON = 90;

export interface Identity {
  nodeId: string;
  /** Compressed BLS public key (48 bytes). */
  publicKey: Buffer;
  /** Proof of possession (96 bytes). */
  proofOfPossession: Buffer;
}

export interface PrimaryStake {
  nodeId: string;
  txId: string;
  startS: number;
  endS: number;
  weight: bigint;
  potentialReward: bigint;
  accruedDelegateeReward: bigint;
  /** Percent, a float32 on the wire. */
  delegationFee: number;
  delegators: Delegation[];
  rewardAddress: string;
  /** The BLS key registered with the stake; undefined for stakes added before Banff's signer. */
  signer: Identity | undefined;
  /** The node's own view of its uptime (0–100). */
  ownUptime: number;
  /**
   * ACP-236 (v1.15): an auto-renewed validator; startS and endS are its current cycle, which renews
   * at its end for `nextPeriodS` seconds (0: the validator leaves at the cycle end).
   */
  autoRenew?: { nextPeriodS: number; compoundShares: number; authorityAddress: string };
}

export interface Delegation {
  txId: string;
  startS: number;
  endS: number;
  weight: bigint;
  potentialReward: bigint;
  rewardAddress: string;
}

export interface L1Validation {
  nodeId: string;
  validationId: string;
  weight: bigint;
  startS: number;
  publicKey: Buffer;
  ownerAddress: string;
}

/** A PRNG seeded by a string. */
function rand(seed: string): () => number {
  return prng(sha256(seed).readUInt32BE(0));
}

export function identityFor(seed: string, generation: number): Identity {
  // Generation 0 keeps the node ID the simulator always gave this node.
  const key = generation === 0 ? seed : `${seed}:cert${generation}`;
  return {
    nodeId: nodeIdFor(key),
    publicKey: blsPointFor(`pk:${key}`, 48),
    proofOfPossession: blsPointFor(`pop:${key}`, 96),
  };
}

/** A stake of `weight` nAVAX from startS to endS, with the reward a 7 % yearly rate would give. */
function newStake(identity: Identity, seed: string, startS: number, endS: number, r: () => number): PrimaryStake {
  const weight = (2_000n + BigInt(Math.floor(r() * 400_000))) * NAVAX_PER_AVAX;
  const duration = BigInt(endS - startS);
  const potentialReward = (weight * 7n * duration) / (100n * BigInt(YEAR_S));
  const delegators: Delegation[] = [];
  for (let i = Math.floor(r() * 6); i > 0; i--) {
    // A delegation lies within the validation period.
    const dStart = startS + Math.floor(r() * (endS - startS) * 0.3);
    const dEnd = Math.max(dStart + 14 * DAY_S, endS - Math.floor(r() * (endS - startS) * 0.3));
    const dWeight = (25n + BigInt(Math.floor(r() * 5_000))) * NAVAX_PER_AVAX;
    delegators.push({
      txId: cb58Encode(sha256(`delegation:${seed}:${startS}:${i}`)),
      startS: dStart,
      endS: Math.min(dEnd, endS),
      weight: dWeight,
      potentialReward: (dWeight * 7n * BigInt(Math.min(dEnd, endS) - dStart) * 98n) / (100n * BigInt(YEAR_S) * 100n),
      rewardAddress: pChainAddressFor(`delegator:${seed}:${i}`),
    });
  }
  return {
    nodeId: identity.nodeId,
    txId: cb58Encode(sha256(`stake:${seed}:${identity.nodeId}:${startS}`)),
    startS,
    endS,
    weight,
    potentialReward,
    accruedDelegateeReward: delegators.length > 0 ? BigInt(Math.floor(r() * 5e9)) : 0n,
    delegationFee: [2, 2, 2, 5, 10][Math.floor(r() * 5)] ?? 2,
    delegators,
    rewardAddress: pChainAddressFor(`reward:${seed}`),
    signer: identity,
    ownUptime: 99.5 + Math.floor(r() * 4_900) / 10_000,
  };
}

export interface StakingOptions {
  seed: string;
  clock: SimClock;
  timings: ScenarioTimings;
  /** Validates the primary network. */
  primary: boolean;
  /** Validates the simulated L1 (L1_SUBNET_ID). */
  l1: boolean;
}

export class Staking {
  private generation = 0;
  identity: Identity;
  /** The stake on the primary network, registered to the identity it was made with. */
  stake: PrimaryStake | undefined;
  readonly l1: L1Validation | undefined;
  /**
   * The L1 balance at `balanceAtMs` (scenario time), paying FEE_STATE.price per scenario second since. One rate for
   * the drain and for the projection: the runway a client derives (balance / price) is the scenario time the balance
   * really has left, at any time scale (l1-balance-draining drained six days of fees in two minutes, so a page
   * said "lasts 5d" half a minute before the validator went inactive).
   */
  private balanceBase = 0n;
  private balanceAtMs = 0;
  private uptimeDropStartMs: number | undefined;
  private uptimeFloor = UPTIME_FLOOR;
  private readonly baseUptime: number;
  private readonly r: () => number;

  constructor(private readonly opts: StakingOptions) {
    this.r = rand(`staking:${opts.seed}`);
    this.identity = identityFor(opts.seed, 0);
    const nowS = this.wallS();
    this.baseUptime = 99.2 + Math.floor(this.r() * 7_500) / 10_000;
    if (opts.primary) {
      // Staked 10 to 100 days ago for 180 to 365 days: at least 80 days left.
      const startS = nowS - Math.floor((10 + this.r() * 90) * DAY_S);
      const endS = startS + Math.floor((180 + this.r() * 185) * DAY_S);
      this.stake = newStake(this.identity, opts.seed, startS, endS, this.r);
    }
    if (opts.l1) {
      this.l1 = {
        nodeId: this.identity.nodeId,
        validationId: cb58Encode(sha256(`validation:${opts.seed}`)),
        weight: 20n + BigInt(Math.floor(this.r() * 80)),
        startS: nowS - Math.floor((5 + this.r() * 60) * DAY_S),
        publicKey: this.identity.publicKey,
        ownerAddress: pChainAddressFor(`l1-owner:${opts.seed}`),
      };
      this.fund(HEALTHY_RUNWAY_DAYS * DAY_S, opts.clock.simMs());
    }
  }

  private wallS(): number {
    return Number(this.opts.clock.nowNs() / 1_000_000_000n);
  }

  /** The node is in the primary network's current validator set under its running node ID. */
  isPrimaryValidator(): boolean {
    const s = this.renewed();
    return s !== undefined && s.nodeId === this.identity.nodeId && this.wallS() < s.endS;
  }

  /** The stake, its auto-renewed cycles advanced to the one running now (a cycle renews at its end). */
  private renewed(): PrimaryStake | undefined {
    const s = this.stake;
    const period = s?.autoRenew?.nextPeriodS ?? 0;
    if (!s || period <= 0) return s;
    const now = this.wallS();
    if (now < s.endS) return s;
    const cycles = Math.floor((now - s.endS) / period) + 1;
    s.startS = s.endS + (cycles - 1) * period;
    s.endS = s.startS + period;
    return s;
  }

  isL1Validator(): boolean {
    return this.l1 !== undefined && this.l1.nodeId === this.identity.nodeId;
  }

  /** Current primary-network stakers: the node's stake until its end time (the P-Chain then removes it). */
  currentStake(): PrimaryStake | undefined {
    const s = this.renewed();
    return s !== undefined && this.wallS() < s.endS ? s : undefined;
  }

  /**
   * info.uptime's figures (0–100), or undefined when the node is not a primary validator. `helicon`: the
   * release applies ACP-267, so a validation that started at or after Helicon needs 90 %.
   */
  uptime(nowMs: number, helicon = false): { rewardingStake: number; weightedAverage: number } | undefined {
    if (!this.isPrimaryValidator()) return undefined;
    let avg = this.baseUptime;
    if (this.uptimeDropStartMs !== undefined) {
      const progress = Math.min(1, Math.max(0, (nowMs - this.uptimeDropStartMs) / 1000 / this.opts.timings.uptimeDropSeconds));
      avg = this.baseUptime - (this.baseUptime - this.uptimeFloor) * progress;
    }
    const requirement = helicon && (this.stake?.startS ?? 0) >= MAINNET_HELICON_S ? UPTIME_REQUIREMENT_HELICON : UPTIME_REQUIREMENT;
    // Peers' views spread ±10 points around the average: the share of stake that sees the node above the requirement.
    const share = Math.min(1, Math.max(0, (avg + 10 - requirement) / 20));
    return { rewardingStake: round4(share * 100), weightedAverage: round4(avg) };
  }

  /** The uptime (0–100) a peer reports having observed of this node. */
  observedUptime(peerIndex: number, nowMs: number): number {
    const u = this.uptime(nowMs);
    if (!u) return 0;
    const spread = ((peerIndex * 2654435761) % 1000) / 50 - 10;
    return Math.max(0, Math.min(100, Math.round(u.weightedAverage + spread)));
  }

  /** The L1 validator's balance in nAVAX at `nowMs` (scenario time; 0 = inactive). */
  l1Balance(nowMs: number): bigint {
    if (!this.l1) return 0n;
    const paid = BigInt(Math.floor((Math.max(0, nowMs - this.balanceAtMs) * FEE_STATE.price) / 1000));
    return this.balanceBase > paid ? this.balanceBase - paid : 0n;
  }

  /** Sets the L1 balance to `seconds` of fees at `nowMs` (scenario time): a top-up, or a validator that has that long left. */
  private fund(seconds: number, nowMs: number): void {
    this.balanceBase = BigInt(Math.round(seconds)) * BigInt(FEE_STATE.price);
    this.balanceAtMs = nowMs;
  }

  /** Applies what a scenario change means for the stake, the L1 balance, the identity and the perceived uptime. */
  scenarioChanged(previous: ScenarioName, next: ScenarioName, nowMs: number): void {
    const nowS = this.wallS();
    const t = this.opts.timings;
    const own = (name: ScenarioName) => name === 'stake-expiring' || name === 'auto-renewed' || name === 'auto-renew-exiting';
    if (own(previous) && previous !== next && this.stake) {
      // The operator re-stakes: a new validator transaction from now, for a year.
      this.stake = newStake(this.identity, this.opts.seed, nowS, nowS + YEAR_S, this.r);
    }
    if (next === 'stake-expiring' && this.stake && this.isPrimaryValidator()) {
      this.stake = { ...this.stake, endS: nowS + t.stakeExpirySeconds };
    }
    if ((next === 'auto-renewed' || next === 'auto-renew-exiting') && this.stake && this.isPrimaryValidator()) {
      // An auto-renewed validator (AddAutoRenewedValidatorTx) two weeks into a cycle. auto-renewed renews
      // its cycles (nextPeriod > 0); auto-renew-exiting's owner set nextPeriod to 0: it leaves at the end.
      const renews = next === 'auto-renewed';
      this.stake = {
        ...this.stake,
        startS: nowS - 14 * DAY_S,
        endS: nowS + (renews ? t.autoRenewCycleEndSeconds : t.stakeExpirySeconds),
        autoRenew: { nextPeriodS: renews ? t.nextPeriodSeconds : 0, compoundShares: 500_000, authorityAddress: this.stake.rewardAddress },
      };
    }
    if (next === 'helicon-uptime' && this.stake && this.isPrimaryValidator() && this.stake.startS < MAINNET_HELICON_S) {
      // A validation that started after Helicon: it needs 90 %.
      this.stake = { ...this.stake, startS: Math.max(MAINNET_HELICON_S + DAY_S, nowS - 20 * DAY_S) };
    }
    if (next === 'node-id-changed' && previous !== 'node-id-changed') {
      // A new staking certificate (and BLS key): the registered stake stays with the old node ID.
      this.generation++;
      this.identity = identityFor(this.opts.seed, this.generation);
    } else if (previous === 'node-id-changed' && next !== 'node-id-changed') {
      // The original certificate is restored.
      this.generation = 0;
      this.identity = identityFor(this.opts.seed, 0);
    }
    // l1-balance-draining: l1DrainSeconds of fees left, paid as every balance is. Leaving it is a top-up
    // (an IncreaseL1ValidatorBalanceTx).
    if (next === 'l1-balance-draining') this.fund(t.l1DrainSeconds, nowMs);
    else if (previous === 'l1-balance-draining') this.fund(HEALTHY_RUNWAY_DAYS * DAY_S, nowMs);
    this.uptimeDropStartMs = next === 'uptime-dropping' || next === 'helicon-uptime' ? nowMs : undefined;
    this.uptimeFloor = next === 'helicon-uptime' ? t.heliconUptimeFloor : UPTIME_FLOOR;
  }

  /** Other validators of the network, for calls without a nodeIDs filter (a handful, not the whole set). */
  static others(seed: string, nowS: number, count: number): PrimaryStake[] {
    const out: PrimaryStake[] = [];
    for (let i = 0; i < count; i++) {
      const r = rand(`other:${seed}:${i}`);
      const identity = identityFor(`other-validator:${seed}:${i}`, 0);
      // Anchored to the day so every call (and every node) lists the same stakes.
      const day = Math.floor(nowS / DAY_S) * DAY_S;
      const startS = day - Math.floor((20 + r() * 200) * DAY_S);
      out.push(newStake(identity, `other:${seed}:${i}`, startS, startS + YEAR_S, r));
    }
    return out;
  }
}

/** Rounds to four decimals, so Go's and JavaScript's fixed-point text agree (no ties). */
function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}
