// One node's poll loop. Each tick polls the node's sources in parallel, builds
// a complete view and swaps it in; the next tick is scheduled when this one
// ends, so polls of a node never overlap. A poll never throws past runSource.
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { TargetConfig } from '../config/schema.js';
import { NodeClient, type Dispatchers } from '../rpc/client.js';
import { PollError, classifyError, type Reason } from '../rpc/errors.js';
import { pollHealth, type HealthSnapshot } from '../sources/health.js';
import { pollIndex, type IndexSnapshot } from '../sources/index.js';
import { buildNodeLines, type NodeView, type SourceName, type SourceStats } from '../metrics/samples.js';
import type { NodeLines } from '../metrics/render.js';
import type { Limiter } from './limiter.js';

export interface Clock {
  /** Wall-clock milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

type Outcome<T> = { ok: true; value: T; durationSeconds: number } | { ok: false; error: PollError; durationSeconds: number; value?: T };

/** A short summary of a node's state, for the landing page and logs. */
export interface NodeSummary {
  name: string;
  url: string;
  up?: boolean;
  healthy?: boolean;
  failingChecks: string[];
  lastError?: string;
  polls: number;
}

function firstIndexFailure(snapshot: IndexSnapshot): PollError | undefined {
  for (const e of snapshot.endpoints) if (e.state === 'failed') return e.error;
  return undefined;
}

export class NodePoller {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private readonly client: NodeClient;
  private readonly view: NodeView;
  private lines: NodeLines = [];
  private polls = 0;
  /** The last poll error of each source that is failing now. */
  private readonly lastErrors: Partial<Record<SourceName, string>> = {};
  private readonly sourceLogs: Record<SourceName, Logger>;
  private failingChecks = new Map<string, string | undefined>();
  private indexDisabled = new Set<string>();

  constructor(
    readonly target: TargetConfig,
    dispatchers: Dispatchers,
    limiter: Limiter,
    private readonly logger: Logger,
    private readonly clock: Clock,
    private readonly onPolled: () => void = () => {},
  ) {
    this.client = new NodeClient(target, dispatchers, limiter);
    this.sourceLogs = { health: logger.child({ source: 'health' }), index: logger.child({ source: 'index' }) };
    this.view = { name: target.name, stats: {} };
  }

  /** Starts the loop; the first poll runs after `initialDelayMs` (spreads a fleet's polls over the interval). */
  start(initialDelayMs: number): void {
    this.schedule(initialDelayMs);
  }

  /** Stops the loop and waits for a poll under way to end (each request is bounded by the timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  get hasPolled(): boolean {
    return this.polls > 0;
  }

  get nodeLines(): NodeLines {
    return this.lines;
  }

  summary(): NodeSummary {
    const health = this.view.health;
    return {
      name: this.target.name,
      url: this.target.url,
      ...(health !== undefined ? { up: health !== null } : {}),
      ...(health ? { healthy: health.snapshot.healthy } : {}),
      failingChecks: health ? health.snapshot.checks.filter((c) => !c.passing).map((c) => c.name) : [],
      ...(this.lastErrors.health || this.lastErrors.index
        ? { lastError: [this.lastErrors.health, this.lastErrors.index].filter(Boolean).join('; ') }
        : {}),
      polls: this.polls,
    };
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => {
        this.running = undefined;
      });
    }, delayMs);
  }

  /** One poll of every source; public so tests and /probe-style callers can force one. */
  async tick(): Promise<void> {
    const started = performance.now();
    const [health, index] = await Promise.all([
      this.target.health.enabled ? this.runSource('health', () => pollHealth(this.client, this.target)) : undefined,
      this.target.index.endpoints.length > 0
        ? this.runSource('index', () => pollIndex(this.client, this.target), firstIndexFailure)
        : undefined,
    ]);
    const now = this.clock.now() / 1000;
    if (health) {
      this.record('health', health, now);
      this.view.health = health.ok ? health.value : null;
      this.noteHealth(health.ok ? health.value.snapshot : undefined);
    }
    if (index) {
      this.record('index', index, now);
      // Endpoints that answered keep their values even when another failed.
      this.view.index = index.value;
      this.noteIndex(index.value);
    }
    this.lines = buildNodeLines(this.view);
    this.polls++;
    this.onPolled();
    const elapsed = performance.now() - started;
    // Keep the cadence: the next poll is due one interval after this one started.
    const jitter = Math.random() * this.target.intervalMs * 0.01;
    this.schedule(Math.max(0, this.target.intervalMs - elapsed) + jitter);
  }

  /**
   * The poll boundary: times the poll, catches everything and maps it to a
   * PollError with a bounded reason. `failureOf` lets a source that returns
   * partial data (the index) say the poll failed while keeping the data.
   */
  private async runSource<T>(source: SourceName, poll: () => Promise<T>, failureOf?: (value: T) => PollError | undefined): Promise<Outcome<T>> {
    const started = performance.now();
    let value: T | undefined;
    let error: PollError | undefined;
    try {
      value = await poll();
      error = failureOf?.(value);
    } catch (err) {
      error = err instanceof PollError ? err : classifyError(err, { url: this.target.url, timeoutMs: this.target.timeoutMs, timedOut: false });
    }
    const durationSeconds = Math.round((performance.now() - started) * 1000) / 1e6;
    const log = this.sourceLogs[source];
    if (!error) {
      log.debug({ durationSeconds }, 'poll ok');
      return { ok: true, value: value as T, durationSeconds };
    }
    const previous = this.view.stats[source];
    // Expected failures are logged by message, not stack; a state change at warn, repeats at debug.
    if (!previous || previous.success) log.warn({ reason: error.reason, error: error.message }, 'poll failed');
    else log.debug({ reason: error.reason, error: error.message }, 'poll failed again');
    if (error.reason === 'internal') log.error({ err: error.cause ?? error }, 'internal error while polling: please report this');
    this.lastErrors[source] = `${source}: ${error.message}`;
    return { ok: false, error, durationSeconds, ...(value !== undefined ? { value } : {}) };
  }

  private record(source: SourceName, outcome: Outcome<unknown>, nowSeconds: number): void {
    const stats: SourceStats = this.view.stats[source] ?? { success: false, durationSeconds: 0, errors: new Map<Reason, number>() };
    if (outcome.ok && stats.errors.size > 0 && !stats.success) {
      this.sourceLogs[source].info('poll recovered');
    }
    stats.success = outcome.ok;
    stats.durationSeconds = outcome.durationSeconds;
    if (outcome.ok) stats.lastSuccessSeconds = nowSeconds;
    else stats.errors.set(outcome.error.reason, (stats.errors.get(outcome.error.reason) ?? 0) + 1);
    this.view.stats[source] = stats;
    if (outcome.ok) delete this.lastErrors[source];
  }

  /** Logs checks that start failing or recover (state changes only). */
  private noteHealth(snapshot: HealthSnapshot | undefined): void {
    if (!snapshot) return;
    const now = new Map(snapshot.checks.filter((c) => !c.passing).map((c) => [c.name, c.error]));
    for (const [check, error] of now) {
      if (!this.failingChecks.has(check)) this.sourceLogs.health.warn({ check, error }, 'health check failing');
    }
    for (const check of this.failingChecks.keys()) {
      if (!now.has(check)) this.sourceLogs.health.info({ check }, 'health check recovered');
    }
    this.failingChecks = now;
  }

  /** Indexing off (HTTP 404) is logged once per change, not at every poll. */
  private noteIndex(snapshot: IndexSnapshot | undefined): void {
    if (!snapshot) return;
    for (const e of snapshot.endpoints) {
      if (e.state === 'disabled' && !this.indexDisabled.has(e.endpoint)) {
        this.indexDisabled.add(e.endpoint);
        this.sourceLogs.index.info(
          { endpoint: e.endpoint },
          'index endpoint answers HTTP 404: indexing is off on this node (--index-enabled=false); reported as avalanchego_index_available 0',
        );
      } else if (e.state !== 'disabled' && e.state !== 'failed' && this.indexDisabled.delete(e.endpoint)) {
        this.sourceLogs.index.info({ endpoint: e.endpoint }, 'index endpoint available again');
      }
    }
  }
}
