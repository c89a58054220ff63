// --web.config.file: TLS, basic auth and response headers for the exporter's own
// port, in the Prometheus exporter-toolkit format (docs/web-configuration.md in
// prometheus/exporter-toolkit), so operators reuse the files they already have.
// Read at start and on reload; every problem names the key, the line and a fix.
import { dirname, isAbsolute, join } from 'node:path';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import bcrypt from 'bcryptjs';
import { z } from 'zod';
import { checkSchema, ConfigError, readYaml, type ConfigPath, type ConfigProblem } from '../config/load.js';
import { parsePromDuration } from '../config/duration.js';
import { FileReadError, readRegularFile } from '../util/files.js';

/** A web config, a certificate or a key is small; anything bigger is the wrong file. */
export const MAX_WEB_FILE_BYTES = 1 << 20;

/** Client certificate policies, with Go's names (crypto/tls ClientAuthType) as the toolkit takes them. */
export const CLIENT_AUTH_TYPES = [
  'NoClientCert',
  'RequestClientCert',
  'RequireAnyClientCert',
  'RequireClientCert',
  'VerifyClientCertIfGiven',
  'RequireAndVerifyClientCert',
] as const;
export type ClientAuthType = 'none' | 'request' | 'require-any' | 'verify-if-given' | 'require-and-verify';

const TLS_VERSIONS = { TLS10: 'TLSv1', TLS11: 'TLSv1.1', TLS12: 'TLSv1.2', TLS13: 'TLSv1.3' } as const;
const TLS_VERSION_ORDER = ['TLS10', 'TLS11', 'TLS12', 'TLS13'];

/**
 * The cipher suites Go's tls.CipherSuites() lists (the only ones the toolkit
 * accepts), with OpenSSL's names, which Node takes. TLS 1.3 suites are always
 * on in Go whatever the list says; Node keeps its TLS 1.3 defaults too unless
 * one is named.
 */
const CIPHER_SUITES: Record<string, string> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_AES_128_GCM_SHA256: 'TLS_AES_128_GCM_SHA256',
  TLS_AES_256_GCM_SHA384: 'TLS_AES_256_GCM_SHA384',
  TLS_CHACHA20_POLY1305_SHA256: 'TLS_CHACHA20_POLY1305_SHA256',
};

/** Go's curve names (crypto/tls CurveID) as the toolkit takes them, with OpenSSL's. */
const CURVES: Record<string, string> = { CurveP256: 'P-256', CurveP384: 'P-384', CurveP521: 'P-521', X25519: 'X25519' };

/** The only response headers the toolkit lets a web config set, and the values it allows where they are an enumeration. */
export const EXTRA_HEADERS: Record<string, readonly string[] | undefined> = {
  'Strict-Transport-Security': undefined,
  'X-Content-Type-Options': ['nosniff'],
  'X-Frame-Options': ['deny', 'sameorigin'],
  'X-XSS-Protection': undefined,
  'Content-Security-Policy': undefined,
};

const oneOf = (values: readonly string[], what: string) =>
  z.string().refine((v) => values.includes(v), { message: `unknown ${what}: write one of ${values.join(', ')}` });

const headerValue = z.string().refine((v) => !/[\r\n\0]/.test(v), { message: 'a header value cannot hold CR, LF or NUL' });

export const webConfigSchema = z.strictObject({
  tls_server_config: z
    .strictObject({
      cert: z.string().optional(),
      key: z.string().optional(),
      client_ca: z.string().optional(),
      cert_file: z.string().optional(),
      key_file: z.string().optional(),
      client_auth_type: oneOf(CLIENT_AUTH_TYPES, 'client_auth_type').optional(),
      client_ca_file: z.string().optional(),
      client_allowed_sans: z.array(z.string()).optional(),
      min_version: oneOf(TLS_VERSION_ORDER, 'TLS version').optional(),
      max_version: oneOf(TLS_VERSION_ORDER, 'TLS version').optional(),
      cipher_suites: z.array(oneOf(Object.keys(CIPHER_SUITES), 'cipher suite')).optional(),
      prefer_server_cipher_suites: z.boolean().optional(),
      curve_preferences: z.array(oneOf(Object.keys(CURVES), 'curve')).optional(),
    })
    .nullish(),
  http_server_config: z
    .strictObject({
      http2: z.boolean().optional(),
      headers: z.record(z.string(), headerValue).nullish(),
    })
    .nullish(),
  basic_auth_users: z.record(z.string(), z.string()).nullish(),
  rate_limit: z
    .strictObject({
      interval: z
        .string()
        .refine((v) => parsePromDuration(v) !== undefined, { message: 'not a duration: write e.g. 100ms, 1s or 0 (no limit)' })
        .optional(),
      burst: z.number().int().min(0).optional(),
    })
    .nullish(),
});

export interface WebTls {
  /** Options for tls.createSecureContext / https.createServer. */
  context: SecureContextOptions & {
    minVersion: NonNullable<SecureContextOptions['minVersion']>;
    maxVersion: NonNullable<SecureContextOptions['maxVersion']>;
  };
  clientAuth: ClientAuthType;
  /** Client certificates must carry one of these SANs (DNS, IP, email or URI); absent: any. */
  allowedSans?: string[];
}

export interface WebConfig {
  origin: string;
  tls?: WebTls;
  /** user → bcrypt hash; empty: no authentication. */
  users: Map<string, string>;
  headers: Record<string, string>;
  rateLimit?: { intervalMs: number; burst: number };
}

/** No file: plain HTTP, no authentication (as before the flag existed). */
export function openWebConfig(): WebConfig {
  return { origin: 'no --web.config.file', users: new Map(), headers: {} };
}

export function loadWebConfigFile(file: string): WebConfig {
  let text: string;
  try {
    text = readRegularFile(file, MAX_WEB_FILE_BYTES);
  } catch (err) {
    throw new ConfigError(file, [
      { path: [], message: err instanceof FileReadError ? err.message : `cannot read the file: ${(err as Error).message}` },
    ]);
  }
  return parseWebConfigText(text, file, dirname(file));
}

/** Web config text to a WebConfig, through the config's own YAML reading and schema checks (config/load.ts). */
export function parseWebConfigText(text: string, origin: string, baseDir: string): WebConfig {
  const { value, locate } = readYaml(text, origin);
  const raw = checkSchema(webConfigSchema, value, origin, locate);
  const problems: ConfigProblem[] = [];
  const config: WebConfig = { origin, users: new Map(), headers: {} };
  resolveHeaders(raw, config, problems);
  resolveUsers(raw, config, problems);
  resolveRateLimit(raw, config, problems);
  // Last: the TLS context is only made when nothing else is wrong.
  resolveTls(raw, config, baseDir, problems);
  if (problems.length > 0)
    throw new ConfigError(
      origin,
      problems.map((p) => ({ ...p, ...locate(p.path) })),
    );
  return config;
}

type RawWebConfig = z.infer<typeof webConfigSchema>;

/** The response headers: only those the toolkit allows, enumerated values checked; a blank one is unset. */
function resolveHeaders(raw: RawWebConfig, config: WebConfig, problems: ConfigProblem[]): void {
  for (const [name, value] of Object.entries(raw.http_server_config?.headers ?? {})) {
    const allowed = EXTRA_HEADERS[name];
    const path = ['http_server_config', 'headers', name];
    if (!(name in EXTRA_HEADERS))
      problems.push({ path, message: `HTTP header "${name}" cannot be configured: the toolkit allows ${Object.keys(EXTRA_HEADERS).join(', ')}` });
    else if (allowed && !allowed.includes(value))
      problems.push({ path, message: `invalid value ${JSON.stringify(value)} for ${name}: write one of ${allowed.join(', ')}` });
    else if (value !== '') config.headers[name] = value;
  }
}

/**
 * The highest bcrypt cost a user's hash may have. Each step doubles a check's work: bcryptjs takes about 75 ms of one
 * current core at cost 10 (htpasswd's usual), so 1.2 s at 14, and 44 hours at 31, the most bcrypt itself takes. A check
 * of an unverified password runs while other logins wait (one worker thread, web/bcrypt-worker.ts), and a scrape
 * that logs in must end within Prometheus' scrape timeout (10 s by default): 14 keeps a check within that even on a
 * core several times slower, behind a few others. A check that still overruns is stopped (BCRYPT_CHECK_LIMIT_MS).
 */
export const MAX_BCRYPT_COST = 14;

/** basic_auth_users: bcrypt hashes only, of a cost that can be checked in bounded time (MAX_BCRYPT_COST). */
function resolveUsers(raw: RawWebConfig, config: WebConfig, problems: ConfigProblem[]): void {
  for (const [user, hash] of Object.entries(raw.basic_auth_users ?? {})) {
    const path = ['basic_auth_users', user];
    // Never echo the value: a plain password written here by mistake is a secret.
    if (!/^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/.test(hash)) {
      problems.push({
        path,
        message: `the password of user "${user}" is not a bcrypt hash ($2y$, $2a$ or $2b$ followed by 56 characters): write the output of htpasswd -nBC 10 "" | tr -d ':\\n'`,
      });
      continue;
    }
    const cost = bcrypt.getRounds(hash);
    if (cost < 4 || cost > MAX_BCRYPT_COST) {
      problems.push({
        path,
        message: `the bcrypt cost of user "${user}" is ${cost}: it must be 4..${MAX_BCRYPT_COST}, so that a login is checked in bounded time (each step doubles it; ${cost > MAX_BCRYPT_COST ? `${cost} takes ${2 ** (cost - MAX_BCRYPT_COST)} times as long as ${MAX_BCRYPT_COST}` : 'below 4 bcrypt refuses'}); make a new hash with htpasswd -nBC 10 "" | tr -d ':\\n'`,
      });
      continue;
    }
    config.users.set(user, hash);
  }
}

function resolveRateLimit(raw: RawWebConfig, config: WebConfig, problems: ConfigProblem[]): void {
  if (!raw.rate_limit) return;
  // The schema has checked the interval; 0 stands for none.
  const intervalMs = parsePromDuration(raw.rate_limit.interval ?? '0') ?? 0;
  const burst = raw.rate_limit.burst ?? 0;
  if (intervalMs > 0 && burst < 1)
    problems.push({ path: ['rate_limit', 'burst'], message: 'burst must be at least 1 when interval is set: no request would ever be allowed' });
  else if (intervalMs > 0) config.rateLimit = { intervalMs, burst };
}

type RawTls = NonNullable<RawWebConfig['tls_server_config']>;
const tlsPath = (key: string): ConfigPath => ['tls_server_config', key];

/** Go's client auth policies, as the TLS server applies them. */
const CLIENT_AUTH: Record<(typeof CLIENT_AUTH_TYPES)[number], ClientAuthType> = {
  NoClientCert: 'none',
  RequestClientCert: 'request',
  RequireAnyClientCert: 'require-any',
  RequireClientCert: 'require-any',
  VerifyClientCertIfGiven: 'verify-if-given',
  RequireAndVerifyClientCert: 'require-and-verify',
};

/** A PEM given inline or as a file (relative to the web config's folder), not both. */
function pem(
  tls: RawTls,
  inline: 'cert' | 'key' | 'client_ca',
  fileKey: 'cert_file' | 'key_file' | 'client_ca_file',
  baseDir: string,
  problems: ConfigProblem[],
): string | undefined {
  if (tls[inline] !== undefined && tls[fileKey] !== undefined) {
    problems.push({ path: tlsPath(inline), message: `give either ${inline} or ${fileKey}, not both` });
    return undefined;
  }
  if (tls[inline] !== undefined) return tls[inline];
  const name = tls[fileKey];
  if (name === undefined) return undefined;
  if (name === '') {
    problems.push({ path: tlsPath(fileKey), message: `${fileKey} is empty: give the path of a PEM file` });
    return undefined;
  }
  try {
    return readRegularFile(isAbsolute(name) ? name : join(baseDir, name), MAX_WEB_FILE_BYTES);
  } catch (err) {
    problems.push({ path: tlsPath(fileKey), message: (err as Error).message });
    return undefined;
  }
}

/** tls_server_config: on when it names a certificate, key, client CA or policy; checked down to a TLS context made at load. */
function resolveTls(raw: RawWebConfig, config: WebConfig, baseDir: string, problems: ConfigProblem[]): void {
  const tls = raw.tls_server_config;
  if (!tls) return;
  const keys = ['cert', 'cert_file', 'key', 'key_file', 'client_ca', 'client_ca_file', 'client_auth_type'] as const;
  if (!keys.some((k) => tls[k] !== undefined)) return;
  const cert = pem(tls, 'cert', 'cert_file', baseDir, problems);
  const key = pem(tls, 'key', 'key_file', baseDir, problems);
  const ca = pem(tls, 'client_ca', 'client_ca_file', baseDir, problems);
  if (cert === undefined && tls.cert === undefined && tls.cert_file === undefined)
    problems.push({ path: tlsPath('cert_file'), message: 'missing one of cert or cert_file: TLS needs the server certificate' });
  if (key === undefined && tls.key === undefined && tls.key_file === undefined)
    problems.push({ path: tlsPath('key_file'), message: 'missing one of key or key_file: TLS needs the private key of the certificate' });
  const clientAuth = CLIENT_AUTH[(tls.client_auth_type ?? 'NoClientCert') as (typeof CLIENT_AUTH_TYPES)[number]];
  if ((tls.client_ca !== undefined || tls.client_ca_file !== undefined) && clientAuth === 'none') {
    problems.push({
      path: tlsPath('client_auth_type'),
      message:
        'client CAs are configured without a client auth policy: set client_auth_type (RequireAndVerifyClientCert to require client certificates)',
    });
  }
  const min = tls.min_version ?? 'TLS12';
  const max = tls.max_version ?? 'TLS13';
  if (TLS_VERSION_ORDER.indexOf(min) > TLS_VERSION_ORDER.indexOf(max))
    problems.push({ path: tlsPath('min_version'), message: `min_version ${min} is above max_version ${max}` });

  if (problems.length > 0 || cert === undefined || key === undefined) return;
  const context: WebTls['context'] = {
    cert,
    key,
    minVersion: TLS_VERSIONS[min as keyof typeof TLS_VERSIONS],
    maxVersion: TLS_VERSIONS[max as keyof typeof TLS_VERSIONS],
    // Go's default, and the toolkit's: the server's order of preference.
    honorCipherOrder: tls.prefer_server_cipher_suites ?? true,
    ...(ca !== undefined ? { ca } : {}),
    ...(tls.cipher_suites?.length ? { ciphers: tls.cipher_suites.map((c) => CIPHER_SUITES[c]).join(':') } : {}),
    ...(tls.curve_preferences?.length ? { ecdhCurve: tls.curve_preferences.map((c) => CURVES[c]).join(':') } : {}),
  };
  if (ca !== undefined && !ca.includes('-----BEGIN CERTIFICATE-----')) {
    problems.push({
      path: tlsPath(tls.client_ca !== undefined ? 'client_ca' : 'client_ca_file'),
      message: 'holds no PEM certificate (-----BEGIN CERTIFICATE-----): give the CA certificate(s) that sign client certificates',
    });
    return;
  }
  try {
    // Fail at load, not at the first handshake, when the files cannot be used together.
    createSecureContext(context);
  } catch (err) {
    // OpenSSL's message names the part that failed, never the key's content.
    problems.push({
      path: ['tls_server_config'],
      message: `cannot use the certificate and key: ${(err as Error).message}: give a PEM certificate and its matching private key`,
    });
    return;
  }
  config.tls = { context, clientAuth, ...(tls.client_allowed_sans ? { allowedSans: tls.client_allowed_sans } : {}) };
}
