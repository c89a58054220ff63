// A loopback fake node for the exporter's own tests: serves fixed answers per
// path (fixture files or literal bodies), with a status, a delay, or a dropped
// connection. The network edge is faked; everything behind it is real.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { defined, errorText } from './assert.js';

export interface Route {
  status?: number;
  body?: string;
  /** A file under test/fixtures/. */
  fixture?: string;
  contentType?: string;
  headers?: Record<string, string>;
  delayMs?: number;
  /** Accept the request and close the socket without answering. */
  drop?: boolean;
  /** Send the status, headers and the first bytes of the body, then nothing more. */
  stallBody?: boolean;
  /** A JSON-RPC `result` per method asked on this path (the answer wraps it); other methods get `body`. */
  methods?: Record<string, unknown>;
}

function requestMethod(body: string): string | undefined {
  try {
    const method = (JSON.parse(body) as { method?: unknown }).method;
    return typeof method === 'string' ? method : undefined;
  } catch {
    return undefined;
  }
}

export interface FakeNode {
  url: string;
  routes: Map<string, Route>;
  requests: Array<{ path: string; body: string; headers: IncomingMessage['headers']; at: number }>;
  /** Requests being answered now, and the most at once. */
  readonly inFlight: number;
  readonly maxInFlight: number;
  close(): Promise<void>;
}

function requestId(body: string): number | undefined {
  try {
    const id = (JSON.parse(body) as { id?: unknown }).id;
    return typeof id === 'number' ? id : undefined;
  } catch {
    return undefined;
  }
}

export function fixtureText(name: string): string {
  return readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');
}

export async function startFakeNode(routes: Record<string, Route> = {}): Promise<FakeNode> {
  const map = new Map(Object.entries(routes));
  const requests: FakeNode['requests'] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let inFlight = 0;
  let maxInFlight = 0;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => inFlight--);
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const path = defined((req.url ?? '/').split('?')[0], 'the request path');
      requests.push({ path, body, headers: req.headers, at: Date.now() });
      const route = map.get(path);
      const answer = () => {
        if (!route) {
          res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('404 page not found\n');
          return;
        }
        if (route.drop) {
          req.socket.destroy();
          return;
        }
        const method = route.methods ? requestMethod(body) : undefined;
        let text =
          method !== undefined && route.methods && method in route.methods
            ? JSON.stringify({ jsonrpc: '2.0', result: route.methods[method], id: 1 })
            : route.fixture
              ? fixtureText(route.fixture)
              : (route.body ?? '');
        // Echo the request's id into a JSON-RPC answer, as a node does (bytes otherwise untouched).
        const id = requestId(body);
        // gorilla writes the id last; go-ethereum (eth_*) second, after "jsonrpc".
        if (id !== undefined)
          text = text.replace(/"id":\s*\d+(\s*\}\s*)$/, `"id":${id}$1`).replace(/^\{"jsonrpc":"2\.0","id":\d+,/, `{"jsonrpc":"2.0","id":${id},`);
        res.writeHead(route.status ?? 200, {
          'content-type': route.contentType ?? 'application/json; charset=utf-8',
          ...route.headers,
        });
        if (route.stallBody) res.write(text.slice(0, 20));
        else res.end(text);
      };
      if (route?.delayMs) {
        const t = setTimeout(() => {
          timers.delete(t);
          answer();
        }, route.delayMs);
        timers.add(t);
      } else answer();
    });
  };
  const server: Server = createServer(handle);
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    routes: map,
    requests,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Polls `probe` until it returns a truthy value or the deadline passes. */
export async function waitFor<T>(probe: () => Promise<T | undefined | false> | T | undefined | false, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${errorText(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
