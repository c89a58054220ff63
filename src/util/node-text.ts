// The one boundary a node's text passes on its way out of the exporter: the status
// pages (a node's summary and page), the log (its sources' loggers) and the traced poll
// of /probe?debug=true. A node or a proxy in front of it may echo a request back, with
// the target's API key or password in it, in any answer of any source (an HTTP error
// body, a JSON-RPC error message, a check's error); and it may answer megabytes. Each
// node's state (scheduler/node-state.ts) holds one NodeText for its target and gives
// everything it shows or logs through it, whatever the source: a new source cannot
// forget it.
import { maskSecrets, secretsOf, type TargetSecrets } from './redact.js';
import { truncate } from './text.js';

/**
 * The longest text from a node kept in any view, log field or trace line: some 100 lines, far more than a
 * page shows (the node page cuts an error at 2,000 characters), and a log line's field stays under 64 KiB.
 */
export const MAX_NODE_TEXT = 8 * 1024;

/** Objects nested deeper than this are not walked (a node's answer can nest without bound). */
const MAX_DEPTH = 24;

export class NodeText {
  private readonly secrets: readonly string[];

  constructor(target: TargetSecrets) {
    this.secrets = secretsOf(target);
  }

  /** One text as it may leave the exporter: every configured secret masked, then cut to MAX_NODE_TEXT. */
  text(text: string): string {
    return truncate(this.secrets.length > 0 ? maskSecrets(text, this.secrets) : text, MAX_NODE_TEXT);
  }

  /**
   * Every string in `value` through text(), however deep: plain objects, arrays and errors (an error keeps
   * its class, for the log's `type`; its message, stack, cause and own fields are walked). The same objects
   * where nothing changed; others (Maps, Buffers, class instances) as they are.
   */
  value<T>(value: T): T {
    return this.walk(value, []) as T;
  }

  /** For a logger: each argument of a log call through value(). */
  readonly logArgument = (arg: unknown): unknown => this.value(arg);

  /** `v` walked; `path`: the objects above it (a value met again on its own path is a cycle, left as it is). */
  private walk(v: unknown, path: object[]): unknown {
    if (typeof v === 'string') return this.text(v);
    if (v === null || typeof v !== 'object') return v;
    if (path.length >= MAX_DEPTH) return '(nested too deeply to show)';
    if (path.includes(v)) return v;
    path.push(v);
    let out: unknown = v;
    if (Array.isArray(v)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (typeof x !== 'string' && (typeof x !== 'object' || x === null)) continue;
        const w = this.walk(x, path);
        if (w !== x) (copy ??= v.slice())[i] = w;
      }
      out = copy ?? v;
    } else if (v instanceof Error) {
      out = this.walkError(v, path);
    } else {
      const proto: unknown = Object.getPrototypeOf(v);
      if (proto === Object.prototype || proto === null) {
        const record = v as Record<string, unknown>;
        let copy: Record<string, unknown> | undefined;
        for (const key of Object.keys(record)) {
          const x = record[key];
          if (typeof x !== 'string' && (typeof x !== 'object' || x === null)) continue;
          const w = this.walk(x, path);
          if (w !== x) (copy ??= { ...record })[key] = w;
        }
        out = copy ?? v;
      }
    }
    path.pop();
    return out;
  }

  /** An error with its message, stack, cause and own fields walked: a copy of the same class when any changed. */
  private walkError(e: Error, path: object[]): Error {
    let changed = false;
    const fields: Array<{ name: string; descriptor: PropertyDescriptor }> = [];
    for (const name of Object.getOwnPropertyNames(e)) {
      const d = Object.getOwnPropertyDescriptor(e, name) as PropertyDescriptor;
      const value: unknown = 'value' in d ? d.value : (e as unknown as Record<string, unknown>)[name];
      const w = this.walk(value, path);
      // An accessor (`stack` on Node.js 24) whose value the walk leaves alone is no change either.
      if (w !== value) changed = true;
      fields.push({ name, descriptor: { value: w, writable: true, enumerable: d.enumerable ?? false, configurable: true } });
    }
    if (!changed) return e;
    const copy = Object.create(Object.getPrototypeOf(e) as object) as Error;
    for (const f of fields) Object.defineProperty(copy, f.name, f.descriptor);
    return copy;
  }
}
