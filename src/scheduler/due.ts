// The polls' timetable: every source loop of every node of one exporter (its
// Scheduler owns the queue: two exporters in a process share none) waits in one
// queue (a binary heap by due time) under one Node.js timer, armed for the earliest
// due poll, instead of a timer and a closure of its own made at every poll. A
// loop's entry is the loop itself, made once; the steady schedule allocates
// nothing that outlives a poll.
//
// The queue runs at most once every BATCH_MS: the polls that fall due in between
// start together, up to BATCH_MS late. A fleet's requests then leave, and their
// answers come back, in batches that the event loop handles in one turn each,
// instead of one turn (timers, an epoll wait, microtasks) for every request: at
// 4,000 nodes that took a fifth off the CPU a request (bench/RESULTS.md).
import { performance } from 'node:perf_hooks';

/** The least time between two runs of the poll timetable (ms): how late a poll may start so that polls start in batches. */
export const BATCH_MS = 25;

/** Something the queue starts when it is due (a source loop of one node). */
export interface Due {
  /** When it is due (performance.now() milliseconds); set by DueQueue.add. */
  due: number;
  /** Its place in the queue's heap, or -1 while it is not queued. */
  slot: number;
  /** Called once when it is due, after it has left the queue. */
  fire(): void;
}

export class DueQueue {
  private readonly heap: Due[] = [];
  /** What run() fires, taken out of the heap first (an item queued again while they fire waits for the next run). */
  private readonly firing: Due[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** When the timer is armed for (Infinity: not armed). */
  private armedFor = Infinity;
  /** When the last run started (performance.now() ms). */
  private lastRun = -Infinity;

  /** @param spacingMs the least time between two runs (0: every item runs when it is due). */
  constructor(private readonly spacingMs = BATCH_MS) {}

  get size(): number {
    return this.heap.length;
  }

  /** What is queued, in no order (the debug state endpoint counts entries of targets that are gone). */
  items(): Iterable<Due> {
    return this.heap;
  }

  /** Queues `item` to fire `delayMs` from now (moved, if it was queued already). */
  add(item: Due, delayMs: number): void {
    if (item.slot >= 0) this.remove(item);
    item.due = performance.now() + delayMs;
    item.slot = this.heap.length;
    this.heap.push(item);
    this.up(item.slot);
    this.arm();
  }

  /** Takes `item` out of the queue; nothing when it is not queued. */
  remove(item: Due): void {
    const i = item.slot;
    if (i < 0) return;
    item.slot = -1;
    const last = this.heap.pop() as Due;
    if (last !== item) {
      this.heap[i] = last;
      last.slot = i;
      this.down(i);
      this.up(last.slot);
    }
    if (this.heap.length === 0) this.disarm();
  }

  /** Fires everything that is due (within the timer's 1 ms resolution), then arms the timer for the next. */
  private run(): void {
    this.timer = undefined;
    this.armedFor = Infinity;
    this.lastRun = performance.now();
    const now = this.lastRun + 1;
    const firing = this.firing;
    for (let top = this.heap[0]; top !== undefined && top.due <= now; top = this.heap[0]) {
      this.remove(top);
      firing.push(top);
    }
    try {
      for (const item of firing) item.fire();
    } finally {
      firing.length = 0;
      this.arm();
    }
  }

  private arm(): void {
    const top = this.heap[0];
    if (top === undefined) return;
    // The earliest due item, but not before the spacing since the last run has passed.
    const at = Math.max(top.due, this.lastRun + this.spacingMs);
    if (at >= this.armedFor) return;
    if (this.timer) clearTimeout(this.timer);
    this.armedFor = at;
    this.timer = setTimeout(() => this.run(), Math.max(0, at - performance.now()));
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = Infinity;
  }

  private up(i: number): void {
    const heap = this.heap;
    const item = heap[i] as Due;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent] as Due;
      if (p.due <= item.due) break;
      heap[i] = p;
      p.slot = i;
      i = parent;
    }
    heap[i] = item;
    item.slot = i;
  }

  private down(i: number): void {
    const heap = this.heap;
    const n = heap.length;
    const item = heap[i] as Due;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      const right = child + 1;
      if (right < n && (heap[right] as Due).due < (heap[child] as Due).due) child = right;
      const c = heap[child] as Due;
      if (c.due >= item.due) break;
      heap[i] = c;
      c.slot = i;
      i = child;
    }
    heap[i] = item;
    item.slot = i;
  }
}
