// The configuration schema: the single source of truth for every config key,
// its type, default and meaning. Keys are a public contract. The built-in
// defaults are written in the config's own language and checked by this schema.
//
// The keys every target has (interval, timeout, limits, headers, tls, basic_auth)
// are here; each source's section (`health`, `info` …) is declared in the source's
// own module (config/source-section.ts says why) and placed between them by
// configSchemaOf, in the order of the sources.
import { z } from 'zod';
import { parsePromDuration } from './duration.js';
import { maskUrl } from '../util/redact.js';
import { quote } from './echo.js';
import { decodeCb58 } from './cb58.js';

/** The primary network's subnet ID (ids.Empty in CB58): always checked, the `subnet` label of its validator series. */
export const PRIMARY_NETWORK_ID = '11111111111111111111111111111111LpoYY';

/**
 * The longest duration accepted. Node.js timers cannot wait longer than 2^31-1 ms
 * (24.8 days: a longer one fires after 1 ms), and a poll's delay adds up to 1 % jitter.
 */
export const MAX_DURATION_MS = 24 * 86_400_000;

/** Type names the reference shows instead of the schema's own (a duration is a string that is parsed). */
export const typeNames = z.registry<{ typeName: string }>();

export const duration = z
  .string({ error: 'expected a duration string such as 15s' })
  .transform((text, ctx) => {
    const ms = parsePromDuration(text);
    if (ms === undefined || ms <= 0) {
      ctx.addIssue({ code: 'custom', message: `${quote(text)} is not a positive duration: write it as Prometheus does, e.g. 500ms, 15s, 1m, 1h30m` });
      return z.NEVER;
    }
    if (ms > MAX_DURATION_MS) {
      ctx.addIssue({
        code: 'custom',
        message: `${quote(text)} is longer than 24d: Node.js timers cannot wait more than 2^31-1 ms (24.8 days) and would fire at once; use at most 24d`,
      });
      return z.NEVER;
    }
    return ms;
  })
  .describe('Duration as Prometheus writes it: 500ms, 15s, 1m, 1h30m (at most 24d).')
  // After describe(), which returns a copy.
  .register(typeNames, { typeName: 'duration' });

export const nonEmpty = (what: string) => z.string({ error: `expected ${what} as a string` }).min(1, `${what} must not be empty`);

const wholeNumber = (min: number, max: number) =>
  z
    .number({ error: `expected a whole number from ${min} to ${max}` })
    .int(`expected a whole number from ${min} to ${max}`)
    .min(min, `must be at least ${min}: write a whole number from ${min} to ${max}`)
    .max(max, `must be at most ${max}: write a whole number from ${min} to ${max}`);

const limitsSchema = z
  .strictObject({
    max_series_per_node: wholeNumber(100, 10_000_000)
      .optional()
      .describe(
        'Most series served for one node, as a Prometheus sample_limit: a node that reports more (e.g. thousands of health checks) is truncated, counted and logged.',
      ),
    max_label_length: wholeNumber(16, 65_536)
      .optional()
      .describe('Longest label value taken from a node (e.g. a health check name), in characters; a longer one is cut and counted.'),
  })
  .describe('Limits on what one node can make the exporter serve, so that a broken or hostile node cannot flood it.');

const tlsSchema = z
  .strictObject({
    ca_file: nonEmpty('a file path')
      .optional()
      .describe("PEM file of the CA(s) that sign the node's certificate. A relative path is read from the config file's folder."),
    cert_file: nonEmpty('a file path')
      .optional()
      .describe('PEM client certificate, for nodes behind a proxy that asks for one (with key_file). Relative to the config file.'),
    key_file: nonEmpty('a file path').optional().describe('PEM private key of cert_file. Relative to the config file.'),
    server_name: nonEmpty('a host name')
      .optional()
      .describe("Name to verify the node's certificate against (and send as SNI), when it differs from the URL's host."),
    insecure_skip_verify: z.boolean({ error: 'expected true or false' }).optional().describe("Do not verify the node's certificate. For tests only."),
  })
  .refine((t) => (t.cert_file === undefined) === (t.key_file === undefined), {
    message: 'cert_file and key_file go together: set both or neither',
  })
  .describe('TLS toward the node (https:// URLs).');

const basicAuthSchema = z
  .strictObject({
    username: nonEmpty('a user name').describe('User name for HTTP basic auth (a proxy in front of the node).'),
    password: z.string({ error: 'expected the password as a string (quote it)' }).optional().describe('Password; prefer password_file or ${VAR}.'),
    password_file: nonEmpty('a file path')
      .optional()
      .describe("File whose content (trailing newline trimmed) is the password. Relative to the config file's folder."),
  })
  .refine((b) => !(b.password !== undefined && b.password_file !== undefined), {
    message: 'set password or password_file, not both',
  })
  .describe(
    'HTTP basic auth toward the node. Not together with headers.Authorization on the same target (both set the Authorization header: --config.check refuses it).',
  );

// RFC 9110 field values: visible characters, space and tab. A line break would split the request.
const HEADER_VALUE_RE = /^[\t\x20-\x7e\x80-\xff]*$/;

const headersSchema = z
  .record(
    z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'header names are HTTP tokens: letters, digits and -'),
    z
      .string({ error: 'header values must be strings (quote numbers)' })
      .regex(
        HEADER_VALUE_RE,
        'the value holds a line break or another control character, which would break every request: remove it (a ${VAR} read from a file often ends with a newline)',
      ),
    { error: 'expected a map of header name to value' },
  )
  .describe('Extra HTTP headers sent with every request to the node (e.g. Authorization for a proxy).');

/** The common settings before the sources' sections, and after them (the order of the reference and of /config). */
const leadingShape = {
  interval: duration.optional().describe('How often the node is polled (health, and index unless index.interval says otherwise).'),
  timeout: duration.optional().describe('Deadline of each poll of the node; must be shorter than interval and every source interval.'),
};
const trailingShape = {
  limits: limitsSchema.optional(),
  headers: headersSchema.optional(),
  tls: tlsSchema.optional(),
  basic_auth: basicAuthSchema.optional(),
};

const TARGET_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$/;

const urlSchema = z.string({ error: "expected the node's base URL as a string, e.g. http://10.0.0.5:9650" }).transform((text, ctx) => {
  // Never echo the URL as written: it may carry a password or a token.
  const shown = () => quote(maskUrl(text));
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    ctx.addIssue({ code: 'custom', message: `${shown()} is not a URL: write the node's base URL, e.g. http://10.0.0.5:9650` });
    return z.NEVER;
  }
  if (url.username || url.password) {
    // Before any other check: every message about this URL would echo it.
    ctx.addIssue({ code: 'custom', message: `${shown()} carries credentials: move them to basic_auth so they are not logged` });
    return z.NEVER;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    ctx.addIssue({ code: 'custom', message: `${shown()} must start with http:// or https://` });
    return z.NEVER;
  }
  if (url.search || url.hash) {
    ctx.addIssue({
      code: 'custom',
      message: `${shown()} must not have a query or fragment: give the base URL, the exporter adds /ext/health and /ext/index/…`,
    });
    return z.NEVER;
  }
  // An API path pasted as the URL (most often the C-Chain RPC, /ext/bc/C/rpc): the exporter
  // would poll {url}/ext/health and report 404s as the node's fault.
  const api = /(?:^|\/)ext(?:\/.*)?$/.exec(url.pathname);
  if (api) {
    const base = `${url.origin}${url.pathname.slice(0, api.index).replace(/\/+$/, '')}`;
    ctx.addIssue({
      code: 'custom',
      message: `${shown()} ends in an AvalancheGo API path (${api[0].startsWith('/') ? api[0] : `/${api[0]}`}): give the node's base URL, ${quote(maskUrl(base))}; the exporter adds /ext/health, /ext/info, /ext/index/… itself`,
    });
    return z.NEVER;
  }
  // Base URL, may carry a path prefix (a reverse proxy); no trailing slash.
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
});

const schedulerSchema = z.strictObject({
  max_concurrent_requests: wholeNumber(1, 1_000_000).optional().describe('Cap on requests in flight to all nodes together.'),
  max_connections_per_origin: wholeNumber(2, 65_536)
    .optional()
    .describe(
      'Cap on connections to one origin (scheme, host and port). An origin gets 2 connections per node behind it (nodes behind one gateway with path prefixes), up to this cap and the socket budget (the open-files limit less 256).',
    ),
  max_buffered_bytes: wholeNumber(16_777_216, 2 ** 40)
    .optional()
    .describe(
      "Cap on the bytes of nodes' answers being read, all nodes together (each answer is also capped at 16 MiB, so at least that). Past it, the poll whose answer does not fit ends as the exporter's saturation (counted in avalanchego_exporter_polls_skipped_total), not as the node's error.",
    ),
});

// --- l1s: the L1s watched as a whole (resolved in config/l1s.ts) ---

/** One L1 as the exporter watches it, resolved. */
export interface L1Config {
  /** The L1's subnet ID (CB58). */
  readonly subnet: string;
  /** `name`: else the P-Chain's name for its chain (platform.getBlockchains). */
  readonly name?: string;
  /** Blockchain ID whose validators API is read; else the L1's first chain on the P-Chain. */
  readonly chain?: string;
  readonly intervalMs: number;
  /** Validators past this many get no per-validator series (counted in avalanchego_l1_set_validators_dropped). */
  readonly maxValidators: number;
  /** Target names; undefined: the targets whose platform.subnets lists the subnet. */
  readonly vantages?: readonly string[];
}

export const L1_DEFAULTS = { interval: '1m', max_validators: 1000 } as const;

/** An Avalanche ID (subnet or blockchain) in CB58: refused at load with why, rather than failing every poll. */
const cb58Id = (what: string, example: string, from: string) =>
  z.string({ error: `expected a ${what} ID as a string` }).superRefine((text, ctx) => {
    const decoded = decodeCb58(text);
    if ('error' in decoded || decoded.bytes.length !== 32) {
      const why = 'error' in decoded ? decoded.error : `it holds ${decoded.bytes.length} bytes, an ID holds 32`;
      ctx.addIssue({ code: 'custom', message: `${quote(text)} is not a ${what} ID (CB58, e.g. ${example}): ${why}; copy the ID from ${from}` });
    }
  });

const L1_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.:@ -]{0,63}$/;

export const l1Schema = z
  .strictObject({
    subnet: cb58Id('subnet', '2v3qLBtRK4VHC1W1JJMgKYPrSzsXEc83DuWBrhhLKRJXJbiRVA', 'platform.getSubnets or the explorer')
      .refine((id) => id !== PRIMARY_NETWORK_ID, { message: `${PRIMARY_NETWORK_ID} is the primary network, not an L1: give the L1's subnet ID` })
      .describe('Subnet ID (CB58) of the L1.'),
    name: z
      .string({ error: 'expected a name as a string' })
      .regex(L1_NAME_RE, 'a name is 1 to 64 characters: letters, digits, space and _ . : @ -, starting with a letter or digit')
      .optional()
      .describe("Name shown on the pages and in avalanchego_chain_info; else the P-Chain's name for the L1's chain (platform.getBlockchains)."),
    chain: cb58Id('blockchain', '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5', 'platform.getBlockchains')
      .optional()
      .describe(
        "Blockchain ID (CB58) whose validators API (/ext/bc/<chain>/validators) each vantage is asked; else the L1's first chain on the P-Chain.",
      ),
    interval: duration.optional().describe('How often the L1 is polled; must be longer than the timeout of each of its vantages.'),
    max_validators: z
      .number({ error: 'expected a whole number from 1 to 100000' })
      .int('expected a whole number from 1 to 100000')
      .min(1, 'must be at least 1')
      .max(100_000, 'must be at most 100000')
      .optional()
      .describe(
        'Validators that get per-validator series; past it they are dropped, counted (avalanchego_l1_set_validators_dropped) and said on the L1 page. The set-wide totals count every validator.',
      ),
    vantages: z
      .array(z.string({ error: 'expected a target name' }), { error: 'expected a list of target names, e.g. [node-a, node-b]' })
      .min(1, 'list at least one target, or leave vantages out')
      .optional()
      .describe("Target names the L1 is seen from; default: the targets whose platform.subnets lists the L1's subnet."),
  })
  .describe('An L1 watched as a whole: its validator set from the P-Chain, and who each vantage sees connected.');

export const l1sSchema = z
  .array(l1Schema, { error: 'expected a list of L1s, e.g. [{subnet: 2v3qLBtRK4VHC1W1JJMgKYPrSzsXEc83DuWBrhhLKRJXJbiRVA}]' })
  .describe('L1s watched as a whole, each from its vantages (the targets that validate it).');

export type RawL1 = z.output<typeof l1Schema>;

/** What the config file takes of a source's section: its key and its keys' schema (ConfigSection). */
export type SectionSchema = Pick<ConfigSection, 'key' | 'schema'>;

/**
 * The config file's schema, with each source's section between the common settings: `defaults` and every
 * target take the same settings; a target adds its name and URL.
 */
export function configSchemaOf(sections: readonly SectionSchema[]) {
  const settingsShape: z.core.$ZodLooseShape = {
    ...leadingShape,
    ...Object.fromEntries(sections.map((s) => [s.key, s.schema.optional()])),
    ...trailingShape,
  };
  const settings = z.strictObject(settingsShape);
  const target = z
    .strictObject({
      name: z
        .string({ error: 'every target needs a name (it becomes the `node` label)' })
        .regex(TARGET_NAME_RE, 'names are 1 to 128 characters: letters, digits and _ . : @ -, starting with a letter or digit')
        .describe('Unique name of the node; becomes the `node` label and the /probe?target= value.'),
      url: urlSchema.describe("Base URL of the node's HTTP API (may carry a path prefix)."),
      ...settingsShape,
    })
    .describe('A node to poll. Any key under `defaults` may be overridden here.');
  const config = z
    .strictObject({
      defaults: settings.optional().describe('Settings for every target.'),
      scheduler: schedulerSchema.optional().describe('Process-wide polling settings.'),
      l1s: l1sSchema.optional(),
      targets: z
        .array(target, { error: 'expected a list of targets' })
        .min(1, 'list at least one target under targets')
        .describe('The nodes to poll.'),
    })
    .describe('The exporter configuration file.');
  return { settings, config };
}

/**
 * The built-in defaults of the common settings, as a config file would write them: the lowest layer of the
 * one merge (built-in ← defaults ← target) with each section's own (ConfigSection.defaults); the default
 * column of docs/configuration.md.
 */
export const BUILTIN_COMMON = {
  interval: '15s',
  timeout: '5s',
  limits: { max_series_per_node: 5000, max_label_length: 256 },
  headers: {},
} as const satisfies z.input<z.ZodObject<typeof leadingShape & typeof trailingShape>>;

export const BUILTIN_SCHEDULER = {
  max_concurrent_requests: 512,
  max_connections_per_origin: 128,
  max_buffered_bytes: 134_217_728,
} as const satisfies z.input<typeof schedulerSchema>;

/** The config used when no --config.file is given: one node at the default address. */
export const DEFAULT_CONFIG = { targets: [{ name: 'local', url: 'http://127.0.0.1:9650' }] } as const;

/** The settings as the schema gives them (durations in milliseconds): the common ones typed, a source's section its own. */
export type RawSettings = z.output<z.ZodObject<typeof leadingShape & typeof trailingShape>> & { readonly [section: string]: unknown };

export interface RawConfig {
  defaults?: RawSettings;
  scheduler?: z.output<typeof schedulerSchema>;
  l1s?: RawL1[];
  targets: Array<RawSettings & { name: string; url: string }>;
}

export interface TlsSettings {
  ca?: string;
  cert?: string;
  key?: string;
  serverName?: string;
  insecureSkipVerify: boolean;
}

/**
 * One node with every setting resolved (built-in defaults ← defaults ← target): the common settings. Each
 * source's settings are under its section's key (`target.info`), read through its ConfigSection.
 */
export interface TargetConfig {
  name: string;
  url: string;
  intervalMs: number;
  timeoutMs: number;
  limits: { maxSeriesPerNode: number; maxLabelLength: number };
  headers: Record<string, string>;
  tls?: TlsSettings;
  /** Basic auth credentials as configured (plain text; the client encodes the Authorization header). */
  basicAuth?: { username: string; password: string };
}

/**
 * A source's section of the config file (`defaults.<key>`, `targets[].<key>`), declared in the source's own
 * module with config/source-section.ts. The config layer takes the sections as values (it sits below the
 * sources and cannot import them): the schema, the merge, the checks and /config loop over them.
 */
export interface ConfigSection<K extends string = string, T = unknown> {
  /** Its key under `defaults` and each target: the source's name. */
  readonly key: K;
  /** Its keys, a strict object (each key described: docs/configuration.md is generated from it). */
  readonly schema: z.ZodObject<z.core.$ZodLooseShape, z.core.$strict>;
  /** Its built-in defaults, as a config file writes them: every key has one but `interval`, which is then the target's. */
  readonly defaults: Readonly<Record<string, unknown>>;
  /** The section's settings in a resolved target. */
  of(target: TargetConfig): T;
  /** Whether the target's settings turn the source on. */
  enabled(target: TargetConfig): boolean;
  /** How often the source is polled for the target: the section's `interval`, else the target's. */
  intervalMs(target: TargetConfig): number;
  /** The settings from the merged layers' values (`interval` becomes `intervalMs`, the target's when not set). */
  resolve(merged: Readonly<Record<string, unknown>>, targetIntervalMs: number): T;
  /** The settings as the config file writes them (snake_case keys, durations as durations): /config. */
  show(settings: T): Record<string, unknown>;
}

/** The settings a list of sections adds to a target, each under its key. */
export type SettingsOf<S extends ConfigSection> = { [X in S as X['key']]: X extends ConfigSection<string, infer T> ? T : never };

export interface Config<T extends TargetConfig = TargetConfig> {
  targets: T[];
  maxConcurrentRequests: number;
  /** Connections to one origin at most (2 per node behind it up to this). */
  maxConnectionsPerOrigin: number;
  /** Bytes of answers being read at once, all nodes together. */
  maxBufferedBytes: number;
  /** The L1s watched as a whole (`l1s:`); absent or empty: none. */
  l1s?: readonly L1Config[];
  /** Where the config came from, for logs and the landing page. */
  origin: string;
  /** The sources' sections it was read with, in order (/config shows each). */
  sections: readonly ConfigSection[];
  /** What loads but should be written otherwise (an inline credential), with where it is; --config.check prints them. */
  warnings?: ReadonlyArray<{ path: ReadonlyArray<string | number>; message: string; line?: number; column?: number }>;
}
