// The Go-compatibility layer under the simulator: JSON decoding errors,
// HTML-safe encoding, %q quoting, cb58 and checksummed hex.

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CHAINS } from '../../src/simulator/chain.js';
import { compactRaw, goJson, goQuote, parseGoJson } from '../../src/simulator/gojson.js';
import { cb58Decode, cb58Encode, hexNoChecksum, hexWithChecksum, parseId } from '../../src/simulator/ids.js';
import { defined } from '../helpers/assert.js';

describe('parseGoJson', () => {
  it.each([
    ['', 'EOF'],
    ['\n\t ', 'EOF'],
    ['{', 'unexpected EOF'],
    ['{"a":"b', 'unexpected EOF'],
    ['[1,', 'unexpected EOF'],
    ['}', "invalid character '}' looking for beginning of value"],
    ['{1:2}', "invalid character '1' looking for beginning of object key string"],
    ['{"a"}', "invalid character '}' after object key"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ['[1,]', "invalid character ']' looking for beginning of value"],
    ['{"a":01}', "invalid character '1' after object key:value pair"],
    ['{"a":1.}', "invalid character '}' after decimal point in numeric literal"],
    ['{"a":1e}', "invalid character '}' in exponent of numeric literal"],
    ['{"a":nul}', "invalid character '}' in literal null (expecting 'l')"],
    ['{"a":fx}', "invalid character 'x' in literal false (expecting 'a')"],
    ['"\\x"', "invalid character 'x' in string escape code"],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    ['"a\tb"', "invalid character '\\t' in string literal"],
  ])('%j fails with %j', (text, message) => {
    expect(() => parseGoJson(text)).toThrow(message);
  });

  it('keeps numbers as text and value positions for raw extraction', () => {
    const text = ' {"n": 18446744073709551615, "s":"\\u00e9\\n", "a":[true,null]} tail';
    const node = parseGoJson(text);
    expect(node.kind).toBe('object');
    if (node.kind !== 'object') return;
    const [n, s, a] = node.entries.map(([, v]) => v);
    expect(n).toMatchObject({ kind: 'number', text: '18446744073709551615' });
    expect(s).toMatchObject({ kind: 'string', value: 'é\n' });
    const array = defined(a, 'the array value');
    expect(text.slice(array.start, array.end)).toBe('[true,null]');
    expect(text.slice(node.start, node.end)).toBe(text.trim().replace(' tail', ''));
  });
});

describe('Go encoding', () => {
  it('escapes <, > and & as the encoder does, keeps other UTF-8 raw', () => {
    expect(goJson({ e: 'start index (10) > last (5) & <x>', u: '1.5µs' })).toBe(
      '{"e":"start index (10) \\u003e last (5) \\u0026 \\u003cx\\u003e","u":"1.5µs"}',
    );
    expect(goJson('\u2028')).toBe('"\\u2028"');
  });

  it('sorts map keys when asked and writes floats like Go', () => {
    expect(goJson({ b: 1, a: { d: 0.9991247213950127, c: 1e-7, e: 1 } }, true)).toBe('{"a":{"c":1e-7,"d":0.9991247213950127,"e":1},"b":1}');
    expect(goJson({ b: 1, a: 2 })).toBe('{"b":1,"a":2}');
  });

  it('quotes like strconv.Quote', () => {
    expect(goQuote('health.Foo')).toBe('"health.Foo"');
    expect(goQuote('a"b\\c\n\u0001é')).toBe('"a\\"b\\\\c\\n\\x01é"');
  });

  it('compacts raw JSON without touching strings', () => {
    expect(compactRaw('{ "a" : [ 1 , "x y" ] , "b":"<" }')).toBe('{"a":[1,"x y"],"b":"\\u003c"}');
  });
});

describe('identifiers', () => {
  it('encodes the empty ID as the well-known primary network ID', () => {
    expect(cb58Encode(Buffer.alloc(32))).toBe('11111111111111111111111111111111LpoYY');
    expect(parseId('11111111111111111111111111111111LpoYY')).toEqual(Buffer.alloc(32));
  });

  it('knows valid mainnet chain IDs', () => {
    for (const chain of Object.values(CHAINS)) expect(parseId(chain.chainId), chain.alias).toHaveLength(32);
  });

  it('round-trips and rejects a bad checksum', () => {
    const bytes = createHash('sha256').update('x').digest();
    const text = cb58Encode(bytes);
    expect(cb58Decode(text)).toEqual(bytes);
    const flipped = text.slice(0, -1) + (text.endsWith('1') ? '2' : '1');
    expect(cb58Decode(flipped)).toBeUndefined();
    expect(parseId(cb58Encode(bytes.subarray(0, 20)))).toBeUndefined();
    expect(parseId('0OIl')).toBeUndefined();
  });

  it('appends the last four bytes of sha256 to hex bytes', () => {
    const bytes = Buffer.from('d4c882c3', 'hex');
    const sum = createHash('sha256').update(bytes).digest().subarray(28).toString('hex');
    expect(hexWithChecksum(bytes)).toBe(`0xd4c882c3${sum}`);
    expect(hexNoChecksum(bytes)).toBe('0xd4c882c3');
  });
});
