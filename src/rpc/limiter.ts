// A counting semaphore: the process-wide cap on requests in flight. A request
// waits for a slot under its poll's bound (the signal): the wait is the
// exporter's, not the node's (rpc/deadline.ts). Waiters form linked lists:
// granting the next one and dropping one whose bound passed are O(1), however
// many requests a saturated process has queued.
//
// Fair sharing: a request of a node whose last request hung (sent, and no
// answer before its deadline) is "hanging". Hanging requests together hold at
// most half the slots, and a free slot goes to a waiting request of an
// answering node first. A regional outage that hangs half a fleet then holds
// half the budget at most, and the answering half keeps polling.
//
// First, not only: while requests of both kinds wait, every HANGING_TURN-th
// grant goes to the oldest hanging request (within its share). A saturated
// process always has answering requests waiting; with a strict order a node
// that hung once would never send again, so it could never be seen answering
// (its `hanging` clears only on an answer) and stayed stale: at 30,000 nodes
// on 2 cores, 4,000–6,500 nodes were never polled after start-up.
//
// Overdue: a request of a poll whose source was skipped as saturated several
// times in a row (rpc/admission.ts) goes ahead of the other answering nodes'
// waiting requests, in the order such requests came: whatever the queues, every
// node is tried at least every few intervals, so one that hangs is found out.
import { performance } from 'node:perf_hooks';

/** While both kinds wait, one grant in this many goes to a hanging node's request. */
export const HANGING_TURN = 4;

interface Waiter {
  grant: () => void;
  hanging: boolean;
  overdue: boolean;
  /** When it started waiting (performance.now() ms). */
  since: number;
  prev?: Waiter;
  next?: Waiter;
}

/** One queue of waiters (a doubly linked list). */
interface Queue {
  head?: Waiter;
  tail?: Waiter;
  length: number;
}

/** The span over which the rate of slots taken is measured (ms). */
const RATE_SPAN_MS = 1000;

export class Limiter {
  private active = 0;
  /** Slots held by requests of hanging nodes. */
  private activeHanging = 0;
  /** Grants to answering requests since the last to a hanging one, while hanging ones waited. */
  private answeringRun = 0;
  private readonly answering: Queue = { length: 0 };
  /** Answering nodes' requests that go first (overdue polls). */
  private readonly overdue: Queue = { length: 0 };
  private readonly hangingQueue: Queue = { length: 0 };
  /** Slots taken since start, and the rate they were taken at over the last measured span (a millisecond). */
  private taken = 0;
  private takenAtSpan = 0;
  private spanStart = performance.now();
  private rate = 0;

  /**
   * @param max the slots
   * @param shareHanging whether hanging nodes' requests together hold at most half the slots (the process's
   *   limiter); an origin's slots (rpc/admission.ts) take turns only, so that a lone node that hangs
   *   keeps its two connections and its polls end as the node's timeouts, not as waits of the exporter
   */
  constructor(
    private max: number,
    private readonly shareHanging = true,
  ) {}

  /** Changes the cap (on reload); waiting requests start as slots allow. */
  setMax(max: number): void {
    this.max = max;
    this.grantFree();
  }

  /** Slots requests of hanging nodes may hold together: half the cap (at least one). */
  get hangingShare(): number {
    return this.shareHanging ? Math.max(1, Math.floor(this.max / 2)) : this.max;
  }

  get inFlight(): number {
    return this.active;
  }

  get queued(): number {
    return this.answering.length + this.overdue.length + this.hangingQueue.length;
  }

  /**
   * The wait ahead of a request of an answering node that joins now (ms; 0 when none waits): the waiting requests of
   * answering nodes over the rate slots were taken at in the last second, once the oldest of them has waited a quarter
   * of `targetMs` (a burst that has just arrived is not yet a standing queue); the oldest one's wait while no rate is
   * measured yet. Polls are skipped before they join a queue this long (rpc/admission.ts NodeAdmission.backlogMs). For
   * an overdue request, only the overdue ones are ahead.
   */
  expectedWaitMs(now: number, targetMs: number, overdue = false): number {
    const head = overdue ? this.overdue.head : (this.answering.head ?? this.overdue.head);
    if (!head) return 0;
    const waited = now - head.since;
    const span = now - this.spanStart;
    if (span >= RATE_SPAN_MS) {
      this.rate = (this.taken - this.takenAtSpan) / span;
      this.spanStart = now;
      this.takenAtSpan = this.taken;
    }
    if (this.rate <= 0) return waited;
    const ahead = overdue ? this.overdue.length : this.answering.length + this.overdue.length;
    return waited < targetMs / 4 ? waited : Math.max(waited, ahead / this.rate);
  }

  /** Takes a slot when one is free now (true); give it back with release(hanging), once. An overdue request overtakes waiters that are not. */
  take(hanging = false, overdue = false): boolean {
    if (this.active >= this.max) return false;
    if (hanging) {
      if (this.activeHanging >= this.hangingShare || this.queued > 0) return false;
    } else if (this.overdue.head !== undefined || (!overdue && this.answering.head !== undefined)) return false;
    this.hold(hanging);
    return true;
  }

  /** A slot is taken now (take() or a granted wait()): counted in flight, and in the rate expectedWaitMs reads. */
  private hold(hanging: boolean): void {
    this.active++;
    this.taken++;
    if (hanging) this.activeHanging++;
  }

  /** Gives back a slot taken with take() or wait() (once per slot, with the same `hanging`). */
  release(hanging = false): void {
    this.active--;
    if (hanging) this.activeHanging--;
    this.grantFree();
  }

  /** Free slots to waiters: answering nodes' first (overdue ones before the others), hanging nodes' within their share and on their turn. */
  private grantFree(): void {
    while (this.active < this.max) {
      const answering = this.overdue.head ?? this.answering.head;
      const hanging = this.activeHanging < this.hangingShare ? this.hangingQueue.head : undefined;
      let next: Waiter | undefined;
      if (answering && hanging) {
        if (this.answeringRun >= HANGING_TURN - 1) {
          this.answeringRun = 0;
          next = hanging;
        } else {
          this.answeringRun++;
          next = answering;
        }
      } else next = answering ?? hanging;
      if (!next) return;
      this.unlink(next);
      next.grant();
    }
  }

  /** Resolves once a slot is held for the caller (give it back with release(hanging)); rejects if `signal` aborts first. */
  wait(signal?: AbortSignal, hanging = false, overdue = false): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.take(hanging, overdue)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        hanging,
        overdue: overdue && !hanging,
        since: performance.now(),
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.hold(hanging);
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
    const q = w.hanging ? this.hangingQueue : w.overdue ? this.overdue : this.answering;
    if (q.tail) {
      q.tail.next = w;
      w.prev = q.tail;
    } else q.head = w;
    q.tail = w;
    q.length++;
  }

  private unlink(w: Waiter): void {
    const q = w.hanging ? this.hangingQueue : w.overdue ? this.overdue : this.answering;
    if (w.prev === undefined && q.head !== w) return; // not queued (granted or dropped already)
    if (w.prev) w.prev.next = w.next;
    else q.head = w.next;
    if (w.next) w.next.prev = w.prev;
    else q.tail = w.prev;
    w.prev = undefined;
    w.next = undefined;
    q.length--;
  }
}

/** The signal's reason as an Error (AbortSignal.reason may be any value). */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('aborted', { cause: reason });
}
