// A TCP proxy on loopback whose link can be made slow or broken while it runs: the "slow link"
// fault drill (test/real-node/drills.ts) puts it between the exporter and one real node.
//   - `pass`: bytes flow both ways as they come;
//   - `delay`: the upstream's answers reach the client `delayMs` late (a congested link);
//   - `reset`: every open connection is reset (RST) and every new one is reset on accept.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { defined } from './assert.js';

export type ProxyMode = { mode: 'pass' } | { mode: 'delay'; delayMs: number } | { mode: 'reset' };

export class TcpProxy {
  private state: ProxyMode = { mode: 'pass' };
  private readonly open = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(
    private readonly server: Server,
    /** The port the proxy listens on, on 127.0.0.1. */
    readonly port: number,
  ) {}

  /** Listens on 127.0.0.1 (`port`, or a free one) and forwards every connection to `target`. */
  static async start(target: { host: string; port: number }, port = 0): Promise<TcpProxy> {
    const made: { proxy?: TcpProxy } = {};
    const server = createServer((client) => defined(made.proxy, 'the proxy').accept(client, target));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (!address || typeof address !== 'object') throw new Error('the proxy has no address');
    made.proxy = new TcpProxy(server, address.port);
    return made.proxy;
  }

  get mode(): ProxyMode {
    return this.state;
  }

  /** Changes the link for the open connections and the next ones; `reset` resets the open ones at once. */
  set(mode: ProxyMode): void {
    this.state = mode;
    if (mode.mode === 'reset') for (const s of [...this.open]) s.resetAndDestroy();
  }

  /** Stops listening and resets every open connection. */
  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const s of [...this.open]) s.resetAndDestroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private track(s: Socket): void {
    this.open.add(s);
    s.once('close', () => this.open.delete(s));
    // A reset or a peer gone is the normal end of a connection here.
    s.on('error', () => s.destroy());
  }

  private accept(client: Socket, target: { host: string; port: number }): void {
    if (this.state.mode === 'reset') {
      client.on('error', () => client.destroy());
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    this.track(client);
    this.track(upstream);
    client.once('close', () => upstream.destroy());
    client.on('data', (chunk: Buffer) => {
      if (!upstream.destroyed) upstream.write(chunk);
    });
    client.once('end', () => upstream.end());
    // The upstream's bytes in order: each delivered at its arrival plus the delay in force then,
    // never before the bytes that came before it.
    let last = 0;
    const deliver = (send: () => void): void => {
      const now = Date.now();
      const at = Math.max(now + (this.state.mode === 'delay' ? this.state.delayMs : 0), last);
      last = at;
      if (at <= now) {
        send();
        return;
      }
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        send();
      }, at - now);
      this.timers.add(timer);
    };
    upstream.on('data', (chunk: Buffer) =>
      deliver(() => {
        if (!client.destroyed) client.write(chunk);
      }),
    );
    let ended = false;
    upstream.once('end', () => {
      ended = true;
      deliver(() => client.end());
    });
    // An upstream that closed without ending (reset) closes the client once its bytes are delivered.
    upstream.once('close', () => {
      if (!ended) deliver(() => client.destroy());
    });
  }
}
