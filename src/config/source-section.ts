// A source's section of the config file (`defaults.<key>`, `targets[].<key>`):
// its keys, their built-in defaults and whether they turn the source on,
// declared in the source's own module (src/sources/<name>.ts) beside its
// requests and its parser, so that a source is one room.
//
// Why the config is given its sections rather than naming them: config/ sits
// below sources/ in the layers (test/static/architecture.test.ts), so it cannot
// import a source, and a list of sections kept down here would be one more file
// to edit for every new source. So config/ says what a section is
// (ConfigSection, built here) and merges, resolves, checks and shows whatever
// sections it is given (config/load.ts configFile, config/resolve.ts); the
// registry, above both, assembles the config file from its sources' sections
// (sources/registry.ts). Nothing in config/ or server/ names a source.
import { z } from 'zod';
import { formatPromDuration } from './duration.js';
import { duration, type ConfigSection, type TargetConfig } from './schema.js';
import { inspect } from './walk.js';

type Shape = Record<string, z.ZodType>;

/**
 * A section's settings in a resolved target: every key has a value (the built-in default, `defaults`, the
 * target), the `interval` as `intervalMs` (milliseconds).
 */
export type Settings<S extends Shape> = {
  -readonly [K in keyof S as K extends 'interval' ? 'intervalMs' : K]-?: Exclude<z.output<S[K]>, undefined>;
};

/**
 * A source's section: `keys` (each `.optional()` and described), `defaults` for every key but `interval` (a
 * source without its own interval runs at the target's), and `enabled`, whether settings turn the source on (a
 * section's interval is checked against `timeout` only when they do): by default its `enabled` key.
 */
export function configSection<const K extends string, S extends Shape>(
  key: K,
  spec: {
    description: string;
    keys: S;
    defaults: { readonly [P in keyof S]?: z.input<S[P]> };
    enabled?: (settings: Settings<S>) => boolean;
  },
): ConfigSection<K, Settings<S>> {
  const keys = Object.keys(spec.keys);
  // A mistake here is the source author's: it fails at import, in every test.
  const missing = keys.filter((k) => k !== 'interval' && !(k in spec.defaults));
  if (missing.length > 0) throw new Error(`config section ${key}: ${missing.join(', ')} has no built-in default: give it one in defaults`);
  if (!spec.enabled && !keys.includes('enabled'))
    throw new Error(`config section ${key}: no \`enabled\` key: say what turns the source on (enabled)`);
  const enabled = spec.enabled ?? ((settings: Settings<S>) => (settings as unknown as { enabled: boolean }).enabled);
  const durations = new Set(keys.filter((k) => inspect(spec.keys[k] as z.ZodType).typeName === 'duration'));
  const ownInterval = keys.includes('interval');
  const section: ConfigSection<K, Settings<S>> = {
    key,
    schema: z.strictObject(spec.keys).describe(spec.description),
    defaults: spec.defaults,
    of(target: TargetConfig) {
      const settings = (target as unknown as Readonly<Record<string, unknown>>)[key];
      if (settings === undefined)
        throw new Error(
          `target ${target.name} has no ${key} settings: its config was read without the ${key} source's section (configFile with the sources that poll it)`,
        );
      return settings as Settings<S>;
    },
    enabled: (target) => enabled(section.of(target)),
    intervalMs: (target) => (ownInterval ? (section.of(target) as unknown as { intervalMs: number }).intervalMs : target.intervalMs),
    resolve(merged, targetIntervalMs) {
      const out: Record<string, unknown> = {};
      for (const k of keys) {
        if (k === 'interval') out.intervalMs = merged.interval ?? targetIntervalMs;
        else out[k] = merged[k];
      }
      return out as Settings<S>;
    },
    show(settings) {
      const values = settings as Readonly<Record<string, unknown>>;
      const out: Record<string, unknown> = {};
      for (const k of keys) {
        const value = k === 'interval' ? values.intervalMs : values[k];
        // A copy of a list: targets share their defaults' lists, which YAML would write as anchors.
        out[k] = durations.has(k) ? formatPromDuration(value as number) : Array.isArray(value) ? [...(value as unknown[])] : value;
      }
      return out;
    },
  };
  return section;
}

/** The `enabled` key of a source that can be turned off. */
export const enabledKey = (what: string) => z.boolean({ error: 'expected true or false' }).optional().describe(what);

/** A source's own cadence, the `interval` key. */
export const intervalKey = (what: string) => duration.optional().describe(`How often ${what}; must be longer than timeout.`);

/** The keys of a source that can be turned off and has its own cadence, and its other keys. */
export function sourceKeys(doc: { enabled: string; interval: string }): ReturnType<typeof switchAndCadence>;
export function sourceKeys<Extra extends Shape>(
  doc: { enabled: string; interval: string },
  extra: Extra,
): ReturnType<typeof switchAndCadence> & Extra;
export function sourceKeys(doc: { enabled: string; interval: string }, extra: Shape = {}) {
  return { ...switchAndCadence(doc), ...extra };
}

const switchAndCadence = (doc: { enabled: string; interval: string }) => ({ enabled: enabledKey(doc.enabled), interval: intervalKey(doc.interval) });

/** A chain as /ext/bc/<chain>/… names it: its alias (C) or its blockchain ID (CB58). */
const chainName = z
  .string({ error: 'expected a chain alias or blockchain ID as a string, e.g. C' })
  .regex(
    /^[A-Za-z0-9_.-]{1,64}$/,
    'a chain is named by its alias (C) or its blockchain ID (CB58, from platform.getBlockchains): letters and digits, at most 64 characters, no slash',
  );

/** A list of chains, each named once (the evm and proposervm sources). */
export const chainList = (example: string, what: string) =>
  z
    .array(chainName, { error: `expected a list of chains, e.g. ${example}` })
    .optional()
    .refine((list) => list === undefined || new Set(list).size === list.length, { message: 'a chain is listed twice: list each chain once' })
    .describe(what);
