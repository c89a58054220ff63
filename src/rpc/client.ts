// HTTP toward one node, over a shared undici dispatcher. Every request is
// bounded by its poll's deadline through an AbortSignal that reaches the
// socket, and by a process-wide cap on requests in flight.
import type { IncomingHttpHeaders } from 'node:http';
import { readFileSync } from 'node:fs';
import { Agent, Pool, buildConnector, type Dispatcher } from 'undici';
import type { TargetConfig, TlsSettings } from '../config/schema.js';
import { Limiter } from './limiter.js';
import { isNodeDeadline, type SendWatcher } from './deadline.js';
import { InvalidResponseError, RequestFailed } from './errors.js';
import { AgingMap } from '../util/aging-map.js';

/** Bodies larger than this are refused: a health report of a node with many L1s is a few hundred KiB. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** An HTTP answer, whatever its status. */
export interface HttpReply {
  url: string;
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** The HTTP answer to a JSON-RPC request, with what decoding it needs (rpc/jsonrpc.ts). */
export interface RpcReply extends HttpReply {
  method: string;
  /** The request's id; the answer must echo it. */
  id: number;
}

/** Connections to one origin at most, per configured node behind it (a node on its own origin: 2). */
export const CONNECTIONS_PER_NODE = 2;
/**
 * Connections to one shared origin (a gateway) at most, unless scheduler.max_connections_per_origin says
 * otherwise: past this, requests queue in undici's pool (the exporter's wait, not the node's time). A run with
 * 512 sockets to 4 origins spent 2.8 × the floor a request against 2 × with 8; 60 nodes behind one gateway
 * answering in 400 ms need 120.
 */
export const MAX_CONNECTIONS_PER_ORIGIN = 128;
/** File descriptors kept out of the socket budget: the exporter's own server, files, the event loop. */
const FD_RESERVE = 256;
/** The socket budget where the file-descriptor limit cannot be read. */
const DEFAULT_MAX_CONNECTIONS = 16_384;

/** The soft limit on open files (Linux /proc; undefined elsewhere). */
export function openFilesLimit(): number | undefined {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return m && m[1] !== 'unlimited' ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

export interface DispatchersOptions {
  /** Sockets to all nodes together at most (default: the open-files limit less a reserve). */
  maxConnections?: number;
  /** Called when a connection fails because the process or the system is out of file descriptors. */
  onFileDescriptorError?: () => void;
  /** Extra undici Agent options (tests). */
  agent?: Agent.Options;
}

/** A connection refused by the socket budget, or for want of file descriptors; reason `connect`. */
export class SocketBudgetError extends Error {
  constructor(
    message: string,
    /** EMFILE, ENFILE, or ESOCKETBUDGET (the exporter's own cap). */
    readonly code: string,
  ) {
    super(message);
    this.name = 'SocketBudgetError';
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/**
 * undici Agents (one shared keep-alive pool for plain and default-TLS targets,
 * one per distinct TLS setting) under a socket budget: at most
 * CONNECTIONS_PER_NODE connections per node to an origin (so nodes behind one
 * gateway with path prefixes get their share, and a node on its own origin
 * never more than 2), and at most `maxConnections` sockets in all. A
 * connection past the budget, or refused for want of file descriptors, fails
 * at once with a message that says so (reason `connect`) and, for the latter,
 * counts in avalanchego_exporter_file_descriptor_errors_total.
 */
export class Dispatchers {
  private readonly agents = new Map<string, Agent>();
  private readonly perOrigin = new Map<string, number>();
  /** Admission to each origin's sockets (originSlots). */
  private readonly originLimiters = new Map<string, Limiter>();
  private maxInFlight = Infinity;
  private maxPerOrigin = MAX_CONNECTIONS_PER_ORIGIN;
  private open = 0;
  readonly maxConnections: number;

  constructor(private readonly options: DispatchersOptions = {}) {
    const limit = openFilesLimit();
    this.maxConnections = options.maxConnections ?? (limit !== undefined ? Math.max(64, limit - FD_RESERVE) : DEFAULT_MAX_CONNECTIONS);
  }

  /** Requests waiting for their origin's admission (originSlots), across origins. */
  get queuedForOrigins(): number {
    let n = 0;
    for (const limiter of this.originLimiters.values()) n += limiter.queued;
    return n;
  }

  /** Sockets open to nodes now. */
  get openConnections(): number {
    return this.open;
  }

  /** What the dispatchers keep, by key (the debug state endpoint). */
  get sizes(): { agents: number; origins: number; originLimiters: number; originQueued: number } {
    return { agents: this.agents.size, origins: this.perOrigin.size, originLimiters: this.originLimiters.size, originQueued: this.queuedForOrigins };
  }

  /**
   * Lets go of what no target uses any more: the admission of an origin no target has, once nothing of it is in
   * flight (setLayout keeps one still draining), and the pool of a TLS setting no target has (a certificate rotated
   * by a reload). `tls`: every target's setting. Called after a reload's removed targets have stopped.
   */
  prune(tls: Iterable<TlsSettings | undefined>): void {
    for (const [origin, limiter] of this.originLimiters) {
      if (!this.perOrigin.has(origin) && limiter.inFlight === 0 && limiter.queued === 0) this.originLimiters.delete(origin);
    }
    const used = new Set(Array.from(tls, tlsKey));
    for (const [key, agent] of this.agents) {
      if (used.has(key)) continue;
      this.agents.delete(key);
      agent.close().catch(() => {
        /* its sockets are closed either way */
      });
    }
  }

  /**
   * The fleet's layout: how many targets share each origin, and the cap on
   * requests in flight (no origin needs more connections than that). Call
   * before the targets' first requests and on reload; pools made afterwards use it.
   */
  setLayout(urls: Iterable<string>, maxInFlight = Infinity, maxPerOrigin = MAX_CONNECTIONS_PER_ORIGIN): void {
    this.maxInFlight = maxInFlight;
    this.maxPerOrigin = maxPerOrigin;
    this.perOrigin.clear();
    for (const url of urls) {
      const origin = originOf(url);
      this.perOrigin.set(origin, (this.perOrigin.get(origin) ?? 0) + 1);
    }
    for (const [origin, limiter] of this.originLimiters) {
      // An origin no target has any more goes once nothing of it is in flight (a client still draining keeps its own).
      if (!this.perOrigin.has(origin) && limiter.inFlight === 0 && limiter.queued === 0) this.originLimiters.delete(origin);
      else limiter.setMax(this.connectionsFor(origin));
    }
  }

  /**
   * The admission to one origin: as many requests at once as the origin has
   * connections (connectionsFor). A request takes its origin's slot before a
   * slot of the process-wide limiter, so requests queued for a busy origin's
   * sockets (a gateway whose nodes hang) wait without holding the process's
   * slots, and nodes on other origins keep polling: an origin holds at most its
   * connections' worth of the request budget. Within an origin there is no
   * hanging share: a node alone on its origin that hangs keeps both its
   * connections, so its polls end as its own timeouts, not as the exporter's
   * waits (the process's limiter still holds hanging nodes to half its slots).
   */
  originSlots(url: string): Limiter {
    const origin = originOf(url);
    let limiter = this.originLimiters.get(origin);
    if (!limiter) {
      limiter = new Limiter(this.connectionsFor(origin), false);
      this.originLimiters.set(origin, limiter);
    }
    return limiter;
  }

  /**
   * Whether more than one target polls this origin (an origin as URL.origin gives it). Alone on its origin, a node's
   * requests queue for its connections only behind its own: that wait is the node's time (NodeClient.send).
   */
  shared(origin: string): boolean {
    return (this.perOrigin.get(origin) ?? 0) > 1;
  }

  /** Connections allowed to one origin. */
  connectionsFor(origin: string): number {
    return Math.min(this.maxConnections, this.maxInFlight, this.maxPerOrigin, CONNECTIONS_PER_NODE * Math.max(1, this.perOrigin.get(origin) ?? 1));
  }

  for(tls: TlsSettings | undefined): Dispatcher {
    const key = tlsKey(tls);
    let agent = this.agents.get(key);
    if (!agent) {
      const connect = this.connector(
        tls
          ? {
              ...(tls.ca ? { ca: tls.ca } : {}),
              ...(tls.cert ? { cert: tls.cert } : {}),
              ...(tls.key ? { key: tls.key } : {}),
              ...(tls.serverName ? { servername: tls.serverName } : {}),
              rejectUnauthorized: !tls.insecureSkipVerify,
            }
          : {},
      );
      agent = new Agent({
        keepAliveTimeout: 60_000,
        ...this.options.agent,
        connect,
        // undici hands the factory the agent's own options (typed as a bare Object).
        factory: (origin, opts) => new Pool(origin, { ...(opts as Pool.Options), connections: this.connectionsFor(String(origin)) }),
      });
      this.agents.set(key, agent);
    }
    return agent;
  }

  /** undici's connector, counting sockets against the budget. */
  private connector(options: buildConnector.BuildOptions): buildConnector.connector {
    const connect = buildConnector(options);
    return (opts, callback) => {
      if (this.open >= this.maxConnections) {
        callback(
          new SocketBudgetError(
            `the exporter has ${this.open} connections open to nodes, its budget (${this.maxConnections}: the open-files limit less ${FD_RESERVE}); raise the limit (ulimit -n, LimitNOFILE=) or split the fleet across processes`,
            'ESOCKETBUDGET',
          ),
          null,
        );
        return;
      }
      connect(opts, (err, socket) => {
        if (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'EMFILE' || code === 'ENFILE') {
            this.options.onFileDescriptorError?.();
            callback(
              new SocketBudgetError(
                `out of file descriptors (${code}) with ${this.open} connections open to nodes: raise the open-files limit (ulimit -n, LimitNOFILE=) or split the fleet across processes`,
                code,
              ),
              null,
            );
            return;
          }
          callback(err, null);
          return;
        }
        this.open++;
        socket.once('close', () => this.open--);
        callback(null, socket);
      });
    };
  }

  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map((a) => a.close()));
    this.agents.clear();
  }
}

/** One Agent per distinct TLS setting: its key. */
function tlsKey(tls: TlsSettings | undefined): string {
  return tls ? JSON.stringify([tls.ca, tls.cert, tls.key, tls.serverName, tls.insecureSkipVerify]) : '';
}

const MAX_SHARED_BODIES = 10_000;

/**
 * The bodies of JSON-RPC requests, one per path, method and params, shared by every node of one exporter
 * sent that request (its id is echoed by each node; nothing needs it unique across nodes): a fleet of
 * thousands holds a handful of bodies, not one a node and method. Bounded: past the cap a body is made per
 * node. One per exporter (its Scheduler's), so two exporters in a process share none.
 */
export class RequestBodies {
  /** Params name a node ID (platform.getCurrentValidators): a body no node sent for a whole turn goes (turn()). */
  private readonly bodies = new AgingMap<string, { id: number; body: Buffer }>();
  private nextId = 1;

  get size(): number {
    return this.bodies.size;
  }

  /** Drops the bodies no request used since the last turn (the Scheduler's sweep). */
  turn(): void {
    this.bodies.turn();
  }

  /** A node sent its request for `key` again: the shared body stays (or is shared again) while some node sends it. */
  keep(key: string, shared: { id: number; body: Buffer }): void {
    if (this.bodies.get(key) === undefined && this.bodies.size < MAX_SHARED_BODIES) this.bodies.set(key, shared);
  }

  /** The body for `key` (path, method and params), made on its first use. */
  get(key: string, method: string, paramsJson: string): { id: number; body: Buffer } {
    let shared = this.bodies.get(key);
    if (!shared) {
      const id = this.nextId++;
      shared = { id, body: Buffer.from(`{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${paramsJson}}`) };
      if (this.bodies.size < MAX_SHARED_BODIES) this.bodies.set(key, shared);
    }
    return shared;
  }
}

/**
 * A request as sent, made once per node, path, method and params and kept: its body, URL and undici options
 * are the same bytes and objects at every poll (frozen: undici reads them, nothing may change them).
 */
interface PreparedCall {
  readonly id: number;
  /** The body as the exporter's RequestBodies share it. */
  readonly shared: { readonly id: number; readonly body: Buffer };
  readonly method: string;
  readonly url: string;
  readonly options: Readonly<Dispatcher.DispatchOptions>;
}

/**
 * Requests to one node. Every request takes the poll's deadline (`signal`):
 * the wait for a request slot and the exchange, body included, end with it.
 * Answers are returned whatever their status; deciding what they mean is the
 * sources' (their pure parsers) and the poll boundary's (classifyError).
 */
export class NodeClient {
  private readonly headers: Record<string, string>;
  private readonly origin: string;
  private readonly basePath: string;
  /** The node's requests as sent; one whose params named an old node ID goes after a turn unused (turnCalls). */
  private readonly calls = new AgingMap<string, PreparedCall>();
  /**
   * The node's last request was sent and got no answer before its deadline:
   * its requests take slots from the hanging nodes' share (rpc/limiter.ts)
   * until one is answered again.
   */
  hanging = false;

  readonly dispatcher: Dispatcher;
  /** The admission to the node's origin (Dispatchers.originSlots), taken before a slot of `limiter`. */
  readonly originSlots: Limiter;

  constructor(
    private readonly target: TargetConfig,
    private readonly dispatchers: Dispatchers,
    readonly limiter: Limiter,
    private readonly bodies: RequestBodies,
  ) {
    this.dispatcher = dispatchers.for(target.tls);
    this.originSlots = dispatchers.originSlots(target.url);
    const url = new URL(target.url);
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '') + url.search;
    this.headers = { ...target.headers, 'content-type': 'application/json', accept: 'application/json' };
    if (target.basicAuth) {
      const token = Buffer.from(`${target.basicAuth.username}:${target.basicAuth.password}`).toString('base64');
      this.headers.authorization = `Basic ${token}`;
    }
    Object.freeze(this.headers);
  }

  /**
   * How long a request of this node that joins now would wait for a slot of the process, or of its origin when other
   * nodes share it (Limiter.expectedWaitMs; ms, 0 when none waits): the exporter's saturation. Not the queue of an
   * origin the node has alone: that holds only its own requests, waiting for the node's answers (send). 0 for a
   * hanging node: its polls wait their turn and end as its own timeouts.
   */
  backlogMs(now: number, targetMs: number): number {
    if (this.hanging) return 0;
    const process = this.limiter.expectedWaitMs(now, targetMs);
    return this.dispatchers.shared(this.origin) ? Math.max(this.originSlots.expectedWaitMs(now, targetMs), process) : process;
  }

  /** Requests kept as sent (the debug state endpoint). */
  get preparedCalls(): number {
    return this.calls.size;
  }

  /** Drops the requests not sent since the last turn (the Scheduler's sweep). */
  turnCalls(): void {
    this.calls.turn();
  }

  /** A JSON-RPC 2.0 request; decode the reply with rpc/jsonrpc.ts. */
  rpc(path: string, method: string, params: object, signal: AbortSignal, watcher?: SendWatcher): Promise<RpcReply> {
    let call: PreparedCall;
    try {
      call = this.prepare(path, method, params);
    } catch (err) {
      // Params JSON cannot encode (a BigInt, a cycle): a rejection like any failed request, never a throw.
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return this.send(call, signal, watcher);
  }

  /** The request, made on its first use and kept: the same bytes every poll. */
  private prepare(path: string, method: string, params: object): PreparedCall {
    const paramsJson = JSON.stringify(params);
    const key = `${path} ${method} ${paramsJson}`;
    let call = this.calls.get(key);
    if (!call) {
      call = this.call(path, method, this.bodies.get(key, method, paramsJson));
      this.calls.set(key, call);
    } else this.bodies.keep(key, call.shared);
    return call;
  }

  private call(path: string, method: string, shared: { id: number; body: Buffer }): PreparedCall {
    const options = Object.freeze({
      origin: this.origin,
      path: `${this.basePath}${path}`,
      method: 'POST' as const,
      headers: this.headers,
      body: shared.body,
    });
    return Object.freeze({ id: shared.id, shared, method, url: `${this.target.url}${path}`, options });
  }

  private send(call: PreparedCall, signal: AbortSignal, watcher: SendWatcher | undefined): Promise<RpcReply> {
    const hanging = this.hanging;
    // The origin's slot first, then the process's: a request waiting for its origin holds none of the process's.
    if (this.originSlots.take(hanging)) return this.admitted(call, signal, watcher, hanging);
    // Every slot of the origin is taken (or its hanging nodes' share is): wait for one under the poll's bound. Alone on
    // its origin, the node's own requests hold its connections: they wait for its answers, and so does this one. That
    // wait is the node's time (the poll's deadline counts it as time on the wire): a node that hangs fails its polls as
    // its own timeouts, not as the exporter's saturation (in the frozen drill its health polls, queued behind its other
    // sources' requests, were skipped as "saturated" and never said `timeout`). On a shared origin it is the exporter's.
    const own = !this.dispatchers.shared(this.origin);
    const joined = performance.now();
    if (own) watcher?.sent(joined);
    return this.originSlots.wait(signal, hanging).then(
      () => {
        if (own) watcher?.done(joined);
        return this.admitted(call, signal, watcher, hanging);
      },
      (err: unknown) => {
        if (own) watcher?.done(joined);
        throw new RequestFailed(call.url, own ? 'queue' : 'slot', signal.aborted, err);
      },
    );
  }

  /** Holding the origin's slot: sends now if the process has a slot free, else waits for one (slotted). */
  private admitted(call: PreparedCall, signal: AbortSignal, watcher: SendWatcher | undefined, hanging: boolean): Promise<RpcReply> {
    return this.limiter.take(hanging) ? exchange(this, call, signal, watcher, hanging) : this.slotted(call, signal, watcher, hanging);
  }

  /** Holding the origin's slot: waits for one of the process's (the origin's slot is given back if that wait ends first). */
  private slotted(call: PreparedCall, signal: AbortSignal, watcher: SendWatcher | undefined, hanging: boolean): Promise<RpcReply> {
    return this.limiter.wait(signal, hanging).then(
      () => exchange(this, call, signal, watcher, hanging),
      (err: unknown) => {
        this.originSlots.release(hanging);
        throw new RequestFailed(call.url, 'slot', signal.aborted, err);
      },
    );
  }
}

type Controller = Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestStart']>>[0];

/** A rejection reason as an Error (an AbortSignal's reason is a DOMException, which is one). */
function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}

const NO_HEADERS: IncomingHttpHeaders = Object.freeze({});

/**
 * One exchange through undici's dispatcher API, without the body stream its
 * request() API makes for every answer: the chunks are collected as they come,
 * up to MAX_BODY_BYTES. The deadline aborts it wherever it is (waiting for a
 * connection, or mid-body). The request's slot is given back once undici is
 * done with the request (answered, failed, or aborted), which may be after the
 * promise settles: a request aborted while it waits for a connection still
 * holds its place in the pool's queue, and the cap on requests in flight must
 * count it (else queues and connections grow past the cap).
 *
 * One object is the handler, the abort listener (handleEvent) and the state:
 * no closure a request.
 */
class Exchange implements Dispatcher.DispatchHandler {
  private controller: Controller | undefined = undefined;
  private failed = false;
  private done = false;
  private status = 0;
  private headers: IncomingHttpHeaders = NO_HEADERS;
  private first: Buffer | undefined = undefined;
  private more: Buffer[] | undefined = undefined;
  private size = 0;
  /** On the wire since (undici wrote it; the node's time runs), or -1 before. */
  private sentAt = -1;

  constructor(
    private readonly client: NodeClient,
    private readonly call: PreparedCall,
    private readonly signal: AbortSignal,
    private readonly watcher: SendWatcher | undefined,
    /** The slot is from the hanging nodes' share. */
    private readonly hanging: boolean,
    private readonly resolve: (reply: RpcReply) => void,
    private readonly reject: (err: unknown) => void,
  ) {}

  /** The deadline (the signal's abort event). */
  handleEvent(): void {
    this.fail(this.signal.reason);
  }

  /** undici is done with the request: its slot is free. */
  finished(): void {
    if (this.done) return;
    this.done = true;
    this.client.limiter.release(this.hanging);
    this.client.originSlots.release(this.hanging);
    if (this.sentAt >= 0) this.watcher?.done(this.sentAt);
  }

  fail(err: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.signal.removeEventListener('abort', this);
    this.first = undefined;
    this.more = undefined;
    const error = asError(err);
    // Sent and cut by the node's deadline: the node hangs. Not when aborted before it was sent (the exporter's wait),
    // nor when the poll ended as saturated or was stopped with it on the wire: the exporter's load or its stop, not
    // the node (a node marked hanging by the exporter's own saturation would be held to the hanging share for it).
    if (this.sentAt >= 0 && this.signal.aborted && isNodeDeadline(this.signal.reason)) this.client.hanging = true;
    this.controller?.abort(error);
    this.reject(error instanceof InvalidResponseError ? error : new RequestFailed(this.call.url, 'exchange', this.signal.aborted, error));
  }

  onRequestStart(c: Controller): void {
    this.controller = c;
    // The deadline passed while the request waited for a connection.
    if (this.failed) {
      c.abort(asError(this.signal.reason));
      return;
    }
    this.sentAt = performance.now();
    this.watcher?.sent(this.sentAt);
  }

  onResponseStart(_c: Controller, statusCode: number, headers: IncomingHttpHeaders): void {
    this.status = statusCode;
    this.headers = headers;
  }

  onResponseData(_c: Controller, chunk: Buffer): void {
    if (this.failed) return;
    this.size += chunk.length;
    if (this.size > MAX_BODY_BYTES) this.fail(new InvalidResponseError(`the answer from ${this.call.url} is larger than ${MAX_BODY_BYTES} bytes`));
    else if (this.first === undefined) this.first = chunk;
    else (this.more ??= [this.first]).push(chunk);
  }

  onResponseEnd(): void {
    this.finished();
    if (this.failed) return;
    this.client.hanging = false;
    this.failed = true;
    this.signal.removeEventListener('abort', this);
    const body = this.more ? Buffer.concat(this.more, this.size).toString('utf8') : (this.first?.toString('utf8') ?? '');
    this.first = undefined;
    this.more = undefined;
    const { call } = this;
    this.resolve({ url: call.url, status: this.status, headers: this.headers, body, method: call.method, id: call.id });
  }

  onResponseError(_c: Controller, err: Error): void {
    this.finished();
    this.fail(err);
  }
}

/** Sends `call` holding a slot of the client's origin and of its limiter, given back once undici is done with the request. */
function exchange(
  client: NodeClient,
  call: PreparedCall,
  signal: AbortSignal,
  watcher: SendWatcher | undefined,
  hanging: boolean,
): Promise<RpcReply> {
  return new Promise((resolve, reject) => {
    const x = new Exchange(client, call, signal, watcher, hanging, resolve, reject);
    if (signal.aborted) {
      x.finished();
      x.fail(signal.reason);
      return;
    }
    signal.addEventListener('abort', x, { once: true });
    try {
      client.dispatcher.dispatch(call.options, x);
    } catch (err) {
      x.finished();
      x.fail(err);
    }
  });
}
