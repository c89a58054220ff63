import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseLastAccepted } from '../../src/sources/index.js';
import { InvalidResponseError } from '../../src/rpc/errors.js';

const result = (name: string) => (JSON.parse(readFileSync(new URL(`../fixtures/index/${name}`, import.meta.url), 'utf8')) as { result: unknown }).result;

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
