// The configuration schema: the single source of truth for every config key,
// its type, default and meaning. Keys are a public contract.
import { z } from 'zod';
import { parsePromDuration } from './duration.js';

export const INDEX_ENDPOINTS = ['C/block', 'P/block', 'X/block', 'X/tx', 'X/vtx'] as const;
export type IndexEndpoint = (typeof INDEX_ENDPOINTS)[number];

export const DEFAULT_NODE_URL = 'http://127.0.0.1:9650';
export const BUILTIN_DEFAULTS = {
  interval: '15s',
  timeout: '5s',
  health: { tags: [] as string[] },
  index: { endpoints: ['C/block', 'P/block', 'X/block', 'X/tx'] as IndexEndpoint[] },
} as const;
export const DEFAULT_MAX_CONCURRENT_REQUESTS = 512;

const duration = z
  .string({ error: 'expected a duration string such as 15s' })
  .transform((text, ctx) => {
    const ms = parsePromDuration(text);
    if (ms === undefined || ms <= 0) {
      ctx.addIssue({
        code: 'custom',
        message: `"${text}" is not a positive duration: write it as Prometheus does, e.g. 500ms, 15s, 1m, 1h30m`,
      });
      return z.NEVER;
    }
    return ms;
  })
  .describe('Duration as Prometheus writes it: 500ms, 15s, 1m, 1h30m.');

const nonEmpty = (what: string) => z.string({ error: `expected ${what} as a string` }).min(1, `${what} must not be empty`);

const healthSchema = z
  .strictObject({
    enabled: z.boolean().optional().describe('Poll health.health (default true). Without it avalanchego_up is not served for the node.'),
    tags: z
      .array(nonEmpty('a tag'), { error: 'expected a list of tags, e.g. [11111111111111111111111111111111LpoYY]' })
      .optional()
      .describe('Sent as the `tags` param of health.health: subnet IDs select their chains\' checks; application checks are always included. [] = all checks.'),
  })
  .describe('The health source (health.health on {url}/ext/health).');

const indexSchema = z
  .strictObject({
    endpoints: z
      .array(
        z.enum(INDEX_ENDPOINTS, {
          error: (issue) => `"${String(issue.input)}" is not an index endpoint: use one of ${INDEX_ENDPOINTS.join(', ')}`,
        }),
        { error: 'expected a list of index endpoints, e.g. [C/block, P/block]' },
      )
      .optional()
      .describe(`Index endpoints polled with index.getLastAccepted, from ${INDEX_ENDPOINTS.join(', ')}. [] turns the index source off.`),
  })
  .describe('The index source (index.getLastAccepted on {url}/ext/index/<endpoint>).');

const tlsSchema = z
  .strictObject({
    ca_file: nonEmpty('a file path').optional().describe('PEM file of the CA(s) that sign the node\'s certificate.'),
    cert_file: nonEmpty('a file path').optional().describe('PEM client certificate, for nodes behind a proxy that asks for one (with key_file).'),
    key_file: nonEmpty('a file path').optional().describe('PEM private key of cert_file.'),
    server_name: nonEmpty('a host name').optional().describe('Name to verify the node\'s certificate against (and send as SNI), when it differs from the URL\'s host.'),
    insecure_skip_verify: z.boolean().optional().describe('Do not verify the node\'s certificate. For tests only.'),
  })
  .refine((t) => (t.cert_file === undefined) === (t.key_file === undefined), {
    message: 'cert_file and key_file go together: set both or neither',
  })
  .describe('TLS toward the node (https:// URLs).');

const basicAuthSchema = z
  .strictObject({
    username: nonEmpty('a user name').describe('User name for HTTP basic auth (a proxy in front of the node).'),
    password: z.string().optional().describe('Password; prefer password_file or ${VAR}.'),
    password_file: nonEmpty('a file path').optional().describe('File whose content (trailing newline trimmed) is the password.'),
  })
  .refine((b) => !(b.password !== undefined && b.password_file !== undefined), {
    message: 'set password or password_file, not both',
  })
  .describe('HTTP basic auth toward the node.');

const headersSchema = z
  .record(
    z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'header names are HTTP tokens: letters, digits and -'),
    z.string({ error: 'header values must be strings (quote numbers)' }),
    { error: 'expected a map of header name to value' },
  )
  .describe('Extra HTTP headers sent with every request to the node (e.g. Authorization for a proxy).');

/** Settings that `defaults` sets for every target and a target may override. */
const settingsShape = {
  interval: duration.optional().describe('How often the node is polled (default 15s).'),
  timeout: duration.optional().describe('Deadline of each request to the node (default 5s); must be shorter than interval.'),
  health: healthSchema.optional(),
  index: indexSchema.optional(),
  headers: headersSchema.optional(),
  tls: tlsSchema.optional(),
  basic_auth: basicAuthSchema.optional(),
};

const TARGET_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$/;

const urlSchema = z.string({ error: 'expected the node\'s base URL as a string, e.g. http://10.0.0.5:9650' }).transform((text, ctx) => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    ctx.addIssue({ code: 'custom', message: `"${text}" is not a URL: write the node's base URL, e.g. http://10.0.0.5:9650` });
    return z.NEVER;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    ctx.addIssue({ code: 'custom', message: `"${text}" must start with http:// or https://` });
    return z.NEVER;
  }
  if (url.search || url.hash) {
    ctx.addIssue({ code: 'custom', message: `"${text}" must not have a query or fragment: give the base URL, the exporter adds /ext/health and /ext/index/…` });
    return z.NEVER;
  }
  if (url.username || url.password) {
    url.password = url.password ? '***' : '';
    ctx.addIssue({ code: 'custom', message: `"${url.href}" carries credentials: move them to basic_auth so they are not logged` });
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
    url: urlSchema.describe('Base URL of the node\'s HTTP API (may carry a path prefix).'),
    ...settingsShape,
  })
  .describe('A node to poll. Any key under `defaults` may be overridden here.');

export const configSchema = z
  .strictObject({
    defaults: z.strictObject(settingsShape).optional().describe('Settings for every target.'),
    scheduler: z
      .strictObject({
        max_concurrent_requests: z
          .number({ error: 'expected a whole number' })
          .int('expected a whole number')
          .min(1, 'must be at least 1')
          .optional()
          .describe(`Cap on requests in flight to all nodes together (default ${DEFAULT_MAX_CONCURRENT_REQUESTS}).`),
      })
      .optional()
      .describe('Process-wide polling settings.'),
    targets: z
      .array(targetSchema, { error: 'expected a list of targets' })
      .min(1, 'list at least one target under targets')
      .describe('The nodes to poll.'),
  })
  .describe('The exporter configuration file.');

export type RawConfig = z.infer<typeof configSchema>;
type RawSettings = z.infer<z.ZodObject<typeof settingsShape>>;

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
  index: { endpoints: IndexEndpoint[] };
  headers: Record<string, string>;
  tls?: TlsSettings;
  /** Authorization header value for basic auth (already encoded). */
  basicAuth?: { username: string; password: string };
}

export interface Config {
  targets: TargetConfig[];
  maxConcurrentRequests: number;
  /** Where the config came from, for logs and the landing page. */
  origin: string;
}

export type { RawSettings };
