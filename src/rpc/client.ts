// HTTP toward one node: a request prepared once and kept, admitted through the
// node's ticket (rpc/admission.ts: the process's and its origin's slots), and
// exchanged over the exporter's undici dispatchers (rpc/sockets.ts). Every
// request ends with its poll's deadline, which reaches the socket.
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import type { TargetConfig } from '../config/schema.js';
import { Ticket, type NodeAdmission } from './admission.js';
import type { PollHandle } from './deadline.js';
import { InvalidResponseError, RequestFailed } from './errors.js';
import type { Dispatchers } from './sockets.js';

/** Bodies larger than this are refused: a health report of a node with many L1s is a few hundred KiB. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** An HTTP answer, whatever its status. */
export interface HttpReply {
  url: string;
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * Takes a 200 answer's body chunk by chunk as it comes (a GET of NodeClient.stream), so that a body of
 * megabytes is read without being held. What `write` throws fails the request with it.
 */
export interface BodySink {
  write(chunk: Buffer): void;
}

/** Bodies of any other status than 200 kept for the error of a streamed GET: the node's text, not its data. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** The HTTP answer to a JSON-RPC request, with what decoding it needs (rpc/jsonrpc.ts). */
export interface RpcReply extends HttpReply {
  method: string;
  /** The request's id; the answer must echo it. */
  id: number;
}

const MAX_SHARED_BODIES = 10_000;

/**
 * The bodies of JSON-RPC requests, one per path, method and params, shared by every node of one exporter
 * sent that request (its id is echoed by each node; nothing needs it unique across nodes): a fleet of
 * thousands holds a handful of bodies, not one a node and method. Bounded: past the cap a body is made per
 * node. One per exporter (its Scheduler's), so two exporters in a process share none.
 */
export class RequestBodies {
  private readonly bodies = new Map<string, { id: number; body: Buffer }>();
  private nextId = 1;

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
  readonly method: string;
  readonly url: string;
  readonly options: Readonly<Dispatcher.DispatchOptions>;
}

/**
 * Requests to one node. Every request takes its poll's handle (its deadline):
 * the wait for a request slot and the exchange, body included, end with it.
 * Answers are returned whatever their status; deciding what they mean is the
 * sources' (their pure parsers) and the poll boundary's (classifyError).
 */
export class NodeClient {
  private readonly headers: Record<string, string>;
  private readonly getHeaders: Record<string, string>;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly calls = new Map<string, PreparedCall>();
  private readonly dispatcher: Dispatcher;

  constructor(
    private readonly target: TargetConfig,
    dispatchers: Dispatchers,
    /** The node's admission (the poller's): every request takes a ticket of it. */
    private readonly door: NodeAdmission,
    private readonly bodies: RequestBodies,
  ) {
    this.dispatcher = dispatchers.for(target.tls);
    const url = new URL(target.url);
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '') + url.search;
    this.headers = { ...target.headers, 'content-type': 'application/json', accept: 'application/json' };
    if (target.basicAuth) {
      const token = Buffer.from(`${target.basicAuth.username}:${target.basicAuth.password}`).toString('base64');
      this.headers.authorization = `Basic ${token}`;
    }
    Object.freeze(this.headers);
    // The text exposition format (version 0.0.4): promhttp would answer protobuf or OpenMetrics to other Accept values.
    const get: Record<string, string> = { ...this.headers, accept: 'text/plain;version=0.0.4' };
    delete get['content-type'];
    this.getHeaders = Object.freeze(get);
  }

  /**
   * A GET of `{url}{path}` under `poll`, whose 200 body goes to `sink` as it streams (never held, counted
   * against MAX_BODY_BYTES); the answer's `body` is then ''. Any other status's body is kept, up to
   * MAX_ERROR_BODY_BYTES, for the caller's error. What the sink throws fails the request.
   */
  stream(path: string, sink: BodySink, poll: PollHandle): Promise<HttpReply> {
    const key = `GET ${path}`;
    let call = this.calls.get(key);
    if (!call) {
      const options = Object.freeze({ origin: this.origin, path: `${this.basePath}${path}`, method: 'GET' as const, headers: this.getHeaders });
      call = Object.freeze({ id: 0, method: key, url: `${this.target.url}${path}`, options });
      this.calls.set(key, call);
    }
    const prepared = call;
    return new Promise((resolve, reject) => new Exchange(this.door, poll, prepared, this.dispatcher, resolve, reject, sink).start());
  }

  /** A JSON-RPC 2.0 request under `poll` (a PollDeadline, or `{ signal }`); decode the reply with rpc/jsonrpc.ts. */
  rpc(path: string, method: string, params: object, poll: PollHandle): Promise<RpcReply> {
    let call: PreparedCall;
    try {
      call = this.prepare(path, method, params);
    } catch (err) {
      // Params JSON cannot encode (a BigInt, a cycle): a rejection like any failed request, never a throw.
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return new Promise((resolve, reject) => new Exchange(this.door, poll, call, this.dispatcher, resolve, reject).start());
  }

  /** The request, made on its first use and kept: the same bytes every poll. */
  private prepare(path: string, method: string, params: object): PreparedCall {
    const paramsJson = JSON.stringify(params);
    const key = `${path} ${method} ${paramsJson}`;
    let call = this.calls.get(key);
    if (!call) {
      const { id, body } = this.bodies.get(key, method, paramsJson);
      call = this.call(path, method, id, body);
      this.calls.set(key, call);
    }
    return call;
  }

  private call(path: string, method: string, id: number, body: Buffer): PreparedCall {
    const options = Object.freeze({ origin: this.origin, path: `${this.basePath}${path}`, method: 'POST' as const, headers: this.headers, body });
    return Object.freeze({ id, method, url: `${this.target.url}${path}`, options });
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
 * slot or a connection, or mid-body). The request's slots are given back once
 * undici is done with the request (answered, failed, or aborted), which may be
 * after the promise settles: a request aborted while it waits for a connection
 * still holds its place in the pool's queue, and the cap on requests in flight
 * must count it (else queues and connections grow past the cap).
 *
 * One object is the ticket (rpc/admission.ts), the handler, the abort listener
 * (handleEvent) and the state: no closure a request.
 */
class Exchange extends Ticket implements Dispatcher.DispatchHandler {
  private controller: Controller | undefined = undefined;
  private failed = false;
  private status = 0;
  private headers: IncomingHttpHeaders = NO_HEADERS;
  private first: Buffer | undefined = undefined;
  private more: Buffer[] | undefined = undefined;
  private size = 0;

  constructor(
    door: NodeAdmission,
    poll: PollHandle,
    private readonly call: PreparedCall,
    private readonly dispatcher: Dispatcher,
    private readonly resolve: (reply: RpcReply) => void,
    private readonly reject: (err: unknown) => void,
    /** A streamed GET's: takes a 200 body's chunks instead of collecting them. */
    private readonly sink?: BodySink,
  ) {
    super(door, poll, call.url);
  }

  start(): void {
    this.admit();
  }

  /** Holding its slots: sends the request, or fails at once when the deadline has passed. */
  protected admitted(): void {
    const { signal } = this.poll;
    if (signal.aborted) {
      this.release();
      this.fail(signal.reason);
      return;
    }
    signal.addEventListener('abort', this, { once: true });
    try {
      this.dispatcher.dispatch(this.call.options, this);
    } catch (err) {
      this.release();
      this.fail(err);
    }
  }

  protected refused(err: RequestFailed): void {
    this.reject(err);
  }

  /** The deadline (the signal's abort event). */
  handleEvent(): void {
    this.fail(this.poll.signal.reason);
  }

  fail(err: unknown): void {
    if (this.failed) return;
    this.failed = true;
    const { signal } = this.poll;
    signal.removeEventListener('abort', this);
    this.first = undefined;
    this.more = undefined;
    const error = asError(err);
    this.cut();
    this.controller?.abort(error);
    this.reject(error instanceof InvalidResponseError ? error : new RequestFailed(this.call.url, this.phase('exchange'), signal.aborted, error));
  }

  onRequestStart(c: Controller): void {
    this.controller = c;
    // The deadline passed while the request waited for a connection.
    if (this.failed) {
      c.abort(asError(this.poll.signal.reason));
      return;
    }
    this.sent();
  }

  onResponseStart(_c: Controller, statusCode: number, headers: IncomingHttpHeaders): void {
    this.status = statusCode;
    this.headers = headers;
  }

  onResponseData(_c: Controller, chunk: Buffer): void {
    if (this.failed) return;
    this.size += chunk.length;
    if (this.size > MAX_BODY_BYTES) this.fail(new InvalidResponseError(`the answer from ${this.call.url} is larger than ${MAX_BODY_BYTES} bytes`));
    else if (this.sink) this.toSink(chunk);
    else if (this.first === undefined) this.first = chunk;
    else (this.more ??= [this.first]).push(chunk);
  }

  /** A streamed GET's chunk: to the sink when the answer is a 200, else kept (bounded) for the error. */
  private toSink(chunk: Buffer): void {
    if (this.status === 200) {
      try {
        (this.sink as BodySink).write(chunk);
      } catch (err) {
        this.fail(err);
      }
      return;
    }
    const kept = this.size - chunk.length;
    if (kept >= MAX_ERROR_BODY_BYTES) return;
    const part = kept + chunk.length > MAX_ERROR_BODY_BYTES ? chunk.subarray(0, MAX_ERROR_BODY_BYTES - kept) : chunk;
    if (this.first === undefined) this.first = part;
    else (this.more ??= [this.first]).push(part);
  }

  onResponseEnd(): void {
    this.release();
    if (this.failed) return;
    this.answered();
    this.failed = true;
    this.poll.signal.removeEventListener('abort', this);
    const body = this.more ? Buffer.concat(this.more, this.sink ? undefined : this.size).toString('utf8') : (this.first?.toString('utf8') ?? '');
    this.first = undefined;
    this.more = undefined;
    const { call } = this;
    this.resolve({ url: call.url, status: this.status, headers: this.headers, body, method: call.method, id: call.id });
  }

  onResponseError(_c: Controller, err: Error): void {
    this.release();
    this.fail(err);
  }
}
