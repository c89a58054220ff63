// Process-wide metrics through prom-client: build info, fleet size, request
// concurrency, config reloads, and the process's own metrics.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { GLOBAL_CATALOG, type GlobalMetricName } from './catalog.js';
import type { ShardSpec } from '../shard.js';

/**
 * prom-client default metrics that break Prometheus naming rules (gauges named
 * `_total`, flagged by `promtool check metrics`); the same facts are in
 * nodejs_heap_space_size_* and nodejs_active_* without the suffix.
 */
const DROPPED_DEFAULT_METRICS = [
  'nodejs_active_resources_total',
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_heap_size_total_bytes',
  'nodejs_heap_space_size_total_bytes',
];

export interface ReloadState {
  lastReloadSuccessful: boolean;
  lastSuccessSeconds: number;
}

/** The fleet as the self-metrics read it (the scheduler implements it). */
export interface FleetView {
  /** Configured targets. */
  readonly targetCount: number;
  /** Requests to nodes in flight now. */
  readonly requestsInFlight: number;
  /** Requests waiting for a slot under scheduler.max_concurrent_requests. */
  readonly requestsQueued: number;
  /** Bytes of answers being read now, and their budget (scheduler.max_buffered_bytes). */
  readonly responseBytesInFlight: number;
  readonly responseBytesBudget: number;
}

/** Buckets of the poll-start delay: from timer noise (5 ms) to a process a minute behind. */
export const POLL_START_DELAY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * The exporter's own instruments that the poll path updates: made before the
 * scheduler and the dispatchers that feed them, registered with the rest by
 * createSelfRegistry.
 */
export interface Instruments {
  readonly pollStartDelay: Histogram;
  readonly fileDescriptorErrors: Counter;
  readonly pollsSkipped: Counter<'reason'>;
  readonly debugProbesRefused: Counter;
  readonly scrapesRefused: Counter;
  readonly passwordChecksRefused: Counter;
}

export function createInstruments(): Instruments {
  return {
    pollStartDelay: new Histogram({
      name: 'avalanchego_exporter_poll_start_delay_seconds',
      help: help('avalanchego_exporter_poll_start_delay_seconds'),
      buckets: POLL_START_DELAY_BUCKETS,
      registers: [],
    }),
    fileDescriptorErrors: new Counter({
      name: 'avalanchego_exporter_file_descriptor_errors_total',
      help: help('avalanchego_exporter_file_descriptor_errors_total'),
      registers: [],
    }),
    pollsSkipped: new Counter({
      name: 'avalanchego_exporter_polls_skipped_total',
      help: help('avalanchego_exporter_polls_skipped_total'),
      labelNames: ['reason'],
      registers: [],
    }),
    debugProbesRefused: new Counter({
      name: 'avalanchego_exporter_debug_probes_refused_total',
      help: help('avalanchego_exporter_debug_probes_refused_total'),
      registers: [],
    }),
    scrapesRefused: new Counter({
      name: 'avalanchego_exporter_scrapes_refused_total',
      help: help('avalanchego_exporter_scrapes_refused_total'),
      registers: [],
    }),
    passwordChecksRefused: new Counter({
      name: 'avalanchego_exporter_password_checks_refused_total',
      help: help('avalanchego_exporter_password_checks_refused_total'),
      registers: [],
    }),
  };
}

export interface SelfMetricsOptions {
  /** Instruments the poll path updates (createInstruments); made here when absent. */
  instruments?: Instruments;
  version: string;
  revision: string;
  fleet: FleetView;
  reload: Readonly<ReloadState>;
  shard?: ShardSpec;
}

function help(name: GlobalMetricName): string {
  const spec = GLOBAL_CATALOG.find((m) => m.name === name);
  if (!spec) throw new Error(`${name} is missing from GLOBAL_CATALOG (src/metrics/catalog.ts)`);
  return spec.help;
}

export function createSelfRegistry(options: SelfMetricsOptions): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Two of the dropped gauges carry the collect() that also sets their siblings (heap used,
  // external memory, per-space used and available): hand it to the first sibling kept.
  for (const [dropped, kept] of [
    ['nodejs_heap_size_total_bytes', 'nodejs_heap_size_used_bytes'],
    ['nodejs_heap_space_size_total_bytes', 'nodejs_heap_space_size_used_bytes'],
  ] as const) {
    // prom-client's typings leave out the collect property its metrics have.
    const from = registry.getSingleMetric(dropped) as { collect?: () => unknown } | undefined;
    const to = registry.getSingleMetric(kept) as { collect?: () => unknown } | undefined;
    if (from?.collect && to) to.collect = from.collect;
  }
  for (const name of DROPPED_DEFAULT_METRICS) registry.removeSingleMetric(name);
  const instruments = options.instruments ?? createInstruments();
  registry.registerMetric(instruments.pollStartDelay);
  registry.registerMetric(instruments.fileDescriptorErrors);
  registry.registerMetric(instruments.pollsSkipped);
  registry.registerMetric(instruments.debugProbesRefused);
  registry.registerMetric(instruments.scrapesRefused);
  registry.registerMetric(instruments.passwordChecksRefused);
  // Shown at 0 from the start, so that rate() and the saturation alert see the series before the first skip.
  instruments.pollsSkipped.inc({ reason: 'saturated' }, 0);

  const buildInfo = new Gauge({
    name: 'avalanchego_exporter_build_info',
    help: help('avalanchego_exporter_build_info'),
    labelNames: ['version', 'revision', 'nodejs_version'],
    registers: [registry],
  });
  buildInfo.set({ version: options.version, revision: options.revision, nodejs_version: process.version }, 1);

  const shard = options.shard ?? { index: 0, count: 1 };
  new Gauge({ name: 'avalanchego_exporter_shard_index', help: help('avalanchego_exporter_shard_index'), registers: [registry] }).set(shard.index);
  new Gauge({ name: 'avalanchego_exporter_shards', help: help('avalanchego_exporter_shards'), registers: [registry] }).set(shard.count);

  new Gauge({
    name: 'avalanchego_exporter_targets',
    help: help('avalanchego_exporter_targets'),
    registers: [registry],
    collect() {
      this.set(options.fleet.targetCount);
    },
  });
  new Gauge({
    name: 'avalanchego_exporter_requests_in_flight',
    help: help('avalanchego_exporter_requests_in_flight'),
    registers: [registry],
    collect() {
      this.set(options.fleet.requestsInFlight);
    },
  });
  new Gauge({
    name: 'avalanchego_exporter_requests_queued',
    help: help('avalanchego_exporter_requests_queued'),
    registers: [registry],
    collect() {
      this.set(options.fleet.requestsQueued);
    },
  });
  new Gauge({
    name: 'avalanchego_exporter_response_bytes_in_flight',
    help: help('avalanchego_exporter_response_bytes_in_flight'),
    registers: [registry],
    collect() {
      this.set(options.fleet.responseBytesInFlight);
    },
  });
  new Gauge({
    name: 'avalanchego_exporter_response_bytes_budget',
    help: help('avalanchego_exporter_response_bytes_budget'),
    registers: [registry],
    collect() {
      this.set(options.fleet.responseBytesBudget);
    },
  });
  new Gauge({
    name: 'avalanchego_exporter_config_last_reload_successful',
    help: help('avalanchego_exporter_config_last_reload_successful'),
    registers: [registry],
    collect() {
      this.set(options.reload.lastReloadSuccessful ? 1 : 0);
    },
  });
  new Gauge({
    name: 'avalanchego_exporter_config_last_reload_success_timestamp_seconds',
    help: help('avalanchego_exporter_config_last_reload_success_timestamp_seconds'),
    registers: [registry],
    collect() {
      this.set(options.reload.lastSuccessSeconds);
    },
  });
  return registry;
}
