// The connections to nodes: undici Agents under a socket budget. Which request
// may use them, and when, is admission's (rpc/admission.ts); how many each
// origin gets is its origin layout's (PoolSizes).
import { readFileSync } from 'node:fs';
import { Agent, Pool, buildConnector, type Dispatcher } from 'undici';
import type { TlsSettings } from '../config/schema.js';
import { CONNECTIONS_PER_NODE } from './admission.js';

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

/** How many connections an origin's pool gets (rpc/admission.ts keeps the origin layout). */
export interface PoolSizes {
  connectionsFor(origin: string): number;
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

/**
 * undici Agents (one shared keep-alive pool for plain and default-TLS targets,
 * one per distinct TLS setting) under a socket budget: each origin's pool as
 * large as its layout says (PoolSizes: 2 connections per node behind it, so
 * nodes behind one gateway with path prefixes get their share), and at most
 * `maxConnections` sockets in all. A connection past the budget, or refused for
 * want of file descriptors, fails at once with a message that says so (reason
 * `connect`) and, for the latter, counts in
 * avalanchego_exporter_file_descriptor_errors_total.
 */
export class Dispatchers {
  private readonly agents = new Map<string, Agent>();
  private open = 0;
  /** Pools made before a layout is given get the size of a node's own. */
  private sizes: PoolSizes = { connectionsFor: () => Math.min(CONNECTIONS_PER_NODE, this.maxConnections) };
  readonly maxConnections: number;

  constructor(private readonly options: DispatchersOptions = {}) {
    const limit = openFilesLimit();
    this.maxConnections = options.maxConnections ?? (limit !== undefined ? Math.max(64, limit - FD_RESERVE) : DEFAULT_MAX_CONNECTIONS);
  }

  /** Sockets open to nodes now. */
  get openConnections(): number {
    return this.open;
  }

  /** The origin layout that sizes the pools made from now on (the exporter's Admission). */
  sizePoolsBy(sizes: PoolSizes): void {
    this.sizes = sizes;
  }

  for(tls: TlsSettings | undefined): Dispatcher {
    const key = tls ? JSON.stringify([tls.ca, tls.cert, tls.key, tls.serverName, tls.insecureSkipVerify]) : '';
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
        factory: (origin, opts) => new Pool(origin, { ...(opts as Pool.Options), connections: this.sizes.connectionsFor(String(origin)) }),
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
