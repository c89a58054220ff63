// One node's polls: a loop per enabled source (sources/registry.ts), each on
// the source's own interval. A source's next poll is scheduled when its last
// one ends, so a source's polls of a node never overlap. Each poll has one
// deadline, made when it starts, that bounds its slot waits and requests; a
// poll never throws past runPoll, which maps any failure to a bounded reason.
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { TargetConfig } from '../config/schema.js';
import type { Limiter } from '../rpc/limiter.js';
import { NodeClient, type Dispatchers } from '../rpc/client.js';
import { classifyError, type PollError, type Reason } from '../rpc/errors.js';
import { LinesBuilder, mergeLines, type NodeLines } from '../metrics/render.js';
import { addPollStats, type SourceStats } from '../metrics/samples.js';
import { health } from '../sources/health.js';
import type { NodeSnapshots, PollContext, Source, StateWatcher } from '../sources/source.js';

/** A short summary of a node's state, for the landing page and logs. */
export interface NodeSummary {
  name: string;
  url: string;
  up?: boolean;
  healthy?: boolean;
  failingChecks: string[];
  lastError?: string;
  /** Polls every enabled source of the node has completed (the least of them). */
  polls: number;
}

export interface PollerDeps {
  dispatchers: Dispatchers;
  limiter: Limiter;
  clock: Clock;
  sources: ReadonlyArray<Source<unknown>>;
}

/** One source of one node: its schedule, what it serves and its poll statistics. */
interface SourceLoop {
  readonly source: Source<unknown>;
  readonly intervalMs: number;
  readonly log: Logger;
  readonly watcher: StateWatcher<unknown> | undefined;
  timer?: NodeJS.Timeout;
  running?: Promise<void>;
  polls: number;
  /** What the source serves now (undefined after a poll that failed without data). */
  snapshot?: unknown;
  stats?: SourceStats;
  lines: NodeLines;
  /** The last poll's error while it is failing, for the landing page. */
  lastError?: string;
}

export class NodePoller implements NodeSnapshots {
  private readonly loops: SourceLoop[];
  private readonly client: NodeClient;
  private stopped = false;
  private lines: NodeLines = [];

  constructor(
    readonly target: TargetConfig,
    private readonly deps: PollerDeps,
    private readonly logger: Logger,
  ) {
    this.client = new NodeClient(target, deps.dispatchers, deps.limiter);
    this.loops = deps.sources
      .filter((source) => source.enabled(target))
      .map((source) => {
        const log = logger.child({ source: source.name });
        return { source, intervalMs: source.intervalMs(target), log, watcher: source.watch?.(log), polls: 0, lines: [] };
      });
  }

  /** Starts each source's loop; the first polls run after `initialDelayMs` (spreads a fleet's polls over the interval). */
  start(initialDelayMs: number): void {
    if (this.loops.length === 0) this.logger.warn('no source is enabled for this target: it is not polled');
    for (const loop of this.loops) this.schedule(loop, initialDelayMs);
  }

  /** Stops the loops and waits for the polls under way (each is bounded by its deadline). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const loop of this.loops) clearTimeout(loop.timer);
    await Promise.all(this.loops.map((loop) => loop.running));
  }

  get polls(): number {
    return this.loops.length === 0 ? 0 : Math.min(...this.loops.map((l) => l.polls));
  }

  /** Every enabled source has completed a poll. */
  get hasPolled(): boolean {
    return this.loops.every((l) => l.polls > 0);
  }

  get nodeLines(): NodeLines {
    return this.lines;
  }

  latest<T>(source: Source<T>): T | undefined {
    return this.loops.find((l) => l.source === source)?.snapshot as T | undefined;
  }

  summary(): NodeSummary {
    const healthLoop = this.loops.find((l) => l.source === health);
    const report = this.latest(health);
    const errors = this.loops.flatMap((l) => (l.lastError ? [l.lastError] : []));
    return {
      name: this.target.name,
      url: this.target.url,
      ...(healthLoop && healthLoop.polls > 0 ? { up: report !== undefined } : {}),
      ...(report ? { healthy: report.healthy } : {}),
      failingChecks: report ? report.checks.filter((c) => !c.passing).map((c) => c.name) : [],
      ...(errors.length > 0 ? { lastError: errors.join('; ') } : {}),
      polls: this.polls,
    };
  }

  private schedule(loop: SourceLoop, delayMs: number): void {
    if (this.stopped) return;
    loop.timer = setTimeout(() => {
      const started = performance.now();
      loop.running = this.runPoll(loop).finally(() => {
        loop.running = undefined;
        // Keep the cadence: the next poll is due one interval after this one started.
        const jitter = Math.random() * loop.intervalMs * 0.01;
        this.schedule(loop, Math.max(0, loop.intervalMs - (performance.now() - started)) + jitter);
      });
    }, delayMs);
  }

  /**
   * The poll boundary: one deadline for the whole poll, timed, everything
   * caught and mapped to a PollError with a bounded reason; then the source's
   * lines and the poll metrics are built once and the node's lines swapped.
   */
  private async runPoll(loop: SourceLoop): Promise<void> {
    const { source, log } = loop;
    const started = performance.now();
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Error(`poll deadline of ${this.target.timeoutMs} ms passed`)), this.target.timeoutMs);
    let snapshot: unknown;
    let failure: { error: unknown } | undefined;
    try {
      snapshot = await source.poll(this.context(deadline.signal));
      const partial = source.failure?.(snapshot);
      if (partial !== undefined) failure = { error: partial };
    } catch (err) {
      failure = { error: err };
    } finally {
      clearTimeout(timer);
    }
    const durationSeconds = Math.round((performance.now() - started) * 1000) / 1e6;
    const error = failure ? classifyError(failure.error, { url: this.target.url, timeoutMs: this.target.timeoutMs }) : undefined;
    this.record(loop, durationSeconds, error);
    loop.snapshot = snapshot;
    loop.watcher?.observe(snapshot);
    const b = new LinesBuilder(this.target.name);
    source.samples(b, snapshot);
    addPollStats(b, source.name, loop.stats!);
    loop.lines = b.build();
    loop.polls++;
    this.lines = mergeLines(this.loops.map((l) => l.lines));
    if (!error) log.debug({ durationSeconds }, 'poll ok');
  }

  private context(signal: AbortSignal): PollContext {
    return {
      target: this.target,
      signal,
      rpc: (path, method, params) => this.client.rpc(path, method, params, signal),
      node: this,
    };
  }

  /** Poll statistics and the poll logs: a change of state at warn/info, repeats at debug. */
  private record(loop: SourceLoop, durationSeconds: number, error: PollError | undefined): void {
    const { log } = loop;
    const previous = loop.stats;
    const stats: SourceStats = previous ?? { success: false, durationSeconds: 0, errors: new Map<Reason, number>() };
    if (error) {
      // Expected failures are logged by message, not stack.
      if (!previous || previous.success) log.warn({ reason: error.reason, error: error.message }, 'poll failed');
      else log.debug({ reason: error.reason, error: error.message }, 'poll failed again');
      if (error.reason === 'internal') log.error({ err: error.cause ?? error }, 'internal error while polling: please report this');
      stats.errors.set(error.reason, (stats.errors.get(error.reason) ?? 0) + 1);
      loop.lastError = `${loop.source.name}: ${error.message}`;
    } else {
      if (previous && !previous.success && previous.errors.size > 0) log.info('poll recovered');
      stats.lastSuccessSeconds = this.deps.clock.now() / 1000;
      loop.lastError = undefined;
    }
    stats.success = !error;
    stats.durationSeconds = durationSeconds;
    loop.stats = stats;
  }
}
