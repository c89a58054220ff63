import { describe, expect, it } from 'vitest';
import { uint64 } from '../../src/util/uint64.js';
import { isNodeId } from '../../src/config/cb58.js';

describe('uint64 (json.Uint64 from a node)', () => {
  it.each([
    ['0', 0],
    ['18446744073709551615', 2 ** 64],
    [42, 42],
    [2 ** 64 - 2048, 2 ** 64 - 2048],
    // The JSON number 18446744073709551616 (2^64): Number(MAX_UINT64) rounds up to it, so a bound of <= passed it.
    [2 ** 64, undefined],
    [2 ** 70, undefined],
    ['18446744073709551616', undefined],
    ['9'.repeat(400), undefined],
    ['-1', undefined],
    ['1.5', undefined],
    ['1e3', undefined],
    [' 1', undefined],
    [Infinity, undefined],
    [Number.NaN, undefined],
    [-1, undefined],
    [1.5, undefined],
    [null, undefined],
  ] as const)('%s → %s', (value, expected) => {
    expect(uint64(value)).toBe(expected);
  });
});

describe('isNodeId (NodeID- and the CB58 of 20 bytes)', () => {
  it.each([
    ['NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', true],
    ['NodeID-111111111111111111116DBWJs', true],
    ['NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lh', false],
    ['NodeID-nope', false],
    ['NodeID-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', false],
    ['7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', false],
  ] as const)('%s → %s', (text, expected) => {
    expect(isNodeId(text)).toBe(expected);
  });
});
