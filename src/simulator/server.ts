// The HTTP side of the simulator: node:http servers, the fleet layout (one
// port with a path prefix per node, or a port per node), the node's HTTP
// wrappers (node-id header, CORS, allowed hosts, mux path cleaning), the
// transport-level scenarios (down, slow, garbage) and the control API.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { handleNodeRequest, muxCleanPath, notFound } from './api.js';
import type { SimNode } from './node.js';
import type { HttpReply } from './rpc.js';
import { DOWN_MODES, GARBAGE_MODES, SCENARIOS, isScenario, type DownMode, type GarbageMode, type ScenarioName } from './scenarios.js';

/** Request bodies beyond this are refused; no node API call comes near it. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface ScenarioOverrides {
  downMode?: DownMode;
  garbageMode?: GarbageMode;
}

export interface FleetServerOptions {
  host: string;
  port: number;
  nodes: SimNode[];
  /** Host names accepted besides IP literals; '*' accepts any (--http-allowed-hosts). */
  allowedHosts: string[] | '*';
  portPerNode: boolean;
  defaultDownMode: DownMode | undefined;
}

interface NodeSlot {
  node: SimNode;
  /** Base URL a client uses for this node. */
  baseUrl: string;
  /** The node's own server (port-per-node layout). */
  server?: Server;
  port?: number;
  overrides: ScenarioOverrides;
  /** The pending close or reopen of the node's own port. */
  transition?: Promise<void>;
}

/** Formats host:port for a URL, bracketing IPv6 literals. */
function hostPort(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

export class FleetServer {
  private readonly control: Server;
  private readonly slots = new Map<string, NodeSlot>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly allowed: Set<string> | '*';
  private closed = false;
  url = '';

  constructor(private readonly opts: FleetServerOptions) {
    this.allowed = opts.allowedHosts === '*' ? '*' : new Set(opts.allowedHosts.map((h) => h.toLowerCase()));
    this.control = this.newServer(undefined);
    for (const node of opts.nodes) this.slots.set(node.name, { node, baseUrl: '', overrides: {} });
  }

  private newServer(own: NodeSlot | undefined): Server {
    const server = createServer((req, res) => this.dispatch(req, res, own));
    // Keep-alive like Go's server; the exporter reuses connections.
    server.keepAliveTimeout = 30_000;
    return server;
  }

  get singleNode(): boolean {
    return this.opts.nodes.length === 1 && !this.opts.portPerNode;
  }

  async listen(): Promise<void> {
    const { host } = this.opts;
    const port = await listenOn(this.control, host, this.opts.port);
    this.url = `http://${hostPort(host, port)}`;
    let i = 0;
    for (const slot of this.slots.values()) {
      if (this.opts.portPerNode) {
        slot.server = this.newServer(slot);
        slot.port = await listenOn(slot.server, host, this.opts.port === 0 ? 0 : this.opts.port + 1 + i);
        slot.baseUrl = `http://${hostPort(host, slot.port)}`;
      } else if (this.singleNode) {
        slot.baseUrl = this.url;
      } else {
        slot.baseUrl = `${this.url}/${slot.node.name}`;
      }
      i++;
      slot.node.onScenarioChange = (node) => void this.scenarioChanged(node).catch(() => undefined);
      slot.node.onExit = (node) => void this.scenarioChanged(node).catch(() => undefined);
      if (slot.node.scenario === 'down' || slot.node.exited !== undefined) await this.scenarioChanged(slot.node);
    }
  }

  nodeInfo(): Array<{ name: string; baseUrl: string; readonly nodeId: string }> {
    return [...this.slots.values()].map((s) => ({
      name: s.node.name,
      baseUrl: s.baseUrl,
      get nodeId() {
        return s.node.nodeId;
      },
    }));
  }

  setScenario(name: string, scenario: ScenarioName, overrides: ScenarioOverrides = {}): void {
    const slot = this.slots.get(name);
    if (!slot) throw new Error(`unknown node ${JSON.stringify(name)}`);
    if (overrides.downMode === 'refused' && !slot.server) {
      throw new Error('downMode "refused" needs a port per node (portPerNode / --port-per-node)');
    }
    slot.overrides = overrides;
    slot.node.setScenario(scenario);
  }

  private downMode(slot: NodeSlot): DownMode {
    return slot.overrides.downMode ?? this.opts.defaultDownMode ?? (slot.server ? 'refused' : 'reset');
  }

  /**
   * `down` with refused, or a node that shut itself down (a process that exited): the node's own
   * listener closes, and reopens on recovery.
   */
  private scenarioChanged(node: SimNode): Promise<void> {
    const slot = this.slots.get(node.name);
    if (!slot?.server || this.closed) return Promise.resolve();
    // One transition at a time per node, so a quick down → healthy → down cannot double-listen.
    slot.transition = (slot.transition ?? Promise.resolve()).then(() => this.applyListening(slot));
    return slot.transition;
  }

  private async applyListening(slot: NodeSlot): Promise<void> {
    const wantClosed = () => slot.node.exited !== undefined || (slot.node.scenario === 'down' && this.downMode(slot) === 'refused');
    if (this.closed) return;
    const { server: current, port } = slot;
    if (!current || port === undefined) throw new Error(`node ${slot.node.name} has no port of its own (port-per-node layout only)`);
    if (wantClosed()) {
      if (current.listening) await closeServer(current);
      return;
    }
    // Reopen on the same port; another process may hold it for a moment, so retry until it is ours.
    // (close() and a switch back to `down` may come while a listen is under way.)
    const open = () => slot.server?.listening === true;
    const stop = () => this.closed || wantClosed();
    while (!open() && !stop()) {
      const server = this.newServer(slot);
      try {
        await listenOn(server, this.opts.host, port);
      } catch {
        await new Promise((r) => setTimeout(r, 250));
        continue;
      }
      slot.server = server;
      if (stop()) await closeServer(server);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    // A reopening node port finishes (and closes itself) first.
    await Promise.allSettled([...this.slots.values()].flatMap((s) => (s.transition ? [s.transition] : [])));
    const servers = [this.control, ...[...this.slots.values()].flatMap((s) => (s.server ? [s.server] : []))];
    await Promise.all(servers.map(closeServer));
  }

  // -------------------------------------------------------------------------

  private dispatch(req: IncomingMessage, res: ServerResponse, own: NodeSlot | undefined): void {
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const rawPath = q === -1 ? rawUrl : rawUrl.slice(0, q);
    const rawQuery = q === -1 ? '' : rawUrl.slice(q + 1);
    let path: string;
    try {
      path = decodeURIComponent(rawPath);
    } catch {
      // net/http rejects a malformed escape before any handler runs.
      res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
      res.end('400 Bad Request');
      return;
    }
    if (own) {
      this.nodeRequest(own, req, res, path, rawQuery, '');
      return;
    }
    if (path === '/sim' || path.startsWith('/sim/')) {
      this.controlRequest(req, res, path);
      return;
    }
    const only = this.singleNode && !this.opts.portPerNode ? this.slots.values().next().value : undefined;
    if (only) {
      this.nodeRequest(only, req, res, path, rawQuery, '');
      return;
    }
    const slash = path.indexOf('/', 1);
    const name = slash === -1 ? path.slice(1) : path.slice(1, slash);
    const slot = this.opts.portPerNode ? undefined : this.slots.get(name);
    if (!slot || slash === -1) {
      this.send(res, undefined, notFound(), req);
      return;
    }
    this.nodeRequest(slot, req, res, path.slice(slash), rawQuery, `/${name}`);
  }

  private nodeRequest(slot: NodeSlot, req: IncomingMessage, res: ServerResponse, path: string, rawQuery: string, prefix: string): void {
    const node = slot.node;
    // A node that exited has no listener of its own (refused); on a shared port its connections are reset.
    if (node.exited !== undefined) {
      req.socket.destroy();
      return;
    }
    if (node.scenario === 'down') {
      const mode = this.downMode(slot);
      // hang: accept, read nothing, answer never (close() destroys the socket).
      if (mode === 'hang') return;
      req.socket.destroy();
      return;
    }
    readBody(req, (body) => {
      if (body === undefined) {
        res.writeHead(413, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
        res.end('http: request body too large');
        return;
      }
      let reply = this.nodeReply(node, req, path, rawQuery, body, prefix);
      if (node.scenario === 'garbage') reply = garbage(reply, slot.overrides.garbageMode ?? node.timings.garbageMode, node.garbageCounter++);
      if (node.scenario === 'slow') {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          this.send(res, node, reply, req);
        }, node.timings.slowResponseMs);
        this.timers.add(timer);
        res.on('close', () => {
          clearTimeout(timer);
          this.timers.delete(timer);
        });
        return;
      }
      this.send(res, node, reply, req);
    });
  }

  private nodeReply(node: SimNode, req: IncomingMessage, path: string, rawQuery: string, body: string, prefix: string): HttpReply {
    // rs/cors answers a preflight itself, before the host filter and the router.
    if (req.method === 'OPTIONS' && firstHeader(req, 'access-control-request-method')) return preflight(req);
    // api/server/allowed_hosts.go: an empty Host and IP literals always pass.
    const host = req.headers.host ?? '';
    if (host !== '' && this.allowed !== '*') {
      const name = splitHost(host);
      if (isIP(name) === 0 && !this.allowed.has(name.toLowerCase())) {
        return {
          status: 403,
          headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' },
          body: 'invalid host specified\n',
        };
      }
    }
    // gorilla/mux redirects an unclean path (//ext, /./ext, /ext/../ext) to its clean form.
    const clean = muxCleanPath(path);
    if (clean !== path) {
      return { status: 301, headers: { location: `${prefix}${clean}${rawQuery ? `?${rawQuery}` : ''}` }, body: '' };
    }
    return handleNodeRequest(node, {
      method: req.method ?? 'GET',
      path,
      query: parseGoQuery(rawQuery),
      contentType: firstHeader(req, 'content-type'),
      body,
    });
  }

  private send(res: ServerResponse, node: SimNode | undefined, reply: HttpReply, req: IncomingMessage): void {
    if (res.destroyed) return;
    const headers: Record<string, string> = {};
    if (node) headers['node-id'] = node.nodeId;
    Object.assign(headers, corsHeaders(req), reply.headers);
    const body = Buffer.from(reply.body, 'utf8');
    headers['content-length'] = String(body.length);
    res.writeHead(reply.status, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  // -------------------------------------------------------------------------
  // Control API

  private controlRequest(req: IncomingMessage, res: ServerResponse, path: string): void {
    readBody(req, (body) => {
      const reply = this.controlReply(req.method ?? 'GET', path, body ?? '');
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(`${JSON.stringify(reply.body)}\n`);
    });
  }

  private describe(slot: NodeSlot): Record<string, unknown> {
    return { name: slot.node.name, baseUrl: slot.baseUrl, nodeId: slot.node.nodeId, ...slot.node.describe(), ...slot.overrides };
  }

  private controlReply(method: string, path: string, body: string): { status: number; body: unknown } {
    const parts = path.split('/').filter(Boolean); // ['sim', ...]
    const bad = (status: number, error: string) => ({ status, body: { error } });
    if (parts.length === 2 && parts[1] === 'scenarios' && method === 'GET') {
      return { status: 200, body: { scenarios: SCENARIOS } };
    }
    if (parts.length === 2 && parts[1] === 'nodes' && method === 'GET') {
      return { status: 200, body: { nodes: [...this.slots.values()].map((s) => this.describe(s)) } };
    }
    const setFromBody = (targets: NodeSlot[]) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return bad(400, 'body must be JSON: {"scenario":"<name>"}');
      }
      const p = (parsed ?? {}) as { scenario?: unknown; downMode?: unknown; garbageMode?: unknown };
      if (!isScenario(p.scenario)) return bad(400, `unknown scenario ${JSON.stringify(p.scenario)}`);
      if (p.downMode !== undefined && !DOWN_MODES.includes(p.downMode as DownMode)) {
        return bad(400, `downMode must be one of ${DOWN_MODES.join(', ')}`);
      }
      if (p.garbageMode !== undefined && !GARBAGE_MODES.includes(p.garbageMode as GarbageMode)) {
        return bad(400, `garbageMode must be one of ${GARBAGE_MODES.join(', ')}`);
      }
      const overrides: ScenarioOverrides = {};
      if (p.downMode !== undefined) overrides.downMode = p.downMode as DownMode;
      if (p.garbageMode !== undefined) overrides.garbageMode = p.garbageMode as GarbageMode;
      try {
        for (const slot of targets) this.setScenario(slot.node.name, p.scenario, overrides);
      } catch (err) {
        return bad(400, (err as Error).message);
      }
      const [one] = targets;
      return { status: 200, body: targets.length === 1 && one ? this.describe(one) : { nodes: targets.map((s) => this.describe(s)) } };
    };
    if (parts.length === 2 && parts[1] === 'scenario' && method === 'POST') return setFromBody([...this.slots.values()]);
    if (parts[1] === 'nodes' && parts.length >= 3) {
      const slot = this.slots.get(parts[2] ?? '');
      if (!slot) return bad(404, `unknown node ${JSON.stringify(parts[2])}`);
      if (parts.length === 3 && method === 'GET') return { status: 200, body: this.describe(slot) };
      if (parts.length === 4 && parts[3] === 'scenario' && method === 'POST') return setFromBody([slot]);
    }
    return bad(404, 'not found; see docs/simulator.md for the control API');
  }
}

/** Closes a server, also its keep-alive and hung (`down`/hang) connections, which would hold close() open. */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => {
      resolve();
    });
    server.closeAllConnections();
  });
}

function listenOn(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * url.ParseQuery as r.URL.Query() uses it: pairs split on '&', a pair with a
 * ';' or a bad escape is dropped (Go 1.17+), '+' is a space.
 */
export function parseGoQuery(raw: string): URLSearchParams {
  const out = new URLSearchParams();
  for (const pair of raw.split('&')) {
    if (pair === '' || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    const [k, v] = eq === -1 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)];
    try {
      out.append(decodeURIComponent(k.replace(/\+/g, ' ')), decodeURIComponent(v.replace(/\+/g, ' ')));
    } catch {
      // An invalid %-escape: Go skips the pair.
    }
  }
  return out;
}

function readBody(req: IncomingMessage, done: (body: string | undefined) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) tooLarge = true;
    else chunks.push(chunk);
  });
  req.on('end', () => done(tooLarge ? undefined : Buffer.concat(chunks).toString('utf8')));
  req.on('error', () => undefined);
}

function firstHeader(req: IncomingMessage, name: string): string | undefined {
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]?.toLowerCase() === name) return req.rawHeaders[i + 1];
  }
  return undefined;
}

/** net.SplitHostPort, falling back to the whole Host as Go's filter does. */
function splitHost(host: string): string {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    if (end !== -1 && (host.length === end + 1 ? false : host[end + 1] === ':')) return host.slice(1, end);
    return host;
  }
  const colon = host.lastIndexOf(':');
  if (colon === -1 || host.indexOf(':') !== colon) return host;
  return host.slice(0, colon);
}

// ---------------------------------------------------------------------------
// CORS: rs/cors v1.7.0 with the node's defaults (--http-allowed-origins=*, credentials allowed)

const CORS_METHODS = ['GET', 'POST', 'HEAD'];
const CORS_HEADERS = ['Origin', 'Accept', 'Content-Type', 'X-Requested-With'];

/** http.CanonicalHeaderKey. */
function canonicalHeader(name: string): string {
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
}

/** Headers an actual (non-preflight) request gets: always Vary: Origin; with an Origin, the allow headers. */
function corsHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = { vary: 'Origin' };
  const origin = firstHeader(req, 'origin');
  if (origin && CORS_METHODS.includes((req.method ?? '').toUpperCase())) {
    headers['access-control-allow-origin'] = '*';
    headers['access-control-allow-credentials'] = 'true';
  }
  return headers;
}

/** A preflight: 200, no body; the allow headers only for an origin, method and headers that pass. */
function preflight(req: IncomingMessage): HttpReply {
  const headers: Record<string, string> = { vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers' };
  const origin = firstHeader(req, 'origin');
  const method = (firstHeader(req, 'access-control-request-method') ?? '').toUpperCase();
  const wanted = (firstHeader(req, 'access-control-request-headers') ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean)
    .map(canonicalHeader);
  if (origin && (method === 'OPTIONS' || CORS_METHODS.includes(method)) && wanted.every((h) => CORS_HEADERS.includes(h))) {
    headers['access-control-allow-origin'] = '*';
    headers['access-control-allow-methods'] = method;
    if (wanted.length > 0) headers['access-control-allow-headers'] = wanted.join(', ');
    headers['access-control-allow-credentials'] = 'true';
  }
  return { status: 200, headers, body: '' };
}

// ---------------------------------------------------------------------------
// garbage

const HTML_ERROR =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

/** Replaces a reply with garbage: a proxy's HTML page, a cut-off body, or the right keys with the wrong types. */
function garbage(reply: HttpReply, mode: GarbageMode, counter: number): HttpReply {
  const kinds: GarbageMode[] = ['html', 'truncated', 'wrong-types'];
  const kind = mode === 'rotate' ? (kinds[counter % kinds.length] ?? 'html') : mode;
  if (kind === 'html') return { status: 502, headers: { 'content-type': 'text/html' }, body: HTML_ERROR };
  if (kind === 'truncated') {
    const body = reply.body.length > 1 ? reply.body.slice(0, Math.floor(reply.body.length / 2)) : '{"jsonrpc":"2.0","res';
    return { ...reply, body };
  }
  let value: unknown;
  try {
    value = JSON.parse(reply.body);
  } catch {
    return { status: 200, headers: { 'content-type': 'application/json' }, body: '{"checks":[],"healthy":"yes"}\n' };
  }
  return { ...reply, body: `${JSON.stringify(mistype(value))}\n` };
}

/** Swaps types everywhere: booleans and numbers become strings, numeric strings numbers, maps lists. */
function mistype(value: unknown): unknown {
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  if (typeof value === 'string') return /^\d+$/.test(value) ? Number(value) : value;
  if (Array.isArray(value)) return value.map(mistype);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[k] =
        k === 'checks' && v && typeof v === 'object' ? Object.entries(v).map(([name, r]) => ({ name, ...(mistype(r) as object) })) : mistype(v);
    }
    return out;
  }
  return value;
}
