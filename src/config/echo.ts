// What config errors may echo back. Errors reach --config.check, the logs and the
// body of POST /-/reload, so they never show a secret (util/redact.ts decides
// what one is) and never grow without bound.
import { shorten } from '../util/text.js';

const MAX_ECHO = 80;

/** A value quoted for a message, cut to a readable length. */
export function quote(value: unknown): string {
  return JSON.stringify(shorten(typeof value === 'string' ? value : String(value), MAX_ECHO));
}
