// The one way into the config: a file, the built-in default and the demo's fleet
// all pass the same schema and the same resolution. Every problem is reported
// with the file, line and column, the YAML path, and how to fix it.
import { dirname, resolve } from 'node:path';
import type { z } from 'zod';
import { interpolate, parseYaml, type ConfigProblem, type Env, type Locate } from './document.js';
import { FileReadError, readRegularFile } from '../util/files.js';
import { formatPath, type ConfigPath } from './path.js';
import { isSecretPath } from '../util/redact.js';
import { quote } from './echo.js';
import { resolveConfig, type ConfigLayout } from './resolve.js';
import {
  BUILTIN_COMMON,
  DEFAULT_CONFIG,
  configSchemaOf,
  type Config,
  type ConfigSection,
  type RawConfig,
  type SettingsOf,
  type TargetConfig,
} from './schema.js';
import { keysAt } from './walk.js';

export type { ConfigPath } from './path.js';
export type { ConfigProblem, Env, Locate } from './document.js';
export { formatPath } from './path.js';

/** A config of tens of thousands of targets fits well below this. */
export const MAX_CONFIG_BYTES = 16 * 1024 * 1024;

/** More problems than this are counted, not listed: the first ones (in the file's order) are what to fix first. */
const MAX_PROBLEMS = 20;
/** Problems located (a walk of the document each) so that they can be listed in the file's order; the rest are counted. */
const MAX_LOCATED = 1000;

export class ConfigError extends Error {
  constructor(
    readonly origin: string,
    readonly problems: ConfigProblem[],
    /** Found in the same pass (an inline credential): said after the problems, so one check tells everything. */
    readonly warnings: ConfigProblem[] = [],
  ) {
    super(
      formatProblems(origin, problems) +
        (warnings.length > 0
          ? `\nwarnings:\n${formatWarnings({ origin, warnings })
              .map((w) => `  ${w}`)
              .join('\n')}`
          : ''),
    );
    this.name = 'ConfigError';
  }
}

function formatProblems(origin: string, problems: ConfigProblem[]): string {
  const lines = problems.slice(0, MAX_PROBLEMS).map((p) => {
    const where = p.line !== undefined ? `${origin}:${p.line}:${p.column ?? 1}` : origin;
    return `  ${where}: ${formatPath(p.path)}: ${p.message}`;
  });
  if (problems.length > MAX_PROBLEMS) lines.push(`  … and ${problems.length - MAX_PROBLEMS} more: fix these first, then check again`);
  return `invalid configuration (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${lines.join('\n')}`;
}

const noLocation: Locate = () => ({});

/** A config file made of the common settings and the given sources' sections: its schema, and the ways to read it. */
export interface ConfigFile<T extends TargetConfig = TargetConfig> {
  readonly sections: readonly ConfigSection[];
  /** The file's schema (docs/configuration.md, "did you mean", the chart's values schema). */
  readonly schema: z.ZodObject<z.core.$ZodLooseShape, z.core.$strict>;
  /** The built-in defaults as a config file writes them (the default column of docs/configuration.md). */
  readonly builtinDefaults: Readonly<Record<string, unknown>>;
  /** Keys whose default is another key's value (`index.interval` → `interval`), as the reference states them. */
  readonly derivedDefaults: Readonly<Record<string, string>>;
  readonly load: (file: string, env?: Env) => Config<T>;
  /** `baseDir`: the folder relative file paths in the config are read from. */
  readonly parse: (text: string, origin: string, env?: Env, baseDir?: string) => Config<T>;
  /** A config given as a value (the built-in default, the demo's fleet): the same checks as a file. */
  readonly fromValue: (value: unknown, origin: string, baseDir?: string) => Config<T>;
  /** The config used when no --config.file is given: one node at the default address. */
  readonly byDefault: () => Config<T>;
}

/**
 * The config file of these sections (the sources' own, config/source-section.ts), in their order between the
 * common settings. The registry makes the exporter's (sources/registry.ts); a test may add a source of its own.
 */
export function configFile<const S extends ConfigSection>(sections: readonly S[]): ConfigFile<TargetConfig & SettingsOf<S>> {
  type T = TargetConfig & SettingsOf<S>;
  const schemas = configSchemaOf(sections);
  const builtinDefaults = {
    interval: BUILTIN_COMMON.interval,
    timeout: BUILTIN_COMMON.timeout,
    ...Object.fromEntries(sections.map((s) => [s.key, s.defaults])),
    limits: BUILTIN_COMMON.limits,
    headers: BUILTIN_COMMON.headers,
  };
  const layout: ConfigLayout = {
    sections,
    settingKeys: Object.keys(schemas.settings.shape),
    // Checked by the same schema as a file; a mistake in a section's defaults fails at import, and in the unit tests.
    builtin: schemas.settings.parse(builtinDefaults),
  };
  const checked = (value: unknown, origin: string, locate: Locate, baseDir: string, earlier?: ConfigProblem[]): Config<T> =>
    ({
      ...checkConfig(schemas.config, layout, value, origin, locate, baseDir, earlier),
      sections,
    }) as Config<T>;
  const fromValue = (value: unknown, origin: string, baseDir = process.cwd()) => checked(value, origin, noLocation, baseDir);
  const parse = (text: string, origin: string, env: Env = process.env, baseDir = process.cwd()) => {
    const { value: raw, locate } = readYaml(text, origin);
    const problems: ConfigProblem[] = [];
    const value = interpolate(raw, env, problems);
    // Every problem in one pass: the variables' problems, then what the schema and the cross-field
    // checks find in the rest (a value whose variable is missing is not checked again).
    const envProblems = problems.map((p) => ({ ...p, ...locate(p.path) }));
    const warnings = inlineSecretWarnings(raw).map((p) => ({ ...p, ...locate(p.path) }));
    let config: Config<T>;
    try {
      config = checked(value, origin, locate, baseDir, envProblems);
    } catch (err) {
      // A value with a problem of its own is not warned about as well.
      const more = warnings.filter((w) => !(err instanceof ConfigError && err.problems.some((p) => formatPath(p.path) === formatPath(w.path))));
      if (err instanceof ConfigError && more.length > 0) throw new ConfigError(err.origin, err.problems, more);
      throw err;
    }
    return warnings.length > 0 ? { ...config, warnings } : config;
  };
  return {
    sections,
    schema: schemas.config,
    builtinDefaults,
    derivedDefaults: Object.fromEntries(
      sections.filter((s) => 'interval' in s.schema.shape && !('interval' in s.defaults)).map((s) => [`${s.key}.interval`, 'interval']),
    ),
    load: (file, env = process.env) => {
      let text: string;
      try {
        text = readRegularFile(file, MAX_CONFIG_BYTES);
      } catch (err) {
        if (!(err instanceof FileReadError)) throw err;
        // The line starts with the file already: say "the file" rather than its name twice.
        throw new ConfigError(file, [{ path: [], message: err.message.replace(`cannot read ${file}:`, 'cannot read the file:') }]);
      }
      // Files the config names are relative to its folder (under systemd the working directory is /).
      return parse(text, file, env, dirname(resolve(file)));
    },
    parse,
    fromValue,
    byDefault: () => fromValue(DEFAULT_CONFIG, `built-in default (one node at ${DEFAULT_CONFIG.targets[0].url})`),
  };
}

/**
 * YAML text to a plain value and where each path is in it (config/document.ts: syntax,
 * duplicate keys in one pass, alias bombs, positions), or a ConfigError. Every YAML file
 * the exporter reads (the config, the web config) comes through here.
 */
export function readYaml(text: string, origin: string): { value: unknown; locate: Locate } {
  let parsed: ReturnType<typeof parseYaml>;
  try {
    parsed = parseYaml(text);
  } catch (err) {
    // The parser's own failures are still a problem with this file, not an exporter crash.
    throw new ConfigError(origin, [{ path: [], message: `cannot parse the YAML: ${quote((err as Error).message)}: check the file's syntax` }]);
  }
  if ('problems' in parsed) throw new ConfigError(origin, parsed.problems);
  return parsed;
}

/**
 * `value` checked against a strict zod schema: its data, or a ConfigError whose problems
 * name the path, line and column, say what a wrong value was (never a secret's), and for an
 * unknown key the closest known one. At most MAX_PROBLEMS are located (a walk each).
 */
export function checkSchema<T>(schema: z.ZodType<T>, value: unknown, origin: string, locate: Locate): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ConfigError(
    origin,
    parsed.error.issues
      .slice(0, MAX_PROBLEMS)
      .map((issue) => problemFromIssue(schema, issue, value, locate))
      .concat(
        // Counted, so that the total is right; not located.
        parsed.error.issues.slice(MAX_PROBLEMS).map((issue) => ({ path: issue.path as ConfigPath, message: issue.message })),
      ),
  );
}

const startsWith = (path: ConfigPath, prefix: ConfigPath): boolean => prefix.length <= path.length && prefix.every((p, i) => path[i] === p);

type Schema = ConfigFile['schema'];

function checkConfig(
  configSchema: Schema,
  layout: ConfigLayout,
  value: unknown,
  origin: string,
  locate: Locate,
  baseDir: string,
  earlier: ConfigProblem[] = [],
): Omit<Config, 'sections'> {
  const skip = (path: ConfigPath) => earlier.some((p) => startsWith(path, p.path));
  const located = (p: ConfigProblem, i: number): ConfigProblem => (i < MAX_LOCATED ? { ...p, ...locate(p.path) } : p);
  const parsed = configSchema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.filter((issue) => !skip(issue.path as ConfigPath));
    const problems = issues.map((issue, i) =>
      // Located up to MAX_LOCATED (a walk each); the rest are counted, so that the total is right.
      i < MAX_LOCATED ? problemFromIssue(configSchema, issue, value, locate) : { path: issue.path as ConfigPath, message: issue.message },
    );
    const rest = crossFieldProblemsOfTheRest(configSchema, layout, value, parsed.error.issues, baseDir, skip);
    throw new ConfigError(origin, byLine([...earlier, ...problems, ...rest.map(located)]));
  }
  // The schema is assembled from the sections at run time: its output is the RawConfig it checked.
  const resolved = resolveConfig(parsed.data as unknown as RawConfig, layout, baseDir);
  const problems = 'problems' in resolved ? resolved.problems.filter((p) => !skip(p.path)) : [];
  if (earlier.length > 0 || problems.length > 0) throw new ConfigError(origin, byLine([...earlier, ...problems.map(located)]));
  if ('problems' in resolved) throw new ConfigError(origin, resolved.problems);
  return { ...resolved.config, origin };
}

/** Problems in the order of the file (line, then column); those without a place after, as found. */
function byLine(problems: ConfigProblem[]): ConfigProblem[] {
  const at = (p: ConfigProblem) => (p.line === undefined ? Infinity : p.line * 1e6 + (p.column ?? 0));
  return problems
    .map((p, i) => ({ p, i }))
    .sort((a, b) => at(a.p) - at(b.p) || a.i - b.i)
    .map(({ p }) => p);
}

/**
 * The cross-field checks and file reads (timeout against intervals, duplicate names, TLS and password files)
 * of what the schema's problems leave: each wrong key is taken out (its default applies), a target without a
 * usable name is left out, and one without a usable URL is checked with a stand-in, so that one
 * --config.check lists every problem. A problem that only follows from a key taken out is not reported
 * (a timeout against an interval that was wrong). Nothing when the file is not a map of settings at all.
 */
function crossFieldProblemsOfTheRest(
  configSchema: Schema,
  layout: ConfigLayout,
  value: unknown,
  firstIssues: ReadonlyArray<z.core.$ZodIssue>,
  baseDir: string,
  skip: (path: ConfigPath) => boolean,
): ConfigProblem[] {
  if (!isMap(value)) return [];
  const repaired = structuredClone<Record<string, unknown>>(value);
  const dropped = new Set<number>();
  const removed: string[] = [];
  let issues = firstIssues;
  // A key taken out can uncover another problem under its parent only once or twice: a few rounds suffice.
  for (let round = 0; round < 4; round++) {
    for (const issue of issues) if (!takeOut(repaired, issue, dropped, removed)) return [];
    const targets: unknown[] = Array.isArray(repaired.targets) ? (repaired.targets as unknown[]) : [];
    const kept = targets.map((_, i) => i).filter((i) => !dropped.has(i));
    // Without the l1s when targets are left out: their vantages may name them.
    const rest = configSchema.safeParse({ ...repaired, targets: kept.map((i) => targets[i]), ...(dropped.size > 0 ? { l1s: undefined } : {}) });
    if (!rest.success) {
      // Issues of the kept targets, renumbered to the file's indices.
      issues = rest.error.issues.map((issue) =>
        issue.path[0] === 'targets' && typeof issue.path[1] === 'number'
          ? { ...issue, path: ['targets', kept[issue.path[1]] ?? 0, ...issue.path.slice(2)] }
          : issue,
      );
      continue;
    }
    const resolved = resolveConfig(rest.data as unknown as RawConfig, layout, baseDir, (j) => kept[j] ?? j);
    if (!('problems' in resolved)) return [];
    const timing = removed.some((key) => key === 'interval' || key === 'timeout');
    return resolved.problems.filter((p) => !skip(p.path) && !(timing && p.message.startsWith('timeout (')));
  }
  return [];
}

/** Header names that carry a credential. */
const SECRET_HEADER = /^(?:proxy-)?authorization$|api[-_]?key|token|secret|password/i;

/**
 * Warnings (the file still loads): a credential written inline in `headers` (`Authorization: Bearer …`), read
 * from the raw file, before `${VAR}` is replaced, so that a value taken from the environment is not one.
 */
export function inlineSecretWarnings(raw: unknown): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  const check = (headers: unknown, path: ConfigPath) => {
    if (!isMap(headers)) return;
    for (const [name, v] of Object.entries(headers)) {
      if (typeof v !== 'string' || v.trim() === '' || !SECRET_HEADER.test(name) || v.includes('${')) continue;
      const scheme = /^(\w+)\s/.exec(v)?.[1];
      out.push({
        path: [...path, name],
        message: `the credential is written inline: whoever reads this file reads it. Write it as "${scheme ? `${scheme} ` : ''}\${NODE_TOKEN}" and set NODE_TOKEN in the exporter's environment (systemd EnvironmentFile=, a Kubernetes Secret as an environment variable); for a user and password, basic_auth with password_file`,
      });
    }
  };
  if (!isMap(raw)) return out;
  if (isMap(raw.defaults)) check(raw.defaults.headers, ['defaults', 'headers']);
  if (Array.isArray(raw.targets)) raw.targets.forEach((t, i) => isMap(t) && check(t.headers, ['targets', i, 'headers']));
  return out;
}

/** A config's warnings as lines (file:line:column: path: message), for --config.check and the start's log. */
export function formatWarnings(config: Pick<Config, 'origin' | 'warnings'>): string[] {
  return (config.warnings ?? []).map((p) => {
    const where = p.line !== undefined ? `${config.origin}:${p.line}:${p.column ?? 1}` : config.origin;
    return `${where}: ${formatPath(p.path)}: ${p.message}`;
  });
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Takes what an issue found wrong out of `root` (see crossFieldProblemsOfTheRest); false when nothing sensible is left to check. */
function takeOut(root: Record<string, unknown>, issue: z.core.$ZodIssue, dropped: Set<number>, removed: string[]): boolean {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  if (issue.code === 'unrecognized_keys') {
    const at = valueAt(root, path);
    if (isMap(at)) for (const key of issue.keys) Reflect.deleteProperty(at, key);
    return true;
  }
  if (path.length === 0 || (path[0] === 'targets' && path.length === 1)) return false;
  if (path[0] === 'targets' && typeof path[1] === 'number') {
    const target = valueAt(root, path.slice(0, 2));
    if (path.length === 2 || path[2] === 'name' || !isMap(target)) {
      dropped.add(path[1]);
      return true;
    }
    // The URL's problem is said; the target's other settings are still checked.
    if (path[2] === 'url' && path.length === 3) {
      target.url = 'http://127.0.0.1:9650';
      return true;
    }
  }
  // The innermost key (a list's element takes its whole list out).
  const last = path.findLastIndex((p) => typeof p === 'string');
  if (last < 0) return false;
  const parent = valueAt(root, path.slice(0, last));
  const key = path[last] as string;
  if (isMap(parent)) Reflect.deleteProperty(parent, key);
  removed.push(key);
  return true;
}

function valueAt(root: unknown, path: ConfigPath): unknown {
  let v = root;
  for (const part of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[part];
  }
  return v;
}

/** What a wrong value was, for "expected …, got …": never a secret's value. */
function describeValue(v: unknown, path: ConfigPath): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a map';
  if (isSecretPath(path)) return `a ${typeof v} (not shown: it is a secret)`;
  if (typeof v === 'string') return `string ${quote(v)}`;
  // What is left: a number, a boolean, a bigint (or undefined, which YAML does not make).
  const text = typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint' ? v.toString() : typeof v;
  return `${typeof v} ${quote(text).slice(1, -1)}`;
}

const MAX_KEYS_LISTED = 5;

function problemFromIssue(schema: z.ZodType, issue: z.core.$ZodIssue, raw: unknown, locate: Locate): ConfigProblem {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    const known = keysAt(schema, path);
    const parts = issue.keys.slice(0, MAX_KEYS_LISTED).map((key) => {
      const guess = closest(key, known);
      return `unknown key ${quote(key)}${guess ? ` (did you mean "${guess}"?)` : ''}`;
    });
    if (issue.keys.length > MAX_KEYS_LISTED)
      parts.push(`and ${issue.keys.length - MAX_KEYS_LISTED} more unknown key${issue.keys.length - MAX_KEYS_LISTED === 1 ? '' : 's'}`);
    message = `${parts.join(', ')}; known keys here: ${known.join(', ')}`;
    // Point at the first unknown key itself.
    return { path, message, ...locate([...path, ...issue.keys.slice(0, 1)]) };
  }
  if (issue.code === 'invalid_type') {
    const value = valueAt(raw, path);
    message = value === undefined ? `required key is missing: ${issue.message}` : `${issue.message}, got ${describeValue(value, path)}`;
  }
  return { path, message, ...locate(path) };
}

/** The candidate nearest to a mistyped word (edit distance), if one is near enough. */
export function closest(word: string, candidates: string[]): string | undefined {
  // Long unknown keys are not typos of the short known ones (and would cost a large table).
  if (word.length > 64) return undefined;
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
  // Two rows of the edit-distance table, as typed arrays (every cell is set before it is read).
  let prev = Uint32Array.from({ length: b.length + 1 }, (_, i) => i);
  let cur = new Uint32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length] ?? 0;
}
