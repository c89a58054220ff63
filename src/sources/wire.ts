// What every source's requests and parsers share: shapes of AvalancheGo's JSON
// values, how a schema's refusal is said, the one way to ask several things at
// once (askAll), and the one decoder of a method's answer into its result or a
// state of the node (decodeMethod). Go's json.Uint32/Uint64 are decimal strings
// on the wire; the node's own decoder also takes numbers.
import { z } from 'zod';
import type { HttpReply, RpcReply } from '../rpc/client.js';
import { InvalidResponseError, RpcError } from '../rpc/errors.js';
import { decodeRpc, isMethodNotFound } from '../rpc/jsonrpc.js';
import { uint64Schema, unixSecondsSchema } from '../util/uint64.js';
import type { StateWatcher } from './source.js';

/** A json.Uint64 (or Uint32) as its number: over 2^64-1 (or not finite) is refused, not served as +Inf. */
export const uint = uint64Schema;
/** A json.Uint64 that is a Unix time in seconds: past what a date holds (year 275760) is refused too. */
export const unixSeconds = unixSecondsSchema;

/** The first zod issue as `path: message`, for an InvalidResponseError. */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'result'}: ${issue.message}` : 'result: not what was expected';
}

/**
 * The node's answer on a chain's API while that chain bootstraps: AvalancheGo's api/server rejectMiddleware
 * writes `http.Error(w, "API call rejected because chain is not done bootstrapping", 503)`. A state of the
 * node (the health source shows it bootstrapping), not a fault. A 503 without that text (a proxy's) stays a failure.
 */
export function chainNotBootstrapped(reply: Pick<HttpReply, 'status' | 'body'>): boolean {
  return reply.status === 503 && reply.body.includes('chain is not done bootstrapping');
}

/** A request that got no answer: what it threw. */
export interface Failed {
  failed: unknown;
}

/** The reply, or what its request threw, thrown again (inside a parse that keeps each answer's failure apart). */
export function replyOf(answer: RpcReply | Failed): RpcReply {
  if ('failed' in answer) throw answer.failed;
  return answer;
}

/**
 * The one way a source asks several things at once: `ask` for every item, all in flight together, and each
 * item's outcome in order: what `ask` gave, or what `failed` makes of what it threw (a transport failure or
 * a parse's; `{ failed }` by default). One failure neither stops nor loses the others.
 */
export function askAll<const I extends readonly unknown[], R, F = Failed>(
  items: I,
  ask: (item: I[number]) => Promise<R>,
  failed: (error: unknown, item: I[number]) => F = (error) => ({ failed: error }) as F,
): Promise<{ -readonly [K in keyof I]: R | F }> {
  return Promise.all(
    // The executor runs at once: every request starts now, in order; one that throws before its promise is a failure too.
    items.map((item) =>
      new Promise<R>((resolve) => resolve(ask(item))).then(
        (value): R | F => value,
        (error: unknown) => failed(error, item),
      ),
    ),
  ) as Promise<{ -readonly [K in keyof I]: R | F }>;
}

/** The states of the node a method's answer can be, apart from the source's own (decodeMethod). */
export type MethodState =
  /** HTTP 404: no such API at that path (turned off, a release before it, a chain the node does not run). */
  | 'not_served'
  /** HTTP 503 `chain is not done bootstrapping` (chainNotBootstrapped): the chain bootstraps. */
  | 'not_bootstrapped'
  /** JSON-RPC `rpc: can't find method|service`: the node's release lacks the method. */
  | 'unsupported';

/**
 * The one decoder of a method's answer: its result, or a state of the node that is an answer, not a failure.
 * A state is taken only where the source accepts it (`accept`), and a JSON-RPC error whose message the
 * source knows as a state of its own (`stateOf`: info.uptime's `not a validator`); anything else is thrown as
 * decodeRpc does (HttpStatusError, InvalidResponseError), or as the RpcError of its JSON-RPC error.
 */
export function decodeMethod<A extends MethodState = never, E extends string = never>(
  reply: RpcReply,
  accept: readonly A[],
  stateOf?: (message: string) => E | undefined,
): { state: 'ok'; result: unknown } | { state: A | E } {
  // `state as A`: only a state the caller accepts is returned.
  const accepts = (state: MethodState) => (accept as readonly MethodState[]).includes(state);
  if (reply.status === 404 && accepts('not_served')) return { state: 'not_served' as A };
  if (accepts('not_bootstrapped') && chainNotBootstrapped(reply)) return { state: 'not_bootstrapped' as A };
  const outcome = decodeRpc(reply);
  if (outcome.ok) return { state: 'ok', result: outcome.result };
  if (accepts('unsupported') && isMethodNotFound(outcome.message)) return { state: 'unsupported' as A };
  const own = stateOf?.(outcome.message);
  if (own !== undefined) return { state: own };
  throw new RpcError(outcome.code, outcome.message, reply.method);
}

/** Pure: platform.getHeight → the P-Chain height (`{"height":"…"}`, a json.Uint64 string). */
export function parseHeight(result: unknown): number {
  const r = z.object({ height: uint }).safeParse(result);
  if (!r.success) throw new InvalidResponseError(`platform.getHeight returned no height: ${r.error.issues[0]?.message ?? 'not a height'}`);
  return r.data.height;
}

/** Pure: platform.getValidatorFeeState → price in nAVAX per second (a plain number on the wire). */
export function parseFeeState(result: unknown): number {
  const r = z.object({ price: uint }).safeParse(result);
  if (!r.success)
    throw new InvalidResponseError(`platform.getValidatorFeeState returned no price: ${r.error.issues[0]?.message ?? 'not a fee state'}`);
  return r.data.price;
}

/**
 * The state watcher of a source that keeps a state per chain (evm, proposervm, chain_info): `say` is called for a
 * chain when its state changes (with the one before, undefined at its first poll), never at every poll.
 */
export function chainStateWatcher<C extends { readonly chain: string; readonly state: string }>(
  say: (c: C, before: C['state'] | undefined) => void,
): StateWatcher<{ readonly chains: readonly C[] }> {
  const last = new Map<string, C['state']>();
  return {
    observe(s) {
      if (!s) return;
      for (const c of s.chains) {
        const before = last.get(c.chain);
        last.set(c.chain, c.state);
        if (before !== c.state) say(c, before);
      }
    },
  };
}
