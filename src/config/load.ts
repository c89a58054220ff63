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

/** More problems than this are counted, not listed: the first ones are what to fix first. */
const MAX_PROBLEMS = 20;

export class ConfigError extends Error {
  constructor(
    readonly origin: string,
    readonly problems: ConfigProblem[],
  ) {
    super(formatProblems(origin, problems));
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
    return checked(value, origin, locate, baseDir, envProblems);
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
  const parsed = configSchema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.filter((issue) => !skip(issue.path as ConfigPath));
    const problems = issues
      .slice(0, MAX_PROBLEMS)
      .map((issue) => problemFromIssue(configSchema, issue, value, locate))
      .concat(
        // Counted, so that the total is right; not located (which costs a walk each).
        issues.slice(MAX_PROBLEMS).map((issue) => ({ path: issue.path as ConfigPath, message: issue.message })),
      );
    throw new ConfigError(origin, [
      ...earlier,
      ...problems,
      ...crossFieldProblemsOfTheRest(configSchema, layout, value, parsed.error.issues, baseDir, locate, skip),
    ]);
  }
  // The schema is assembled from the sections at run time: its output is the RawConfig it checked.
  const resolved = resolveConfig(parsed.data as unknown as RawConfig, layout, baseDir);
  const problems = 'problems' in resolved ? resolved.problems.filter((p) => !skip(p.path)) : [];
  if (earlier.length > 0 || problems.length > 0)
    throw new ConfigError(origin, [...earlier, ...problems.map((p, i) => (i < MAX_PROBLEMS ? { ...p, ...locate(p.path) } : p))]);
  if ('problems' in resolved) throw new ConfigError(origin, resolved.problems);
  return { ...resolved.config, origin };
}

/**
 * When the schema's problems are all inside some targets, the other targets still get the
 * cross-field checks and file reads (timeout against intervals, duplicate names, TLS files),
 * so that one --config.check lists every problem. Problems outside targets: nothing more.
 */
function crossFieldProblemsOfTheRest(
  configSchema: Schema,
  layout: ConfigLayout,
  value: unknown,
  issues: ReadonlyArray<{ path: PropertyKey[] }>,
  baseDir: string,
  locate: Locate,
  skip: (path: ConfigPath) => boolean,
): ConfigProblem[] {
  const failed = new Set<number>();
  for (const { path } of issues) {
    if (path[0] !== 'targets' || typeof path[1] !== 'number') return [];
    failed.add(path[1]);
  }
  if (typeof value !== 'object' || value === null || !Array.isArray((value as { targets?: unknown }).targets)) return [];
  const all = (value as { targets: unknown[] }).targets;
  const kept = all.map((_, i) => i).filter((i) => !failed.has(i));
  if (kept.length === 0) return [];
  // Without the l1s: their vantages may name the targets left out here.
  const rest = configSchema.safeParse({ ...value, targets: kept.map((i) => all[i]), l1s: undefined });
  if (!rest.success) return [];
  const resolved = resolveConfig(rest.data as unknown as RawConfig, layout, baseDir, (j) => kept[j] ?? j);
  if (!('problems' in resolved)) return [];
  return resolved.problems.filter((p) => !skip(p.path)).map((p, i) => (i < MAX_PROBLEMS ? { ...p, ...locate(p.path) } : p));
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
