import { describe, expect, it } from 'vitest';
import { acceptsGzip } from '../../src/server/exposition.js';

describe('Accept-Encoding', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['gzip', true],
    ['gzip, deflate, br', true],
    ['deflate, GZIP;q=0.5', true],
    ['gzip;q=0', false],
    ['gzip; q=0.0, identity', false],
    ['identity', false],
    ['*', true],
    ['*;q=0', false],
    ['x-gzip', true],
    ['br;q=1, *;q=0.1', true],
  ])('%j → gzip %s', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
});
