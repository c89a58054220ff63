// pino, as designed: JSON lines, logfmt (as Prometheus-org exporters write) or pretty for people,
// on stderr, secrets redacted (util/redact.ts).
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import pretty from 'pino-pretty';
import { LOG_REDACTION } from './util/redact.js';

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
  const level = typeof record['level'] === 'number' ? (LEVEL_NAMES[record['level']] ?? String(record['level'])) : String(record['level']);
  const out = [`time=${new Date(Number(record['time'])).toISOString()}`, `level=${level}`];
  if (record['msg'] !== undefined) out.push(`msg=${logfmtValue(record['msg'])}`);
  for (const [k, v] of Object.entries(record)) if (!FIXED_FIELDS.has(k)) logfmtFields(k, v, out);
  return `${out.join(' ')}\n`;
}

/** A destination that writes pino's lines as logfmt to `to` (flushed with it). */
function logfmtStream(to: DestinationStream & { flushSync?: () => void; flush?: (cb?: () => void) => void }): DestinationStream {
  return {
    write: (line: string) => to.write(toLogfmt(line)),
    ...(to.flushSync ? { flushSync: () => to.flushSync?.() } : {}),
    ...(to.flush ? { flush: (cb?: () => void) => to.flush?.(cb) } : {}),
  };
}

/** What a lazy child holds until it is used: its parent, its bindings, and the child once made. */
interface LazyChildState {
  readonly parent: Logger;
  readonly bindings: Record<string, unknown>;
  real?: Logger;
}

const LEVEL_METHODS = new Set<PropertyKey>(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);
const noop = (): void => undefined;

function realChild(state: LazyChildState): Logger {
  return (state.real ??= state.parent.child(state.bindings));
}

/** One handler for every lazy child (no closures per child): the state is the proxy's target. */
const LAZY_CHILD: ProxyHandler<LazyChildState> = {
  get(state, prop) {
    // A call at a level the parent does not log is a no-op, as it is on a pino child of the same level:
    // `log.debug(…)` after every poll makes no child at the default level.
    if (state.real === undefined && typeof prop === 'string') {
      if (LEVEL_METHODS.has(prop) && !state.parent.isLevelEnabled(prop)) return noop;
      // Asked of a lazy parent by its lazy children: answered by the parent's own parent, still without a child.
      if (prop === 'isLevelEnabled') return (level: string) => state.parent.isLevelEnabled(level);
    }
    const logger = realChild(state);
    const value: unknown = Reflect.get(logger, prop, logger);
    return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(logger) : value;
  },
  set(state, prop, value) {
    return Reflect.set(realChild(state), prop, value);
  },
  has(state, prop) {
    return Reflect.has(realChild(state), prop);
  },
};

/**
 * A child logger made on its first use: the exporter keeps one per node and source (tens of thousands in a large
 * fleet), and most of them never log (a healthy node logs nothing at the default level), while a pino child costs
 * about half a KiB of heap (its own prototype, bindings string and level methods). Behaves as `parent.child(bindings)`.
 */
export function lazyChild(parent: Logger, bindings: Record<string, unknown>): Logger {
  const state: LazyChildState = { parent, bindings };
  return new Proxy(state, LAZY_CHILD) as unknown as Logger;
}
