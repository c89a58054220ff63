// What one node serves and remembers, apart from when it is polled (poller.ts):
// for each enabled source the snapshot it serves, its poll statistics and poll
// logs, its last polls (a small ring) and its sample lines; the node's status
// and since when this process sees it; and the views the server reads
// (summary, detail).
//
// It knows no snapshot's shape: a source's lines, status, summary and page
// sections come through the Source contract (sources/source.ts), and a source
// reads another only through it (`uses`: use, runs). A poll's end
// (settle) allocates nothing that outlives it in the steady state: the ring's
// records, the stats and a source's line block are rewritten in place.
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { lazyChild } from '../log.js';
import type { TargetConfig } from '../config/schema.js';
import { failureFacts, type FailureFacts, type PollError, type Reason } from '../rpc/errors.js';
import { LabelTable, LinesBuilder, NodeLabel, type LineBlock, type NodeLines } from '../metrics/render.js';
import { addPollStats, type SourceStats } from '../metrics/samples.js';
import { validatorFacts, type PageSection, type Problem, type ValidatorFacts, type ValidatorPart } from '../sources/section.js';
import type { Facts } from '../sources/facts.js';
import type { NodeSnapshots, NodeStatus, PollContext, Source, StateWatcher } from '../sources/source.js';
import { truncate } from '../util/text.js';
import { NodeText } from '../util/node-text.js';

/** A short summary of a node's state, for the fleet page. */
export interface NodeSummary {
  name: string;
  url: string;
  /** The node's status at the last poll of the source that decides it (health); undefined before that poll. */
  status?: NodeStatus;
  /** Since when (Unix seconds) the node has its current status, as this process saw it. */
  stateSinceSeconds?: number;
  nodeId?: string;
  lastError?: string;
  /** Each failing source's last failure (its facts and message), for a summary in an operator's words. */
  failures: Array<FailureFacts & { source: string; message: string }>;
  /** The node's enabled sources. */
  sourceCount: number;
  /** Polls every enabled source of the node has completed (the least of them). */
  polls: number;
  /** When the last poll of any source of the node ended (Unix seconds). */
  lastPollSeconds?: number;
  /** What is failing now, with the node's own text (unbounded: shown escaped and cut, never a label). */
  failing: Problem[];
  /** Last accepted height per chain. */
  heights: Array<{ chain: string; height: number }>;
  /** What the node is as a validator (info and platform sources), "no longer a validator" decided (sources/section.ts). */
  validator?: ValidatorFacts;
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
/** The longest poll error kept in the ring. */
const MAX_RECORDED_ERROR = 500;

/** One source's schedule and last polls, on the node page. */
export interface SourceDetail {
  name: string;
  intervalMs: number;
  polls: number;
  success?: boolean;
  lastSuccessSeconds?: number;
  recent: PollRecord[];
}

/** Everything the node page shows: the summary, each source's sections, each source's last polls. */
export interface NodeDetail {
  summary: NodeSummary;
  /** The enabled sources' page sections, in the order of the sources. */
  sections: PageSection[];
  sources: SourceDetail[];
}

/** One enabled source of one node: what it serves now and what is remembered of its polls. */
export interface SourceState {
  readonly source: Source<unknown>;
  readonly intervalMs: number;
  readonly log: Logger;
  readonly watcher: StateWatcher<unknown> | undefined;
  polls: number;
  /** What the source serves now (undefined after a poll that failed without data). */
  snapshot?: unknown;
  /** What the source remembers across its polls (Source.remember), failed polls included. */
  memory?: unknown;
  stats?: SourceStats;
  /** The last poll's series were cut by the target's limits (logged when it starts and ends). */
  truncated?: boolean;
  /** The data series (under the node's limit) this source serves now. */
  dataSeries?: number;
  lines?: LineBlock;
  /** The last poll's error while it is failing, for the pages. */
  lastError?: string;
  /** Its facts and message (without the source's name), for the fleet page's one-line summary. */
  lastFailure?: FailureFacts & { message: string };
  /** The last polls, oldest first (at most RECENT_POLLS). */
  recent: PollRecord[];
  lastEndSeconds?: number;
}

export class NodeState implements NodeSnapshots {
  /** The enabled sources, in the order of the sources given. */
  readonly sources: readonly SourceState[];
  private readonly label: NodeLabel;
  private lines: NodeLines = [];
  private status?: NodeStatus;
  private statusSinceSeconds?: number;
  /**
   * The boundary every text of this node passes on its way out (util/node-text.ts): the target's secrets masked
   * (a node or proxy may echo the request back, in any source's answer) and the text bounded. The views
   * (summary, detail) and the sources' loggers go through it; so does the traced poll (debug-poll.ts).
   */
  readonly text: NodeText;

  constructor(
    readonly target: TargetConfig,
    /** The exporter's sources, enabled for this target or not (one it does not poll may still offer facts). */
    private readonly registered: ReadonlyArray<Source<unknown>>,
    private readonly clock: Clock,
    logger: Logger,
    /** The exporter's label table: every block of this node is built with it. */
    private readonly labels: LabelTable = new LabelTable(),
  ) {
    this.label = new NodeLabel(target.name);
    this.text = new NodeText(target);
    this.sources = registered
      .filter((source) => source.config.enabled(target))
      .map((source) => {
        const log = lazyChild(logger, { source: source.name }, this.text.logArgument);
        return { source, intervalMs: source.config.intervalMs(target), log, watcher: source.watch?.(log), polls: 0, recent: [] };
      });
  }

  runs(name: string): boolean {
    return this.sources.some((s) => s.source.name === name);
  }

  use<K extends keyof Facts>(name: K, ctx: PollContext): Promise<Facts[K]> {
    const source = this.registered.find((s) => s.name === name);
    if (!source?.offers) return Promise.reject(new Error(`no source named ${name} offers facts: check the sources' \`uses\``));
    // Facts[name] is the shape the source named so offers (facts.ts).
    return source.offers(this.sources.find((s) => s.source === source)?.snapshot, ctx) as Promise<Facts[K]>;
  }

  /** Polls every enabled source has completed (the least of them). */
  get polls(): number {
    let least = Infinity;
    for (const s of this.sources) if (s.polls < least) least = s.polls;
    return this.sources.length === 0 ? 0 : least;
  }

  /** The node's sample lines: one block per source that has polled. */
  get nodeLines(): NodeLines {
    return this.lines;
  }

  /**
   * A poll of `s` ended (the boundary caught and classified any failure): the
   * statistics and poll logs, the ring of recent polls, the snapshot it serves
   * (its objects reused when the source can), the node's status, the watcher,
   * and the source's lines under the node's series budget, swapped in.
   */
  settle(s: SourceState, snapshot: unknown, error: PollError | undefined, durationSeconds: number): void {
    const { source, log } = s;
    const stats = this.record(s, durationSeconds, error);
    const nowSeconds = this.clock.now() / 1000;
    // The ring's oldest record is rewritten once it is full (no new object a poll).
    const record: PollRecord =
      s.recent.length >= RECENT_POLLS ? (s.recent.shift() as PollRecord) : { source: source.name, startedSeconds: 0, durationSeconds: 0 };
    record.startedSeconds = nowSeconds - durationSeconds;
    record.durationSeconds = durationSeconds;
    if (error) {
      record.reason = error.reason;
      record.error = truncate(error.message, MAX_RECORDED_ERROR);
    } else if (record.reason !== undefined) {
      delete record.error;
      delete record.reason;
    }
    s.recent.push(record);
    s.lastEndSeconds = nowSeconds;
    if (snapshot !== undefined && s.snapshot !== undefined && source.reuse) snapshot = source.reuse(s.snapshot, snapshot);
    s.snapshot = snapshot;
    if (source.remember) s.memory = source.remember(s.memory, snapshot, nowSeconds);
    if (source.status) this.noteStatus(source.status(snapshot), nowSeconds);
    s.watcher?.observe(snapshot);
    const limits = this.target.limits;
    // One budget per node, shared by its sources: a source gets what the others' last polls left.
    let others = 0;
    for (const o of this.sources) if (o !== s) others += o.dataSeries ?? 0;
    const b = new LinesBuilder(
      this.label,
      { maxSeries: Math.max(0, limits.maxSeriesPerNode - others), maxLabelLength: limits.maxLabelLength },
      this.labels,
    );
    source.samples(b, snapshot, this);
    s.dataSeries = b.limitedSeries;
    b.unlimited();
    if (b.dropped > 0) {
      b.add('avalanchego_exporter_series_dropped', b.dropped, { source: source.name });
      if (!s.truncated)
        log.warn(
          { dropped: b.dropped, maxSeriesPerNode: limits.maxSeriesPerNode, maxLabelLength: limits.maxLabelLength },
          "series limit reached: the node's series are truncated",
        );
    } else if (s.truncated) log.info('series back under the limits');
    s.truncated = b.dropped > 0;
    addPollStats(b, source.name, stats);
    const block = b.build(s.lines);
    // A block rewritten in place is already in the node's list: the list changes only with a new block.
    if (block !== s.lines) {
      s.lines = block;
      this.lines = this.sources.flatMap((o) => (o.lines ? [o.lines] : []));
    }
    s.polls++;
    if (!error) log.debug({ durationSeconds }, 'poll ok');
  }

  /** The fleet page's view of the node: every text of it through the node's boundary (this.text). */
  summary(): NodeSummary {
    return this.text.value(this.rawSummary());
  }

  private rawSummary(): NodeSummary {
    const errors: string[] = [];
    const failures: NodeSummary['failures'] = [];
    const failing: Problem[] = [];
    const heights: NodeSummary['heights'] = [];
    let nodeId: string | undefined;
    let lastPollSeconds: number | undefined;
    let validator: ValidatorPart | undefined;
    for (const s of this.sources) {
      if (s.lastError) errors.push(s.lastError);
      if (s.lastFailure) failures.push({ source: s.source.name, ...s.lastFailure });
      if (s.lastEndSeconds !== undefined && (lastPollSeconds === undefined || s.lastEndSeconds > lastPollSeconds)) lastPollSeconds = s.lastEndSeconds;
      if (s.snapshot === undefined || !s.source.summary) continue;
      const part = s.source.summary(s.snapshot, s.memory);
      nodeId ??= part.nodeId;
      if (part.problems) failing.push(...part.problems);
      if (part.heights) heights.push(...part.heights);
      if (part.validator) validator = { ...validator, ...part.validator };
    }
    return {
      name: this.target.name,
      url: this.target.url,
      ...(this.status !== undefined ? { status: this.status } : {}),
      ...(this.statusSinceSeconds !== undefined ? { stateSinceSeconds: this.statusSinceSeconds } : {}),
      ...(nodeId !== undefined ? { nodeId } : {}),
      failing,
      heights,
      ...(validator ? { validator: validatorFacts(validator, this.status === 'healthy' || this.status === 'unhealthy') } : {}),
      ...(errors.length > 0 ? { lastError: errors.join('; ') } : {}),
      failures,
      sourceCount: this.sources.length,
      ...(lastPollSeconds !== undefined ? { lastPollSeconds } : {}),
      polls: this.polls,
    };
  }

  /** The node page's view: no I/O, the last snapshots and polls; every text through the node's boundary (this.text). */
  detail(): NodeDetail {
    return this.text.value({
      summary: this.rawSummary(),
      sections: this.sources.flatMap((s) => s.source.sections?.(s.snapshot, s.memory) ?? []),
      sources: this.sources.map((s) => ({
        name: s.source.name,
        intervalMs: s.intervalMs,
        polls: s.polls,
        ...(s.stats ? { success: s.stats.success } : {}),
        ...(s.stats?.lastSuccessSeconds !== undefined ? { lastSuccessSeconds: s.stats.lastSuccessSeconds } : {}),
        recent: s.recent.map((r) => ({ ...r })),
      })),
    });
  }

  private noteStatus(status: NodeStatus, nowSeconds: number): void {
    if (status === this.status) return;
    this.status = status;
    this.statusSinceSeconds = nowSeconds;
  }

  /** Poll statistics and the poll logs: a change of state at warn/info, repeats at debug. */
  private record(s: SourceState, durationSeconds: number, error: PollError | undefined): SourceStats {
    const { log } = s;
    const previous = s.stats;
    const stats: SourceStats = previous ?? { success: false, durationSeconds: 0, errors: new Map<Reason, number>() };
    if (error) {
      // Expected failures are logged by message, not stack.
      if (!previous || previous.success) log.warn({ reason: error.reason, error: error.message }, 'poll failed');
      else log.debug({ reason: error.reason, error: error.message }, 'poll failed again');
      // The stack once when it starts, not on every poll.
      if (error.reason === 'internal' && (!previous || previous.success))
        log.error({ err: error.cause ?? error }, 'internal error while polling: please report this');
      stats.errors.set(error.reason, (stats.errors.get(error.reason) ?? 0) + 1);
      s.lastError = `${s.source.name}: ${error.message}`;
      s.lastFailure = { ...failureFacts(error), message: error.message };
    } else {
      if (previous && !previous.success && previous.errors.size > 0) log.info('poll recovered');
      stats.lastSuccessSeconds = this.clock.now() / 1000;
      s.lastError = undefined;
      s.lastFailure = undefined;
    }
    stats.success = !error;
    stats.durationSeconds = durationSeconds;
    s.stats = stats;
    return stats;
  }
}
