// The exporter's HTTP endpoints. They render the last snapshots and never
// poll a node: a scrape costs only its output. One module a route group: the
// telemetry path (metrics-endpoint.ts), /probe (probe.ts), the lifecycle
// endpoints (lifecycle.ts) and the status pages (pages.ts); here, what every
// answer shares: the safe default headers, the web config's guard, the 404
// and the error answer.
import type { RequestListener } from 'node:http';
import express, { type Request, type Response } from 'express';
import { lifecycleRoutes, OPEN_PATHS } from './lifecycle.js';
import { metricsRoutes } from './metrics-endpoint.js';
import { metricsPathOf, type AppOptions } from './options.js';
import { PAGE_HEADERS } from './page-headers.js';
import { pageRoutes } from './pages.js';
import { isProbe, probeHandler } from './probe.js';
import { plain } from './respond.js';

export type { AppOptions } from './options.js';
export { DEFAULT_MAX_SCRAPES } from './metrics-endpoint.js';
export { DEBUG_FLOOR_MS, MAX_DEBUG_POLLS } from './probe.js';

/**
 * The exporter's request handler. /probe, in any form, is answered by probe.ts with Node's own API,
 * through the same default headers and guard as the rest: a fleet scraped node by node goes through
 * no framework. Everything else goes to the express app.
 */
export function createHandler(options: AppOptions): RequestListener {
  const app = createApp(options);
  const probe = probeHandler(options);
  const { guard } = options;
  return (req, res) => {
    if (!isProbe(req.url ?? '')) {
      void app(req, res);
      return;
    }
    // The safe defaults first: the web config's headers, set by the guard, override them.
    for (const [name, value] of PAGE_HEADERS) res.setHeader(name, value);
    // As the app's error answer: a plain 500, never a crash of the process (a throw here has no framework to catch it).
    const failed = (): void => {
      if (res.headersSent) res.destroy();
      else plain(res, 500, 'internal error\n');
    };
    const serve = (err?: unknown): void => {
      if (err !== undefined) {
        failed();
        return;
      }
      try {
        probe(req, res);
      } catch {
        failed();
      }
    };
    if (guard) guard.middleware(req, res, serve);
    else serve();
  };
}

/** Every endpoint but /probe (createHandler answers it). */
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
  metricsRoutes(app, options);
  lifecycleRoutes(app, options);
  pageRoutes(app, options);

  const metricsPath = metricsPathOf(options);
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
