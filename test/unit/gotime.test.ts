import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatGoDuration, formatRfc3339Nano, parseGoDuration, parseRfc3339 } from '../../src/util/gotime.js';
import { defined } from '../helpers/assert.js';

describe('Go durations', () => {
  it.each([
    ['0s', 0],
    ['999ns', 999e-9],
    ['1.5µs', 1.5e-6],
    ['1.5μs', 1.5e-6], // Greek mu, accepted by time.ParseDuration
    ['1.5us', 1.5e-6],
    ['150ms', 0.15],
    ['293.098ms', 0.293098],
    ['66.90725ms', 0.06690725],
    ['1s', 1],
    ['1m0s', 60],
    ['5m12.004s', 312.004],
    ['1h2m3.5s', 3723.5],
    ['72h3m0.5s', 259380.5],
    ['62h14m9.512634885s', 224049.512634885],
    ['-1.5s', -1.5],
    ['2562047h47m16.854775807s', 9223372036.854776], // 9223372036.854775807 s as a double (the nearest one)
  ])('parses %s', (text, seconds) => {
    expect(parseGoDuration(text)).toBeCloseTo(seconds, 9);
  });

  it.each(['', 's', '1', '1d', '1.5.5s', 'forever', '1 s', '--1s', '1h-2m'])('rejects %j', (text) => {
    expect(parseGoDuration(text)).toBeUndefined();
  });

  it.each([
    [0n, '0s'],
    [999n, '999ns'],
    [1500n, '1.5µs'],
    [150_000_000n, '150ms'],
    [293_098_000n, '293.098ms'],
    [1_000_000_000n, '1s'],
    [60_000_000_000n, '1m0s'],
    [312_004_000_000n, '5m12.004s'],
    [224_049_512_634_885n, '62h14m9.512634885s'],
    [-1_500_000_000n, '-1.5s'],
    [9_223_372_036_854_775_807n, '2562047h47m16.854775807s'],
  ])('formats %d ns as Go does', (ns, text) => {
    expect(formatGoDuration(ns)).toBe(text);
  });

  it('round-trips any duration (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), (ns) => {
        const parsed = defined(parseGoDuration(formatGoDuration(ns)), `the duration parsed back from ${ns} ns`);
        expect(Math.abs(parsed - Number(ns) / 1e9)).toBeLessThanOrEqual(Math.abs(Number(ns)) * 1e-15 + 1e-9);
      }),
    );
  });
});

describe('RFC 3339 times', () => {
  it.each([
    ['2026-03-31T00:45:50.48730188Z', 1774917950.4873018], // 1774917950.48730188 s as a double (the nearest one)
    ['2024-03-26T19:44:45.2931-04:00', 1711496685.2931],
    ['2026-11-20T09:00:05.5+05:30', 1795145405.5],
    ['2026-11-20T14:15:02Z', 1795184102],
    ['2026-11-20T14:15:02.123456789Z', 1795184102.1234567], // 1795184102.123456789 s as a double (the nearest one)
    ['1970-01-01T00:00:00Z', 0],
  ])('parses %s', (text, seconds) => {
    const t = defined(parseRfc3339(text), text);
    expect(t.seconds).toBeCloseTo(seconds, 6);
    expect(t.zero).toBe(false);
  });

  it('recognizes Go zero time (a check that never ran)', () => {
    expect(parseRfc3339('0001-01-01T00:00:00Z')).toMatchObject({ zero: true });
  });

  it.each(['', 'yesterday', '2026-11-20', '2026-11-20T14:15:02', '2026-13-01T00:00:00Z', '2026-11-20T14:15:02.1234567891Z', '2026-11-20 14:15:02Z'])(
    'rejects %j',
    (text) => {
      expect(parseRfc3339(text)).toBeUndefined();
    },
  );

  it('gives exactly what the regular expression of RFC 3339 gives, on times and near-times (property)', () => {
    // The reference: the definition by a regular expression that parseRfc3339 replaced (it allocates at every call).
    const re = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
    const reference = (text: string): { seconds: number; zero: boolean } | undefined => {
      const m = re.exec(text);
      if (!m) return undefined;
      const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
      if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return undefined;
      let offset = 0;
      if (m[9]) {
        const oh = Number(m[10]);
        const om = Number(m[11]);
        if (oh > 23 || om > 59) return undefined;
        offset = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
      }
      const frac = m[7] ? Number(`0.${m[7]}`) : 0;
      const whole = Date.UTC(year, month - 1, day, hour, minute, second) / 1000 - offset * 60;
      const zero = year === 1 && month === 1 && day === 1 && hour === 0 && minute === 0 && second === 0 && frac === 0 && offset === 0;
      return { seconds: whole + frac, zero };
    };
    const time = fc
      .tuple(fc.bigInt({ min: 0n, max: 4_000_000_000n * 10n ** 9n }), fc.integer({ min: -720, max: 840 }))
      .map(([ns, offset]) => formatRfc3339Nano(ns, offset));
    // A time with one character replaced, inserted or removed, or its case changed.
    const nearTime = fc
      .tuple(
        time,
        fc.nat(),
        fc.constantFrom('0', '9', 'a', 'Z', 'z', 't', '.', ':', '-', '+', ' ', '٣', ''),
        fc.constantFrom('replace', 'insert', 'lower'),
      )
      .map(([text, at, ch, how]) => {
        const i = at % (text.length + 1);
        if (how === 'lower') return text.toLowerCase();
        return how === 'insert' ? text.slice(0, i) + ch + text.slice(i) : text.slice(0, i) + ch + text.slice(i + 1);
      });
    fc.assert(
      fc.property(fc.oneof(time, nearTime, fc.string({ maxLength: 40 })), (text) => {
        const want = reference(text);
        const got = parseRfc3339(text);
        if (want === undefined) expect(got).toBeUndefined();
        else {
          // Date.UTC reads years below 100 as 19xx: compare those by zero-ness only.
          expect(got?.zero).toBe(want.zero);
          if (!text.startsWith('00')) expect(got?.seconds).toBe(want.seconds);
        }
      }),
      { numRuns: 5000 },
    );
    expect(parseRfc3339('2026-11-20T14:15:02.1Z')?.seconds).toBe(1795184102 + 0.1);
  });

  it('formats like Go (trailing zeros trimmed, zone kept) and parses back (property)', () => {
    expect(formatRfc3339Nano(1774917950487301880n, 0)).toBe('2026-03-31T00:45:50.48730188Z');
    expect(formatRfc3339Nano(1711496685293100000n, -240)).toBe('2024-03-26T19:44:45.2931-04:00');
    expect(formatRfc3339Nano(1795184102000000000n, 0)).toBe('2026-11-20T14:15:02Z');
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 4_000_000_000n * 10n ** 9n }), fc.integer({ min: -720, max: 840 }), (ns, offset) => {
        const text = formatRfc3339Nano(ns, offset);
        expect(defined(parseRfc3339(text), text).seconds).toBeCloseTo(Number(ns) / 1e9, 3);
        expect(new Date(text).getTime()).toBe(Number(ns / 1_000_000n));
      }),
    );
  });
});
