// Admission: which request of which node may go to the wire now, whose time a
// wait is, and when a poll is not tried at all. One Admission a exporter (its
// Scheduler's, beside the timetable and the label table); one NodeAdmission a
// node; a request takes a Ticket and reports to it: sent, answered, cut,
// released.
//
// A request takes its origin's slot first, then one of the process's
// (scheduler.max_concurrent_requests, rpc/limiter.ts): requests queued for a
// busy origin's sockets (a gateway whose nodes hang) hold none of the process's
// slots, and nodes on other origins keep polling. An origin has as many slots
// as connections (connectionsFor), and takes turns only: a node alone on its
// origin that hangs keeps both its connections, so its polls end as its own
// timeouts; the process's limiter holds hanging nodes to half its slots.
import { performance } from 'node:perf_hooks';
import { ExporterSaturatedError, isNodeDeadline, type PollHandle } from './deadline.js';
import { RequestFailed } from './errors.js';
import { Limiter } from './limiter.js';
import { compactMap } from '../util/compact-map.js';

/** Connections to one origin at most, per configured node behind it (a node on its own origin: 2). */
export const CONNECTIONS_PER_NODE = 2;
/**
 * Connections to one shared origin (a gateway) at most, unless scheduler.max_connections_per_origin says
 * otherwise: past this, requests queue for the origin (the exporter's wait, not the node's time). A run with
 * 512 sockets to 4 origins spent 2.8 × the floor a request against 2 × with 8; 60 nodes behind one gateway
 * answering in 400 ms need 120.
 */
export const MAX_CONNECTIONS_PER_ORIGIN = 128;
/**
 * A poll is skipped as saturated before it sends when the requests of answering nodes queued for the same slots (its
 * origin's or the process's) would take this share of the poll's interval to start (NodeAdmission.backlogMs); twice it
 * after one skipped poll of the source, four times after two in a row.
 */
export const BACKLOG_SKIP = 0.25;
/**
 * A source's poll after this many skipped in a row is overdue: its requests go ahead of other answering nodes' waiting
 * ones (rpc/limiter.ts), and it is skipped only when the overdue requests ahead of it would take its interval. A node
 * whose first polls were all skipped (a gateway's queue held by other nodes' answers) was never sent a request, so its
 * hanging was never found out, and it was never shown at all.
 */
export const OVERDUE_AFTER = 3;
/**
 * Bytes of answers being read, for all nodes together, at most (scheduler.max_buffered_bytes): 8 answers of the
 * largest size one may have (16 MiB, rpc/client.ts). The cap per answer alone let 512 requests buffer 8 GB: 30 targets
 * on one node streaming its answers took the exporter from 76 to 556 MB in 24 s.
 */
export const DEFAULT_MAX_BUFFERED_BYTES = 128 * 1024 * 1024;

/**
 * The bytes of answers read and not yet handed to their parser, for the whole process. A chunk that does not fit ends
 * its request as the exporter's saturation (the poll is skipped, as when its requests could not be sent in time): the
 * node did nothing wrong, and the request holding the most is never waited on while it holds the rest of the budget.
 */
export class ByteBudget {
  /** Bytes held now. */
  inUse = 0;
  constructor(public max = DEFAULT_MAX_BUFFERED_BYTES) {}

  /** Takes `n` bytes, or nothing when they do not fit. */
  take(n: number): boolean {
    if (this.inUse + n > this.max) return false;
    this.inUse += n;
    return true;
  }

  give(n: number): void {
    this.inUse -= n;
  }
}

/** Whether a poll after `skips` skipped in a row is overdue (OVERDUE_AFTER). */
export function isOverdue(skips: number): boolean {
  return skips >= OVERDUE_AFTER;
}

/** One origin (URL.origin): its slots, and how many targets poll it. */
export interface Origin {
  readonly slots: Limiter;
  targets: number;
  /** Requests holding a slot of the origin while they wait for one of the process's: not on the wire yet. */
  held: number;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

export class Admission {
  private readonly process: Limiter;
  /** Bytes of answers being read, all nodes together (scheduler.max_buffered_bytes). */
  readonly bytes = new ByteBudget();
  private readonly origins = new Map<string, Origin>();
  private maxInFlight: number;
  private maxPerOrigin = MAX_CONNECTIONS_PER_ORIGIN;

  /**
   * @param maxInFlight requests in flight to all nodes at most (scheduler.max_concurrent_requests)
   * @param maxConnections the socket budget (rpc/sockets.ts): no origin gets more connections
   */
  constructor(
    maxInFlight: number,
    private readonly maxConnections = Infinity,
  ) {
    this.maxInFlight = maxInFlight;
    this.process = new Limiter(maxInFlight);
  }

  /**
   * The fleet's layout: how many targets share each origin, the cap on requests in flight (no origin gets more
   * connections than that) and on connections to one origin. Call before the targets' first requests and on reload;
   * waiting requests start as the new caps allow, and pools made afterwards use them.
   */
  setLayout(
    urls: Iterable<string>,
    maxInFlight = this.maxInFlight,
    maxPerOrigin = MAX_CONNECTIONS_PER_ORIGIN,
    maxBufferedBytes = DEFAULT_MAX_BUFFERED_BYTES,
  ): void {
    this.maxInFlight = maxInFlight;
    this.bytes.max = maxBufferedBytes;
    this.maxPerOrigin = maxPerOrigin;
    this.process.setMax(maxInFlight);
    for (const origin of this.origins.values()) origin.targets = 0;
    for (const url of urls) this.origin(originOf(url)).targets++;
    for (const [key, origin] of this.origins) {
      // An origin no target has any more goes once nothing of it is in flight (a client still draining keeps its own).
      if (origin.targets === 0 && origin.slots.inFlight === 0 && origin.slots.queued === 0) this.origins.delete(key);
      else origin.slots.setMax(this.connectionsFor(key));
    }
  }

  /** Connections allowed to one origin (and its slots): 2 per target behind it, within the caps. */
  connectionsFor(origin: string): number {
    const targets = this.origins.get(origin)?.targets ?? 1;
    return Math.min(this.maxConnections, this.maxInFlight, this.maxPerOrigin, CONNECTIONS_PER_NODE * Math.max(1, targets));
  }

  /** The admission of one node (a poller's): its origin's slots and the process's, and its hanging mark. */
  node(url: string): NodeAdmission {
    return new NodeAdmission(this.process, this.origin(originOf(url)), this.bytes);
  }

  /** Requests holding a slot of the process now. */
  get inFlight(): number {
    return this.process.inFlight;
  }

  /** Requests waiting for a slot: of the process, and of their origin (where a saturated fleet queues first). */
  get queued(): number {
    let n = this.process.queued;
    for (const origin of this.origins.values()) n += origin.slots.queued;
    return n;
  }

  /** What the admission keeps (the debug state endpoint): its origins, the requests waiting for the process's slots and for their origins'. */
  get sizes(): { origins: number; processQueued: number; originQueued: number } {
    let originQueued = 0;
    for (const origin of this.origins.values()) originQueued += origin.slots.queued;
    return { origins: this.origins.size, processQueued: this.process.queued, originQueued };
  }

  /**
   * Lets go of the origins no target has, once nothing of theirs is in flight or queued: setLayout keeps an origin
   * whose requests were still draining when a reload removed its last target, and nothing else would drop it.
   */
  prune(): void {
    const before = this.origins.size;
    for (const [key, origin] of this.origins) {
      if (origin.targets === 0 && origin.slots.inFlight === 0 && origin.slots.queued === 0) this.origins.delete(key);
    }
    // Origins that come and go leave deleted entries in the Map's table: sized for the origins kept (util/compact-map.ts).
    if (this.origins.size < before) compactMap(this.origins);
  }

  private origin(key: string): Origin {
    let origin = this.origins.get(key);
    if (!origin) {
      origin = { slots: new Limiter(1, false), targets: 0, held: 0 };
      this.origins.set(key, origin);
      origin.slots.setMax(this.connectionsFor(key));
    }
    return origin;
  }
}

/** One node's admission: the slots its requests take, its hanging mark, and whether its next poll is tried. */
export class NodeAdmission {
  /**
   * The node's last request was sent and got no answer before its deadline: its requests take slots from the hanging
   * nodes' share (rpc/limiter.ts) until one is answered again.
   */
  private mark = false;
  /** The node has answered since it last hung (nothing yet: false). */
  private answered = false;
  /** The node's requests waiting for a slot (made on the first wait: most nodes never wait). */
  private waiting: Set<Ticket> | undefined = undefined;

  constructor(
    /** The process's slots (shared by every node of the exporter). */
    readonly processSlots: Limiter,
    /** The slots of the node's origin (shared by the nodes behind it). */
    readonly origin: Origin,
    /** The process's budget of bytes being read (shared by every node). */
    readonly bytes = new ByteBudget(),
  ) {}

  get hanging(): boolean {
    return this.mark;
  }

  /**
   * The node has answered since it last hung: a request of it still unanswered at the end of its poll's bound gets the
   * benefit of the doubt (saturated; rpc/deadline.ts). Not before its first answer.
   */
  get answering(): boolean {
    return this.answered;
  }

  /**
   * How long a request of this node that joins now would wait for a slot of the process, or of its origin when other
   * nodes share it (Limiter.expectedWaitMs; ms, 0 when none waits): the exporter's saturation. Not the queue of an
   * origin the node has alone: that holds only its own requests, waiting for the node's answers (Ticket.admit). 0 for a
   * hanging node: its polls wait their turn and end as its own timeouts.
   */
  backlogMs(now: number, targetMs: number, overdue = false): number {
    if (this.mark) return 0;
    const wait = this.processSlots.expectedWaitMs(now, targetMs, overdue);
    return this.origin.targets > 1 ? Math.max(this.origin.slots.expectedWaitMs(now, targetMs, overdue), wait) : wait;
  }

  /**
   * Whether a poll due now is skipped as the exporter's saturation before it sends: the queue it would join holds
   * more than BACKLOG_SKIP of its interval of requests, twice that after one skipped poll of the source (`skips` in a
   * row), four times after two; an overdue poll (OVERDUE_AFTER) counts only the overdue requests ahead. Left to wait, such queues grew to hold every poll for its whole interval (at 30,000
   * nodes on 2 cores, 37,000 requests an origin), and waiters cut at the end of their wait cost the event loop more
   * than the requests it sent; the longer queue allowed after a skip lets the nodes skipped go first.
   */
  shouldSkip(now: number, intervalMs: number, skips: number): boolean {
    const target = intervalMs * BACKLOG_SKIP * 2 ** Math.min(skips, 2);
    return this.backlogMs(now, target, isOverdue(skips)) > target;
  }

  /** A request of the node was cut on the wire by the node's own deadline. */
  hangs(): void {
    this.mark = true;
    this.answered = false;
    // Its requests still waiting for a slot would hang too: their time is the node's from now (they leave the queue at
    // their deadline instead of holding their place for their interval, a minute for platform).
    if (!this.waiting) return;
    const now = performance.now();
    for (const ticket of this.waiting) ticket.nodeHangs(now);
  }

  /** A request of the node waits for a slot (waits() once, then waited() once). */
  waits(ticket: Ticket): void {
    (this.waiting ??= new Set()).add(ticket);
  }

  waited(ticket: Ticket): void {
    this.waiting?.delete(ticket);
  }

  /** A request of the node was answered. */
  answers(): void {
    this.mark = false;
    this.answered = true;
  }
}

/**
 * One request's admission, and what it reports: sent (on the wire, the node's time runs), answered, cut (failed,
 * whatever the cause) and released (undici is done with it: its slots are free). The request (rpc/client.ts Exchange)
 * is the ticket: no object a request besides it. The ticket carries the poll's handle (its deadline), so nothing
 * else passes it along.
 */
export abstract class Ticket {
  /** The slots are from the hanging nodes' share (the node was marked hanging when it was admitted). */
  private hanging = false;
  /** Holds both slots until released. */
  private holding = false;
  /** undici wrote the request. */
  private written = false;
  /** The node's time runs since (performance.now() ms, told to the poll's deadline), or -1 while it does not. */
  private since = -1;
  /** Bytes of its answer it holds of the process's budget. */
  private bytesHeld = 0;

  constructor(
    private readonly door: NodeAdmission,
    /** The poll's handle: its signal ends the request wherever it is; its deadline is told the node's time. */
    protected readonly poll: PollHandle,
    /** The request's URL, for errors. */
    protected readonly url: string,
  ) {}

  /** Both slots are held: send now. */
  protected abstract admitted(): void;
  /** The wait for a slot ended first (the poll's deadline or stop). */
  protected abstract refused(err: RequestFailed): void;

  /**
   * Takes the origin's slot, then the process's: admitted() at once when both are free, else once they are. The node's
   * time runs while the request is on the wire, and also while it waits:
   * - for a node that hangs, all along: its requests take the hanging nodes' share and every fourth turn
   *   (rpc/limiter.ts) because it does not answer, so its polls end as its own timeouts, never as the exporter's
   *   saturation (a thousand hanging nodes' polls were skipped as saturated, and most were never shown down);
   * - for a node alone on its origin, while it waits for a connection behind its own requests on the wire: they wait
   *   for its answers, and so does this one (in the frozen drill its health polls, queued behind its other sources'
   *   requests, were skipped as "saturated" and never said `timeout`). Not while one of them waits for a slot of the
   *   process: that is the exporter's wait (a healthy node beside a thousand hanging ones failed its polls as `timeout`);
   * - for any node, from when it is found hanging while the request waits.
   * Any other wait is the exporter's, bounded by the poll's interval (rpc/deadline.ts).
   */
  protected admit(): void {
    const { door, poll } = this;
    const hanging = (this.hanging = door.hanging);
    const overdue = poll.overdue === true;
    if (hanging) this.run(performance.now());
    if (door.origin.slots.take(hanging, overdue)) {
      this.admittedToOrigin();
      return;
    }
    if (door.origin.targets <= 1 && door.origin.held === 0 && !hanging) this.run(performance.now());
    door.waits(this);
    door.origin.slots.wait(poll.signal, hanging, overdue).then(
      () => {
        door.waited(this);
        if (!door.hanging) this.stop();
        this.admittedToOrigin();
      },
      (err: unknown) => {
        door.waited(this);
        const failed = new RequestFailed(this.url, this.phase('slot'), poll.signal.aborted, err);
        this.stop();
        this.refused(failed);
      },
    );
  }

  /** Holding the origin's slot: the process's now if free, else a wait for one (the origin's slot is given back if that wait ends first). */
  private admittedToOrigin(): void {
    const { door, hanging, poll } = this;
    const { processSlots, origin } = door;
    const overdue = poll.overdue === true;
    if (processSlots.take(hanging, overdue)) {
      this.holding = true;
      this.admitted();
      return;
    }
    origin.held++;
    door.waits(this);
    processSlots.wait(poll.signal, hanging, overdue).then(
      () => {
        origin.held--;
        door.waited(this);
        this.holding = true;
        this.admitted();
      },
      (err: unknown) => {
        origin.held--;
        door.waited(this);
        origin.slots.release(hanging);
        const failed = new RequestFailed(this.url, this.phase('slot'), poll.signal.aborted, err);
        this.stop();
        this.refused(failed);
      },
    );
  }

  /**
   * Where the request was when it failed, for its message (rpc/errors.ts): `exchange` once written; before, `queue` or
   * `hanging` while the node's time ran (behind its own requests on its own origin, or as a node that hangs), else
   * `outside` (waiting for the exporter, or connecting).
   */
  protected phase(outside: 'slot' | 'exchange'): 'slot' | 'queue' | 'hanging' | 'exchange' {
    if (this.written) return 'exchange';
    if (this.since < 0) return outside;
    return this.door.origin.targets <= 1 ? 'queue' : 'hanging';
  }

  /** The node was found hanging while this request waits: its time is the node's from `at`. */
  nodeHangs(at: number): void {
    if (this.since < 0) this.run(at);
  }

  /** The node's time runs from `at`. */
  private run(at: number): void {
    this.since = at;
    this.poll.sent?.(at);
  }

  /** The node's time stops running. */
  private stop(): void {
    if (this.since < 0) return;
    this.poll.done?.(this.since);
    this.since = -1;
  }

  /** undici wrote the request: the node's time runs (it already does for a node that hangs). */
  protected sent(): void {
    this.written = true;
    if (this.since < 0) this.run(performance.now());
  }

  /** The node answered (whatever the status). */
  protected answered(): void {
    this.door.answers();
  }

  /**
   * The request failed. Written and cut by the node's deadline: the node hangs. Not when aborted before it was written
   * (a wait), nor when the poll ended as saturated or was stopped with it on the wire: the exporter's load or its stop,
   * not the node (a node marked hanging by the exporter's own saturation would be held to the hanging share for it).
   */
  protected cut(): void {
    const { signal } = this.poll;
    if (this.written && signal.aborted && isNodeDeadline(signal.reason)) this.door.hangs();
  }

  /**
   * `n` more bytes of the answer are buffered: false when the process's budget cannot take them. The caller then ends
   * the request as the exporter's saturation (PollHandle.saturate): the exporter's limit, never the node's fault.
   */
  protected buffered(n: number): boolean {
    if (!this.door.bytes.take(n)) return false;
    this.bytesHeld += n;
    return true;
  }

  /** The answer's bytes are handed on or dropped: back to the budget. */
  protected unbuffered(): void {
    this.door.bytes.give(this.bytesHeld);
    this.bytesHeld = 0;
  }

  /** The bytes budget is full: the poll ends as the exporter's saturation (a bare handle: the request alone fails). */
  protected overBudget(): Error {
    const message = `the answers being read hold the exporter's budget of ${this.door.bytes.max} bytes (scheduler.max_buffered_bytes): the exporter is saturated`;
    const err = new ExporterSaturatedError(message);
    this.poll.saturate?.(err);
    return err;
  }

  /** undici is done with the request (answered, failed or aborted): its slots are free. Once; nothing before admitted(). */
  protected release(): void {
    if (!this.holding) return;
    this.holding = false;
    this.door.processSlots.release(this.hanging);
    this.door.origin.slots.release(this.hanging);
    this.stop();
  }
}
