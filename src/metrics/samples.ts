// From a node's latest snapshots to its sample lines (emitting apart from parsing).
import type { HealthSnapshot } from '../sources/health.js';
import type { IndexSnapshot } from '../sources/index.js';
import type { Reason } from '../rpc/errors.js';
import { LinesBuilder, type NodeLines } from './render.js';

export type SourceName = 'health' | 'index';

export interface SourceStats {
  /** Whether the last completed poll succeeded. */
  success: boolean;
  durationSeconds: number;
  lastSuccessSeconds?: number;
  /** Failed polls by reason since the exporter started (the counter). */
  errors: Map<Reason, number>;
}

export interface NodeView {
  name: string;
  /** undefined until the first health poll ends; null after a failed one. */
  health?: { snapshot: HealthSnapshot; nodeId?: string } | null;
  index?: IndexSnapshot;
  stats: Partial<Record<SourceName, SourceStats>>;
}

export function buildNodeLines(view: NodeView): NodeLines {
  const b = new LinesBuilder(view.name);
  if (view.health !== undefined) b.add('avalanchego_up', view.health ? 1 : 0);
  if (view.health) addHealth(b, view.health.snapshot, view.health.nodeId);
  if (view.index) addIndex(b, view.index);
  for (const source of ['health', 'index'] as const) {
    const stats = view.stats[source];
    if (!stats) continue;
    const labels = { source };
    b.add('avalanchego_exporter_poll_success', stats.success ? 1 : 0, labels);
    b.add('avalanchego_exporter_poll_duration_seconds', stats.durationSeconds, labels);
    b.add('avalanchego_exporter_last_success_timestamp_seconds', stats.lastSuccessSeconds, labels);
    for (const [reason, count] of stats.errors) b.add('avalanchego_exporter_poll_errors_total', count, { source, reason });
  }
  return b.build();
}

function addHealth(b: LinesBuilder, s: HealthSnapshot, nodeId: string | undefined): void {
  b.add('avalanchego_healthy', s.healthy ? 1 : 0);
  if (nodeId) b.add('avalanchego_node_info', 1, { node_id: nodeId });
  for (const c of s.checks) {
    const labels = { check: c.name };
    b.add('avalanchego_health_check_passing', c.passing ? 1 : 0, labels);
    b.add('avalanchego_health_check_contiguous_failures', c.contiguousFailures, labels);
    b.add('avalanchego_health_check_duration_seconds', c.durationSeconds, labels);
    b.add('avalanchego_health_check_timestamp_seconds', c.timestampSeconds, labels);
    b.add('avalanchego_health_check_first_failure_timestamp_seconds', c.firstFailureSeconds, labels);
    b.add('avalanchego_health_check_unparsed_fields', c.unparsed, labels);
  }
  for (const c of s.chains) {
    const labels = { chain: c.chain };
    b.add('avalanchego_chain_bootstrapping', c.bootstrapping ? 1 : 0, labels);
    b.add('avalanchego_chain_last_accepted_height', c.lastAcceptedHeight, labels);
    b.add('avalanchego_chain_processing_blocks', c.processingBlocks, labels);
    b.add('avalanchego_chain_longest_processing_block_seconds', c.longestProcessingBlockSeconds, labels);
    b.add('avalanchego_chain_avg_acceptance_time_seconds', c.avgAcceptanceTimeSeconds, labels);
    b.add('avalanchego_chain_connected_stake_ratio', c.connectedStakeRatio, labels);
    b.add('avalanchego_chain_disconnected_validators', c.disconnectedValidators, labels);
  }
  b.add('avalanchego_network_connected_peers', s.network.connectedPeers);
  b.add('avalanchego_network_send_fail_ratio', s.network.sendFailRatio);
  b.add('avalanchego_network_time_since_last_msg_received_seconds', s.network.timeSinceLastMsgReceivedSeconds);
  b.add('avalanchego_network_time_since_last_msg_sent_seconds', s.network.timeSinceLastMsgSentSeconds);
  b.add('avalanchego_network_ingress_connections', s.network.ingressConnections);
  b.add('avalanchego_router_outstanding_requests', s.router.outstandingRequests);
  b.add('avalanchego_router_longest_running_request_seconds', s.router.longestRunningRequestSeconds);
  b.add('avalanchego_disk_available_bytes', s.disk.availableBytes);
  b.add('avalanchego_disk_available_ratio', s.disk.availableRatio);
  b.add('avalanchego_bootstrapping_subnets', s.bootstrappingSubnets);
  b.add('avalanchego_future_upgrade_seconds_until', s.futureUpgrade.secondsUntil);
  b.add('avalanchego_future_upgrade_stake_ratio', s.futureUpgrade.stakeRatio);
}

function addIndex(b: LinesBuilder, s: IndexSnapshot): void {
  for (const e of s.endpoints) {
    const labels = { endpoint: e.endpoint };
    switch (e.state) {
      case 'disabled':
        b.add('avalanchego_index_available', 0, labels);
        break;
      case 'empty':
        b.add('avalanchego_index_available', 1, labels);
        b.add('avalanchego_index_accepted_containers', 0, labels);
        break;
      case 'ok':
        b.add('avalanchego_index_available', 1, labels);
        b.add('avalanchego_index_accepted_containers', e.lastIndex + 1, labels);
        b.add('avalanchego_index_last_accepted_index', e.lastIndex, labels);
        b.add('avalanchego_index_last_accepted_timestamp_seconds', e.timestampSeconds, labels);
        break;
      case 'failed':
        // No data for an endpoint whose poll failed: the poll metrics say why.
        break;
    }
  }
}
