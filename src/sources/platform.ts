// The platform source: the node's own entry in the current validator set of
// the primary network and of each configured subnet or L1
// (platform.getCurrentValidators with `nodeIDs: [<own node ID>]`, never the
// whole set), and the L1 validator fee price (platform.getValidatorFeeState,
// v1.12.2+), from /ext/bc/P. HTTP 503 while the P-Chain bootstraps and a method
// the node's version lacks are states (avalanchego_platform_method_state), not
// poll failures. The own node ID and BLS key come from the info source, or
// from info.getNodeID when that source is off or has not answered yet.
import type { Logger } from 'pino';
import { z } from 'zod';
import type { RpcReply } from '../rpc/client.js';
import { InvalidResponseError, RpcError } from '../rpc/errors.js';
import { decodeRpc, isMethodNotFound } from '../rpc/jsonrpc.js';
import type { LinesBuilder } from '../metrics/render.js';
import { uint64Schema } from '../util/uint64.js';
import { INFO_PATH, info, methodOutcome, parseNodeId } from './info.js';
import type { Source, StateWatcher } from './source.js';
import { uint } from './wire.js';
import { PRIMARY_NETWORK_ID } from '../config/schema.js';

export const PLATFORM_PATH = '/ext/bc/P';
export const PLATFORM_METHODS = ['platform.getCurrentValidators', 'platform.getValidatorFeeState'] as const;
export type PlatformMethod = (typeof PLATFORM_METHODS)[number];
export type PlatformMethodState = 'ok' | 'not_bootstrapped' | 'unsupported';

/** The node's entry in one subnet's current validator set. */
export type ValidatorEntry =
  | {
      kind: 'staker';
      weight: number;
      startSeconds: number;
      endSeconds: number;
      potentialReward?: number;
      /** `signer.publicKey`, lower-case hex; absent for a stake registered without a BLS key. */
      registeredKey?: string;
    }
  | { kind: 'l1'; weight: number; startSeconds: number; balance: number; registeredKey?: string };

export interface SubnetState {
  subnet: string;
  /** undefined: the node is not a current validator of the subnet. */
  entry?: ValidatorEntry;
}

export interface PlatformSnapshot {
  nodeId: string;
  /** The node's own BLS key (info.getNodeID nodePOP.publicKey), when known. */
  ownKey?: string;
  methods: Partial<Record<PlatformMethod, PlatformMethodState>>;
  /** Subnets answered, the primary network first (none while not bootstrapped). */
  subnets: SubnetState[];
  feePriceNavaxPerSecond?: number;
  failure?: unknown;
}

export const platform: Source<PlatformSnapshot> = {
  name: 'platform',
  enabled: (target) => target.platform.enabled,
  intervalMs: (target) => target.platform.intervalMs,
  async poll(ctx) {
    let identity = ctx.node.latest(info);
    if (!identity?.nodeId) {
      const reply = await ctx.rpc(INFO_PATH, 'info.getNodeID', {});
      const outcome = methodOutcome(reply);
      if (outcome.state !== 'ok')
        throw new InvalidResponseError('info.getNodeID is not available: the node ID to look up in the validator set is unknown');
      identity = { methods: {}, ...parseNodeId(outcome.result) };
    }
    const nodeId = identity.nodeId;
    if (nodeId === undefined)
      throw new InvalidResponseError('info.getNodeID gave no node ID: the node ID to look up in the validator set is unknown');
    // The config refuses the primary network in `subnets`: it is always checked.
    const subnets = [PRIMARY_NETWORK_ID, ...ctx.target.platform.subnets];
    const settle = (p: Promise<RpcReply>) =>
      p.then(
        (reply): RpcReply | { failed: unknown } => reply,
        (failed: unknown) => ({ failed }),
      );
    const [fee, ...validators] = await Promise.all([
      settle(ctx.rpc(PLATFORM_PATH, 'platform.getValidatorFeeState', {})),
      ...subnets.map((subnetID) => settle(ctx.rpc(PLATFORM_PATH, 'platform.getCurrentValidators', { subnetID, nodeIDs: [nodeId] }))),
    ]);
    return parsePlatform({ nodeId, ownKey: identity.blsPublicKey, subnets, validators, fee });
  },
  failure: (snapshot) => snapshot.failure,
  samples: addPlatformLines,
  watch: watchPlatform,
};

type Answer = RpcReply | { failed: unknown };

export interface PlatformAnswers {
  nodeId: string;
  ownKey?: string;
  /** The subnets asked, in the order of `validators`. */
  subnets: string[];
  validators: Answer[];
  fee: Answer;
}

/** 503 is the node's answer while the P-Chain bootstraps (`API call rejected because chain is not done bootstrapping`). */
function platformOutcome(reply: RpcReply): { state: 'ok'; result: unknown } | { state: 'not_bootstrapped' | 'unsupported' } {
  if (reply.status === 503) return { state: 'not_bootstrapped' };
  const outcome = decodeRpc(reply);
  if (outcome.ok) return { state: 'ok', result: outcome.result };
  if (isMethodNotFound(outcome.message)) return { state: 'unsupported' };
  throw new RpcError(outcome.code, outcome.message, reply.method);
}

/** Pure: the answers of one poll → the snapshot. */
export function parsePlatform(a: PlatformAnswers): PlatformSnapshot {
  const s: PlatformSnapshot = { nodeId: a.nodeId, methods: {}, subnets: [] };
  if (a.ownKey) s.ownKey = a.ownKey;
  const fail = (error: unknown) => {
    s.failure ??= error;
  };
  // getCurrentValidators: one state for all subnets; `ok` only when every subnet answered.
  const states = new Set<PlatformMethodState | 'failed'>();
  a.subnets.forEach((subnet, i) => {
    const answer = a.validators[i] ?? { failed: new InvalidResponseError(`no answer for subnet ${subnet}`) };
    try {
      if ('failed' in answer) throw answer.failed;
      const outcome = platformOutcome(answer);
      states.add(outcome.state);
      if (outcome.state !== 'ok') return;
      const entry = parseOwnEntry(outcome.result, a.nodeId);
      s.subnets.push(entry ? { subnet, entry } : { subnet });
    } catch (error) {
      states.add('failed');
      fail(error);
    }
  });
  if (!states.has('failed')) {
    const state = states.has('not_bootstrapped') ? 'not_bootstrapped' : states.has('unsupported') ? 'unsupported' : 'ok';
    s.methods['platform.getCurrentValidators'] = state;
    // While the P-Chain bootstraps nothing is known of any subnet.
    if (state === 'not_bootstrapped') s.subnets = [];
  }
  try {
    if ('failed' in a.fee) throw a.fee.failed;
    const outcome = platformOutcome(a.fee);
    s.methods['platform.getValidatorFeeState'] = outcome.state;
    if (outcome.state === 'ok') s.feePriceNavaxPerSecond = parseFeeState(outcome.result);
  } catch (error) {
    fail(error);
  }
  return s;
}

const key = z.string().regex(/^0x[0-9a-fA-F]+$/, 'expected 0x-hex');

const stakerSchema = z.object({
  nodeID: z.string(),
  startTime: uint,
  endTime: uint,
  // v1.7 reports stakeAmount instead of weight.
  weight: uint.optional(),
  stakeAmount: uint.optional(),
  potentialReward: uint.optional(),
  signer: z.object({ publicKey: key }).nullish(),
});

const l1Schema = z.object({
  nodeID: z.string(),
  startTime: uint,
  weight: uint,
  publicKey: key.optional(),
  balance: uint,
});

const validatorsSchema = z.object({ validators: z.array(z.unknown()).nullable() });

function invalid(what: string): InvalidResponseError {
  return new InvalidResponseError(`platform.getCurrentValidators returned ${what}`);
}

/**
 * Pure: the `result` of getCurrentValidators asked for one node ID → that
 * node's entry, or undefined when it is not a current validator (an empty
 * list). An L1 converted from a subnet may list a legacy staker and the L1
 * entry: the L1 entry wins.
 */
export function parseOwnEntry(result: unknown, nodeId: string): ValidatorEntry | undefined {
  const r = validatorsSchema.safeParse(result);
  if (!r.success) throw invalid('no validators list');
  let found: ValidatorEntry | undefined;
  for (const raw of r.data.validators ?? []) {
    if (!raw || typeof raw !== 'object' || (raw as { nodeID?: unknown }).nodeID !== nodeId) continue;
    // The L1 shape has a balance and no end time.
    if ('balance' in raw && !('endTime' in raw)) {
      const v = l1Schema.safeParse(raw);
      if (!v.success) throw invalid(`an L1 validator entry without ${v.error.issues[0]?.path.join('.') ?? 'a field it needs'}`);
      return {
        kind: 'l1',
        weight: v.data.weight,
        startSeconds: v.data.startTime,
        balance: v.data.balance,
        ...(v.data.publicKey ? { registeredKey: v.data.publicKey.toLowerCase() } : {}),
      };
    }
    const v = stakerSchema.safeParse(raw);
    if (!v.success) throw invalid(`a validator entry without ${v.error.issues[0]?.path.join('.') ?? 'a field it needs'}`);
    const weight = v.data.weight ?? v.data.stakeAmount;
    if (weight === undefined) throw invalid('a validator entry without weight');
    found = {
      kind: 'staker',
      weight,
      startSeconds: v.data.startTime,
      endSeconds: v.data.endTime,
      ...(v.data.potentialReward !== undefined ? { potentialReward: v.data.potentialReward } : {}),
      ...(v.data.signer?.publicKey ? { registeredKey: v.data.signer.publicKey.toLowerCase() } : {}),
    };
  }
  return found;
}

/** Pure: platform.getValidatorFeeState → price in nAVAX per second (a plain number on the wire). */
export function parseFeeState(result: unknown): number {
  const r = z.object({ price: uint64Schema }).safeParse(result);
  if (!r.success)
    throw new InvalidResponseError(`platform.getValidatorFeeState returned no price: ${r.error.issues[0]?.message ?? 'not a fee state'}`);
  return r.data.price;
}

function addPlatformLines(b: LinesBuilder, s: PlatformSnapshot | undefined): void {
  if (!s) return;
  for (const { subnet, entry } of s.subnets) {
    const labels = { subnet };
    b.add('avalanchego_validator', entry ? 1 : 0, labels);
    if (!entry) continue;
    b.add('avalanchego_validator_start_timestamp_seconds', entry.startSeconds, labels);
    if (entry.kind === 'staker') b.add('avalanchego_validator_end_timestamp_seconds', entry.endSeconds, labels);
    b.add('avalanchego_validator_weight', entry.weight, labels);
    if (subnet === PRIMARY_NETWORK_ID && entry.kind === 'staker') b.add('avalanchego_validator_potential_reward_navax', entry.potentialReward);
    if (entry.registeredKey && s.ownKey) b.add('avalanchego_validator_registered_key_match', entry.registeredKey === s.ownKey ? 1 : 0, labels);
    if (entry.kind === 'l1') {
      b.add('avalanchego_l1_validator_balance_navax', entry.balance, labels);
      b.add('avalanchego_l1_validator_active', entry.balance > 0 ? 1 : 0, labels);
    }
  }
  b.add('avalanchego_validator_fee_price_navax_per_second', s.feePriceNavaxPerSecond);
  for (const method of PLATFORM_METHODS) {
    const state = s.methods[method];
    if (state) b.add('avalanchego_platform_method_state', 1, { method, state });
  }
}

/** Logs a subnet's validator status changing (joined, left, L1 balance at 0) and the P-Chain bootstrapping, once each. */
function watchPlatform(log: Logger): StateWatcher<PlatformSnapshot> {
  const status = new Map<string, string>();
  let bootstrapping = false;
  return {
    observe(s) {
      if (!s) return;
      const nowBootstrapping = s.methods['platform.getCurrentValidators'] === 'not_bootstrapped';
      if (nowBootstrapping !== bootstrapping) {
        bootstrapping = nowBootstrapping;
        log.info(nowBootstrapping ? 'P-Chain is bootstrapping (HTTP 503): no validator series until it is done' : 'P-Chain API answers again');
      }
      for (const { subnet, entry } of s.subnets) {
        const now = !entry ? 'not a validator' : entry.kind === 'l1' && entry.balance === 0 ? 'inactive L1 validator (balance 0)' : 'validator';
        const before = status.get(subnet);
        status.set(subnet, now);
        if (before !== undefined && before !== now) log.warn({ subnet, nodeId: s.nodeId, was: before }, `validator status changed: ${now}`);
      }
    },
  };
}
