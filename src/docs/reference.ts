// Reference tables for the README, generated from the metric catalog and the
// config schema (the single sources of truth). `npm run docs` writes them into
// the README; a test fails when the README is out of date.
import { CATALOG, GLOBAL_CATALOG, type MetricSpec } from '../metrics/catalog.js';
import { BUILTIN_SCHEDULER } from '../config/schema.js';
import { walkSchema } from '../config/walk.js';
import { CONFIG_FILE } from '../sources/registry.js';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function metricsTable(): string {
  const row = (m: MetricSpec) => `| \`${m.name}\` | ${m.type} | ${m.labels.map((l) => `\`${l}\``).join(', ') || '—'} | ${cell(m.derivation)} |`;
  return [
    '| metric | type | labels | value |',
    '|---|---|---|---|',
    ...CATALOG.map(row),
    ...GLOBAL_CATALOG.map(row),
  ].join('\n');
}

/** A built-in default as the config would write it. */
function defaultText(settingKey: string, value: unknown): string {
  const derived = CONFIG_FILE.derivedDefaults[settingKey];
  if (derived !== undefined) return `same as \`${derived}\``;
  if (value === undefined || (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length > 0)) return '';
  if (Array.isArray(value)) return `\`[${value.join(', ')}]\``;
  if (typeof value === 'object') return '`{}`';
  return `\`${typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value)}\``;
}

const lookup = (root: unknown, dotted: string): unknown =>
  dotted.split('.').reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), root);

export function configTable(): string {
  const out: string[] = ['| key | type | default | meaning |', '|---|---|---|---|'];
  walkSchema(CONFIG_FILE.schema, (path, node) => {
    // A target takes the same settings as `defaults`: list them once, under defaults.
    const m = /^targets\[\]\.(.+)$/.exec(path);
    if (m && m[1] !== 'name' && m[1] !== 'url') return false;
    const setting = /^defaults\.(.+)$/.exec(path)?.[1];
    const fallback =
      setting !== undefined ? defaultText(setting, lookup(CONFIG_FILE.builtinDefaults, setting))
      : path.startsWith('scheduler.') ? defaultText('', lookup(BUILTIN_SCHEDULER, path.slice('scheduler.'.length)))
      : '';
    out.push(`| \`${path}\` | ${cell(node.typeName)} | ${cell(fallback)} | ${cell(node.description ?? '')} |`);
    return true;
  });
  out.push('| `targets[].<any key of defaults>` | | | Overrides that setting for this target. |');
  return out.join('\n');
}

/** Replaces the text between `<!-- NAME:start -->` and `<!-- NAME:end -->`. */
export function replaceSection(doc: string, name: string, content: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  if (i < 0 || j < i) throw new Error(`the document has no ${start} … ${end} section`);
  return `${doc.slice(0, i + start.length)}\n${content}\n${doc.slice(j)}`;
}
