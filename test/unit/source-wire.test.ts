// What every source's requests and parsers share (src/sources/wire.ts): the one decoder of a method's answer
// into its result or a state of the node, and the one way to ask several things at once.
import { describe, expect, it } from 'vitest';
import type { RpcReply } from '../../src/rpc/client.js';
import { HttpStatusError, InvalidResponseError, RpcError } from '../../src/rpc/errors.js';
import { askAll, decodeMethod, replyOf } from '../../src/sources/wire.js';

const reply = (status: number, body: string): RpcReply => ({ url: 'http://127.0.0.1:9650/ext/x', status, headers: {}, body, method: 'x.y', id: 7 });
const result = (value: unknown) => reply(200, JSON.stringify({ jsonrpc: '2.0', result: value, id: 7 }));
const rpcError = (message: string) => reply(200, JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: 7 }));
const NOT_FOUND = reply(404, '404 page not found\n');
const BOOTSTRAPPING = reply(503, 'API call rejected because chain is not done bootstrapping\n');
const PROXY_503 = reply(503, '<html>Service Unavailable</html>');
const NO_METHOD = rpcError('rpc: can\'t find method "x.y"');
const NO_SERVICE = rpcError('rpc: can\'t find service "x"');

describe('decodeMethod: a result, a state the source accepts, or the failure decodeRpc would throw', () => {
  it.each([
    ['a result', result({ a: 1 }), ['not_served', 'not_bootstrapped', 'unsupported'] as const, { state: 'ok', result: { a: 1 } }],
    ['HTTP 404, accepted', NOT_FOUND, ['not_served'] as const, { state: 'not_served' }],
    ['HTTP 503 of a bootstrapping chain, accepted', BOOTSTRAPPING, ['not_bootstrapped'] as const, { state: 'not_bootstrapped' }],
    ['a method the release lacks, accepted', NO_METHOD, ['unsupported'] as const, { state: 'unsupported' }],
    ['a service the release lacks, accepted', NO_SERVICE, ['unsupported'] as const, { state: 'unsupported' }],
  ])('%s', (_name, answer, accept, expected) => {
    expect(decodeMethod(answer, accept)).toEqual(expected);
  });

  it.each([
    ['HTTP 404, not accepted', NOT_FOUND, ['not_bootstrapped', 'unsupported'] as const, HttpStatusError],
    ["a proxy's 503 (no bootstrapping text), even where bootstrapping is accepted", PROXY_503, ['not_bootstrapped'] as const, HttpStatusError],
    ['HTTP 503 of a bootstrapping chain, not accepted', BOOTSTRAPPING, ['not_served', 'unsupported'] as const, HttpStatusError],
    ['a method the release lacks, not accepted', NO_METHOD, ['not_served', 'not_bootstrapped'] as const, RpcError],
    ['another JSON-RPC error', rpcError('something broke'), ['not_served', 'not_bootstrapped', 'unsupported'] as const, RpcError],
    ['not JSON', reply(200, 'hello'), ['not_served', 'not_bootstrapped', 'unsupported'] as const, InvalidResponseError],
  ])('%s is thrown', (_name, answer, accept, type) => {
    expect(() => decodeMethod(answer, accept)).toThrow(type);
  });

  it("the source's own states, from a JSON-RPC error's message; its other errors still thrown", () => {
    const own = (message: string) => (message.endsWith('not a validator') ? 'not_validator' : undefined);
    expect(decodeMethod(rpcError("couldn't get node uptime: node is not a validator"), ['unsupported'], own)).toEqual({ state: 'not_validator' });
    // Method not found is decided first: the source's words never take it.
    expect(decodeMethod(NO_METHOD, ['unsupported'], () => 'answers')).toEqual({ state: 'unsupported' });
    expect(() => decodeMethod(rpcError('boom'), ['unsupported'], own)).toThrow(new RpcError(-32000, 'boom', 'x.y'));
  });
});

describe('askAll: every item asked at once, each outcome in order, one failure losing none of the others', () => {
  it('gives each answer, or `{ failed }` with what its request threw', async () => {
    const boom = new Error('boom');
    const outcomes = await askAll([1, 2, 3], (n) => (n === 2 ? Promise.reject(boom) : Promise.resolve(n * 10)));
    expect(outcomes).toEqual([10, { failed: boom }, 30]);
    expect(() => replyOf({ failed: boom })).toThrow(boom);
  });

  it("maps a failure to the item's own state when asked to, a throw before the promise included", async () => {
    const outcomes = await askAll(
      ['a', 'b'] as const,
      (item) => {
        if (item === 'b') throw new Error(`no ${item}`);
        return Promise.resolve({ item, state: 'ok' });
      },
      (error, item) => ({ item, state: 'failed', error: (error as Error).message }),
    );
    expect(outcomes).toEqual([
      { item: 'a', state: 'ok' },
      { item: 'b', state: 'failed', error: 'no b' },
    ]);
  });

  it('starts every request before any answers (in flight together, in order)', async () => {
    const started: number[] = [];
    const release: Array<() => void> = [];
    const all = askAll([1, 2, 3], (n) => {
      started.push(n);
      return new Promise<number>((resolve) => release.push(() => resolve(n)));
    });
    expect(started).toEqual([1, 2, 3]);
    for (const r of [...release].reverse()) r();
    expect(await all).toEqual([1, 2, 3]);
  });
});
