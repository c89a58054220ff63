// The posture source: what a node exposes that it should not, or runs in a way
// that costs it. Off by default (target.admin.enabled): it sends requests the
// node's operator did not ask for. Both requests only read:
//   - admin.getLoggerLevel on /ext/admin: whether the admin API answers (a
//     security finding on a production node) and the level of every logger
//     (a node left on debug or verbo costs disk and CPU). Never a state-changing
//     admin call.
//   - index.getLastAccepted on /ext/index/C/block: whether indexing is on.
// An endpoint that is off (HTTP 404, a method the node does not have) is a
// state of the node, not a failed poll.
import { configSection, sourceKeys } from '../config/source-section.js';
import type { RpcReply } from '../rpc/client.js';
import { InvalidResponseError } from '../rpc/errors.js';
import type { LinesBuilder } from '../metrics/render.js';
import type { Source } from './source.js';
import { askAll, decodeMethod, replyOf, type Failed } from './wire.js';

export const ADMIN_PATH = '/ext/admin';
export const ADMIN_METHOD = 'admin.getLoggerLevel';
const INDEX_PROBE_PATH = '/ext/index/C/block';
/** AvalancheGo's log levels (utils/logging/level.go), lower-cased; anything else is `unknown`. */
export const LOG_LEVELS = ['off', 'fatal', 'error', 'warn', 'info', 'trace', 'debug', 'verbo'] as const;
type LevelLabel = (typeof LOG_LEVELS)[number] | 'unknown';

export interface AdminSnapshot {
  adminApiEnabled: boolean;
  /** Loggers per output and level; absent when the admin API is off. */
  levels?: { log: Partial<Record<LevelLabel, number>>; display: Partial<Record<LevelLabel, number>> };
  indexingEnabled?: boolean;
  /** A request that failed or an answer that is not the method's: fails the poll, the rest is served. */
  failure?: unknown;
}

function level(value: unknown): LevelLabel {
  const v = typeof value === 'string' ? value.toLowerCase() : '';
  return (LOG_LEVELS as readonly string[]).includes(v) ? (v as LevelLabel) : 'unknown';
}

/** Any JSON-RPC error from a method that exists: the API answers, so it is on. */
const answers = () => 'answers' as const;

/** Pure: admin.getLoggerLevel's answer → whether the API is on and the loggers by level. */
export function parseLoggerLevels(reply: RpcReply): Pick<AdminSnapshot, 'adminApiEnabled' | 'levels'> {
  const outcome = decodeMethod(reply, ['not_served', 'unsupported'], answers);
  if (outcome.state !== 'ok') return { adminApiEnabled: outcome.state === 'answers' };
  const loggers = (outcome.result as { loggerLevels?: unknown } | null)?.loggerLevels;
  if (!loggers || typeof loggers !== 'object' || Array.isArray(loggers)) {
    throw new InvalidResponseError(`${ADMIN_METHOD} at ${reply.url} answered without a loggerLevels map`);
  }
  const levels: NonNullable<AdminSnapshot['levels']> = { log: {}, display: {} };
  for (const l of Object.values(loggers as Record<string, unknown>)) {
    const entry = (l ?? {}) as { logLevel?: unknown; displayLevel?: unknown };
    const log = level(entry.logLevel);
    const display = level(entry.displayLevel);
    levels.log[log] = (levels.log[log] ?? 0) + 1;
    levels.display[display] = (levels.display[display] ?? 0) + 1;
  }
  return { adminApiEnabled: true, levels };
}

/** Pure: the index probe's answer → whether indexing is on (any JSON-RPC answer is; HTTP 404 is off). */
export function parseIndexingProbe(reply: RpcReply): boolean {
  return decodeMethod(reply, ['not_served'], answers).state !== 'not_served';
}

/**
 * Pure: both answers → the snapshot. The admin API's failure fails the poll with no data; the index probe's
 * is kept as the poll's failure, the rest served.
 */
export function parseAdmin(logger: RpcReply | Failed, indexing: RpcReply | Failed): AdminSnapshot {
  const s: AdminSnapshot = { ...parseLoggerLevels(replyOf(logger)) };
  try {
    s.indexingEnabled = parseIndexingProbe(replyOf(indexing));
  } catch (error) {
    s.failure = error;
  }
  return s;
}

/** Off by default. */
export const adminConfig = configSection('admin', {
  description: 'The admin source (admin.getLoggerLevel on {url}/ext/admin).',
  keys: sourceKeys({
    enabled:
      "Check the node's posture with a read-only admin call (admin.getLoggerLevel): whether the admin API answers, and its logger levels. Off by default: it sends a request the node's operator may not expect.",
    interval: 'the posture is checked',
  }),
  defaults: { enabled: false, interval: '5m' },
});

export const admin: Source<AdminSnapshot, unknown, typeof adminConfig> = {
  name: 'admin',
  config: adminConfig,
  async poll(ctx) {
    const [logger, indexing] = await askAll(
      [
        { path: ADMIN_PATH, method: ADMIN_METHOD, params: { loggerName: '' } },
        { path: INDEX_PROBE_PATH, method: 'index.getLastAccepted', params: { encoding: 'hex' } },
      ],
      (request) => ctx.rpc(request.path, request.method, request.params),
    );
    return parseAdmin(logger, indexing);
  },
  failure: (snapshot) => snapshot.failure,
  samples(b: LinesBuilder, s: AdminSnapshot | undefined) {
    if (!s) return;
    b.add('avalanchego_admin_api_enabled', s.adminApiEnabled ? 1 : 0);
    if (s.levels) {
      for (const output of ['log', 'display'] as const) {
        for (const [lvl, n] of Object.entries(s.levels[output])) b.add('avalanchego_logger_level', n, { output, level: lvl });
      }
    }
    if (s.indexingEnabled !== undefined) b.add('avalanchego_indexing_enabled', s.indexingEnabled ? 1 : 0);
  },
};
