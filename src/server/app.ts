// The exporter's HTTP endpoints. They render the last snapshots and never
// poll a node: a scrape costs only its output.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import express, { type Request, type Response } from 'express';
import type { Registry } from 'prom-client';
import type { FleetReader } from '../scheduler/fleet.js';
import { CONTENT_TYPE } from '../metrics/scrape.js';
import { ScrapeGate, SharedRender, sendShared } from './exposition.js';
import { landingPage } from './landing.js';
import { nodePage } from './node-page.js';
import { configPage } from './config-page.js';
import type { Config } from '../config/schema.js';
import type { ShardSpec } from '../shard.js';
import type { WebGuard } from '../web/guard.js';
import { shorten } from '../util/text.js';
import { PAGE_HEADERS } from './page-headers.js';
import { debugStateHandler } from './debug-state.js';

/**
 * Liveness and readiness say nothing but "up" and a count: they stay open to
 * Kubernetes probes (which cannot hold a password outside the pod spec) when
 * the web config asks for basic auth. TLS, headers and rate limit still apply.
 */
const OPEN_PATHS = new Set(['/-/healthy', '/-/ready']);

export interface AppOptions {
  /** The fleet's series and views (the Scheduler, read-only). */
  fleet: FleetReader;
  registry: Registry;
  version: string;
  configOrigin: () => string;
  /** The configuration in force, for /config (secrets redacted there). */
  config: () => Config;
  /** Wall-clock seconds, for "since" and "ago" on the status pages. */
  nowSeconds: () => number;
  /** This replica's shard, and the shard that owns a configured target name (undefined: not configured). */
  shard?: ShardSpec;
  ownerOf?: (name: string) => number | undefined;
  /** Reloads the config file; rejects with a message when it is invalid (the old config stays). */
  reload?: () => Promise<void>;
  /** The web config's rate limit, headers and basic auth, before every endpoint. */
  guard?: WebGuard;
  /** /metrics requests served at once at most, 503 past it (--web.max-requests; 0: no cap). */
  maxScrapes?: number;
  /** Called for each /metrics request refused with 503 (avalanchego_exporter_scrapes_refused_total). */
  onScrapeRefused?: () => void;
  /** Called for each debug probe refused with 429 (avalanchego_exporter_debug_probes_refused_total). */
  onDebugProbeRefused?: () => void;
  /** Where the metrics are served (--web.telemetry-path; default /metrics). */
  telemetryPath?: string;
  /** Serve GET /-/debug/state (--web.enable-debug-state): a full collection, then the heap and the state sizes. */
  debugState?: boolean;
}

/** Debug polls running at once in the process at most (past it: 429). */
export const MAX_DEBUG_POLLS = 4;
/** A target is polled for a debug probe at most once in this time (or its interval, if shorter); requests in between get the last trace. */
export const DEBUG_FLOOR_MS = 5_000;
/** Traces kept at once at most (each for DEBUG_FLOOR_MS): a probe of yet another target past it is answered 429. */
export const MAX_DEBUG_TRACES = 64;
/** The longest trace kept (UTF-16 code units; a trace is ASCII but for the node's text): a longer one is cut. */
export const MAX_DEBUG_TRACE_CHARS = 64 * 1024;

/**
 * Debug probes without amplification: back-to-back `/probe?debug=true` made
 * 41,436 requests in 10 s to a node polled every 15 s. Now a target has one
 * debug poll at a time (others wait for it), at most one per DEBUG_FLOOR_MS
 * (the last trace in between), and the process at most MAX_DEBUG_POLLS.
 *
 * The traces kept for that are bounded: a trace goes once its floor has passed (a target that a reload removed
 * leaves nothing behind), at most MAX_DEBUG_TRACES are kept, each at most MAX_DEBUG_TRACE_CHARS: 64 × 64 Ki
 * characters, 8 MiB at most. Past the count, a probe of another target is refused (429) rather than a kept trace
 * dropped, which would let that target's node be polled again before its floor.
 */
class DebugGate {
  private running = 0;
  private readonly traces = new Map<string, { atMs: number; done: boolean; text: Promise<string>; chars: number }>();

  constructor(
    private readonly poll: (target: string) => ReturnType<FleetReader['debugPoll']>,
    private readonly intervalMs: (target: string) => number | undefined,
  ) {}

  /** The trace for `target` (fresh or recent), 'busy' past the global cap, undefined for an unknown target. */
  trace(target: string): Promise<{ text: string; ageMs: number }> | 'busy' | undefined {
    const now = performance.now();
    const last = this.traces.get(target);
    if (last && (!last.done || now - last.atMs < Math.min(DEBUG_FLOOR_MS, this.intervalMs(target) ?? DEBUG_FLOOR_MS))) {
      const ageMs = last.done ? now - last.atMs : 0;
      return last.text.then((text) => ({ text, ageMs }));
    }
    this.prune(now);
    if (this.running >= MAX_DEBUG_POLLS || this.traces.size >= MAX_DEBUG_TRACES) return 'busy';
    const steps = this.poll(target);
    if (!steps) return undefined;
    this.running++;
    const text = steps
      .then((list) => {
        const full = list.map((s) => `${s.atMs.toFixed(1).padStart(8)} ms  [${s.source}] ${s.text}`).join('\n');
        entry.chars = Math.min(full.length, MAX_DEBUG_TRACE_CHARS);
        return full.length > MAX_DEBUG_TRACE_CHARS
          ? `${full.slice(0, MAX_DEBUG_TRACE_CHARS)}\n… (the trace is cut at ${MAX_DEBUG_TRACE_CHARS} characters)`
          : full;
      })
      .finally(() => {
        this.running--;
      });
    const entry = { atMs: now, done: false, text, chars: 0 };
    this.traces.set(target, entry);
    // A failed debug poll is not kept as the last trace; a finished one is, until the floor passes.
    text.then(
      () => {
        entry.atMs = performance.now();
        entry.done = true;
      },
      () => {
        if (this.traces.get(target) === entry) this.traces.delete(target);
      },
    );
    return text.then((t) => ({ text: t, ageMs: 0 }));
  }

  /** Drops the finished traces whose floor has passed: they are never sent again. */
  private prune(now: number): void {
    for (const [target, entry] of this.traces) {
      if (entry.done && now - entry.atMs >= Math.min(DEBUG_FLOOR_MS, this.intervalMs(target) ?? DEBUG_FLOOR_MS)) this.traces.delete(target);
    }
  }

  /** The traces kept, and their characters (the debug state endpoint). */
  get size(): { entries: number; bytes: number } {
    this.prune(performance.now());
    let chars = 0;
    for (const entry of this.traces.values()) chars += entry.chars;
    return { entries: this.traces.size, bytes: chars * 2 };
  }
}

/** Scrapes of /metrics served at once by default, as node_exporter's --web.max-requests. */
export const DEFAULT_MAX_SCRAPES = 40;

/** Answers other methods on a known path with 405 and the Allow header. */
function only(allowed: string[]) {
  return (req: Request, res: Response, next: () => void) => {
    if (allowed.includes(req.method) || (req.method === 'HEAD' && allowed.includes('GET'))) {
      next();
      return;
    }
    res
      .set('Allow', allowed.join(', '))
      .status(405)
      .type('text/plain')
      .send(`method ${req.method} not allowed on ${req.path}; use ${allowed.join(' or ')}\n`);
  };
}

/** A plain-text answer written with Node's own API (no framework on the /probe path). */
function plain(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...headers, 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * `/probe?target=<name>` for a scrape: the node's series as its last polls left them, a 421 that
 * names the owning shard, or a 404 for a name that is not configured. It renders one node's
 * ready-made lines, so it writes them with Node's API as they are.
 */
function serveProbe(options: AppOptions, req: IncomingMessage, res: ServerResponse, target: string): void {
  const body = options.fleet.renderNode(target);
  const owner = body === undefined ? options.ownerOf?.(target) : undefined;
  if (owner !== undefined && options.shard && owner !== options.shard.index) {
    // A misrouted scrape: the target is configured, and another replica polls it. 421
    // (Misdirected Request) makes the scrape fail visibly instead of an empty 200.
    plain(
      res,
      421,
      `target ${JSON.stringify(target)} is polled by shard ${owner} of ${options.shard.count}, not by this replica (shard ${options.shard.index}): scrape /probe on shard ${owner}\n`,
      { 'X-Shard-Owner': String(owner) },
    );
    return;
  }
  if (body === undefined) {
    // Only configured names: /probe never fetches an arbitrary URL.
    const shown = shorten(target, 128);
    plain(
      res,
      404,
      `no configured target named ${JSON.stringify(shown)}: /probe takes the name of a target from the config file (see / for the list), not a URL\n`,
    );
    return;
  }
  res.writeHead(200, { 'Content-Type': CONTENT_TYPE, 'Content-Length': body.length });
  res.end(req.method === 'HEAD' ? undefined : body);
}

const PROBE_PREFIX = '/probe?';

/**
 * The exporter's request handler: a scrape of `/probe?target=<name>` (GET or HEAD, one target,
 * no debug) is answered here, through the web config's guard, without the framework: it is
 * the hot path of a fleet scraped node by node. Everything else, and any /probe request this
 * does not take (no or several targets, debug, other methods), goes to the express app, which
 * answers it as before.
 */
export function createHandler(options: AppOptions): RequestListener {
  const app = createApp(options);
  const { guard } = options;
  return (req, res) => {
    const url = req.url ?? '';
    if ((req.method === 'GET' || req.method === 'HEAD') && url.startsWith(PROBE_PREFIX)) {
      const query = new URLSearchParams(url.slice(PROBE_PREFIX.length));
      const targets = query.getAll('target');
      const target = targets[0];
      if (targets.length === 1 && target && !query.has('debug')) {
        const serve = (err?: unknown) => {
          if (err === undefined) serveProbe(options, req, res, target);
          else plain(res, 500, 'internal error\n');
        };
        if (guard) guard.middleware(req, res, serve);
        else serve();
        return;
      }
    }
    void app(req, res);
  };
}

export function createApp(options: AppOptions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const { guard } = options;
  // Safe defaults for every answer (a web config's headers, set by the guard below, override them).
  app.use((_req, res, next) => {
    for (const [name, value] of PAGE_HEADERS) res.setHeader(name, value);
    next();
  });
  if (guard) {
    app.use((req, res, next) => {
      guard.middleware(req, res, next, !OPEN_PATHS.has(req.path));
    });
  }

  // The exporter's own series first (small), then the fleet's, streamed in chunks (server/exposition.ts); scrapes in
  // flight share one render, and at most maxScrapes are served at once.
  const scrapes = new ScrapeGate(
    options.maxScrapes ?? DEFAULT_MAX_SCRAPES,
    () =>
      new SharedRender(
        () => options.registry.metrics().then((text) => Buffer.from(text)),
        () => options.fleet.renderChunks(),
      ),
  );
  const metricsPath = options.telemetryPath ?? '/metrics';
  app.all(metricsPath, only(['GET']), async (req, res) => {
    const render = scrapes.enter();
    if (!render) {
      options.onScrapeRefused?.();
      res
        .status(503)
        .set('Retry-After', '1')
        .type('text/plain')
        .send(`too many scrapes at once: ${scrapes.maxScrapes} are being served (--web.max-requests)\n`);
      return;
    }
    try {
      await sendShared(req, res, CONTENT_TYPE, render);
    } finally {
      scrapes.leave();
    }
  });

  const debug = new DebugGate(
    (target) => options.fleet.debugPoll(target),
    (target) => options.config().targets.find((t) => t.name === target)?.intervalMs,
  );
  app.all('/probe', only(['GET']), (req, res) => {
    const target = req.query.target;
    if (target === undefined || target === '') {
      res.status(400).type('text/plain').send('missing parameter "target": use /probe?target=<name> with the name of a configured target (see /)\n');
      return;
    }
    if (typeof target !== 'string') {
      res.status(400).type('text/plain').send('give exactly one "target" parameter: /probe?target=<name>\n');
      return;
    }
    if (req.query.debug !== undefined && req.query.debug !== 'false') {
      // A traced fresh poll, as blackbox_exporter's debug=true: for people, not for Prometheus. Bounded (DebugGate):
      // one at a time a target, at most once per DEBUG_FLOOR_MS (the last trace in between), MAX_DEBUG_POLLS at once.
      const trace = debug.trace(target);
      if (trace === 'busy') {
        options.onDebugProbeRefused?.();
        res
          .status(429)
          .set('Retry-After', '1')
          .type('text/plain')
          .send(
            `too many debug probes at once (at most ${MAX_DEBUG_POLLS} at a time, and ${MAX_DEBUG_TRACES} targets within ${DEBUG_FLOOR_MS / 1000} s): retry in a second\n`,
          );
        return;
      }
      if (trace) {
        void trace.then(
          ({ text, ageMs }) => {
            const reused =
              ageMs > 0
                ? ` (the trace of ${(ageMs / 1000).toFixed(1)} s ago: a target is polled for debugging at most once per ${DEBUG_FLOOR_MS / 1000} s or interval)`
                : '';
            res
              .type('text/plain')
              .send(
                `Debug poll of ${target} (a fresh poll of every enabled source; it changes nothing the exporter serves)${reused}\n\n${text}\n\nSeries served now (from the scheduled polls):\n\n${options.fleet.renderNode(target)?.toString() ?? ''}`,
              );
          },
          (err: unknown) =>
            res
              .status(500)
              .type('text/plain')
              .send(`debug poll failed: ${(err as Error).message}\n`),
        );
        return;
      }
    }
    serveProbe(options, req, res, target);
  });

  if (options.debugState) {
    app.all(
      '/-/debug/state',
      only(['GET']),
      debugStateHandler(options.fleet, () => ({ debugTraces: debug.size, scrapes: scrapes.held })),
    );
  }

  app.all('/-/healthy', only(['GET']), (_req, res) => {
    res.type('text/plain').send('avalanchego-exporter is healthy.\n');
  });

  app.all('/-/ready', only(['GET']), (_req, res) => {
    const pending = options.fleet.pendingFirstPoll;
    if (pending > 0) {
      res.status(503).type('text/plain').send(`not ready: waiting for the first poll of ${pending} target(s)\n`);
      return;
    }
    res.type('text/plain').send('avalanchego-exporter is ready.\n');
  });

  app.all('/-/reload', only(['POST', 'PUT']), async (_req, res) => {
    if (!options.reload) {
      res.status(400).type('text/plain').send('nothing to reload: the exporter runs without --config.file\n');
      return;
    }
    try {
      await options.reload();
      res.type('text/plain').send('configuration reloaded\n');
    } catch (err) {
      res
        .status(500)
        .type('text/plain')
        .send(`reload failed, the previous configuration stays in force:\n${(err as Error).message}\n`);
    }
  });

  app.all('/', only(['GET']), (req, res) => {
    res.type('html').send(
      landingPage(options.fleet.summaries(), {
        version: options.version,
        configOrigin: options.configOrigin(),
        nowSeconds: options.nowSeconds(),
        refresh: req.query.refresh !== 'off',
        metricsPath,
        ...(options.shard ? { shard: options.shard } : {}),
      }),
    );
  });

  app.all('/node/:name', only(['GET']), (req, res) => {
    const name = String(req.params.name);
    const detail = options.fleet.detail(name);
    if (!detail) {
      const shown = shorten(name, 128);
      res
        .status(404)
        .type('text/plain')
        .send(`no node named ${JSON.stringify(shown)} is polled here (see / for the list)\n`);
      return;
    }
    res.type('html').send(nodePage(detail, options.nowSeconds(), metricsPath));
  });

  app.all('/config', only(['GET']), (_req, res) => {
    res.type('html').send(configPage(options.config(), { ...(options.shard ? { shard: options.shard } : {}), metricsPath }));
  });

  app.use((req, res) => {
    res
      .status(404)
      .type('text/plain')
      .send(
        `not found: ${req.path}; the exporter serves ${metricsPath}, /probe?target=<name>, /node/<name>, /config, /-/healthy, /-/ready, /-/reload and /\n`,
      );
  });
  // Express' default handler would answer with an HTML stack trace; a bad request (a malformed
  // escape in the path) keeps its 4xx, anything else is a plain 500.
  app.use((err: unknown, _req: Request, res: Response, _next: (err?: unknown) => void) => {
    const status = typeof err === 'object' && err !== null && 'status' in err ? err.status : undefined;
    const code = typeof status === 'number' && status >= 400 && status < 500 ? status : 500;
    if (res.headersSent) return res.destroy();
    res
      .status(code)
      .type('text/plain')
      .send(code === 500 ? 'internal error\n' : 'bad request\n');
  });
  return app;
}
