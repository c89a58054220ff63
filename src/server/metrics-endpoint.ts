// The telemetry path (/metrics by default): the exporter's own series first (small), then the
// fleet's, streamed in chunks (server/exposition.ts). Scrapes in flight share one render, and at
// most --web.max-requests are served at once (503 past it, as node_exporter's).
import type express from 'express';
import { CONTENT_TYPE } from '../metrics/scrape.js';
import { ScrapeGate, SharedRender, sendShared } from './exposition.js';
import { metricsPathOf, type AppOptions } from './options.js';
import { only } from './respond.js';

/** Scrapes of /metrics served at once by default, as node_exporter's --web.max-requests. */
export const DEFAULT_MAX_SCRAPES = 40;

export function metricsRoutes(app: express.Router, options: AppOptions): void {
  const scrapes = new ScrapeGate(
    options.maxScrapes ?? DEFAULT_MAX_SCRAPES,
    () =>
      new SharedRender(
        () => options.registry.metrics().then((text) => Buffer.from(text)),
        () => options.fleet.renderChunks(),
      ),
  );
  app.all(metricsPathOf(options), only(['GET']), async (req, res) => {
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
}
