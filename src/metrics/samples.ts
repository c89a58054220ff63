// The poll metrics every source gets: success, duration, last success and
// errors by reason, labelled with the source's name. A source's own series
// are its module's (src/sources/*.ts, Source.samples).
import type { Reason } from '../rpc/errors.js';
import type { LinesBuilder } from './render.js';

export interface SourceStats {
  /** Whether the last completed poll succeeded. */
  success: boolean;
  durationSeconds: number;
  lastSuccessSeconds?: number;
  /** Failed polls by reason since the exporter started (the counter). */
  errors: Map<Reason, number>;
}

export function addPollStats(b: LinesBuilder, source: string, stats: SourceStats): void {
  const labels = { source };
  b.add('avalanchego_exporter_poll_success', stats.success ? 1 : 0, labels);
  b.add('avalanchego_exporter_poll_duration_seconds', stats.durationSeconds, labels);
  b.add('avalanchego_exporter_last_success_timestamp_seconds', stats.lastSuccessSeconds, labels);
  for (const [reason, count] of stats.errors) b.add('avalanchego_exporter_poll_errors_total', count, { source, reason });
}
