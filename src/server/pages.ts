// The status pages, for people: the fleet (/), one node (/node/<name>) and the configuration in
// force (/config, secrets redacted). Rendered from the last snapshots: no I/O.
import type express from 'express';
import { shorten } from '../util/text.js';
import { configPage } from './config-page.js';
import { l1Page } from './l1-page.js';
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
        l1s: options.fleet.l1s(),
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
    const badTime = (seconds: number) => options.logger?.warn({ node: name, seconds }, 'a time no date holds, shown on the node page as such');
    res.type('html').send(nodePage(detail, options.nowSeconds(), metricsPath, badTime));
  });

  app.all('/l1/:subnet', only(['GET']), (req, res) => {
    const subnet = String(req.params.subnet);
    const view = options.fleet.l1(subnet);
    if (!view) {
      res
        .status(404)
        .type('text/plain')
        .send(`no L1 with subnet ${JSON.stringify(shorten(subnet, 128))} is watched here (l1s: in the config; see / for the list)\n`);
      return;
    }
    res.type('html').send(l1Page(view, options.nowSeconds(), metricsPath));
  });

  app.all('/config', only(['GET']), (_req, res) => {
    res.type('html').send(configPage(options.config(), { ...(options.shard ? { shard: options.shard } : {}), metricsPath }));
  });
}
