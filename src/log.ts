// pino, as designed: JSON lines (or pretty for people) on stderr, secrets redacted.
import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Anything that may hold a credential, wherever a log call puts it. */
export const REDACT_PATHS = [
  'headers',
  '*.headers',
  'basicAuth',
  '*.basicAuth',
  'basic_auth',
  '*.basic_auth',
  'authorization',
  '*.authorization',
  'password',
  '*.password',
  'tls.key',
  '*.tls.key',
  'tls.cert',
  '*.tls.cert',
];

export function createLogger(options: { level: LogLevel; format: LogFormat; destination?: DestinationStream }): Logger {
  const base = {
    level: options.level,
    base: { app: 'avalanchego-exporter' },
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
  };
  if (options.format === 'pretty') {
    // Synchronous pretty stream (no worker thread): simple, and fine for humans' volumes.
    return pino(
      base,
      pretty({ destination: options.destination ? undefined : 2, colorize: process.stderr.isTTY, sync: true, ignore: 'app,pid,hostname' }),
    );
  }
  return pino(base, options.destination ?? pino.destination({ dest: 2, sync: false }));
}

/**
 * A child logger made on its first use: the exporter keeps one per node and source (tens of thousands in a large
 * fleet), and most of them never log (a healthy node logs nothing), while a pino child costs about half a KiB of
 * heap (its own prototype, bindings string and level methods). Behaves as `parent.child(bindings)`.
 */
export function lazyChild(parent: Logger, bindings: Record<string, unknown>): Logger {
  let real: Logger | undefined;
  const get = (): Logger => (real ??= parent.child(bindings));
  return new Proxy(Object.create(null) as Logger, {
    get(_target, prop) {
      const logger = get();
      const value: unknown = Reflect.get(logger, prop, logger);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(logger) : value;
    },
    set(_target, prop, value) {
      return Reflect.set(get(), prop, value);
    },
    has(_target, prop) {
      return Reflect.has(get(), prop);
    },
  });
}
