// One walker over the config schema, for the loader (which keys a path allows, for
// "did you mean") and for the README reference (every key, its type and meaning).
import type { z } from 'zod';
import { typeNames } from './schema.js';

type Schema = z.core.$ZodType;

/**
 * A schema's definition, narrowed by its `type`: every zod schema is one of zod's own
 * classes ($ZodTypes), whose `_zod.def` says which with its `type` field.
 */
const defOf = (s: Schema) => (s as z.core.$ZodTypes)._zod.def;
const describedAs = (s: Schema): string | undefined => (s as { description?: string }).description;

export interface SchemaNode {
  /** The schema under optional/default wrappers and string → value pipes. */
  inner: Schema;
  description: string | undefined;
  /** duration, string, boolean, number, map, map of string, list of … */
  typeName: string;
}

export function inspect(schema: Schema): SchemaNode {
  let s = schema;
  let description = describedAs(s);
  let named = typeNames.get(s)?.typeName;
  for (;;) {
    const def = defOf(s);
    if (def.type === 'optional' || def.type === 'default' || def.type === 'nullable') s = def.innerType;
    // Durations and URLs are string → value pipes: what the user writes is the input.
    else if (def.type === 'pipe') s = def.in;
    else break;
    description ??= describedAs(s);
    named ??= typeNames.get(s)?.typeName;
  }
  return { inner: s, description, typeName: named ?? typeNameOf(s) };
}

function typeNameOf(s: Schema): string {
  const def = defOf(s);
  switch (def.type) {
    case 'array': {
      const el = inspect(def.element);
      const elDef = defOf(el.inner);
      if (elDef.type === 'enum') return `list of ${Object.values(elDef.entries).join(' | ')}`;
      return `list of ${el.typeName === 'map' ? 'maps' : `${el.typeName}s`}`;
    }
    case 'record':
      return 'map of string';
    case 'object':
      return 'map';
    default:
      return def.type;
  }
}

/** The schema of a child: a key of a map, an item of a list. */
export function childOf(schema: Schema, part: string | number): Schema | undefined {
  const def = defOf(inspect(schema).inner);
  if (def.type === 'object' && typeof part === 'string') return def.shape[part];
  if (def.type === 'array' && typeof part === 'number') return def.element;
  if (def.type === 'record' && typeof part === 'string') return def.valueType;
  return undefined;
}

/** The keys a map at `path` allows ([] when the path is not a map with fixed keys). */
export function keysAt(root: Schema, path: ReadonlyArray<string | number>): string[] {
  let s: Schema = root;
  for (const part of path) {
    const child = childOf(s, part);
    if (!child) return [];
    s = child;
  }
  const def = defOf(inspect(s).inner);
  return def.type === 'object' ? Object.keys(def.shape) : [];
}

/**
 * Visits every key under `schema`, depth first, with its dotted path (`targets[].name`).
 * `visit` returns false to skip a node's children.
 */
export function walkSchema(schema: Schema, visit: (path: string, node: SchemaNode) => boolean | undefined, prefix = ''): void {
  const node = inspect(schema);
  if (prefix && visit(prefix, node) === false) return;
  const def = defOf(node.inner);
  if (def.type === 'object') {
    for (const [key, child] of Object.entries(def.shape)) walkSchema(child, visit, prefix ? `${prefix}.${key}` : key);
  } else if (def.type === 'array' && defOf(inspect(def.element).inner).type === 'object') {
    walkSchema(def.element, visit, `${prefix}[]`);
  }
}
