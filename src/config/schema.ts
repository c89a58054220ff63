// The configuration schema: the single source of truth for every config key,
// its type, default and meaning. Keys are a public contract. The built-in
// defaults are written in the config's own language and checked by this schema.
import { z } from 'zod';
import { decodeCb58 } from './cb58.js';
import { parsePromDuration } from './duration.js';
import { maskUrl } from '../util/redact.js';
import { quote } from './echo.js';

export const INDEX_ENDPOINTS = ['C/block', 'P/block', 'X/block', 'X/tx', 'X/vtx'] as const;
export type IndexEndpoint = (typeof INDEX_ENDPOINTS)[number];

/** The primary network's subnet ID (ids.Empty in CB58): always checked, the `subnet` label of its validator series. */
export const PRIMARY_NETWORK_ID = '11111111111111111111111111111111LpoYY';

/**
 * The longest duration accepted. Node.js timers cannot wait longer than 2^31-1 ms
 * (24.8 days: a longer one fires after 1 ms), and a poll's delay adds up to 1 % jitter.
 */
export const MAX_DURATION_MS = 24 * 86_400_000;

/** Type names the reference shows instead of the schema's own (a duration is a string that is parsed). */
export const typeNames = z.registry<{ typeName: string }>();

const duration = z
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

const nonEmpty = (what: string) => z.string({ error: `expected ${what} as a string` }).min(1, `${what} must not be empty`);

const wholeNumber = (min: number, max: number) =>
  z
    .number({ error: `expected a whole number from ${min} to ${max}` })
    .int(`expected a whole number from ${min} to ${max}`)
    .min(min, `must be at least ${min}: write a whole number from ${min} to ${max}`)
    .max(max, `must be at most ${max}: write a whole number from ${min} to ${max}`);

const enabled = (what: string) => z.boolean({ error: 'expected true or false' }).optional().describe(what);

/** A source's own cadence. */
const sourceInterval = (what: string) => duration.optional().describe(`How often ${what}; must be longer than timeout.`);

const subnetId = z.string({ error: 'expected a subnet ID as a string' }).superRefine((text, ctx) => {
  const decoded = decodeCb58(text);
  if ('error' in decoded || decoded.bytes.length !== 32) {
    const why = 'error' in decoded ? decoded.error : `it holds ${decoded.bytes.length} bytes, an ID holds 32`;
    ctx.addIssue({
      code: 'custom',
      message: `${quote(text)} is not a subnet ID (CB58, e.g. 2v3qLBtRK4VHC1W1JJMgKYPrSzsXEc83DuWBrhhLKRJXJbiRVA): ${why}; copy the ID from platform.getSubnets or the explorer`,
    });
  } else if (text === PRIMARY_NETWORK_ID) {
    ctx.addIssue({ code: 'custom', message: `${PRIMARY_NETWORK_ID} is the primary network, which is always checked: remove it from the list` });
  }
});

const healthSchema = z
  .strictObject({
    enabled: enabled('Poll health.health. Without it avalanchego_up is not served for the node.'),
    tags: z
      .array(nonEmpty('a tag'), { error: `expected a list of tags, e.g. [${PRIMARY_NETWORK_ID}]` })
      .optional()
      .describe(
        "Sent as the `tags` param of health.health: subnet IDs select their chains' checks; application checks are always included. [] = all checks.",
      ),
  })
  .describe('The health source (health.health on {url}/ext/health).');

const indexSchema = z
  .strictObject({
    endpoints: z
      .array(
        z.enum(INDEX_ENDPOINTS, {
          error: (issue) => `${quote(issue.input)} is not an index endpoint: use one of ${INDEX_ENDPOINTS.join(', ')}`,
        }),
        { error: 'expected a list of index endpoints, e.g. [C/block, P/block]' },
      )
      .optional()
      .describe(`Index endpoints polled with index.getLastAccepted, from ${INDEX_ENDPOINTS.join(', ')}. [] turns the index source off.`),
    interval: sourceInterval('the index endpoints are polled'),
  })
  .describe('The index source (index.getLastAccepted on {url}/ext/index/<endpoint>).');

/** A source that can be turned off and has its own cadence (and maybe more keys). */
const sourceSchema = <Extra extends z.core.$ZodLooseShape>(doc: { enabled: string; interval: string; source: string }, extra: Extra) =>
  z.strictObject({ enabled: enabled(doc.enabled), interval: sourceInterval(doc.interval), ...extra }).describe(doc.source);

const infoSchema = sourceSchema(
  {
    enabled: 'Poll the info API (node ID, version, network ID, uptime, upgrades, a summary of peers).',
    interval: 'the info API is polled',
    source: 'The info source (info.* on {url}/ext/info).',
  },
  {},
);

const platformSchema = sourceSchema(
  {
    enabled: "Poll the node's own entry in the current validator set (platform.getCurrentValidators with its node ID) and the validator fee price.",
    interval: 'the platform API is polled',
    source: 'The platform source (platform.* on {url}/ext/bc/P).',
  },
  {
    subnets: z
      .array(subnetId, { error: 'expected a list of subnet IDs, e.g. [2v3qLBtRK4VHC1W1JJMgKYPrSzsXEc83DuWBrhhLKRJXJbiRVA]' })
      .optional()
      .describe('Subnet or L1 IDs (CB58) whose validator entry is checked besides the primary network, which is always checked.'),
  },
);

/** A chain as /ext/bc/<chain>/… names it: its alias (C) or its blockchain ID (CB58). */
const chainName = z
  .string({ error: 'expected a chain alias or blockchain ID as a string, e.g. C' })
  .regex(
    /^[A-Za-z0-9_.-]{1,64}$/,
    'a chain is named by its alias (C) or its blockchain ID (CB58, from platform.getBlockchains): letters and digits, at most 64 characters, no slash',
  );

const chainList = (example: string, what: string) =>
  z
    .array(chainName, { error: `expected a list of chains, e.g. ${example}` })
    .optional()
    .refine((list) => list === undefined || new Set(list).size === list.length, { message: 'a chain is listed twice: list each chain once' })
    .describe(what);

const evmSchema = sourceSchema(
  {
    enabled:
      "Poll each EVM chain's executed height (eth_blockNumber). After Helicon the C-Chain accepts blocks before it executes them; the gap is an execution backlog.",
    interval: "the executed heights are polled (default: the target's interval, health's cadence)",
    source: 'The evm source (eth_blockNumber on {url}/ext/bc/<chain>/rpc).',
  },
  {
    chains: chainList(
      '[C]',
      "EVM chains whose executed height is polled, by alias or blockchain ID; use the name its health check has (C, or the L1 chain's blockchain ID) so the rules can compare it with the accepted height. [] turns the source off.",
    ),
  },
);

const proposervmSchema = sourceSchema(
  {
    enabled: "Poll each listed chain's ProposerVM epoch (proposervm.getCurrentEpoch): the P-Chain height the chain's validator set is taken from.",
    interval: 'the ProposerVM epochs are polled',
    source: 'The proposervm source (proposervm.getCurrentEpoch on {url}/ext/bc/<chain>/proposervm).',
  },
  {
    chains: chainList(
      '[2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5]',
      "Chains (usually L1 chains) whose ProposerVM epoch is polled, by blockchain ID or alias; use the name its health check has (the blockchain ID for an L1, C for the C-Chain) so the rules can compare it with the chain's height. [] (the default) turns the source off.",
    ),
  },
);

const adminSchema = sourceSchema(
  {
    enabled:
      "Check the node's posture with a read-only admin call (admin.getLoggerLevel): whether the admin API answers, and its logger levels. Off by default: it sends a request the node's operator may not expect.",
    interval: 'the posture is checked',
    source: 'The admin source (admin.getLoggerLevel on {url}/ext/admin).',
  },
  {},
);

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

/** Settings that `defaults` sets for every target and a target may override. */
const settingsShape = {
  interval: duration.optional().describe('How often the node is polled (health, and index unless index.interval says otherwise).'),
  timeout: duration.optional().describe('Deadline of each poll of the node; must be shorter than interval and every source interval.'),
  health: healthSchema.optional(),
  index: indexSchema.optional(),
  info: infoSchema.optional(),
  platform: platformSchema.optional(),
  evm: evmSchema.optional(),
  proposervm: proposervmSchema.optional(),
  admin: adminSchema.optional(),
  limits: limitsSchema.optional(),
  headers: headersSchema.optional(),
  tls: tlsSchema.optional(),
  basic_auth: basicAuthSchema.optional(),
};
export const settingsSchema = z.strictObject(settingsShape);

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

export const targetSchema = z
  .strictObject({
    name: z
      .string({ error: 'every target needs a name (it becomes the `node` label)' })
      .regex(TARGET_NAME_RE, 'names are 1 to 128 characters: letters, digits and _ . : @ -, starting with a letter or digit')
      .describe('Unique name of the node; becomes the `node` label and the /probe?target= value.'),
    url: urlSchema.describe("Base URL of the node's HTTP API (may carry a path prefix)."),
    ...settingsShape,
  })
  .describe('A node to poll. Any key under `defaults` may be overridden here.');

const schedulerSchema = z.strictObject({
  max_concurrent_requests: wholeNumber(1, 1_000_000).optional().describe('Cap on requests in flight to all nodes together.'),
  max_connections_per_origin: wholeNumber(2, 65_536)
    .optional()
    .describe(
      'Cap on connections to one origin (scheme, host and port). An origin gets 2 connections per node behind it (nodes behind one gateway with path prefixes), up to this cap and the socket budget (the open-files limit less 256).',
    ),
});

export const configSchema = z
  .strictObject({
    defaults: settingsSchema.optional().describe('Settings for every target.'),
    scheduler: schedulerSchema.optional().describe('Process-wide polling settings.'),
    targets: z
      .array(targetSchema, { error: 'expected a list of targets' })
      .min(1, 'list at least one target under targets')
      .describe('The nodes to poll.'),
  })
  .describe('The exporter configuration file.');

/**
 * The built-in defaults, as a config file would write them. The lowest layer of
 * the one merge (built-in ← defaults ← target); the README's default column.
 * `index.interval` and `evm.interval` are absent on purpose: they default to the target's interval (the
 * executed height is compared with health's accepted height, polled at that cadence).
 */
export const BUILTIN_DEFAULTS = {
  interval: '15s',
  timeout: '5s',
  health: { enabled: true, tags: [] },
  index: { endpoints: ['C/block', 'P/block', 'X/block', 'X/tx'] },
  info: { enabled: true, interval: '30s' },
  platform: { enabled: true, interval: '1m', subnets: [] },
  evm: { enabled: true, chains: ['C'] },
  proposervm: { enabled: true, interval: '1m', chains: [] },
  admin: { enabled: false, interval: '5m' },
  limits: { max_series_per_node: 5000, max_label_length: 256 },
  headers: {},
} as const satisfies z.input<typeof settingsSchema>;

export const BUILTIN_SCHEDULER = { max_concurrent_requests: 512, max_connections_per_origin: 128 } as const satisfies z.input<typeof schedulerSchema>;

/** Defaults that are not a fixed value, as the reference states them. */
export const DERIVED_DEFAULTS: Readonly<Record<string, string>> = { 'index.interval': 'interval', 'evm.interval': 'interval' };

/** The config used when no --config.file is given: one node at the default address. */
export const DEFAULT_CONFIG = { targets: [{ name: 'local', url: 'http://127.0.0.1:9650' }] } as const satisfies z.input<typeof configSchema>;

export type RawConfig = z.output<typeof configSchema>;
export type RawSettings = z.output<typeof settingsSchema>;

export interface TlsSettings {
  ca?: string;
  cert?: string;
  key?: string;
  serverName?: string;
  insecureSkipVerify: boolean;
}

/** One node with every setting resolved (built-in defaults ← defaults ← target). */
export interface TargetConfig {
  name: string;
  url: string;
  intervalMs: number;
  timeoutMs: number;
  health: { enabled: boolean; tags: string[] };
  /** The index source is off when `endpoints` is empty. */
  index: { endpoints: IndexEndpoint[]; intervalMs: number };
  info: { enabled: boolean; intervalMs: number };
  /** `subnets` excludes the primary network, which is always checked. */
  platform: { enabled: boolean; intervalMs: number; subnets: string[] };
  /** The evm source is off when `enabled` is false or `chains` is empty. */
  evm: { enabled: boolean; intervalMs: number; chains: string[] };
  /** The proposervm source is off when `enabled` is false or `chains` is empty. */
  proposervm: { enabled: boolean; intervalMs: number; chains: string[] };
  admin: { enabled: boolean; intervalMs: number };
  limits: { maxSeriesPerNode: number; maxLabelLength: number };
  headers: Record<string, string>;
  tls?: TlsSettings;
  /** Basic auth credentials as configured (plain text; the client encodes the Authorization header). */
  basicAuth?: { username: string; password: string };
}

export interface Config {
  targets: TargetConfig[];
  maxConcurrentRequests: number;
  /** Connections to one origin at most (2 per node behind it up to this). */
  maxConnectionsPerOrigin: number;
  /** Where the config came from, for logs and the landing page. */
  origin: string;
}
