// The exporter's listening socket: HTTP or HTTPS from the web config, with
// limits that keep /metrics answering when clients misbehave (slow headers,
// idle or half-open connections, large bodies), a start that fails fast, and a
// stop that does not wait for clients. It sits beside the web config (config.ts)
// and its guard (guard.ts): TLS and auth on the exporter's port in one place, as
// prometheus/exporter-toolkit keeps them in its web package.
import { createServer as createHttpServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import type { WebConfig, WebTls } from './config.js';

/** The limits, documented in docs/web-security.md ("Server limits"). */
export const SERVER_LIMITS = {
  /** The request line and headers must arrive within this (slowloris). */
  headersTimeoutMs: 10_000,
  /** A whole request, body included. */
  requestTimeoutMs: 30_000,
  /** An idle keep-alive connection is closed after this (above the usual 60 s of load balancers). */
  keepAliveTimeoutMs: 65_000,
  /** A TLS handshake must finish within this. */
  handshakeTimeoutMs: 10_000,
  /** Request line plus headers. */
  maxHeaderBytes: 16 * 1024,
  /** The endpoints read no body; a client may send a small one (POST /-/reload with `{}`), not more. */
  maxBodyBytes: 64 * 1024,
  /** How often Node checks the header and request timeouts. */
  checkIntervalMs: 1_000,
  /** On stop, requests under way get this long before their connections are closed. */
  closeGraceMs: 2_000,
} as const;

export const DEFAULT_MAX_CONNECTIONS = 512;

interface Conn {
  socket: Socket;
  /** Requests under way on it. */
  active: number;
  /** When it last finished a request or opened (ms, performance.now()). */
  idleSince: number;
}

export class ListenError extends Error {}

/** One line that says what failed and how to fix it, from a listen error. */
export function listenErrorMessage(address: string, err: NodeJS.ErrnoException): string {
  const where = `cannot listen on ${address}`;
  switch (err.code) {
    case 'EADDRINUSE':
      return `${where}: the address is already in use (another exporter?): stop that process or choose another --web.listen-address`;
    case 'EACCES':
      return `${where}: permission denied (ports below 1024 need root or CAP_NET_BIND_SERVICE): choose a port above 1023`;
    case 'EADDRNOTAVAIL':
      return `${where}: the address is not one of this machine's: give a local address, or :PORT for all interfaces`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
      return `${where}: the host name does not resolve: give an IP address or a resolvable host name`;
    default:
      return `${where}: ${err.code ?? ''} ${err.message}`.replace(/\s+/g, ' ').trim();
  }
}

export interface WebServerOptions {
  handler: RequestListener;
  web: WebConfig;
  maxConnections?: number;
  logger: Logger;
}

export class WebServer {
  readonly server: Server | HttpsServer;
  readonly tls: boolean;
  private readonly conns = new Map<string, Conn>();
  private readonly maxConnections: number;
  private evicted = 0;
  private evictionLoggedAt = -Infinity;
  private allowedSans: string[] | undefined;
  private clientAuth: WebTls['clientAuth'];

  constructor(private readonly options: WebServerOptions) {
    const { web } = options;
    this.maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
    this.tls = web.tls !== undefined;
    this.clientAuth = web.tls?.clientAuth ?? 'none';
    this.allowedSans = web.tls?.allowedSans;
    const handler = this.limitBody(options.handler);
    const common = {
      maxHeaderSize: SERVER_LIMITS.maxHeaderBytes,
      headersTimeout: SERVER_LIMITS.headersTimeoutMs,
      requestTimeout: SERVER_LIMITS.requestTimeoutMs,
      keepAliveTimeout: SERVER_LIMITS.keepAliveTimeoutMs,
      connectionsCheckingInterval: SERVER_LIMITS.checkIntervalMs,
    };
    if (web.tls) {
      const server = createHttpsServer(
        { ...common, ...web.tls.context, ...this.certPolicy(web.tls), handshakeTimeout: SERVER_LIMITS.handshakeTimeoutMs },
        handler,
      );
      server.on('secureConnection', (socket: TLSSocket) => this.checkClient(socket));
      // A failed handshake is the client's problem: no log at error level, no crash.
      server.on('tlsClientError', (err, socket) => {
        options.logger.debug({ err: { message: err.message }, remote: socket.remoteAddress }, 'TLS handshake failed');
      });
      this.server = server;
    } else {
      this.server = createHttpServer(common, handler);
    }
    // Headers and timeouts are enforced per server; these hold for HTTPS too.
    this.server.headersTimeout = SERVER_LIMITS.headersTimeoutMs;
    this.server.requestTimeout = SERVER_LIMITS.requestTimeoutMs;
    this.server.keepAliveTimeout = SERVER_LIMITS.keepAliveTimeoutMs;
    this.server.on('connection', (socket: Socket) => this.admit(socket));
    this.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const conn = this.conns.get(key(req.socket));
      if (!conn) return;
      conn.active++;
      res.once('close', () => {
        conn.active--;
        conn.idleSince = performance.now();
      });
    });
    // A malformed request or an oversized header: 400/431 and close, never an exception.
    this.server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
      if (!socket.writable || (err.code === 'ECONNRESET' && !socket.readable)) return socket.destroy();
      const status =
        err.code === 'HPE_HEADER_OVERFLOW'
          ? '431 Request Header Fields Too Large'
          : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? '408 Request Timeout'
            : '400 Bad Request';
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    });
  }

  private certPolicy(tls: WebTls): { requestCert: boolean; rejectUnauthorized: boolean } {
    return { requestCert: tls.clientAuth !== 'none', rejectUnauthorized: tls.clientAuth === 'require-and-verify' };
  }

  /** The client certificate rules Node's requestCert/rejectUnauthorized do not express. */
  private checkClient(socket: TLSSocket): void {
    const needsCert = this.clientAuth === 'require-any' || this.allowedSans !== undefined;
    const cert = this.clientAuth === 'none' ? undefined : socket.getPeerX509Certificate();
    let refused: string | undefined;
    if (needsCert && !cert) refused = 'no client certificate';
    else if (this.clientAuth === 'verify-if-given' && cert && !socket.authorized)
      refused = `client certificate not verified: ${String(socket.authorizationError)}`;
    else if (this.allowedSans && cert) {
      const allowed = this.allowedSans;
      const sans = (cert.subjectAltName ?? '').split(', ').map((s) => s.replace(/^(DNS|IP Address|email|URI):/, ''));
      if (!sans.some((s) => allowed.includes(s))) refused = 'client certificate has none of client_allowed_sans';
    }
    if (refused) {
      this.options.logger.debug({ remote: socket.remoteAddress, reason: refused }, 'TLS client refused');
      socket.destroy();
    }
  }

  /** Bodies are not read; a declared or streamed body past the cap closes the connection. */
  private limitBody(handler: RequestListener): RequestListener {
    return (req, res) => {
      const declared = Number(req.headers['content-length'] ?? 0);
      if (declared > SERVER_LIMITS.maxBodyBytes) {
        res.writeHead(413, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
        res.end(`request body too large: the exporter's endpoints take at most ${SERVER_LIMITS.maxBodyBytes} bytes\n`);
        return;
      }
      let received = 0;
      const count = (chunk: Buffer) => {
        received += chunk.length;
        if (received > SERVER_LIMITS.maxBodyBytes) req.socket.destroy();
      };
      req.on('data', count);
      // Node discards the rest of an unread body once the response is sent, and drops the
      // listeners to do so: count on, or an endless chunked body is read for ever.
      res.once('finish', () => {
        if (!req.complete) req.on('data', count);
      });
      handler(req, res);
    };
  }

  /** Keeps at most maxConnections: a new one closes the connection idle longest (a slow or half-open client), or is refused when all are busy. */
  private admit(socket: Socket): void {
    const id = key(socket);
    if (this.conns.size >= this.maxConnections) {
      let victim: Conn | undefined;
      for (const c of this.conns.values()) if (c.active === 0 && (!victim || c.idleSince < victim.idleSince)) victim = c;
      this.evicted++;
      const now = performance.now();
      if (now - this.evictionLoggedAt > 60_000) {
        this.evictionLoggedAt = now;
        this.options.logger.warn(
          { maxConnections: this.maxConnections, closed: this.evicted },
          'connection limit reached: closing the connection idle longest (slow or half-open clients?)',
        );
      }
      if (!victim) {
        socket.destroy();
        return;
      }
      victim.socket.destroy();
      this.conns.delete(key(victim.socket));
    }
    const conn: Conn = { socket, active: 0, idleSince: performance.now() };
    this.conns.set(id, conn);
    socket.once('close', () => {
      if (this.conns.get(id) === conn) this.conns.delete(id);
    });
  }

  /** Binds, or rejects with a ListenError whose message is one line for the operator. */
  async listen(host: string | undefined, port: number, shown: string): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException) => reject(new ListenError(listenErrorMessage(shown, err)));
      this.server.once('error', onError);
      this.server.listen(port, host, () => {
        this.server.off('error', onError);
        resolve();
      });
    });
    const addr = this.server.address() as AddressInfo;
    const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    return `${this.tls ? 'https' : 'http'}://${shownHost}:${addr.port}`;
  }

  /** Takes a reloaded web config for new connections; switching between HTTP and HTTPS needs a restart. */
  setWebConfig(web: WebConfig): void {
    if ((web.tls !== undefined) !== this.tls) {
      throw new Error(
        `${web.origin}: tls_server_config ${this.tls ? 'removed' : 'added'}: switching between HTTP and HTTPS needs a restart of the exporter`,
      );
    }
    if (web.tls) {
      const server = this.server as HttpsServer;
      server.setSecureContext(web.tls.context);
      Object.assign(server, this.certPolicy(web.tls));
      this.clientAuth = web.tls.clientAuth;
      this.allowedSans = web.tls.allowedSans;
    }
  }

  /** Stops accepting, closes idle and half-open connections now, and those under way after a short grace. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const c of this.conns.values()) if (c.active === 0) c.socket.destroy();
    const grace = setTimeout(() => {
      for (const c of this.conns.values()) c.socket.destroy();
    }, SERVER_LIMITS.closeGraceMs);
    grace.unref();
    await closed;
    clearTimeout(grace);
  }
}

function key(socket: Socket): string {
  return `${socket.remoteAddress}|${socket.remotePort}`;
}
