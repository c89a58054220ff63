// HTTP toward one node, over a shared undici dispatcher. Every request is
// bounded by its poll's deadline through an AbortSignal that reaches the
// socket, and by a process-wide cap on requests in flight.
import type { IncomingHttpHeaders } from 'node:http';
import { Agent, request, type Dispatcher } from 'undici';
import type { TargetConfig, TlsSettings } from '../config/schema.js';
import type { Limiter } from './limiter.js';
import { InvalidResponseError, RequestFailed } from './errors.js';

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

/**
 * undici Agents: one shared keep-alive pool for plain and default-TLS targets,
 * plus one per distinct TLS setting (CA, client cert, SNI, verification off).
 */
export class Dispatchers {
  private readonly shared: Agent;
  private readonly byTls = new Map<string, Agent>();

  constructor(private readonly options: Agent.Options = {}) {
    this.shared = new Agent({ keepAliveTimeout: 60_000, connections: 8, ...options });
  }

  for(tls: TlsSettings | undefined): Dispatcher {
    if (!tls) return this.shared;
    const key = JSON.stringify([tls.ca, tls.cert, tls.key, tls.serverName, tls.insecureSkipVerify]);
    let agent = this.byTls.get(key);
    if (!agent) {
      agent = new Agent({
        keepAliveTimeout: 60_000,
        connections: 8,
        ...this.options,
        connect: {
          ...(tls.ca ? { ca: tls.ca } : {}),
          ...(tls.cert ? { cert: tls.cert } : {}),
          ...(tls.key ? { key: tls.key } : {}),
          ...(tls.serverName ? { servername: tls.serverName } : {}),
          rejectUnauthorized: !tls.insecureSkipVerify,
        },
      });
      this.byTls.set(key, agent);
    }
    return agent;
  }

  async close(): Promise<void> {
    await Promise.all([this.shared.close(), ...[...this.byTls.values()].map((a) => a.close())]);
    this.byTls.clear();
  }
}

let nextRequestId = 1;

/**
 * Requests to one node. Every request takes the poll's deadline (`signal`):
 * the wait for a request slot and the exchange, body included, end with it.
 * Answers are returned whatever their status; deciding what they mean is the
 * sources' (their pure parsers) and the poll boundary's (classifyError).
 */
export class NodeClient {
  private readonly headers: Record<string, string>;
  private readonly dispatcher: Dispatcher;

  constructor(
    private readonly target: TargetConfig,
    dispatchers: Dispatchers,
    private readonly limiter: Limiter,
  ) {
    this.dispatcher = dispatchers.for(target.tls);
    this.headers = { ...target.headers, 'content-type': 'application/json', accept: 'application/json' };
    if (target.basicAuth) {
      const token = Buffer.from(`${target.basicAuth.username}:${target.basicAuth.password}`).toString('base64');
      this.headers.authorization = `Basic ${token}`;
    }
  }

  /**
   * POST a JSON body to `{url}{path}`. Resolves with any HTTP status; rejects
   * with RequestFailed (no answer) or InvalidResponseError (a body over MAX_BODY_BYTES).
   */
  async post(path: string, body: unknown, signal: AbortSignal): Promise<HttpReply> {
    const url = `${this.target.url}${path}`;
    let release: () => void;
    try {
      release = await this.limiter.acquire(signal);
    } catch (err) {
      throw new RequestFailed(url, 'slot', signal.aborted, err);
    }
    try {
      const res = await request(url, { method: 'POST', dispatcher: this.dispatcher, signal, headers: this.headers, body: JSON.stringify(body) });
      const text = await readLimited(res.body, url);
      return { url, status: res.statusCode, headers: res.headers, body: text };
    } catch (err) {
      if (err instanceof InvalidResponseError) throw err;
      throw new RequestFailed(url, 'exchange', signal.aborted, err);
    } finally {
      release();
    }
  }

  /** A JSON-RPC 2.0 request; decode the reply with rpc/jsonrpc.ts. */
  async rpc(path: string, method: string, params: object, signal: AbortSignal): Promise<RpcReply> {
    const id = nextRequestId++;
    const reply = await this.post(path, { jsonrpc: '2.0', id, method, params }, signal);
    return { ...reply, method, id };
  }
}

async function readLimited(body: AsyncIterable<Buffer> & { destroy?: (err?: Error) => unknown }, url: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      body.destroy?.();
      throw new InvalidResponseError(`the answer from ${url} is larger than ${MAX_BODY_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
