// A counting semaphore: the process-wide cap on requests in flight. A request
// waits for a slot under its poll's deadline (the signal), so a saturated
// process still ends every poll within its timeout.
export class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private max: number) {}

  /** Changes the cap (on reload); waiting requests start as slots allow. */
  setMax(max: number): void {
    this.max = max;
    while (this.active < this.max && this.waiting.length > 0) this.waiting.shift()!();
  }

  get inFlight(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** Resolves with a release function once a slot is free; rejects if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
    if (this.active < this.max) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        this.active++;
        resolve(this.releaser());
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(grant);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal?.reason ?? new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(grant);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      const next = this.waiting.shift();
      if (next) next();
    };
  }
}
