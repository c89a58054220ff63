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
