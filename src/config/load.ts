// Loading the YAML config: parse, interpolate ${VAR}, validate with the zod
// schema, resolve per-target settings, and report every problem with the YAML
// path, the line, and how to fix it.
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import {
  BUILTIN_DEFAULTS,
  DEFAULT_MAX_CONCURRENT_REQUESTS,
  DEFAULT_NODE_URL,
  configSchema,
  type Config,
  type RawConfig,
  type RawSettings,
  type TargetConfig,
  type TlsSettings,
} from './schema.js';
import { parsePromDuration } from './duration.js';

export type ConfigPath = ReadonlyArray<string | number>;

export interface ConfigProblem {
  path: ConfigPath;
  message: string;
  line?: number;
  column?: number;
}

export class ConfigError extends Error {
  constructor(
    readonly origin: string,
    readonly problems: ConfigProblem[],
  ) {
    super(formatProblems(origin, problems));
    this.name = 'ConfigError';
  }
}

/** `targets[1].health.tags` */
export function formatPath(path: ConfigPath): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${part}` : part;
  }
  return out || '(top level)';
}

function formatProblems(origin: string, problems: ConfigProblem[]): string {
  const lines = problems.map((p) => {
    const where = p.line !== undefined ? `${origin}:${p.line}:${p.column ?? 1}` : origin;
    return `  ${where}: ${formatPath(p.path)}: ${p.message}`;
  });
  return `invalid configuration (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${lines.join('\n')}`;
}

export type Env = Readonly<Record<string, string | undefined>>;

/** The config used when no --config.file is given: one node at the default address. */
export function defaultConfig(): Config {
  return resolveConfig({ targets: [{ name: 'local', url: DEFAULT_NODE_URL }] } as RawConfig, 'built-in default (one node at http://127.0.0.1:9650)');
}

export function loadConfigFile(file: string, env: Env = process.env): Config {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(file, [{ path: [], message: `cannot read the file: ${(err as Error).message}` }]);
  }
  return parseConfigText(text, file, env);
}

export function parseConfigText(text: string, origin: string, env: Env = process.env): Config {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      origin,
      doc.errors.map((e) => {
        const pos = e.linePos?.[0];
        return { path: [], message: `YAML syntax: ${e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`, line: pos?.line, column: pos?.col };
      }),
    );
  }
  const locate = (path: ConfigPath): Pick<ConfigProblem, 'line' | 'column'> => locateInDocument(doc, lineCounter, path);
  const problems: ConfigProblem[] = [];
  const raw = interpolate(doc.toJS() ?? {}, [], env, problems);
  if (problems.length > 0) throw new ConfigError(origin, problems.map((p) => ({ ...p, ...locate(p.path) })));

  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(origin, parsed.error.issues.map((issue) => problemFromIssue(issue, raw, locate)));
  }
  const config = parsed.data;
  checkCrossField(config, problems);
  if (problems.length > 0) throw new ConfigError(origin, problems.map((p) => ({ ...p, ...locate(p.path) })));
  try {
    return resolveConfig(config, origin);
  } catch (err) {
    if (err instanceof ResolveError) throw new ConfigError(origin, [{ path: err.path, message: err.message, ...locate(err.path) }]);
    throw err;
  }
}

const VAR_RE = /\$\$|\$\{([^}]*)\}/g;
const BUILTIN_INTERVAL_MS = parsePromDuration(BUILTIN_DEFAULTS.interval)!;
const BUILTIN_TIMEOUT_MS = parsePromDuration(BUILTIN_DEFAULTS.timeout)!;

/** Replaces ${VAR} in every string value; `$$` stands for a literal `$`. A missing variable is an error. */
function interpolate(value: unknown, path: (string | number)[], env: Env, problems: ConfigProblem[]): unknown {
  if (typeof value === 'string') {
    return value.replace(VAR_RE, (whole, name: string | undefined) => {
      if (whole === '$$') return '$';
      if (!name || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
        problems.push({ path, message: `"${whole}" is not a valid variable reference: write \${NAME} with letters, digits and _ (and $$ for a literal $)` });
        return whole;
      }
      const v = env[name];
      if (v === undefined) {
        problems.push({ path, message: `environment variable ${name} is not set: export it before starting the exporter, or write $\${${name}} for a literal text` });
        return whole;
      }
      return v;
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolate(v, [...path, i], env, problems));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = interpolate(v, [...path, k], env, problems);
    return out;
  }
  return value;
}

function valueAt(root: unknown, path: ConfigPath): unknown {
  let v = root;
  for (const part of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[part];
  }
  return v;
}

function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a map';
  return `${typeof v} ${JSON.stringify(v)}`;
}

function problemFromIssue(
  issue: z.core.$ZodIssue,
  raw: unknown,
  locate: (p: ConfigPath) => Pick<ConfigProblem, 'line' | 'column'>,
): ConfigProblem {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeysAt(path);
    const parts = issue.keys.map((key) => {
      const guess = closest(key, known);
      return guess ? `unknown key "${key}" (did you mean "${guess}"?)` : `unknown key "${key}"`;
    });
    message = `${parts.join(', ')}; known keys here: ${known.join(', ')}`;
    // Point at the first unknown key itself.
    return { path, message, ...locate([...path, issue.keys[0]!]) };
  }
  if (issue.code === 'invalid_type') {
    const value = valueAt(raw, path);
    message = value === undefined ? `required key is missing: ${issue.message}` : `${issue.message}, got ${describeValue(value)}`;
  }
  return { path, message, ...locate(path) };
}

/** Keys the schema allows at a path, read from the schema itself. */
function knownKeysAt(path: ConfigPath): string[] {
  let schema: any = configSchema;
  const unwrap = (s: any): any => {
    for (;;) {
      const def = s?._zod?.def;
      if (!def) return s;
      if (def.type === 'optional' || def.type === 'default' || def.type === 'nullable') s = def.innerType;
      else if (def.type === 'pipe') s = def.in;
      else return s;
    }
  };
  for (const part of path) {
    schema = unwrap(schema);
    const def = schema?._zod?.def;
    if (typeof part === 'number' && def?.type === 'array') schema = def.element;
    else if (typeof part === 'string' && def?.type === 'object') schema = def.shape[part];
    else return [];
  }
  const def = unwrap(schema)?._zod?.def;
  return def?.type === 'object' ? Object.keys(def.shape) : [];
}

function closest(word: string, candidates: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const c of candidates) {
    const d = levenshtein(word.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

function checkCrossField(config: RawConfig, problems: ConfigProblem[]): void {
  const seen = new Map<string, number>();
  config.targets.forEach((target, i) => {
    const first = seen.get(target.name);
    if (first !== undefined) {
      problems.push({ path: ['targets', i, 'name'], message: `duplicate name "${target.name}" (also targets[${first}]): names must be unique, they become the node label` });
    } else seen.set(target.name, i);

    const interval = target.interval ?? config.defaults?.interval ?? BUILTIN_INTERVAL_MS;
    const timeout = target.timeout ?? config.defaults?.timeout ?? BUILTIN_TIMEOUT_MS;
    if (timeout >= interval) {
      // Point at the setting that made the pair wrong, preferring the target's own.
      const path =
        target.timeout !== undefined ? ['targets', i, 'timeout']
        : target.interval !== undefined ? ['targets', i, 'interval']
        : config.defaults?.timeout !== undefined ? ['defaults', 'timeout']
        : ['defaults', 'interval'];
      problems.push({
        path,
        message: `timeout (${timeout} ms) must be shorter than interval (${interval} ms) for target "${target.name}": polls must finish before the next one is due`,
      });
    }
  });
}

class ResolveError extends Error {
  constructor(
    readonly path: ConfigPath,
    message: string,
  ) {
    super(message);
  }
}

function readFileAt(path: ConfigPath, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new ResolveError(path, `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}: check the path and the exporter's permissions`);
  }
}

export function resolveConfig(config: RawConfig, origin: string): Config {
  const defaults: RawSettings = config.defaults ?? {};
  const targets = config.targets.map((t, i): TargetConfig => {
    // Where a nested setting came from, for errors about files it names.
    const from = (key: keyof RawSettings): ConfigPath => (t[key] !== undefined ? ['targets', i, key] : ['defaults', key]);
    const tlsRaw = t.tls ?? defaults.tls;
    let tls: TlsSettings | undefined;
    if (tlsRaw) {
      tls = { insecureSkipVerify: tlsRaw.insecure_skip_verify ?? false };
      if (tlsRaw.ca_file) {
        tls.ca = readFileAt([...from('tls'), 'ca_file'], tlsRaw.ca_file);
        if (!tls.ca.includes('-----BEGIN CERTIFICATE-----')) {
          throw new ResolveError([...from('tls'), 'ca_file'], `${tlsRaw.ca_file} holds no PEM certificate (-----BEGIN CERTIFICATE-----): give the CA certificate(s) in PEM form`);
        }
      }
      if (tlsRaw.cert_file) tls.cert = readFileAt([...from('tls'), 'cert_file'], tlsRaw.cert_file);
      if (tlsRaw.key_file) tls.key = readFileAt([...from('tls'), 'key_file'], tlsRaw.key_file);
      if (tlsRaw.server_name) tls.serverName = tlsRaw.server_name;
      // Fail at load, not at every poll, when the PEM files cannot be used.
      try {
        createSecureContext({ ...(tls.ca ? { ca: tls.ca } : {}), ...(tls.cert ? { cert: tls.cert, key: tls.key } : {}) });
      } catch (err) {
        throw new ResolveError(from('tls'), `cannot use the TLS files: ${(err as Error).message}: give PEM files (ca_file: CA certificates; cert_file and key_file: a matching certificate and private key)`);
      }
    }
    const authRaw = t.basic_auth ?? defaults.basic_auth;
    let basicAuth: TargetConfig['basicAuth'];
    if (authRaw) {
      const password =
        authRaw.password_file !== undefined
          ? readFileAt([...from('basic_auth'), 'password_file'], authRaw.password_file).replace(/\r?\n$/, '')
          : (authRaw.password ?? '');
      basicAuth = { username: authRaw.username, password };
    }
    return {
      name: t.name,
      url: t.url,
      intervalMs: t.interval ?? defaults.interval ?? BUILTIN_INTERVAL_MS,
      timeoutMs: t.timeout ?? defaults.timeout ?? BUILTIN_TIMEOUT_MS,
      health: {
        enabled: t.health?.enabled ?? defaults.health?.enabled ?? true,
        tags: t.health?.tags ?? defaults.health?.tags ?? [...BUILTIN_DEFAULTS.health.tags],
      },
      index: { endpoints: t.index?.endpoints ?? defaults.index?.endpoints ?? [...BUILTIN_DEFAULTS.index.endpoints] },
      headers: { ...defaults.headers, ...t.headers },
      ...(tls ? { tls } : {}),
      ...(basicAuth ? { basicAuth } : {}),
    };
  });
  return {
    targets,
    maxConcurrentRequests: config.scheduler?.max_concurrent_requests ?? DEFAULT_MAX_CONCURRENT_REQUESTS,
    origin,
  };
}

/** Line and column of the YAML node at a path (or its nearest existing parent). */
function locateInDocument(doc: Document, lineCounter: LineCounter, path: ConfigPath): Pick<ConfigProblem, 'line' | 'column'> {
  let node: unknown = doc.contents;
  let found: unknown = node;
  for (const part of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && p.key.value === part);
      if (!pair) break;
      // Point at the key for a missing or wrong value: it is what the user looks for.
      found = pair.key;
      node = pair.value;
      if (node) found = node;
    } else if (isSeq(node) && typeof part === 'number') {
      node = node.items[part];
      if (!node) break;
      found = node;
    } else break;
  }
  const range = (found as { range?: [number, number, number] } | null)?.range;
  if (!range) return {};
  const pos = lineCounter.linePos(range[0]);
  return { line: pos.line, column: pos.col };
}
