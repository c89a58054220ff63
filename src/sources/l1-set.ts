// The L1 set: an L1 (`l1s:` in the config) watched as a whole, from every node the operator runs that validates it
// (its vantages). Not a source of one node: one poll of an L1 (scheduler/l1-poller.ts) reads the set-wide facts once,
// from the vantage with the highest P-Chain height (platform.getCurrentValidators {subnetID} without nodeIDs,
// platform.getValidatorFeeState), and who each vantage sees connected from the L1 chain's validators API
// (validators.getCurrentValidators on /ext/bc/<chain>/validators, subnet-evm plugin/evm/service.go). So the cost is
// one set read a poll plus one connectivity read per vantage, not vantages × set size.
//
// Here: the pure parsers of those answers, the series of an L1 (one line block, first label `subnet`), and the L1
// page's rows, worst first. No I/O, no clock.
import { z } from 'zod';
import { InvalidResponseError } from '../rpc/errors.js';
import type { LinesBuilder } from '../metrics/render.js';
import { uint, firstIssue } from './wire.js';

/** One validator of the L1's current set, as the P-Chain lists it. */
export interface L1Member {
  readonly validationId: string;
  readonly nodeId: string;
  readonly weight: number;
  /** nAVAX; 0: inactive (out of balance, its weight no longer counts). */
  readonly balance: number;
  readonly startSeconds: number;
}

/** What one vantage's chain says of one validator (validators.getCurrentValidators). */
export interface Seen {
  readonly connected: boolean;
  /** uptimePercentage / 100. */
  readonly uptimeRatio: number;
}

/**
 * A vantage's read of the L1 chain's validators API: answered, the VM has no such API (HTTP 404 or
 * "method not found": a state, not a failure), the chain bootstraps, failed (its reason), or not asked (no chain known).
 */
export type VantageState = 'ok' | 'not_served' | 'unsupported' | 'not_bootstrapped' | 'failed' | 'not_asked';

export interface VantageView {
  readonly node: string;
  readonly state: VantageState;
  /** Why it failed, in the node's words (bounded by the poller). */
  readonly error?: string;
  /** The P-Chain height it answered (platform.getHeight), when it did. */
  readonly height?: number;
  /** By validation ID. */
  readonly seen: ReadonlyMap<string, Seen>;
}

/** A chain of the P-Chain (platform.getBlockchains). */
export interface Blockchain {
  readonly id: string;
  readonly name: string;
  readonly subnetId: string;
}

export interface L1SetSnapshot {
  readonly subnet: string;
  /** l1s[].name, else the P-Chain's name of its chain. */
  readonly name?: string;
  /** The chain whose validators API is read, and its name. */
  readonly chain?: { readonly id: string; readonly name?: string };
  /** The vantage the set-wide facts came from, and its P-Chain height. */
  readonly from: string;
  readonly height?: number;
  /** nAVAX a validator pays a second (platform.getValidatorFeeState `price`). */
  readonly feePriceNavaxPerSecond?: number;
  /** The whole set, heaviest first (then by validation ID): the first max_validators get series. */
  readonly validators: readonly L1Member[];
  readonly maxValidators: number;
  readonly vantages: readonly VantageView[];
}

const l1EntrySchema = z.object({
  validationID: z.string().max(64),
  nodeID: z.string().max(64),
  weight: uint,
  balance: uint,
  startTime: uint,
});

/**
 * Pure: platform.getCurrentValidators {subnetID} (no nodeIDs) → the L1's validators, heaviest first. Only L1 entries
 * (those with a validationID and a balance) count; a subnet not converted to an L1 lists stakers only: no member.
 *
 * `last`: the members of the last set read, by validation ID. A member still in the set gets their strings (its
 * validation ID, and its node ID when that did not change) instead of the ones this answer's parse made. The label
 * table keeps the strings of the poll that first served a label set, and each vantage's series start at the poll it
 * joined the L1's vantages: with a new string each poll, every vantage that joined later held a copy of its own of
 * every validator's IDs, up to one more a vantage the L1 ever had (the 1,000-node soak, issue 35).
 */
export function parseL1Set(result: unknown, last?: ReadonlyMap<string, L1Member>): L1Member[] {
  const r = z.object({ validators: z.array(z.unknown()).nullable() }).safeParse(result);
  if (!r.success) throw new InvalidResponseError('platform.getCurrentValidators returned no validators list');
  const out: L1Member[] = [];
  for (const raw of r.data.validators ?? []) {
    if (!raw || typeof raw !== 'object' || !('validationID' in raw)) continue;
    const v = l1EntrySchema.safeParse(raw);
    if (!v.success) throw new InvalidResponseError(`platform.getCurrentValidators returned an L1 validator entry with ${firstIssue(v.error)}`);
    const was = last?.get(v.data.validationID);
    out.push({
      validationId: was?.validationId ?? v.data.validationID,
      nodeId: was?.nodeId === v.data.nodeID ? was.nodeId : v.data.nodeID,
      weight: v.data.weight,
      balance: v.data.balance,
      startSeconds: v.data.startTime,
    });
  }
  return out.sort((a, b) => b.weight - a.weight || (a.validationId < b.validationId ? -1 : a.validationId > b.validationId ? 1 : 0));
}

// subnet-evm's CurrentValidator (plugin/evm/client/client.go): plain JSON numbers, uptimePercentage 0–100.
const chainValidatorSchema = z.object({
  validationID: z.string().max(64),
  nodeID: z.string().max(64),
  isConnected: z.boolean(),
  uptimePercentage: z.number().min(0).max(100),
});

/** Pure: validators.getCurrentValidators on the L1 chain → what the answering node sees of each validator, by validation ID. */
export function parseChainValidators(result: unknown): Map<string, Seen> {
  const r = z.object({ validators: z.array(chainValidatorSchema).nullable() }).safeParse(result);
  if (!r.success) throw new InvalidResponseError(`validators.getCurrentValidators returned ${firstIssue(r.error)}`);
  const out = new Map<string, Seen>();
  for (const v of r.data.validators ?? []) out.set(v.validationID, { connected: v.isConnected, uptimeRatio: v.uptimePercentage / 100 });
  return out;
}

/** Pure: platform.getBlockchains → the chains of the P-Chain (id, name, subnet). */
export function parseBlockchains(result: unknown): Blockchain[] {
  const r = z
    .object({ blockchains: z.array(z.object({ id: z.string().max(64), name: z.string().max(256), subnetID: z.string().max(64) })) })
    .safeParse(result);
  if (!r.success) throw new InvalidResponseError(`platform.getBlockchains returned ${firstIssue(r.error)}`);
  return r.data.blockchains.map((c) => ({ id: c.id, name: c.name, subnetId: c.subnetID }));
}

/** Seconds a balance lasts at the fee price: 0 when inactive, undefined without a price. */
export function runwaySeconds(balance: number, price: number | undefined): number | undefined {
  if (balance <= 0) return 0;
  return price !== undefined && price > 0 ? balance / price : undefined;
}

/**
 * The series of an L1, into a builder whose first label is `subnet` (scheduler/l1-poller.ts): the set-wide facts
 * once per validator (no node label), the totals of the whole set, the validators past max_validators counted, and
 * per vantage who it sees connected and `avalanchego_chain_info` of the chain it was asked on (`chain` its ID, `name` its name).
 */
export function addL1SetLines(b: LinesBuilder, s: L1SetSnapshot | undefined): void {
  if (!s) return;
  let weight = 0;
  for (const v of s.validators) weight += v.weight;
  b.add('avalanchego_l1_set_validators', s.validators.length);
  b.add('avalanchego_l1_set_weight', weight);
  const kept = s.validators.length > s.maxValidators ? s.validators.slice(0, s.maxValidators) : s.validators;
  b.add('avalanchego_l1_set_validators_dropped', s.validators.length - kept.length);
  for (const v of kept) {
    const labels = { validation_id: v.validationId, validator_node_id: v.nodeId };
    b.add('avalanchego_l1_set_validator_weight', v.weight, labels);
    b.add('avalanchego_l1_set_validator_balance_navax', v.balance, labels);
    b.add('avalanchego_l1_set_validator_active', v.balance > 0 ? 1 : 0, labels);
    b.add('avalanchego_l1_set_validator_runway_seconds', runwaySeconds(v.balance, s.feePriceNavaxPerSecond), labels);
  }
  for (const vantage of s.vantages) {
    // `chain` is the ID, as the node's health checks and the evm/proposervm series name an L1 chain (it has no alias), so
    // that `on (node, chain)` joins them; the name is a label of its own.
    if (s.chain)
      b.add('avalanchego_chain_info', 1, {
        node: vantage.node,
        chain: s.chain.id,
        name: s.name ?? s.chain.name ?? s.chain.id,
        blockchain_id: s.chain.id,
      });
    if (vantage.state !== 'ok') continue;
    for (const v of kept) {
      const seen = vantage.seen.get(v.validationId);
      if (!seen) continue;
      const labels = { node: vantage.node, validation_id: v.validationId, validator_node_id: v.nodeId };
      b.add('avalanchego_l1_set_validator_connected', seen.connected ? 1 : 0, labels);
      b.add('avalanchego_l1_set_validator_uptime_ratio', seen.uptimeRatio, labels);
    }
  }
}

/** What the pages read of an L1: its config, its last snapshot, how its polls go. */
export interface L1View {
  readonly subnet: string;
  readonly name?: string;
  readonly intervalMs: number;
  /** The vantages it is seen from (target names), in the order of the config's targets. */
  readonly vantages: readonly string[];
  readonly snapshot?: L1SetSnapshot;
  readonly polls: number;
  readonly success?: boolean;
  readonly lastSuccessSeconds?: number;
  /** The last poll's failure, while failing. */
  readonly error?: string;
}

/** One validator's row on the L1 page. */
export interface L1Row {
  readonly member: L1Member;
  readonly runwaySeconds?: number;
  /** Per vantage, in the order of the snapshot's vantages: connected, not, or not known (undefined). */
  readonly connected: ReadonlyArray<boolean | undefined>;
  /** Seen disconnected by more than half of the vantages that report it (as AvalancheGoL1ValidatorDown). */
  readonly down: boolean;
}

/**
 * Pure: the L1 page's rows, worst first: inactive, then down (disconnected for more than half of the vantages that
 * report it), then the shortest runway, then seen disconnected by any vantage, then the heaviest.
 */
export function l1Rows(s: L1SetSnapshot): L1Row[] {
  const rows = s.validators.map((member): L1Row => {
    const connected = s.vantages.map((v) => (v.state === 'ok' ? v.seen.get(member.validationId)?.connected : undefined));
    const reporting = connected.filter((c) => c !== undefined);
    const down = member.balance > 0 && reporting.filter((c) => !c).length * 2 > reporting.length;
    const runway = runwaySeconds(member.balance, s.feePriceNavaxPerSecond);
    return { member, connected, down, ...(runway !== undefined ? { runwaySeconds: runway } : {}) };
  });
  const rank = (r: L1Row) => [
    r.member.balance > 0 ? 1 : 0,
    r.down ? 0 : 1,
    r.runwaySeconds ?? Infinity,
    r.connected.includes(false) ? 0 : 1,
    -r.member.weight,
  ];
  return rows.sort((a, b) => {
    const x = rank(a);
    const y = rank(b);
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
    return 0;
  });
}

/**
 * Pure: the share of the L1's weight at risk, as AvalancheGoL1WeightAtRisk counts it: inactive, a runway under
 * 24 h, or down.
 */
export function weightAtRisk(s: L1SetSnapshot, rows: readonly L1Row[] = l1Rows(s)): number {
  let total = 0;
  let risk = 0;
  for (const r of rows) {
    total += r.member.weight;
    if (r.member.balance <= 0 || r.down || (r.runwaySeconds !== undefined && r.runwaySeconds < 86_400)) risk += r.member.weight;
  }
  return total > 0 ? risk / total : 0;
}
