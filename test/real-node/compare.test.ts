// The answer comparison used by the recording and simulator checks (no node needed).
import { describe, expect, it } from 'vitest';
import { compareAnswers, maskNumbers } from './compare.js';

const json = { 'content-type': 'application/json; charset=utf-8', 'node-id': 'NodeID-a', 'x-content-type-options': 'nosniff', vary: 'Origin' };
const rpcError = (message: string, code = -32000): string => `${JSON.stringify({ jsonrpc: '2.0', error: { code, message, data: null }, id: 1 })}\n`;

describe('compareAnswers', () => {
  it('accepts the same shape with other values and numbers', () => {
    const a = { status: 200, headers: json, body: '{"jsonrpc":"2.0","result":{"index":"2","ids":["x"]},"id":1}\n' };
    const b = { status: 200, headers: { ...json, 'node-id': 'NodeID-b' }, body: '{"jsonrpc":"2.0","result":{"index":"99","ids":[]},"id":1}\n' };
    expect(compareAnswers(a, b)).toEqual([]);
    expect(
      compareAnswers(
        { status: 200, headers: json, body: rpcError('start index (12) \\u003e last accepted index (2)') },
        { status: 200, headers: json, body: rpcError('start index (24819741) \\u003e last accepted index (24819731)') },
      ),
    ).toEqual([]);
  });

  it('reports status, content type, headers, keys, types, error text and trailing newline', () => {
    const a = { status: 200, headers: json, body: '{"checks":{"C":{"duration":1}},"healthy":true}\n' };
    expect(compareAnswers(a, { ...a, status: 503 })).toEqual(['status 200 vs 503']);
    expect(compareAnswers(a, { ...a, headers: { ...json, 'content-type': 'application/json' } })[0]).toMatch(/^content-type/);
    const noVary = Object.fromEntries(Object.entries(json).filter(([name]) => name !== 'vary'));
    expect(compareAnswers(a, { ...a, headers: noVary })).toEqual(['header vary present vs absent']);
    expect(compareAnswers(a, { ...a, body: '{"checks":{"C":{"duration":"1"}},"healthy":true}\n' })).toEqual([
      'shape $.checks.C.duration: number vs string',
    ]);
    expect(compareAnswers(a, { ...a, body: '{"checks":{"C":{}},"healthy":true}\n' })).toEqual(['shape $.checks.C.duration: missing in second']);
    expect(compareAnswers(a, { ...a, body: '{"checks":{"C":{"duration":1}},"healthy":true}' })).toEqual(['trailing newline differs']);
    expect(compareAnswers({ ...a, body: rpcError('not found') }, { ...a, body: rpcError('no container at index 3') })).toEqual([
      'error.message "not found" vs "no container at index 3"',
    ]);
    const text = { 'content-type': 'text/plain; charset=utf-8' };
    expect(
      compareAnswers({ status: 404, headers: text, body: '404 page not found\n' }, { status: 404, headers: text, body: 'not found' }),
    ).toHaveLength(1);
  });

  it('reports a different key order (Go struct field order, sorted map keys)', () => {
    const a = { status: 200, headers: json, body: '{"checks":{"C":{"timestamp":"t","duration":1}},"healthy":true}\n' };
    expect(compareAnswers(a, { ...a, body: '{"checks":{"C":{"duration":1,"timestamp":"t"}},"healthy":true}\n' })).toEqual([
      '$.checks.C: key order timestamp,duration vs duration,timestamp'.replace(/^/, 'shape '),
    ]);
  });

  it('masks numbers only', () => {
    expect(maskNumbers('numToFetch must be in [1,1024] but is 0')).toBe('numToFetch must be in [N,N] but is N');
  });
});
