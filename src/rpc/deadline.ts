// A poll's deadline that keeps the exporter's waiting apart from the node's
// answer time. The node's time runs while one of the poll's requests is on the
// wire (from undici writing it to the answer); a poll whose requests have been
// on the wire longer than `timeoutMs` is the node's `timeout`. Time spent
// waiting for a request slot or a socket is the exporter's: bounded separately
// by `waitMs` (the poll's interval), and a poll that could not send within it
// ends as `saturated`, which is never the node's fault (the poller counts it
// in avalanchego_exporter_polls_skipped_total and leaves the node's state).
//
// One timer a poll, as before: it is armed for `timeoutMs` at the start, and
// only re-armed (a new timer) when it fires while the exporter is still
// waiting, which happens only when the process is saturated.

/** The deadline passed while no request of the poll was on the wire: the exporter's own load. */
export class ExporterSaturatedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExporterSaturatedError';
  }
}

/** What a request tells its poll's deadline: on the wire, and done (answered or failed). */
export interface SendWatcher {
  sent(): void;
  done(): void;
}

export class PollDeadline implements SendWatcher {
  private readonly controller = new AbortController();
  private readonly startedAt = performance.now();
  private timer: NodeJS.Timeout;
  /** Requests of the poll on the wire now, and since when the first of them was. */
  private outstanding = 0;
  private sentAt = 0;
  /** The timer fired while waiting and was re-armed for the wait: a send must re-arm it for the node. */
  private waitingTimer = false;
  /** Set when the deadline passed with nothing on the wire. */
  saturated = false;

  constructor(
    private readonly timeoutMs: number,
    private readonly waitMs: number,
  ) {
    this.timer = setTimeout(this.check, timeoutMs);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  sent(): void {
    if (this.outstanding++ > 0) return;
    this.sentAt = performance.now();
    if (this.waitingTimer) {
      this.waitingTimer = false;
      clearTimeout(this.timer);
      this.timer = setTimeout(this.check, this.timeoutMs);
    }
  }

  done(): void {
    if (this.outstanding > 0) this.outstanding--;
  }

  clear(): void {
    clearTimeout(this.timer);
  }

  private readonly check = (): void => {
    const now = performance.now();
    if (this.outstanding > 0) {
      const left = this.sentAt + this.timeoutMs - now;
      if (left <= 1) this.controller.abort(new Error(`poll deadline of ${this.timeoutMs} ms passed`));
      else this.timer = setTimeout(this.check, left);
      return;
    }
    const left = this.startedAt + this.waitMs - now;
    if (left <= 1) {
      this.saturated = true;
      this.controller.abort(
        new ExporterSaturatedError(`the poll could not send its requests within ${Math.round(this.waitMs)} ms: the exporter is saturated`),
      );
      return;
    }
    this.waitingTimer = true;
    this.timer = setTimeout(this.check, Math.min(left, this.timeoutMs));
  };
}
