import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EMPTY_INDEX_MESSAGE, parseIndexReply, parseLastAccepted } from '../../src/sources/index-api.js';
import { HttpStatusError, InvalidResponseError, RpcError } from '../../src/rpc/errors.js';
import type { RpcReply } from '../../src/rpc/client.js';

const result = (name: string) =>
  (JSON.parse(readFileSync(new URL(`../fixtures/index/${name}`, import.meta.url), 'utf8')) as { result: unknown }).result;

describe('parseLastAccepted', () => {
  it.each([
    ['getLastAccepted-C-block.json', 'C/block', 51234566, Date.parse('2026-11-20T14:15:01.987Z') / 1000 + 0.000654321],
    ['getLastAccepted-P-block.json', 'P/block', 21987000, Date.parse('2026-11-20T14:14:59Z') / 1000],
  ] as const)('%s', (file, endpoint, index, ts) => {
    const s = parseLastAccepted(endpoint, result(file));
    expect(s).toMatchObject({ endpoint, state: 'ok', lastIndex: index });
    expect(s.state === 'ok' && s.timestampSeconds).toBeCloseTo(ts, 6);
  });

  it('accepts a numeric index, as the node decoder does', () => {
    expect(parseLastAccepted('X/tx', { id: 'x', timestamp: '2026-11-20T14:14:59Z', index: 7 })).toMatchObject({ lastIndex: 7 });
  });

  it.each([
    ['a negative index', result('wrong-index-type.json')],
    ['no index', { id: 'x', timestamp: '2026-11-20T14:14:59Z' }],
    ['a bad timestamp', { id: 'x', timestamp: 'noon', index: '1' }],
    ['null', null],
    ['an array (the outdated docs shape)', [{ id: 'x', timestamp: '2026-11-20T14:14:59Z', index: '1' }]],
  ])('rejects %s', (_name, value) => {
    expect(() => parseLastAccepted('C/block', value)).toThrow(InvalidResponseError);
  });
});

describe('parseIndexReply: the endpoint state from the answer', () => {
  const reply = (status: number, body: string): RpcReply => ({
    url: 'http://127.0.0.1:9650/ext/index/C/block',
    status,
    headers: {},
    body,
    method: 'index.getLastAccepted',
    id: 7,
  });
  const rpc = (payload: object) => JSON.stringify({ jsonrpc: '2.0', ...payload, id: 7 });

  it('HTTP 404 is indexing off', () => {
    expect(parseIndexReply('C/block', reply(404, '404 page not found\n'))).toEqual({ endpoint: 'C/block', state: 'disabled' });
  });

  it('"no containers have been accepted" is an empty index', () => {
    expect(parseIndexReply('X/tx', reply(200, rpc({ error: { code: -32000, message: EMPTY_INDEX_MESSAGE } })))).toEqual({
      endpoint: 'X/tx',
      state: 'empty',
    });
  });

  it('a container is its last index', () => {
    const body = rpc({ result: { id: 'x', bytes: '0x00', timestamp: '2026-11-20T14:14:59Z', encoding: 'hex', index: '41' } });
    expect(parseIndexReply('C/block', reply(200, body))).toMatchObject({ state: 'ok', lastIndex: 41 });
  });

  it.each([
    ['another JSON-RPC error', reply(200, rpc({ error: { code: -32601, message: "rpc: can't find method" } })), RpcError],
    ['another HTTP status', reply(502, 'Bad Gateway'), HttpStatusError],
    ['a body that is not JSON-RPC', reply(200, '<html></html>'), InvalidResponseError],
    ['an answer to another request', reply(200, JSON.stringify({ jsonrpc: '2.0', result: {}, id: 8 })), InvalidResponseError],
  ])('%s is thrown', (_name, r, type) => {
    expect(() => parseIndexReply('C/block', r)).toThrow(type);
  });
});
