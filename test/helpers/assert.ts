// Narrowing helpers for tests: a missing value fails the test with a message that says
// what was missing, instead of a non-null assertion that fails later with a TypeError.
import { inspect } from 'node:util';

/** The value, or a test failure naming `what` when it is null or undefined. */
export function defined<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`expected ${what} to be defined, got ${String(value)}`);
  return value;
}

/** `value` as a plain JSON object (for parsed responses), or a test failure naming `what`. */
export function jsonObject(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`expected ${what} to be a JSON object, got ${((JSON.stringify(value) as string | undefined) ?? String(value)).slice(0, 200)}`);
  }
  return value as Record<string, unknown>;
}

/** A caught value as text for a failure message: an Error as `String(err)` ("Name: message"), anything else inspected. */
export function errorText(err: unknown): string {
  if (err instanceof Error) return String(err);
  return typeof err === 'string' ? err : inspect(err);
}
