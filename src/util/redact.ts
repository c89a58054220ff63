// Secrets never leave the process: the one place that decides what a secret is
// and what it is replaced with. Configured secrets are header values (API
// keys, bearer tokens), basic-auth passwords (and the `Authorization` token
// made from them) and TLS private keys; a URL may carry them too (user info,
// query, fragment). Every output that may hold one goes through here: the
// logs (pino's redaction paths), config errors (maskUrl, isSecretPath), the
// /config page (REDACTED, server/config-page.ts) and a node's own text, which may echo a request
// header back (maskSecrets with secretsOf, applied at one boundary: util/node-text.ts).
//
// Types are structural, so this module sits under the config (log.ts uses it).

/** What a secret is replaced with, everywhere. */
export const REDACTED = '<secret>';

/** Anything that may hold a credential, wherever a log call puts it (pino `redact.paths`). */
export const REDACT_PATHS = [
  'headers',
  '*.headers',
  'basicAuth',
  '*.basicAuth',
  'basic_auth',
  '*.basic_auth',
  'authorization',
  '*.authorization',
  'password',
  '*.password',
  'tls.key',
  '*.tls.key',
  'tls.cert',
  '*.tls.cert',
];

/** pino's `redact` option: the paths above, censored with the one marker. */
export const LOG_REDACTION = { paths: REDACT_PATHS, censor: REDACTED };

/**
 * A URL as it may be shown: user info (everything up to the last "@", whatever
 * else is wrong with the URL) and the query and fragment (tokens live there) masked.
 */
export function maskUrl(text: string): string {
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(text)?.[0].length ?? 0;
  let out = text;
  const at = out.lastIndexOf('@');
  if (at >= scheme) out = `${out.slice(0, scheme)}${REDACTED}${out.slice(at)}`;
  const rest = out.slice(scheme).search(/[?#]/);
  if (rest >= 0) out = `${out.slice(0, scheme + rest + 1)}${REDACTED}`;
  return out;
}

/** Config paths (`['targets', 0, 'basic_auth', 'password']`) whose values are never echoed: passwords and header values. */
export function isSecretPath(path: ReadonlyArray<string | number>): boolean {
  const last = path[path.length - 1];
  return last === 'password' || path[path.length - 2] === 'headers' || last === 'headers';
}

/** The parts of a target that hold its secrets. */
export interface TargetSecrets {
  readonly headers: Readonly<Record<string, string>>;
  readonly basicAuth?: { readonly username: string; readonly password: string };
  readonly tls?: TlsSecrets;
}

/** Shorter secrets are not masked in free text: a 3-character value would mask ordinary words. */
export const MIN_MASKED_SECRET = 4;

/**
 * The configured secrets of a target as they may appear in text a node sends
 * back: header values, the basic-auth password and its `Authorization` token,
 * each also as it reads inside a JSON string when that differs (a `"` or `\\`
 * in it). Compute once per target (a reload makes a new target), not per use.
 */
export function secretsOf(target: TargetSecrets): string[] {
  const secrets = [...Object.values(target.headers), target.basicAuth?.password].filter(
    (v): v is string => v !== undefined && v.length >= MIN_MASKED_SECRET,
  );
  if (target.basicAuth) secrets.push(Buffer.from(`${target.basicAuth.username}:${target.basicAuth.password}`).toString('base64'));
  for (const secret of [...secrets]) {
    const inJson = JSON.stringify(secret).slice(1, -1);
    if (inJson !== secret) secrets.push(inJson);
  }
  return secrets;
}

/** What util/text.ts puts where it cut a text. */
const CUT = '…';

/**
 * `text` with every occurrence of each secret replaced by REDACTED; the same string when none occurs. A text cut
 * before it reached here (util/text.ts: a snippet, a bounded message) may end a secret's first characters at the
 * cut: those are masked too (at least MIN_MASKED_SECRET of them).
 */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  for (const secret of secrets) if (text.includes(secret)) text = text.split(secret).join(REDACTED);
  return text.includes(CUT) ? maskCutSecrets(text, secrets) : text;
}

/** The start of a secret right before a cut mark, masked. */
function maskCutSecrets(text: string, secrets: readonly string[]): string {
  let out = '';
  let from = 0;
  for (let at = text.indexOf(CUT); at >= 0; at = text.indexOf(CUT, at + 1)) {
    let longest = 0;
    for (const secret of secrets) {
      for (let k = Math.min(secret.length - 1, at - from); k >= MIN_MASKED_SECRET && k > longest; k--) {
        if (text.startsWith(secret.slice(0, k), at - k)) {
          longest = k;
          break;
        }
      }
    }
    if (longest > 0) {
      out += `${text.slice(from, at - longest)}${REDACTED}`;
      from = at;
    }
  }
  return from === 0 ? text : out + text.slice(from);
}

/** A target's TLS settings: the key is a secret, the certificates are public. */
interface TlsSecrets {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly serverName?: string;
  readonly insecureSkipVerify?: boolean;
}
