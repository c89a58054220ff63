// HTTP and JSON-RPC 2.0 toward one node, over a shared undici dispatcher.
// Every request is bounded by the target's timeout through an AbortSignal that
// reaches the socket, and by a process-wide cap on requests in flight.
import { Agent, request, type Dispatcher } from 'undici';
import type { TargetConfig, TlsSettings } from '../config/schema.js';
import type { Limiter } from '../scheduler/limiter.js';
import { HttpStatusError, InvalidResponseError, RpcError, classifyError, snippet } from './errors.js';

/** Bodies larger than this are refused: a health report of a node with many L1s is a few hundred KiB. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface HttpAnswer {
  status: number;
  body: string;
  /** The node's `node-id` response header, when present. */
  nodeId?: string;
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

  /** POST a JSON body to `{url}{path}`; resolves with any HTTP status, rejects with a PollError. */
  async post(path: string, body: unknown): Promise<HttpAnswer> {
    const url = `${this.target.url}${path}`;
    const release = await this.limiter.acquire();
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`timeout after ${this.target.timeoutMs} ms`));
    }, this.target.timeoutMs);
    try {
      const res = await request(url, {
        method: 'POST',
        dispatcher: this.dispatcher,
        signal: controller.signal,
        headers: this.headers,
        body: JSON.stringify(body),
      });
      const text = await readLimited(res.body, url);
      const nodeId = res.headers['node-id'];
      return { status: res.statusCode, body: text, ...(typeof nodeId === 'string' ? { nodeId } : {}) };
    } catch (err) {
      throw classifyError(err, { url, timeoutMs: this.target.timeoutMs, timedOut });
    } finally {
      clearTimeout(timer);
      release();
    }
  }

  /**
   * A JSON-RPC 2.0 call. Resolves with `result`; rejects with HttpStatusError
   * (non-200), RpcError (an `error` object) or InvalidResponseError.
   */
  async call(path: string, method: string, params: object): Promise<{ result: unknown; nodeId?: string }> {
    const id = nextRequestId++;
    const answer = await this.post(path, { jsonrpc: '2.0', id, method, params });
    const url = `${this.target.url}${path}`;
    if (answer.status !== 200) throw new HttpStatusError(answer.status, answer.body, url);
    let envelope: unknown;
    try {
      envelope = JSON.parse(answer.body);
    } catch {
      throw new InvalidResponseError(`${method} at ${url} answered with a body that is not JSON: ${snippet(answer.body)}`);
    }
    if (!envelope || typeof envelope !== 'object' || Array.isArray(envelope)) {
      throw new InvalidResponseError(`${method} at ${url} answered with JSON that is not a JSON-RPC response: ${snippet(answer.body)}`);
    }
    const env = envelope as { jsonrpc?: unknown; id?: unknown; result?: unknown; error?: unknown };
    if (env.error !== undefined && env.error !== null) {
      const e = env.error as { code?: unknown; message?: unknown };
      const code = typeof e.code === 'number' ? e.code : 0;
      const message = typeof e.message === 'string' ? e.message : JSON.stringify(env.error);
      throw new RpcError(code, message, method);
    }
    if (env.jsonrpc !== '2.0' || !('result' in env)) {
      throw new InvalidResponseError(`${method} at ${url} answered without a JSON-RPC 2.0 result: ${snippet(answer.body)}`);
    }
    if (env.id !== id) {
      throw new InvalidResponseError(`${method} at ${url} answered with id ${JSON.stringify(env.id)}, expected ${id}`);
    }
    return { result: env.result, ...(answer.nodeId ? { nodeId: answer.nodeId } : {}) };
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
