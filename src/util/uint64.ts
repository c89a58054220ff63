// json.Uint64 as AvalancheGo writes it (a decimal string) and reads it (a
// number too). A 400-digit string is not a uint64: Number() would make it
// +Inf and the exporter would serve `+Inf` or the label `network_id="Infinity"`.
// Every parse of a uint64 field goes through here, so none can slip past.
import { z } from 'zod';

export const MAX_UINT64 = 2n ** 64n - 1n;
/**
 * Numbers from here up are not uint64s. Not Number(MAX_UINT64): that rounds up to 2^64 itself, so the JSON number
 * 18446744073709551616 passed. A JSON number within 1,024 of 2^64 − 1 parses to 2^64 too (the nearest double) and is
 * refused with it: the two cannot be told apart once parsed. AvalancheGo writes its uint64s as strings (json.Uint64),
 * which are checked digit by digit.
 */
const TWO_TO_THE_64 = 2 ** 64;
/** 20 digits hold every uint64; a longer string is refused before BigInt sees it. */
const UINT64_DIGITS = /^\d{1,20}$/;

/** A uint64 field → a finite number, or undefined when it is not one (not digits, over 2^64-1, not finite, negative). */
export function uint64(value: unknown): number | undefined {
  if (typeof value === 'string') return UINT64_DIGITS.test(value) && BigInt(value) <= MAX_UINT64 ? Number(value) : undefined;
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 && value < TWO_TO_THE_64 ? value : undefined;
  return undefined;
}

/** The zod form of uint64(): parses to the number, or fails with what a uint64 is. */
export const uint64Schema = z.unknown().transform((value, ctx) => {
  const n = uint64(value);
  if (n === undefined) {
    ctx.addIssue({ code: 'custom', message: 'expected a uint64 (a decimal string of at most 2^64-1)' });
    return z.NEVER;
  }
  return n;
});

/**
 * The largest Unix time, in seconds, a JavaScript Date holds (8.64e15 ms: year 275760). A node's time past it
 * ("18446744073709551615" as an epoch start) is a uint64 but no moment: the status pages could not write it as a date.
 */
export const MAX_UNIX_SECONDS = 8_640_000_000_000;

/** A uint64 field that is a Unix time in seconds: refused past what a date holds, as a uint64 past 2^64-1 is. */
export const unixSecondsSchema = z.unknown().transform((value, ctx) => {
  const n = uint64(value);
  if (n === undefined || n > MAX_UNIX_SECONDS) {
    ctx.addIssue({ code: 'custom', message: `expected Unix seconds (a decimal string of at most ${MAX_UNIX_SECONDS}, the year 275760)` });
    return z.NEVER;
  }
  return n;
});
