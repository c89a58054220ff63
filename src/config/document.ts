// From YAML text to a plain value: syntax errors, duplicate keys and alias
// bombs as problems with a line and column, ${VAR} interpolation, and where
// in the text each path is (for every later message).
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import type { ConfigPath } from './path.js';
import { shorten } from '../util/text.js';

export interface ConfigProblem {
  path: ConfigPath;
  message: string;
  line?: number;
  column?: number;
}

export type Locate = (path: ConfigPath) => Pick<ConfigProblem, 'line' | 'column'>;

export type Env = Readonly<Record<string, string | undefined>>;

/** A resolved alias may stand for at most this many copies of its anchor's nodes (the `yaml` package's count). */
const MAX_ALIAS_COUNT = 1000;

export type ParsedText = { value: unknown; locate: Locate } | { problems: ConfigProblem[] };

export function parseYaml(text: string): ParsedText {
  const lineCounter = new LineCounter();
  // Unique keys are checked below in one pass; the library's own check compares every pair (quadratic).
  const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: false });
  const position = (offset: number) => {
    const pos = lineCounter.linePos(offset);
    return { line: pos.line, column: pos.col };
  };
  if (doc.errors.length > 0) {
    const overflow = doc.errors.find((e) => /call stack/i.test(e.message));
    if (overflow) {
      const pos = overflow.linePos?.[0];
      return {
        problems: [
          {
            path: [],
            message: 'YAML nested too deeply for the parser to follow: flatten the lists and maps (a config needs a few levels)',
            line: pos?.line,
            column: pos?.col,
          },
        ],
      };
    }
    return {
      problems: doc.errors.map((e) => {
        const pos = e.linePos?.[0];
        return {
          path: [],
          message: `YAML syntax: ${(e.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '')}: fix the YAML at this line (indentation, a missing - or quote)`,
          line: pos?.line,
          column: pos?.col,
        };
      }),
    };
  }
  const duplicates = duplicateKeys(doc, position);
  if (duplicates.length > 0) return { problems: duplicates };
  let value: unknown;
  try {
    // Strings of their own: the library's plain scalars are V8 sliced strings of `text`, and a config keeps its
    // strings for as long as a target made from it is configured (reload after reload: a copy of the file each;
    // test/unit/config-memory.test.ts). The objects and arrays toJS made are kept (structuredClone's copies made
    // /metrics at 10,000 targets 50 times slower to render).
    value = ownStrings(doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) ?? {});
  } catch (err) {
    const message = (err as Error).message;
    return {
      problems: [
        {
          path: [],
          message: /Excessive alias count/.test(message)
            ? `YAML aliases (*name) expand to too many copies of their anchors (&name), as in a "billion laughs" attack: write the values out, or use fewer aliases`
            : `YAML: ${message.split('\n')[0]}: fix the anchors (&name) and aliases (*name)`,
        },
      ],
    };
  }
  return { value, locate: (path) => locateInDocument(doc, position, path) };
}

/**
 * `value` with every string in it replaced, in place, by a copy that holds no other string (JSON.parse makes a
 * sequential string; a substring is a slice of its parent). Aliases are shared objects: each is walked once.
 */
function ownStrings(value: unknown, seen = new Set<object>()): unknown {
  if (typeof value === 'string') return value.length < 13 ? value : (JSON.parse(JSON.stringify(value)) as string);
  if (value === null || typeof value !== 'object' || seen.has(value)) return value;
  seen.add(value);
  if (Array.isArray(value)) for (let i = 0; i < value.length; i++) value[i] = ownStrings(value[i], seen);
  else if (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null) {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) record[key] = ownStrings(record[key], seen);
  }
  return value;
}

/** Keys that appear twice in one map, found with one set per map (linear in the size of the document). */
function duplicateKeys(doc: Document, position: (offset: number) => Pick<ConfigProblem, 'line' | 'column'>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  // Iterative: a deeply nested document must not overflow the stack here.
  const stack: Array<{ node: unknown; path: ConfigPath }> = [{ node: doc.contents, path: [] }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { node, path } = top;
    if (isMap(node)) {
      const seen = new Map<unknown, Node>();
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? pair.key.value : String(pair.key);
        const first = seen.get(key);
        const keyNode = pair.key as Node | null;
        if (first !== undefined) {
          const firstLine = first.range ? position(first.range[0]).line : undefined;
          problems.push({
            path,
            message: `duplicate key ${JSON.stringify(String(key)).slice(0, 82)}${firstLine !== undefined ? ` (first at line ${firstLine})` : ''}: a key may appear once in a map; remove one`,
            ...(keyNode?.range ? position(keyNode.range[0]) : {}),
          });
        } else if (keyNode) seen.set(key, keyNode);
        stack.push({ node: pair.value, path: [...path, String(key)] });
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => stack.push({ node: item, path: [...path, i] }));
    }
  }
  return problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
}

/** Line and column of the YAML node at a path (or its nearest existing parent). */
function locateInDocument(
  doc: Document,
  position: (offset: number) => Pick<ConfigProblem, 'line' | 'column'>,
  path: ConfigPath,
): Pick<ConfigProblem, 'line' | 'column'> {
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
  return range ? position(range[0]) : {};
}

const VAR_RE = /\$\$|\$\{([^}]*)\}/g;

/** Replaces ${VAR} in every string value; `$$` stands for a literal `$`. A missing variable is an error. */
export function interpolate(value: unknown, env: Env, problems: ConfigProblem[], path: Array<string | number> = []): unknown {
  if (typeof value === 'string') {
    if (!value.includes('$')) return value;
    return value.replace(VAR_RE, (whole, name: string | undefined) => {
      if (whole === '$$') return '$';
      if (!name || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
        problems.push({
          path: [...path],
          message: `"${whole.slice(0, 80)}" is not a valid variable reference: write \${NAME} with letters, digits and _ (and $$ for a literal $)`,
        });
        return whole;
      }
      const v = env[name];
      if (v === undefined) {
        const shown = shorten(name, 80);
        problems.push({
          path: [...path],
          message: `environment variable ${shown} is not set: export it before starting the exporter, or write $\${${shown}} for a literal text`,
        });
        return whole;
      }
      return v;
    });
  }
  // One path array, extended and restored on the way down (copied only for a problem).
  if (Array.isArray(value)) {
    return value.map((v, i) => {
      path.push(i);
      const out = interpolate(v, env, problems, path);
      path.pop();
      return out;
    });
  }
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    // defineProperty: a key named __proto__ stays a key (that the schema refuses), not a prototype.
    for (const [k, v] of Object.entries(value)) {
      path.push(k);
      Object.defineProperty(out, k, { value: interpolate(v, env, problems, path), enumerable: true, writable: true, configurable: true });
      path.pop();
    }
    return out;
  }
  return value;
}
