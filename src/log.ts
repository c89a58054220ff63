// pino, as designed: JSON lines, logfmt (as Prometheus-org exporters write) or pretty for people,
// on stderr, secrets redacted (util/redact.ts).
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import pretty from 'pino-pretty';
import { LOG_REDACTION } from './util/redact.js';
import { truncate } from './util/text.js';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['json', 'logfmt', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** pino's level number of `error`: below it, an error is a fault the exporter expects (a node's), not a bug. */
const ERROR_LEVEL = 50;

/**
 * An error logged below `error` as pino writes it, without its stack: a node's fault (a refused connection, an
 * HTTP status, a JSON-RPC error) is said by its type, message (with its causes) and fields, and a JavaScript stack
 * of the exporter's own frames only repeats it over a dozen lines. A bug is logged at `error`, with its stack.
 */
export function stacklessError(err: Error): Record<string, unknown> {
  const out = { ...(pino.stdSerializers.err(err) as unknown as Record<string, unknown>) };
  delete out['stack'];
  delete out['raw'];
  return out;
}

/**
 * The pretty format's message, as a person reads it: `node-7 evm: eth_blockNumber fails … (RequestFailed: request
 * to … failed: other side closed)`. An error is said by its type and message; a stack (a bug, at `error`) follows.
 */
export function prettyMessage(log: Record<string, unknown>, messageKey: string): string {
  const where = [log['node'], log['source']].filter((v) => typeof v === 'string' && v !== '').join(' ');
  const msg = log[messageKey];
  let text = `${where ? `${where}: ` : ''}${typeof msg === 'string' ? msg : JSON.stringify(msg ?? '')}`;
  const err = log['err'];
  if (err !== null && typeof err === 'object') {
    const { type, message, stack } = err as { type?: unknown; message?: unknown; stack?: unknown };
    text += ` (${typeof type === 'string' ? `${type}: ` : ''}${String(message)})`;
    if (typeof stack === 'string') text += `\n${stack}`;
  }
  return text;
}
/**
 * No log line is longer than this, whatever a node answers (a 6 MB JSON-RPC error message) and whatever logs it: the
 * line's longest texts are cut until it fits (boundLine). Log shippers cut or drop longer lines (Docker's json-file
 * splits at 16 KiB, journald at 48 KiB by default, Loki refuses 256 KB); 64 KiB keeps a line whole and readable.
 */
export const MAX_LOG_LINE_BYTES = 64 * 1024;

export function createLogger(options: { level: LogLevel; format: LogFormat; destination?: DestinationStream }): Logger {
  const base: LoggerOptions = {
    level: options.level,
    base: { app: 'avalanchego-exporter' },
    redact: LOG_REDACTION,
    hooks: {
      logMethod(args, method, level) {
        const first: unknown = args[0];
        if (level < ERROR_LEVEL && first !== null && typeof first === 'object' && (first as { err?: unknown }).err instanceof Error) {
          const fields = first as { err: Error };
          args[0] = { ...fields, err: stacklessError(fields.err) };
        }
        method.apply(this, args);
      },
      // Every line of every logger (children included) passes here before it is written.
      streamWrite: (line: string) => boundLine(line, MAX_LOG_LINE_BYTES, jsonLine),
    },
    // pino's own, except that an error already written without its stack (above) is kept as it is.
    serializers: { err: (err: unknown) => (err instanceof Error ? pino.stdSerializers.err(err) : err) },
  };
  if (options.format === 'pretty') {
    // Synchronous pretty stream (no worker thread): simple, and fine for humans' volumes. One line a record, so
    // that a terminal shows events, not the fields of a few (the demo's first minutes).
    return pino(
      base,
      pretty({
        destination: options.destination ?? 2,
        colorize: options.destination ? false : process.stderr.isTTY,
        sync: true,
        singleLine: true,
        messageFormat: prettyMessage,
        // `err` is in the message (prettyMessage) and ignored below; pino-pretty would write it, and any field named
        // `error` (the text of a poll's failure), on lines of their own.
        errorLikeObjectKeys: ['err'],
        ignore: 'app,pid,hostname,node,source,err',
      }),
    );
  }
  const destination = options.destination ?? pino.destination({ dest: 2, sync: false });
  if (options.format === 'logfmt') return pino(base, logfmtStream(destination));
  return pino(base, destination);
}

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** pino's own fields, written first or not at all. */
const FIXED_FIELDS = new Set(['time', 'level', 'msg', 'pid', 'hostname', 'app']);

function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

function logfmtValue(value: unknown): string {
  // undefined for undefined and functions, whatever its declared type says.
  const text = typeof value === 'string' ? value : ((JSON.stringify(value) as string | undefined) ?? String(value));
  // Quoted (with JSON's escapes, as logfmt readers accept) when empty or holding a space, =, " or a control character.
  return text === '' || /[\s="\\]/.test(text) || hasControl(text) ? JSON.stringify(text) : text;
}

function logfmtFields(prefix: string, value: unknown, out: string[]): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    // An error: its type and message; the stack is for developers (json has it).
    if (typeof record['message'] === 'string' && typeof record['stack'] === 'string') {
      out.push(`${prefix}=${logfmtValue(record['message'])}`);
      return;
    }
    for (const [k, v] of Object.entries(record)) logfmtFields(prefix ? `${prefix}.${k}` : k, v, out);
    return;
  }
  if (value !== undefined) out.push(`${prefix}=${logfmtValue(value)}`);
}

/** Pure: one pino JSON line → one logfmt line (time=… level=INFO msg=… key=value …). */
export function toLogfmt(line: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  return logfmtLine(record);
}

/** One record as a JSON line, as pino writes it. */
function jsonLine(record: Record<string, unknown>): string {
  return `${JSON.stringify(record)}\n`;
}

/** One record as a logfmt line. */
function logfmtLine(record: Record<string, unknown>): string {
  const level = typeof record['level'] === 'number' ? (LEVEL_NAMES[record['level']] ?? String(record['level'])) : String(record['level']);
  const out = [`time=${new Date(Number(record['time'])).toISOString()}`, `level=${level}`];
  if (record['msg'] !== undefined) out.push(`msg=${logfmtValue(record['msg'])}`);
  for (const [k, v] of Object.entries(record)) if (!FIXED_FIELDS.has(k)) logfmtFields(k, v, out);
  return `${out.join(' ')}\n`;
}

/** A destination that writes pino's lines as logfmt to `to` (flushed with it), each within MAX_LOG_LINE_BYTES. */
function logfmtStream(to: DestinationStream & { flushSync?: () => void; flush?: (cb?: () => void) => void }): DestinationStream {
  return {
    write: (line: string) => to.write(boundLine(line, MAX_LOG_LINE_BYTES, logfmtLine)),
    ...(to.flushSync ? { flushSync: () => to.flushSync?.() } : {}),
    ...(to.flush ? { flush: (cb?: () => void) => to.flush?.(cb) } : {}),
  };
}

/** What a lazy child holds until it is used: its parent, its bindings, its guard, and the child once made. */
interface LazyChildState {
  readonly parent: Logger;
  readonly bindings: Record<string, unknown>;
  /** Applied to each argument of each log call (a node's text on its way out: util/node-text.ts). */
  readonly guard?: (arg: unknown) => unknown;
  /**
   * The child once made, held weakly: a node that logged once would otherwise keep its children (about half a KiB
   * each) for as long as it is a target, so that the heap grew as the months' churn reached each node (issue 35's soak:
   * 13 children at the baseline, 542 twenty minutes later). Made again when it logs after a collection.
   */
  real?: WeakRef<Logger>;
  /** The child, held for good once a property was set on it (a level, say): what was set must stay. */
  pinned?: Logger;
}

const LEVEL_METHODS = new Set<PropertyKey>(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);
const noop = (): void => undefined;

function realChild(state: LazyChildState): Logger {
  const held = state.pinned ?? state.real?.deref();
  if (held) return held;
  const child = state.parent.child(state.bindings);
  state.real = new WeakRef(child);
  return child;
}

/** One handler for every lazy child (no closures per child): the state is the proxy's target. */
const LAZY_CHILD: ProxyHandler<LazyChildState> = {
  get(state, prop) {
    // A call at a level the parent does not log is a no-op, as it is on a pino child of the same level:
    // `log.debug(…)` after every poll makes no child at the default level.
    if (typeof prop === 'string' && state.pinned === undefined && state.real?.deref() === undefined) {
      if (LEVEL_METHODS.has(prop) && !state.parent.isLevelEnabled(prop)) return noop;
      // Asked of a lazy parent by its lazy children: answered by the parent's own parent, still without a child.
      if (prop === 'isLevelEnabled') return (level: string) => state.parent.isLevelEnabled(level);
    }
    const { guard } = state;
    if (guard !== undefined && typeof prop === 'string') {
      // Every argument of every call through the guard, and its children guarded as well.
      if (LEVEL_METHODS.has(prop)) {
        const logger = realChild(state);
        const method = Reflect.get(logger, prop, logger) as (...args: unknown[]) => void;
        return (...args: unknown[]) => method.apply(logger, args.map(guard));
      }
      if (prop === 'child') return (bindings: Record<string, unknown>) => lazyChild(realChild(state), bindings, guard);
    }
    const logger = realChild(state);
    const value: unknown = Reflect.get(logger, prop, logger);
    return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(logger) : value;
  },
  set(state, prop, value) {
    state.pinned = realChild(state);
    return Reflect.set(state.pinned, prop, value);
  },
  has(state, prop) {
    return Reflect.has(realChild(state), prop);
  },
};

/**
 * A child logger made on its first use: the exporter keeps one per node and source (tens of thousands in a large
 * fleet), and most of them never log (a healthy node logs nothing at the default level), while a pino child costs
 * about half a KiB of heap (its own prototype, bindings string and level methods). Behaves as `parent.child(bindings)`;
 * with a `guard`, every argument of every log call (and of its children's) passes it first.
 */
export function lazyChild(parent: Logger, bindings: Record<string, unknown>, guard?: (arg: unknown) => unknown): Logger {
  const state: LazyChildState = { parent, bindings, ...(guard ? { guard } : {}) };
  return new Proxy(state, LAZY_CHILD) as unknown as Logger;
}

/** The fields a line keeps, cut short, when even its shortest texts do not fit: pino's own and where it comes from. */
const KEPT_FIELDS = ['level', 'time', 'pid', 'hostname', 'app', 'node', 'source', 'msg'];

/**
 * Pure: one pino JSON line, rendered by `render` (JSON or logfmt), in at most `maxBytes` bytes: as it is when it
 * fits; else with every text longer than a limit cut to it (16 KiB, then 4 KiB, 1 KiB … 64 characters), the first
 * limit that fits; else (too many fields) its own fields cut short and a note of how long it was.
 */
export function boundLine(line: string, maxBytes: number, render: (record: Record<string, unknown>) => string): string {
  // A UTF-16 unit is at most 3 bytes of UTF-8: most lines fit without being measured.
  if (render === jsonLine && line.length * 3 <= maxBytes) return line;
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return Buffer.byteLength(line) <= maxBytes ? line : `${truncate(line, Math.floor(maxBytes / 4))}\n`;
  }
  const whole = render === jsonLine ? line : render(record);
  if (Buffer.byteLength(whole) <= maxBytes) return whole;
  for (let limit = 16 * 1024; limit >= 64; limit = Math.floor(limit / 4)) {
    const text = render(cutTexts(record, limit, 0) as Record<string, unknown>);
    if (Buffer.byteLength(text) <= maxBytes) return text;
  }
  const kept: Record<string, unknown> = {};
  for (const key of KEPT_FIELDS) if (key in record) kept[key] = cutTexts(record[key], 256, 1);
  kept['logLineCut'] = `this line was ${Buffer.byteLength(whole)} bytes; its other fields are left out (at most ${maxBytes} bytes a line)`;
  return render(kept);
}

/** `value` with every string longer than `limit` cut to it, however deep (nested past 16 levels: left out). */
function cutTexts(value: unknown, limit: number, depth: number): unknown {
  if (typeof value === 'string') return truncate(value, limit);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 16) return '(nested too deeply)';
  if (Array.isArray(value)) return value.map((v) => cutTexts(v, limit, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutTexts(v, limit, depth + 1)]));
}
