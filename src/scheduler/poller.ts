// One node's polls: a loop per enabled source (sources/registry.ts), each on
// the source's own interval. A source's next poll is scheduled when its last
// one ends, so a source's polls of a node never overlap. Each poll has one
// deadline (rpc/deadline.ts), made when it starts: the node's timeout runs
// while a request is on the wire, the exporter's waiting for a slot or a
// socket is bounded by the interval (past it the poll is skipped as
// saturated, never the node's fault); a poll never throws past the boundary
// (pollBounded), which maps any failure to a bounded reason. What a poll leaves behind is the node state's
// (node-state.ts); the traced poll of /probe?debug=true is debug-poll.ts.
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { TargetConfig } from '../config/schema.js';
import { isOverdue, type Admission, type NodeAdmission } from '../rpc/admission.js';
import { NodeClient, type RequestBodies } from '../rpc/client.js';
import { PollDeadline, type PollHandle } from '../rpc/deadline.js';
import type { Dispatchers } from '../rpc/sockets.js';
import { classifyError, type PollError } from '../rpc/errors.js';
import type { LabelTable, NodeLines } from '../metrics/render.js';
import type { PollContext, Source } from '../sources/source.js';
import type { Due, DueQueue } from './due.js';
import { NodeState, type NodeDetail, type NodeSummary, type SourceState } from './node-state.js';

export interface PollerDeps {
  /** Called as each poll starts, with how late it is (seconds after it was due). */
  onPollStart?: (delaySeconds: number) => void;
  /** A poll could not send its requests within its interval (the exporter's own load): counted, never the node's fault. */
  onPollSkipped?: (reason: 'saturated') => void;
  dispatchers: Dispatchers;
  /** The exporter's admission (rpc/admission.ts): the process's and the origins' slots, and the skip rule. */
  admission: Admission;
  clock: Clock;
  sources: ReadonlyArray<Source<unknown>>;
  /** The exporter's poll timetable, shared by its nodes. */
  timetable: DueQueue;
  /** The exporter's request bodies and label table, shared by its nodes (never by two exporters). */
  bodies: RequestBodies;
  labels: LabelTable;
}

/** What one poll produced; pollBounded fills it (a loop reuses its own, poll after poll). */
export interface PollOutcome {
  /** What the source made of the answers (undefined when the poll failed without data). */
  snapshot: unknown;
  /** The failure, classified (a source that keeps partial data may have both). */
  error: PollError | undefined;
  durationSeconds: number;
  /** The poll could not send within its interval: the exporter was saturated (not the node's fault). */
  saturated?: boolean;
}

/**
 * The poll boundary: one deadline a poll (rpc/deadline.ts), timed,
 * everything caught and mapped to a PollError with a bounded reason
 * (rpc/errors.ts classifyError), or marked saturated. Never rejects.
 */
async function pollBounded(
  source: Source<unknown>,
  target: TargetConfig,
  context: (poll: PollHandle) => PollContext,
  into: PollOutcome,
  deadline: PollDeadline,
): Promise<void> {
  const started = performance.now();
  let snapshot: unknown;
  let failure: { error: unknown } | undefined;
  try {
    snapshot = await source.poll(context(deadline));
    const partial = source.failure?.(snapshot);
    if (partial !== undefined) failure = { error: partial };
  } catch (err) {
    failure = { error: err };
  } finally {
    deadline.clear();
  }
  into.durationSeconds = Math.round((performance.now() - started) * 1000) / 1e6;
  into.snapshot = snapshot;
  into.saturated = failure !== undefined && deadline.saturated;
  into.error = failure ? classifyError(failure.error, { url: target.url, timeoutMs: target.timeoutMs }) : undefined;
}

/** One source of one node on the timetable: its entry (Due), its state, and its poll under way. */
interface SourceLoop extends Due {
  readonly state: SourceState;
  readonly outcome: PollOutcome;
  running?: Promise<void>;
  /** Its polls skipped as saturated in a row: each doubles the queue its next poll may join, up to 4 × (fair under saturation). */
  skips: number;
  /** Its first poll has ended: settled, or skipped as saturated. */
  tried: boolean;
}

export class NodePoller {
  private readonly loops: SourceLoop[];
  /** The node's HTTP client (the traced poll of debug-poll.ts uses it too). */
  readonly client: NodeClient;
  /** The node's admission: its slots, its hanging mark, and whether a poll due now is tried. */
  private readonly door: NodeAdmission;
  readonly state: NodeState;
  private stopped = false;
  /** Aborted by stop(): polls under way end at once (one waiting for a slot may otherwise wait out its interval). */
  private readonly stopping = new AbortController();
  /** The context of a scheduled poll, made once a node (not a closure a poll). */
  private readonly context = (poll: PollHandle): PollContext => ({
    target: this.target,
    signal: poll.signal,
    rpc: (path, method, params) => this.client.rpc(path, method, params, poll),
    stream: (path, sink) => this.client.stream(path, sink, poll),
    node: this.state,
    now: () => this.deps.clock.now(),
  });

  constructor(
    readonly target: TargetConfig,
    private readonly deps: PollerDeps,
    private readonly logger: Logger,
  ) {
    this.door = deps.admission.node(target.url);
    this.client = new NodeClient(target, deps.dispatchers, this.door, deps.bodies);
    this.state = new NodeState(target, deps.sources, deps.clock, logger, deps.labels);
    this.loops = this.state.sources.map((state) => {
      const loop: SourceLoop = {
        state,
        outcome: { snapshot: undefined, error: undefined, durationSeconds: 0, saturated: false },
        due: 0,
        slot: -1,
        skips: 0,
        tried: false,
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

  /** Stops the loops and ends the polls under way (aborted at once, not settled), and waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    for (const loop of this.loops) this.deps.timetable.remove(loop);
    await Promise.all(this.loops.flatMap((loop) => (loop.running ? [loop.running] : [])));
  }

  /**
   * Every enabled source's first poll has ended (/-/ready): answered, failed, or skipped as the exporter's saturation.
   * A target whose polls are skipped does not hold readiness back: the exporter tried, and counts the skip (a saturated
   * exporter kept out of its Service by a failing readiness probe could not even be scraped for it).
   */
  get hasPolled(): boolean {
    return this.loops.every((loop) => loop.tried);
  }

  get nodeLines(): NodeLines {
    return this.state.nodeLines;
  }

  summary(): NodeSummary {
    return this.state.summary();
  }

  detail(): NodeDetail {
    return this.state.detail();
  }

  /**
   * One poll of a source through the boundary, as the schedule runs it: its deadline (the target's timeout on the wire,
   * the exporter's waits bounded by the source's interval, cut when the poller stops; rpc/deadline.ts), the node's
   * admission, the failure classified. The traced poll of debug-poll.ts runs it too, with its own context: a debug
   * probe shows the deadline and the reasons of the scheduled polls, never others.
   */
  bounded(s: SourceState, context: (poll: PollHandle) => PollContext, into: PollOutcome, overdue = false): Promise<void> {
    const deadline = new PollDeadline(this.target.timeoutMs, s.intervalMs, this.stopping.signal, this.door, overdue);
    return pollBounded(s.source, this.target, context, into, deadline);
  }

  /** Schedules the loop's next poll, due `delayMs` from now; its start is compared with that due time. */
  private schedule(loop: SourceLoop, delayMs: number): void {
    if (this.stopped) return;
    this.deps.timetable.add(loop, delayMs);
  }

  /** The loop's poll is due: it starts, and when it ends the next one is scheduled. */
  private begin(loop: SourceLoop): void {
    const started = performance.now();
    this.deps.onPollStart?.(Math.max(0, started - loop.due) / 1000);
    loop.running = this.runPoll(loop).finally(() => {
      loop.running = undefined;
      // Keep the cadence: the next poll is due one interval after this one started. A late start moves the
      // schedule instead of bunching polls to catch up, so an overloaded process slows down, and says so.
      const { intervalMs } = loop.state;
      if (loop.skips > 0) {
        // Skipped as saturated: tried again about an interval later, at another phase of it. A saturated queue has
        // the interval's rhythm, so the same phase would meet the same full queue (the same nodes skipped every time).
        this.schedule(loop, intervalMs * (0.5 + Math.random()));
        return;
      }
      const jitter = Math.random() * intervalMs * 0.01;
      this.schedule(loop, Math.max(0, intervalMs - (performance.now() - started)) + jitter);
    });
  }

  /** One scheduled poll: through the boundary, then settled in the node's state. */
  private async runPoll(loop: SourceLoop): Promise<void> {
    const { outcome } = loop;
    if (this.door.shouldSkip(performance.now(), loop.state.intervalMs, loop.skips)) {
      // A standing queue of other nodes' requests: the exporter's saturation. Skipped before it joins (rpc/admission.ts).
      this.skipSaturated(loop);
      return;
    }
    await this.bounded(loop.state, this.context, outcome, isOverdue(loop.skips));
    const { snapshot } = outcome;
    // The outcome is reused: it must not hold the snapshot until the next poll.
    outcome.snapshot = undefined;
    // Stopped while it ran: the poll was cut by the stop, not by the node; nothing reads this state any more.
    if (this.stopped) return;
    if (outcome.saturated) {
      this.skipSaturated(loop);
      return;
    }
    loop.skips = 0;
    loop.tried = true;
    this.state.settle(loop.state, snapshot, outcome.error, outcome.durationSeconds);
  }

  /** The exporter's own saturation: not a failure of the node. Its state, series and poll metrics stay as they were. */
  private skipSaturated(loop: SourceLoop): void {
    loop.skips++;
    loop.tried = true;
    this.deps.onPollSkipped?.('saturated');
    this.logger.debug({ source: loop.state.source.name }, 'poll skipped: the exporter could not send its requests within the interval (saturated)');
  }
}
