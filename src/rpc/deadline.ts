// A poll's deadline that keeps the exporter's waiting apart from the node's
// answer time. The node's time runs while one of the poll's requests is on the
// wire (from undici writing it to the answer), and while it waits where the
// waiting is the node's own (rpc/admission.ts Ticket: a node that hangs, a node
// alone on its origin behind its own requests); a poll whose requests have had
// more than `timeoutMs` of it is the node's `timeout`. Any other wait for a
// request slot or a socket is the exporter's: bounded separately by `waitMs`
// (the poll's interval), and a poll that could not send within it ends as
// `saturated`, which is never the node's fault (the poller counts it in
// avalanchego_exporter_polls_skipped_total and leaves the node's state).
//
// The event loop's busy time while a request is on the wire is the
// exporter's too: an answer can wait unread behind a long scrape or a burst of
// polls (measured on 2 shared cores: 60 nodes answering in 400 ms were "on the
// wire" 1.1–1.8 s). It extends the node's deadline, up to `waitMs` more, and a
// due deadline is checked once more after the turn's I/O (setImmediate). That
// cover is for nodes that answer: a node that hangs gets none, and a node that
// has not answered yet (or not since it hung) is judged at the end of the
// bound, unless the loop had just stalled for an interval (rpc/admission.ts
// says which node is which). In a saturated process, the cover made a hanging
// node's requests never late: its polls ended as saturated, never as its
// timeouts, and it was never shown down.
//
// One timer a poll, as before: it is armed for `timeoutMs` at the start, and
// only re-armed (a new timer) when it fires with the node not yet late or the
// exporter still waiting; the loop's busy time is read only then.

/** The deadline passed while no request of the poll was on the wire: the exporter's own load. */
export class ExporterSaturatedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExporterSaturatedError';
  }
}

/** The poll's owner stopped it (shutdown, reload): neither the node's fault nor the exporter's load. */
export class PollStoppedError extends Error {
  constructor() {
    super('the poll was stopped: the exporter is stopping or the target was reloaded');
    this.name = 'PollStoppedError';
  }
}

/**
 * Whether an abort reason is the node's deadline (its answer was late), as opposed to the exporter's saturation or a
 * stop: only then does a request cut on the wire tell that the node hangs.
 */
export function isNodeDeadline(reason: unknown): boolean {
  return !(reason instanceof ExporterSaturatedError || reason instanceof PollStoppedError);
}

/**
 * What a request ends with and reports its time on the wire to (rpc/admission.ts Ticket): a poll's deadline
 * (PollDeadline), or a bare `{ signal }`.
 */
export interface PollHandle {
  readonly signal: AbortSignal;
  /** The poll's source was skipped as saturated too often in a row: its requests go ahead of others' (rpc/admission.ts). */
  readonly overdue?: boolean;
  /** A request of the poll is on the wire since `at` (performance.now() ms): the node's time runs. */
  sent?(at: number): void;
  /** That request is done (answered or failed). */
  done?(at: number): void;
}

/** What the deadline reads of the node (rpc/admission.ts NodeAdmission). */
export interface NodeRecord {
  /** The node's last request was cut by its deadline, and none answered since. */
  readonly hanging: boolean;
  /** The node has answered since it last hung (false before its first answer). */
  readonly answering: boolean;
}

export class PollDeadline implements PollHandle {
  private readonly controller = new AbortController();
  private readonly startedAt = performance.now();
  private timer: NodeJS.Timeout;
  /** When each request of the poll now on the wire was sent, oldest first (a poll has a handful at most). */
  private readonly onWire: number[] = [];
  /** The timer fired while waiting and was re-armed for the wait: a send must re-arm it for the node. */
  private waitingTimer = false;
  /** The event loop's busy time (ms) when the poll started: what it adds since is the exporter's time. */
  private readonly busyAtStart = performance.eventLoopUtilization().active;
  /** The deadline was due and is checked once more after the turn's I/O. */
  private recheck = false;
  /** When the timer is due (performance.now() ms): how late it fires is how long the loop could not look. */
  private dueAt: number;
  /** Set when the deadline passed with nothing on the wire. */
  saturated = false;

  constructor(
    private readonly timeoutMs: number,
    private readonly waitMs: number,
    /** Aborted when the poll's owner stops (the exporter shuts down, the target is reloaded away): the poll ends at once. */
    private readonly stop?: AbortSignal,
    /** The node polled: whether it answers, read at the end of the bound. */
    private readonly node?: NodeRecord,
    readonly overdue = false,
  ) {
    this.dueAt = this.startedAt + timeoutMs;
    this.timer = setTimeout(this.check, timeoutMs);
    if (stop?.aborted) this.stopNow();
    else stop?.addEventListener('abort', this.stopNow, { once: true });
  }

  private readonly stopNow = (): void => {
    clearTimeout(this.timer);
    this.controller.abort(new PollStoppedError());
  };

  private arm(delayMs: number, now: number): void {
    this.dueAt = now + delayMs;
    this.timer = setTimeout(this.check, delayMs);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  sent(at: number): void {
    this.onWire.push(at);
    if (this.waitingTimer) {
      this.waitingTimer = false;
      clearTimeout(this.timer);
      this.arm(this.timeoutMs, at);
    }
  }

  done(at: number): void {
    const i = this.onWire.indexOf(at);
    if (i >= 0) this.onWire.splice(i, 1);
  }

  clear(): void {
    clearTimeout(this.timer);
    this.stop?.removeEventListener('abort', this.stopNow);
  }

  private readonly check = (): void => {
    const now = performance.now();
    const oldest = this.onWire[0];
    if (oldest !== undefined) {
      const stalled = now - this.dueAt >= Math.max(this.waitMs, this.timeoutMs);
      const bounded = now - this.startedAt >= this.waitMs + this.timeoutMs;
      const { node } = this;
      // Past the bound a request on the wire is judged only for a node that does not answer (not yet, or not since it
      // hung), unless this check ran an interval late (the loop stalled: a long scrape, the process descheduled; it
      // could not look). A node that answers gets the benefit of the doubt: the poll ends as saturated.
      if (!bounded || (!stalled && node !== undefined && !node.answering)) {
        // While the event loop was busy (scrapes, other polls, the process descheduled on a shared machine) an answer
        // can wait unread: that time is the exporter's, and extends the node's deadline up to the bound (read only
        // here, when late). Not for a node that hangs: in a saturated process its requests were never late, and its
        // polls were skipped as saturated instead of failing as its timeouts.
        const covered = !bounded && (stalled || node === undefined || !node.hanging);
        const busy = covered ? Math.min(now - oldest, performance.eventLoopUtilization().active - this.busyAtStart) : 0;
        const left = oldest + this.timeoutMs + busy - now;
        if (left > 1) {
          this.arm(left, now);
          return;
        }
        // Due. Timers run before I/O in an event-loop turn: after a busy turn (a scrape, a burst of polls) the answer
        // may be in the socket, unread. Let I/O run once before blaming the node; the busy turn was the exporter's time.
        if (!this.recheck) {
          this.recheck = true;
          this.dueAt = now;
          setImmediate(this.check);
          return;
        }
        this.recheck = false;
        this.controller.abort(new Error(`poll deadline of ${this.timeoutMs} ms passed`));
        return;
      }
    }
    this.recheck = false;
    const left = this.startedAt + this.waitMs - now;
    if (left <= 1) {
      this.saturated = true;
      this.controller.abort(
        new ExporterSaturatedError(`the poll could not send its requests within ${Math.round(this.waitMs)} ms: the exporter is saturated`),
      );
      return;
    }
    this.waitingTimer = true;
    this.arm(Math.min(left, this.timeoutMs), now);
  };
}
