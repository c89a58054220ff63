// One node's polls: a loop per enabled source (sources/registry.ts), each on
// the source's own interval. A source's next poll is scheduled when its last
// one ends, so a source's polls of a node never overlap. Each poll has one
// deadline, made when it starts, that bounds its slot waits and requests; a
// poll never throws past runPoll, which maps any failure to a bounded reason.
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { lazyChild } from '../log.js';
import type { TargetConfig } from '../config/schema.js';
import type { Limiter } from '../rpc/limiter.js';
import { NodeClient, type Dispatchers } from '../rpc/client.js';
import { PollDeadline } from '../rpc/deadline.js';
import { classifyError, type PollError, type Reason } from '../rpc/errors.js';
import { LinesBuilder, NodeLabel, type LineBlock, type NodeLines } from '../metrics/render.js';
import { addPollStats, type SourceStats } from '../metrics/samples.js';
import { health, type CheckSnapshot, type ChainSnapshot } from '../sources/health.js';
import { indexApi, type EndpointSnapshot } from '../sources/index-api.js';
import type { NodeSnapshots, PollContext, Source, StateWatcher } from '../sources/source.js';
import { polls, type Due } from './due.js';

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
  /** Since when (Unix seconds) the node is in its current state (up/down, healthy/unhealthy), as this process saw it. */
  stateSinceSeconds?: number;
  /** When the last poll of any source of the node ended (Unix seconds). */
  lastPollSeconds?: number;
  /** The failing checks with the node's own error text (unbounded: shown escaped and truncated, never a label). */
  failing: Array<{ name: string; error?: string; firstFailureSeconds?: number }>;
  /** Last accepted height per chain, from the health report. */
  heights: Array<{ chain: string; height: number }>;
}

/** One poll of one source, kept in a small ring for the status page (like blackbox_exporter's recent probes). */
export interface PollRecord {
  source: string;
  /** When the poll started (Unix seconds). */
  startedSeconds: number;
  durationSeconds: number;
  reason?: Reason;
  error?: string;
}

/** Polls kept per source of a node for the status page. */
export const RECENT_POLLS = 5;

/** Everything the node page shows: the summary, every check, the chains, the index, each source's recent polls. */
export interface NodeDetail {
  summary: NodeSummary;
  checks: CheckSnapshot[];
  chains: ChainSnapshot[];
  nodeId?: string;
  index: EndpointSnapshot[];
  sources: Array<{ name: string; intervalMs: number; polls: number; success?: boolean; lastSuccessSeconds?: number; recent: PollRecord[] }>;
}

/** One step of a debug poll (/probe?debug=true): what was asked, what came back, and how long it took. */
export interface DebugStep {
  /** Milliseconds since the debug poll started. */
  atMs: number;
  source: string;
  text: string;
}

export interface PollerDeps {
  /** Called as each poll starts, with how late it is (seconds after it was due). */
  onPollStart?: (delaySeconds: number) => void;
  /** A poll could not send its requests within its interval (the exporter's own load): counted, never the node's fault. */
  onPollSkipped?: (reason: 'saturated') => void;
  dispatchers: Dispatchers;
  limiter: Limiter;
  clock: Clock;
  sources: ReadonlyArray<Source<unknown>>;
}

/** One source of one node: its schedule (its entry in the poll timetable), what it serves and its poll statistics. */
interface SourceLoop extends Due {
  readonly source: Source<unknown>;
  readonly intervalMs: number;
  readonly log: Logger;
  readonly watcher: StateWatcher<unknown> | undefined;
  running?: Promise<void>;
  polls: number;
  /** What the source serves now (undefined after a poll that failed without data). */
  snapshot?: unknown;
  stats?: SourceStats;
  /** The last poll's series were cut by the target's limits (logged when it starts and ends). */
  truncated?: boolean;
  /** The data series (under the node's limit) this source serves now. */
  dataSeries?: number;
  lines?: LineBlock;
  /** The last poll's error while it is failing, for the landing page. */
  lastError?: string;
  /** The last polls, oldest first (at most RECENT_POLLS). */
  recent: PollRecord[];
  lastEndSeconds?: number;
}

export class NodePoller implements NodeSnapshots {
  private readonly loops: SourceLoop[];
  private readonly client: NodeClient;
  private readonly label: NodeLabel;
  private stopped = false;
  private lines: NodeLines = [];
  /** The node's state as the status page names it, and since when this process sees it. */
  private state?: string;
  private stateSinceSeconds?: number;

  constructor(
    readonly target: TargetConfig,
    private readonly deps: PollerDeps,
    private readonly logger: Logger,
  ) {
    this.client = new NodeClient(target, deps.dispatchers, deps.limiter);
    this.label = new NodeLabel(target.name);
    this.loops = deps.sources
      .filter((source) => source.enabled(target))
      .map((source) => {
        const log = lazyChild(logger, { source: source.name });
        const loop: SourceLoop = {
          source,
          intervalMs: source.intervalMs(target),
          log,
          watcher: source.watch?.(log),
          polls: 0,
          recent: [],
          due: 0,
          slot: -1,
          fire: () => this.begin(loop),
        };
        return loop;
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
    for (const loop of this.loops) polls.remove(loop);
    await Promise.all(this.loops.flatMap((loop) => (loop.running ? [loop.running] : [])));
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
    const failing = report ? report.checks.filter((c) => !c.passing) : [];
    let lastPollSeconds: number | undefined;
    for (const l of this.loops)
      if (l.lastEndSeconds !== undefined && (lastPollSeconds === undefined || l.lastEndSeconds > lastPollSeconds)) lastPollSeconds = l.lastEndSeconds;
    return {
      name: this.target.name,
      url: this.target.url,
      ...(healthLoop && healthLoop.polls > 0 ? { up: report !== undefined } : {}),
      ...(report ? { healthy: report.healthy } : {}),
      failingChecks: failing.map((c) => c.name),
      failing: failing.map((c) => ({
        name: c.name,
        ...(c.error !== undefined ? { error: c.error } : {}),
        ...(c.firstFailureSeconds !== undefined ? { firstFailureSeconds: c.firstFailureSeconds } : {}),
      })),
      heights: report
        ? report.chains.flatMap((c) => (c.lastAcceptedHeight !== undefined ? [{ chain: c.chain, height: c.lastAcceptedHeight }] : []))
        : [],
      ...(errors.length > 0 ? { lastError: errors.join('; ') } : {}),
      ...(this.stateSinceSeconds !== undefined ? { stateSinceSeconds: this.stateSinceSeconds } : {}),
      ...(lastPollSeconds !== undefined ? { lastPollSeconds } : {}),
      polls: this.polls,
    };
  }

  /** The node page's view: no I/O, the last snapshots and polls. */
  detail(): NodeDetail {
    const report = this.latest(health);
    return {
      summary: this.summary(),
      checks: report?.checks ?? [],
      chains: report?.chains ?? [],
      ...(report?.nodeId ? { nodeId: report.nodeId } : {}),
      index: this.latest(indexApi)?.endpoints ?? [],
      sources: this.loops.map((l) => ({
        name: l.source.name,
        intervalMs: l.intervalMs,
        polls: l.polls,
        ...(l.stats ? { success: l.stats.success } : {}),
        ...(l.stats?.lastSuccessSeconds !== undefined ? { lastSuccessSeconds: l.stats.lastSuccessSeconds } : {}),
        recent: l.recent.map((r) => ({ ...r })),
      })),
    };
  }

  /**
   * One fresh poll of every enabled source, traced step by step for /probe?debug=true:
   * each request, its status, size and time, and what the parser made of it. It goes
   * through the same request cap and deadline as a scheduled poll, and changes nothing
   * the node serves.
   */
  async debugPoll(): Promise<DebugStep[]> {
    const t0 = performance.now();
    const steps: DebugStep[] = [];
    // A node or proxy may echo a request header back in its body: never show a configured secret.
    const secrets = [...Object.values(this.target.headers), this.target.basicAuth?.password].filter((v): v is string => !!v && v.length >= 4);
    if (this.target.basicAuth) secrets.push(Buffer.from(`${this.target.basicAuth.username}:${this.target.basicAuth.password}`).toString('base64'));
    const note = (source: string, text: string) => {
      for (const secret of secrets) text = text.split(secret).join('<secret>');
      steps.push({ atMs: Math.round((performance.now() - t0) * 10) / 10, source, text });
    };
    await Promise.all(
      this.loops.map(async ({ source }) => {
        const deadline = new AbortController();
        const timer = setTimeout(() => deadline.abort(new Error(`poll deadline of ${this.target.timeoutMs} ms passed`)), this.target.timeoutMs);
        note(source.name, `poll started (deadline ${this.target.timeoutMs} ms)`);
        const ctx: PollContext = {
          target: this.target,
          signal: deadline.signal,
          node: this,
          now: () => this.deps.clock.now(),
          rpc: async (path, method, params) => {
            const started = performance.now();
            note(source.name, `POST ${this.target.url}${path} ${method} ${JSON.stringify(params)}`);
            try {
              const reply = await this.client.rpc(path, method, params, deadline.signal);
              const ms = Math.round((performance.now() - started) * 10) / 10;
              note(
                source.name,
                `  → HTTP ${reply.status}, ${Buffer.byteLength(reply.body)} bytes in ${ms} ms${reply.headers['node-id'] ? `, node-id ${String(reply.headers['node-id'])}` : ''}: ${debugSnippet(reply.body)}`,
              );
              return reply;
            } catch (err) {
              note(
                source.name,
                `  → no answer after ${Math.round(performance.now() - started)} ms: ${(err as Error).message}${(err as Error).cause ? ` (${String((err as { cause?: unknown }).cause)})` : ''}`,
              );
              throw err;
            }
          },
        };
        const started = performance.now();
        try {
          const snapshot = await source.poll(ctx);
          const partial = source.failure?.(snapshot);
          const ms = Math.round(performance.now() - started);
          if (partial !== undefined) {
            const e = classifyError(partial, { url: this.target.url, timeoutMs: this.target.timeoutMs });
            note(source.name, `poll FAILED after ${ms} ms, reason=${e.reason}: ${e.message} (the data that did arrive is kept)`);
          } else note(source.name, `poll succeeded in ${ms} ms`);
          note(source.name, `parsed: ${debugSnippet(JSON.stringify(snapshot))}`);
        } catch (err) {
          const e = classifyError(err, { url: this.target.url, timeoutMs: this.target.timeoutMs });
          note(source.name, `poll FAILED after ${Math.round(performance.now() - started)} ms, reason=${e.reason}: ${e.message}`);
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    return steps;
  }

  /** Schedules the loop's next poll, due `delayMs` from now; its start is compared with that due time. */
  private schedule(loop: SourceLoop, delayMs: number): void {
    if (this.stopped) return;
    polls.add(loop, delayMs);
  }

  /** The loop's poll is due: it starts, and when it ends the next one is scheduled. */
  private begin(loop: SourceLoop): void {
    const started = performance.now();
    this.deps.onPollStart?.(Math.max(0, started - loop.due) / 1000);
    loop.running = this.runPoll(loop).finally(() => {
      loop.running = undefined;
      // Keep the cadence: the next poll is due one interval after this one started. A late start moves the
      // schedule instead of bunching polls to catch up, so an overloaded process slows down, and says so.
      const jitter = Math.random() * loop.intervalMs * 0.01;
      this.schedule(loop, Math.max(0, loop.intervalMs - (performance.now() - started)) + jitter);
    });
  }

  /**
   * The poll boundary: one deadline for the whole poll, timed, everything
   * caught and mapped to a PollError with a bounded reason; then the source's
   * lines and the poll metrics are built once and the node's lines swapped.
   */
  private async runPoll(loop: SourceLoop): Promise<void> {
    const { source, log } = loop;
    const started = performance.now();
    // The node's timeout runs while a request is on the wire; waiting for a slot or a socket is bounded by the interval.
    const deadline = new PollDeadline(this.target.timeoutMs, loop.intervalMs);
    let snapshot: unknown;
    let failure: { error: unknown } | undefined;
    try {
      snapshot = await source.poll(this.context(deadline));
      const partial = source.failure?.(snapshot);
      if (partial !== undefined) failure = { error: partial };
    } catch (err) {
      failure = { error: err };
    } finally {
      deadline.clear();
    }
    if (failure && deadline.saturated) {
      // The exporter's own saturation: not a failure of the node. Its state, series and poll metrics stay as they were.
      this.deps.onPollSkipped?.('saturated');
      log.debug('poll skipped: the exporter could not send its requests within the interval (saturated)');
      return;
    }
    const durationSeconds = Math.round((performance.now() - started) * 1000) / 1e6;
    const error = failure ? classifyError(failure.error, { url: this.target.url, timeoutMs: this.target.timeoutMs }) : undefined;
    const stats = this.record(loop, durationSeconds, error);
    const nowSeconds = this.deps.clock.now() / 1000;
    // The ring's oldest record is rewritten once it is full (no new object a poll).
    const record: PollRecord =
      loop.recent.length >= RECENT_POLLS ? (loop.recent.shift() as PollRecord) : { source: source.name, startedSeconds: 0, durationSeconds: 0 };
    record.startedSeconds = nowSeconds - durationSeconds;
    record.durationSeconds = durationSeconds;
    if (error) {
      record.reason = error.reason;
      record.error = truncate(error.message, 500);
    } else if (record.reason !== undefined) {
      delete record.error;
      delete record.reason;
    }
    loop.recent.push(record);
    loop.lastEndSeconds = nowSeconds;
    if (snapshot !== undefined && loop.snapshot !== undefined && source.reuse) snapshot = source.reuse(loop.snapshot, snapshot);
    loop.snapshot = snapshot;
    if (source === health)
      this.noteState(snapshot === undefined ? 'down' : (snapshot as { healthy: boolean }).healthy ? 'healthy' : 'unhealthy', nowSeconds);
    loop.watcher?.observe(snapshot);
    const limits = this.target.limits;
    // One budget per node, shared by its sources: a source gets what the others' last polls left.
    let others = 0;
    for (const l of this.loops) if (l !== loop) others += l.dataSeries ?? 0;
    const b = new LinesBuilder(this.label, { maxSeries: Math.max(0, limits.maxSeriesPerNode - others), maxLabelLength: limits.maxLabelLength });
    source.samples(b, snapshot);
    loop.dataSeries = b.limitedSeries;
    b.unlimited();
    if (b.dropped > 0) {
      b.add('avalanchego_exporter_series_dropped', b.dropped, { source: source.name });
      if (!loop.truncated)
        log.warn(
          { dropped: b.dropped, maxSeriesPerNode: limits.maxSeriesPerNode, maxLabelLength: limits.maxLabelLength },
          "series limit reached: the node's series are truncated",
        );
    } else if (loop.truncated) log.info('series back under the limits');
    loop.truncated = b.dropped > 0;
    addPollStats(b, source.name, stats);
    const block = b.build(loop.lines);
    // A block rewritten in place is already in the node's list: the list changes only with a new block.
    if (block !== loop.lines) {
      loop.lines = block;
      this.lines = this.loops.flatMap((l) => (l.lines ? [l.lines] : []));
    }
    loop.polls++;
    if (!error) log.debug({ durationSeconds }, 'poll ok');
  }

  private noteState(state: string, nowSeconds: number): void {
    if (state === this.state) return;
    this.state = state;
    this.stateSinceSeconds = nowSeconds;
  }

  private context(deadline: PollDeadline): PollContext {
    const { signal } = deadline;
    return {
      target: this.target,
      signal,
      rpc: (path, method, params) => this.client.rpc(path, method, params, signal, deadline),
      node: this,
      now: () => this.deps.clock.now(),
    };
  }

  /** Poll statistics and the poll logs: a change of state at warn/info, repeats at debug. */
  private record(loop: SourceLoop, durationSeconds: number, error: PollError | undefined): SourceStats {
    const { log } = loop;
    const previous = loop.stats;
    const stats: SourceStats = previous ?? { success: false, durationSeconds: 0, errors: new Map<Reason, number>() };
    if (error) {
      // Expected failures are logged by message, not stack.
      if (!previous || previous.success) log.warn({ reason: error.reason, error: error.message }, 'poll failed');
      else log.debug({ reason: error.reason, error: error.message }, 'poll failed again');
      // The stack once when it starts, not on every poll.
      if (error.reason === 'internal' && (!previous || previous.success))
        log.error({ err: error.cause ?? error }, 'internal error while polling: please report this');
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
    return stats;
  }
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}

/** The first 600 characters of a body or parse result, on one line. */
function debugSnippet(text: string): string {
  return truncate(text.replace(/\s+/g, ' '), 600);
}
