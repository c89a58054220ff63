// A loopback gateway: one origin, nodes behind path prefixes (/<name>/ext/…),
// each answering every request the same hostile way. The network edge is
// faked; what the exporter does with it is real.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';

/**
 * How a node behind the gateway answers:
 * - `huge`: 200 and a JSON body that never ends (the exporter cuts it at its body cap);
 * - `bomb`: 200 and a gzip bomb (`content-encoding: gzip`, 64 MiB of zeros in 64 KiB);
 * - `malformed`: 200 and a JSON-RPC answer cut in the middle;
 * - `silent`: the request is read and never answered;
 * - `trickle`: 200 and a body of one byte every 150 ms;
 * - `headers`: a status line, then one header line every 150 ms, never the end of the headers.
 */
export type GatewayBehaviour = 'huge' | 'bomb' | 'malformed' | 'silent' | 'trickle' | 'headers';

export interface Gateway {
  /** The origin; node `name` is at `${url}/${name}`. */
  url: string;
  /** Requests each node was sent (by name). */
  requests: Map<string, number>;
  close(): Promise<void>;
}

const CHUNK = Buffer.alloc(64 * 1024, '9');
let bomb: Buffer | undefined;

export async function startGateway(nodes: Record<string, GatewayBehaviour>): Promise<Gateway> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const requests = new Map<string, number>();
  let closing = false;
  const every = (ms: number, tick: () => boolean): void => {
    const t = setInterval(() => {
      if (closing || !tick()) {
        clearInterval(t);
        timers.delete(t);
      }
    }, ms);
    timers.add(t);
  };
  const answer = (behaviour: GatewayBehaviour, req: IncomingMessage, res: ServerResponse): void => {
    switch (behaviour) {
      case 'huge': {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"jsonrpc":"2.0","result":"');
        const more = (): void => {
          while (!closing && !res.destroyed && res.write(CHUNK));
        };
        res.on('drain', more);
        more();
        return;
      }
      case 'bomb':
        bomb ??= gzipSync(Buffer.alloc(64 << 20));
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(bomb);
        return;
      case 'malformed':
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","result":{"checks":{"C":{"message":');
        return;
      case 'silent':
        return;
      case 'trickle':
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000' });
        every(150, () => !res.destroyed && res.write('9'));
        return;
      case 'headers': {
        // Past node's HTTP layer: the raw socket, so that the headers never end.
        const socket = req.socket;
        socket.write('HTTP/1.1 200 OK\r\n');
        let n = 0;
        every(150, () => !socket.destroyed && socket.write(`X-Pad-${n++}: x\r\n`));
        return;
      }
    }
  };
  const server = createServer((req, res) => {
    const name = (req.url ?? '/').split('/')[1] ?? '';
    const behaviour = nodes[name];
    req.resume();
    req.on('end', () => {
      requests.set(name, (requests.get(name) ?? 0) + 1);
      if (behaviour) answer(behaviour, req, res);
      else res.writeHead(404).end('404 page not found\n');
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    async close() {
      closing = true;
      for (const t of timers) clearInterval(t);
      timers.clear();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
