// From a validated config to the targets the exporter polls: the one merge of
// built-in defaults ← defaults ← target, the rules between keys, and the files
// the config names (read relative to the config file's folder).
import { isAbsolute, resolve } from 'node:path';
import { createSecureContext } from 'node:tls';
import type { ConfigProblem } from './document.js';
import { formatPromDuration } from './duration.js';
import { FileReadError, readRegularFile } from '../util/files.js';
import { resolveL1s } from './l1s.js';
import type { ConfigPath } from './path.js';
import {
  BUILTIN_SCHEDULER,
  type Config,
  type ConfigSection,
  type RawConfig,
  type RawSettings,
  type TargetConfig,
  type TlsSettings,
} from './schema.js';

// Caps on the files a config names: a CA bundle is ~200 KB, a password a few bytes.
const MAX_PEM_BYTES = 4 * 1024 * 1024;
const MAX_PASSWORD_BYTES = 64 * 1024;

/** Sections taken whole from one layer: a target's tls does not mix its files with the defaults' ones. */
const WHOLE_SECTIONS = new Set(['tls', 'basic_auth']);

/** What a config file is made of (config/load.ts configFile): its keys, the sources' sections, the built-in layer. */
export interface ConfigLayout {
  readonly sections: readonly ConfigSection[];
  /** Every key of the settings, in order. */
  readonly settingKeys: readonly string[];
  /** The built-in defaults, checked by the schema (durations in milliseconds). */
  readonly builtin: RawSettings;
}

/** A layer of settings and where it sits in the file (undefined: built in). */
interface Layer {
  settings: RawSettings | undefined;
  path: ConfigPath | undefined;
}

/** Settings merged over the built-in defaults: every key the built-ins set is there. */
type MergedSettings = RawSettings & {
  interval: number;
  timeout: number;
  limits: { max_series_per_node: number; max_label_length: number };
};

const isSection = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `upper` over `lower`: sections merge key by key, except the whole ones. */
function mergeOver(keys: readonly string[], lower: Record<string, unknown>, upper: RawSettings | undefined): Record<string, unknown> {
  if (!upper) return lower;
  const out: Record<string, unknown> = { ...lower };
  for (const key of keys) {
    const value = upper[key];
    if (value === undefined) continue;
    if (!isSection(value) || WHOLE_SECTIONS.has(key)) {
      out[key] = value;
      continue;
    }
    const section: Record<string, unknown> = { ...(lower[key] as Record<string, unknown> | undefined) };
    // Header names are case-insensitive: a target's `authorization` replaces the defaults' `Authorization`.
    const names = key === 'headers' ? new Map(Object.keys(section).map((name) => [name.toLowerCase(), name])) : undefined;
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      if (names) {
        const old = names.get(k.toLowerCase());
        if (old !== undefined && old !== k) Reflect.deleteProperty(section, old);
        names.set(k.toLowerCase(), k);
      }
      section[k] = v;
    }
    out[key] = section;
  }
  return out;
}

/**
 * Where a key (`timeout`, `index.interval`, `tls`) was set: its layer (0 built in,
 * 1 defaults, 2 target) and path. Looked up only for errors, not kept per target.
 */
function where(layers: Layer[], key: string): { layer: number; path: ConfigPath | undefined } {
  const [section, sub] = key.split('.') as [string, string | undefined];
  for (let layer = layers.length - 1; layer >= 0; layer--) {
    const { settings, path } = layers[layer] ?? {};
    const value = settings?.[section];
    const set = sub === undefined ? value !== undefined : isSection(value) && value[sub] !== undefined;
    if (set) return { layer, path: path && (sub === undefined ? [...path, section] : [...path, section, sub]) };
  }
  return { layer: 0, path: undefined };
}

const DEFAULTS_LABEL = ['built-in default', 'from defaults', ''];

/** Reads the files the config names, once per load however many targets share them. */
class FileCache {
  private readonly texts = new Map<string, string | FileReadError>();
  private readonly contexts = new Map<string, string | undefined>();

  constructor(private readonly baseDir: string) {}

  /** The file's text, or a problem at `path`. */
  read(path: ConfigPath, file: string, maxBytes: number, problems: ConfigProblem[]): string | undefined {
    const full = isAbsolute(file) ? file : resolve(this.baseDir, file);
    let text = this.texts.get(full);
    if (text === undefined) {
      try {
        text = readRegularFile(full, maxBytes);
      } catch (err) {
        if (!(err instanceof FileReadError)) throw err;
        text = err;
      }
      this.texts.set(full, text);
    }
    if (typeof text === 'string') return text;
    problems.push({ path, message: text.message });
    return undefined;
  }

  /** The path as written, and where it resolved to when it was relative. */
  shown(file: string): string {
    return isAbsolute(file) ? file : `${file} (${resolve(this.baseDir, file)})`;
  }

  /** Why these PEM texts cannot make a TLS context, or undefined when they can. */
  tlsProblem(tls: TlsSettings): string | undefined {
    const key = JSON.stringify([tls.ca, tls.cert, tls.key]);
    if (!this.contexts.has(key)) {
      try {
        createSecureContext({ ...(tls.ca ? { ca: tls.ca } : {}), ...(tls.cert ? { cert: tls.cert, key: tls.key } : {}) });
        this.contexts.set(key, undefined);
      } catch (err) {
        this.contexts.set(key, (err as Error).message);
      }
    }
    return this.contexts.get(key);
  }
}

export type Resolved = { config: Omit<Config, 'origin' | 'sections'> } | { problems: ConfigProblem[] };

/**
 * `at(i)`: the index in the file of `config.targets[i]` (the load drops targets that failed the
 * schema and resolves the rest, so that one pass reports every problem).
 */
export function resolveConfig(config: RawConfig, layout: ConfigLayout, baseDir: string, at: (i: number) => number = (i) => i): Resolved {
  const { sections, settingKeys, builtin } = layout;
  const problems: ConfigProblem[] = [];
  const files = new FileCache(baseDir);
  const seen = new Map<string, number>();
  const reported = new Set<string>();
  // Built-in ← defaults once; each target goes over that.
  const base = mergeOver(settingKeys, mergeOver(settingKeys, {}, builtin), config.defaults);
  const targets = config.targets.map((t, j): TargetConfig => {
    const i = at(j);
    const first = seen.get(t.name);
    if (first !== undefined) {
      problems.push({
        path: ['targets', i, 'name'],
        message: `duplicate name "${t.name}" (also targets[${first}]): names must be unique, they become the node label`,
      });
    } else seen.set(t.name, i);

    const layers: Layer[] = [
      { settings: builtin, path: undefined },
      { settings: config.defaults, path: ['defaults'] },
      { settings: t, path: ['targets', i] },
    ];
    const s = mergeOver(settingKeys, base, t) as MergedSettings;
    const fields: Record<string, unknown> = { name: t.name, url: t.url, intervalMs: s.interval, timeoutMs: s.timeout };
    // Each source's settings under its key, in the order of the sources (config/source-section.ts).
    for (const section of sections) fields[section.key] = section.resolve(s[section.key] as Record<string, unknown>, s.interval);
    fields.limits = { maxSeriesPerNode: s.limits.max_series_per_node, maxLabelLength: s.limits.max_label_length };
    fields.headers = s.headers ?? {};
    const resolved = fields as unknown as TargetConfig;

    // timeout < every interval a poll of this target runs at: a poll must end before the next is due. A source's
    // own interval counts when it is on and its interval is set (left out, it is the target's, checked first).
    const intervals: Array<[string, number, boolean]> = [['interval', resolved.intervalMs, true]];
    for (const section of sections) {
      if (!('interval' in section.schema.shape)) continue;
      const set = (s[section.key] as { interval?: number }).interval !== undefined;
      intervals.push([`${section.key}.interval`, section.intervalMs(resolved), set && section.enabled(resolved)]);
    }
    for (const [key, ms, applies] of intervals) {
      if (!applies || resolved.timeoutMs < ms) continue;
      const timeout = where(layers, 'timeout');
      const other = where(layers, key);
      // Point at the setting that made the pair wrong: the one set closest to the target (timeout on a tie).
      const blamed = timeout.layer >= other.layer ? timeout : other;
      const path = blamed.path ?? ['targets', i];
      const id = path.join('.');
      // A wrong pair under defaults is reported once, not once per target.
      if (reported.has(id)) continue;
      reported.add(id);
      const label = (w: { layer: number }) => (DEFAULTS_LABEL[w.layer] ? `, ${DEFAULTS_LABEL[w.layer]}` : '');
      problems.push({
        path,
        message: `timeout (${formatPromDuration(resolved.timeoutMs)}${label(timeout)}) must be shorter than ${key} (${formatPromDuration(ms)}${label(other)}) for target "${t.name}": a poll must end before the next one is due; shorten timeout or lengthen ${key}`,
      });
    }

    const tlsRaw = s.tls;
    if (tlsRaw) {
      const at = (key: string): ConfigPath => [...(where(layers, 'tls').path ?? []), key];
      const tls: TlsSettings = { insecureSkipVerify: tlsRaw.insecure_skip_verify ?? false };
      let readable = true;
      if (tlsRaw.ca_file) {
        const ca = files.read(at('ca_file'), tlsRaw.ca_file, MAX_PEM_BYTES, problems);
        if (ca === undefined) readable = false;
        else if (!ca.includes('-----BEGIN CERTIFICATE-----')) {
          readable = false;
          problems.push({
            path: at('ca_file'),
            message: `${files.shown(tlsRaw.ca_file)} holds no PEM certificate (-----BEGIN CERTIFICATE-----): give the CA certificate(s) in PEM form`,
          });
        } else tls.ca = ca;
      }
      if (tlsRaw.cert_file) {
        tls.cert = files.read(at('cert_file'), tlsRaw.cert_file, MAX_PEM_BYTES, problems);
        if (tls.cert === undefined) readable = false;
      }
      if (tlsRaw.key_file) {
        tls.key = files.read(at('key_file'), tlsRaw.key_file, MAX_PEM_BYTES, problems);
        if (tls.key === undefined) readable = false;
      }
      if (tlsRaw.server_name) tls.serverName = tlsRaw.server_name;
      // Fail at load, not at every poll, when the PEM files cannot be used.
      const unusable = readable ? files.tlsProblem(tls) : undefined;
      if (unusable) {
        problems.push({
          path: where(layers, 'tls').path ?? ['targets', i, 'tls'],
          message: `cannot use the TLS files: ${unusable}: give PEM files (ca_file: CA certificates; cert_file and key_file: a matching certificate and private key)`,
        });
      }
      resolved.tls = tls;
    }

    const auth = s.basic_auth;
    if (auth) {
      let password = auth.password ?? '';
      if (auth.password_file !== undefined) {
        const path = [...(where(layers, 'basic_auth').path ?? []), 'password_file'];
        password = files.read(path, auth.password_file, MAX_PASSWORD_BYTES, problems)?.replace(/\r?\n$/, '') ?? '';
      }
      resolved.basicAuth = { username: auth.username, password };
      // Both set the Authorization header: one would silently replace the other.
      const header = Object.keys(resolved.headers).find((name) => name.toLowerCase() === 'authorization');
      if (header !== undefined) {
        const headers = where(layers, 'headers');
        const basic = where(layers, 'basic_auth');
        const path = [
          ...(headers.layer >= basic.layer ? (headers.path ?? []) : (basic.path ?? [])),
          ...(headers.layer >= basic.layer ? [header] : []),
        ];
        const id = path.join('.');
        if (!reported.has(id)) {
          reported.add(id);
          problems.push({
            path: path.length > 0 ? path : ['targets', i],
            message: `headers.${header} and basic_auth both set the Authorization header for target "${t.name}": keep one (basic_auth for a user and password, headers.${header} for a bearer token or another scheme)`,
          });
        }
      }
    }
    return resolved;
  });
  const l1s = resolveL1s(config.l1s, targets, problems);
  if (problems.length > 0) return { problems };
  return {
    config: {
      targets,
      ...(l1s.length > 0 ? { l1s } : {}),
      maxConcurrentRequests: config.scheduler?.max_concurrent_requests ?? BUILTIN_SCHEDULER.max_concurrent_requests,
      maxConnectionsPerOrigin: config.scheduler?.max_connections_per_origin ?? BUILTIN_SCHEDULER.max_connections_per_origin,
      maxBufferedBytes: config.scheduler?.max_buffered_bytes ?? BUILTIN_SCHEDULER.max_buffered_bytes,
    },
  };
}
