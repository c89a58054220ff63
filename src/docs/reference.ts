// Reference tables for the README, generated from the metric catalog and the
// config schema (the single sources of truth). `npm run docs` writes them into
// the README; a test fails when the README is out of date.
import { CATALOG, GLOBAL_CATALOG, type MetricSpec } from '../metrics/catalog.js';
import { configSchema } from '../config/schema.js';

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

type AnySchema = { _zod: { def: Record<string, any> }; description?: string };

function unwrap(schema: AnySchema): { inner: AnySchema; description: string | undefined } {
  let s = schema;
  let description = s.description;
  for (;;) {
    const def = s._zod.def;
    if (def.type === 'optional' || def.type === 'default' || def.type === 'nullable') s = def.innerType;
    else if (def.type === 'pipe') {
      // Our durations and URLs are string → transform pipes: describe the input.
      s = def.in;
    } else break;
    description ??= s.description;
  }
  return { inner: s, description: description ?? s.description };
}

function typeName(schema: AnySchema, path: string): string {
  const def = schema._zod.def;
  if (/(^|\.)(interval|timeout)$/.test(path)) return 'duration';
  switch (def.type) {
    case 'array': {
      const el = unwrap(def.element).inner._zod.def;
      return el.type === 'enum' ? `list of ${Object.values(el.entries).join(' \\| ')}` : `list of ${el.type === 'object' ? 'maps' : `${el.type}s`}`;
    }
    case 'record':
      return 'map of string';
    case 'object':
      return 'map';
    default:
      return def.type;
  }
}

function rows(schema: AnySchema, prefix: string, out: string[]): void {
  const { inner, description } = unwrap(schema);
  const def = inner._zod.def;
  if (prefix) out.push(`| \`${prefix}\` | ${typeName(inner, prefix)} | ${cell(description ?? '')} |`);
  if (def.type === 'object') {
    for (const [key, child] of Object.entries(def.shape as Record<string, AnySchema>)) {
      // A target takes the same settings as `defaults`: list them once, under defaults.
      if (prefix === 'targets[]' && key !== 'name' && key !== 'url') continue;
      rows(child, prefix ? `${prefix}.${key}` : key, out);
    }
  } else if (def.type === 'array') {
    const el = unwrap(def.element).inner;
    if (el._zod.def.type === 'object') rows(el, `${prefix}[]`, out);
  }
}

export function configTable(): string {
  const out: string[] = ['| key | type | meaning |', '|---|---|---|'];
  rows(configSchema as unknown as AnySchema, '', out);
  out.push('| `targets[].<any key of defaults>` | | Overrides that setting for this target. |');
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
