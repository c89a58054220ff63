// The status pages, for people: the fleet (/), one node (/node/<name>) and the configuration in
// force (/config, secrets redacted). Rendered from the last snapshots: no I/O.
import type express from 'express';
import { shorten } from '../util/text.js';
import { configPage } from './config-page.js';
import { landingPage } from './landing.js';
import { nodePage } from './node-page.js';
import { metricsPathOf, type AppOptions } from './options.js';
import { only } from './respond.js';

export function pageRoutes(app: express.Router, options: AppOptions): void {
  const metricsPath = metricsPathOf(options);
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
}
