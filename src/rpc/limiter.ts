// A counting semaphore: the process-wide cap on requests in flight. A request
// waits for a slot under its poll's deadline (the signal), so a saturated
// process still ends every poll within its timeout. Waiters form a linked
// list: granting the next one and dropping one whose deadline passed are O(1),
// however many requests a saturated process has queued.
interface Waiter {
  grant: () => void;
  prev?: Waiter;
  next?: Waiter;
}

export class Limiter {
  private active = 0;
  private waiting = 0;
  private head?: Waiter;
  private tail?: Waiter;

  constructor(private max: number) {}

  /** Changes the cap (on reload); waiting requests start as slots allow. */
  setMax(max: number): void {
    this.max = max;
    let next: Waiter | undefined;
    while (this.active < this.max && (next = this.shift())) next.grant();
  }

  get inFlight(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting;
  }

  /** Takes a slot when one is free now (true); give it back with release(), once. */
  take(): boolean {
    if (this.active >= this.max || this.waiting > 0) return false;
    this.active++;
    return true;
  }

  /** Gives back a slot taken with take() or wait() (once per slot). */
  release(): void {
    this.active--;
    if (this.active < this.max) this.shift()?.grant();
  }

  /** Resolves once a slot is held for the caller (give it back with release()); rejects if `signal` aborts first. */
  wait(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.take()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.active++;
          resolve();
        },
      };
      const onAbort = (): void => {
        this.unlink(waiter);
        if (signal) reject(abortReason(signal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.push(waiter);
    });
  }

  private push(w: Waiter): void {
    if (this.tail) {
      this.tail.next = w;
      w.prev = this.tail;
    } else this.head = w;
    this.tail = w;
    this.waiting++;
  }

  private shift(): Waiter | undefined {
    const w = this.head;
    if (w) this.unlink(w);
    return w;
  }

  private unlink(w: Waiter): void {
    if (w.prev === undefined && this.head !== w) return; // not queued (granted or dropped already)
    if (w.prev) w.prev.next = w.next;
    else this.head = w.next;
    if (w.next) w.next.prev = w.prev;
    else this.tail = w.prev;
    w.prev = undefined;
    w.next = undefined;
    this.waiting--;
  }
}

/** The signal's reason as an Error (AbortSignal.reason may be any value). */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('aborted', { cause: reason });
}
