// What the exporter's HTTP endpoints are given (server/app.ts and its route groups).
import type { Registry } from 'prom-client';
import type { Config } from '../config/schema.js';
import type { FleetReader } from '../scheduler/fleet.js';
import type { ShardSpec } from '../shard.js';
import type { WebGuard } from '../web/guard.js';

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
}

/** Where the metrics are served. */
export function metricsPathOf(options: AppOptions): string {
  return options.telemetryPath ?? '/metrics';
}
