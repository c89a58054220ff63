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
