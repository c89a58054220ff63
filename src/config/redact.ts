// What config errors may echo back. Errors reach --config.check, the logs and the
// body of POST /-/reload, so they never show a secret and never grow without bound.
import type { ConfigPath } from './path.js';

const MAX_ECHO = 80;

/** A value quoted for a message, cut to a readable length. */
export function quote(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value);
  const cut = text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO)}…` : text;
  return JSON.stringify(cut);
}

/**
 * A URL as it may be shown: user info (everything up to the last "@", whatever
 * else is wrong with the URL) and the query and fragment (tokens live there) masked.
 */
export function maskUrl(text: string): string {
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(text)?.[0].length ?? 0;
  let out = text;
  const at = out.lastIndexOf('@');
  if (at >= scheme) out = `${out.slice(0, scheme)}***${out.slice(at)}`;
  const rest = out.slice(scheme).search(/[?#]/);
  if (rest >= 0) out = `${out.slice(0, scheme + rest + 1)}***`;
  return out;
}

/** Paths whose values are never echoed: passwords and header values. */
export function isSecretPath(path: ConfigPath): boolean {
  const last = path[path.length - 1];
  return last === 'password' || path[path.length - 2] === 'headers' || last === 'headers';
}
