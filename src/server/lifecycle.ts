// The exporter's own state for orchestrators and operators: liveness (/-/healthy), readiness
// (/-/ready: every target polled once) and reload (POST /-/reload), as Prometheus serves them.
import type express from 'express';
import type { AppOptions } from './options.js';
import { only } from './respond.js';

/**
 * Liveness and readiness say nothing but "up" and a count: they stay open to
 * Kubernetes probes (which cannot hold a password outside the pod spec) when
 * the web config asks for basic auth. TLS, headers and rate limit still apply.
 */
export const OPEN_PATHS: ReadonlySet<string> = new Set(['/-/healthy', '/-/ready']);

export function lifecycleRoutes(app: express.Router, options: AppOptions): void {
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
}
