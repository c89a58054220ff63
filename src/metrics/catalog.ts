// The metric catalog: every series the exporter serves, in one place. Names,
// label sets and meanings are a public contract (dashboards and alert rules
// depend on them): add with care, never rename.
//
// `help` is the HELP text on /metrics; it says the value is polled and which
// node API method it comes from. `derivation` documents, for the README, how
// the value is computed.

export type MetricType = 'gauge' | 'counter';
export type MetricSource = 'health' | 'index' | 'exporter';

export interface MetricSpec {
  readonly name: string;
  readonly type: MetricType;
  readonly labels: readonly string[];
  readonly source: MetricSource;
  readonly help: string;
  readonly derivation: string;
}

const HEALTH = 'Polled from health.health';
const INDEX = 'Polled from index.getLastAccepted';

function spec(
  name: string,
  type: MetricType,
  labels: readonly string[],
  source: MetricSource,
  help: string,
  derivation: string,
): MetricSpec {
  return { name, type, labels, source, help, derivation };
}

export const CATALOG = [
  // --- node state from the health API -------------------------------------
  spec('avalanchego_up', 'gauge', ['node'], 'health',
    '1 when the last poll of health.health returned a valid report, else 0. Polled from health.health.',
    '1 when the last `health.health` poll returned a valid report, else 0 (connection refused, timeout, HTTP error, JSON-RPC error or a malformed body).'),
  spec('avalanchego_healthy', 'gauge', ['node'], 'health',
    `1 when the node reports itself healthy (all selected checks pass). ${HEALTH} (result.healthy).`,
    '`result.healthy` of `health.health` (with the configured `tags`): 1 or 0.'),
  spec('avalanchego_health_check_passing', 'gauge', ['node', 'check'], 'health',
    `1 when the health check has no error, else 0. ${HEALTH}.`,
    '1 when the check has no `error`, 0 otherwise; a check that has not run yet (`not yet run`) is failing, as on the node.'),
  spec('avalanchego_health_check_contiguous_failures', 'gauge', ['node', 'check'], 'health',
    `Consecutive failed runs of the health check (0 while passing). ${HEALTH} (contiguousFailures).`,
    '`contiguousFailures` of the check; 0 when the node omits it (passing).'),
  spec('avalanchego_health_check_duration_seconds', 'gauge', ['node', 'check'], 'health',
    `How long the last run of the health check took, in seconds. ${HEALTH} (duration).`,
    '`duration` of the check (integer nanoseconds) / 1e9.'),
  spec('avalanchego_health_check_timestamp_seconds', 'gauge', ['node', 'check'], 'health',
    `Unix time of the last run of the health check; absent while never run. ${HEALTH} (timestamp).`,
    '`timestamp` of the check as Unix seconds; absent while it is Go\'s zero time (`0001-01-01T00:00:00Z`, never run).'),
  spec('avalanchego_health_check_first_failure_timestamp_seconds', 'gauge', ['node', 'check'], 'health',
    `Unix time of the first failure of the current run of failures; only while failing. ${HEALTH} (timeOfFirstFailure).`,
    '`timeOfFirstFailure` of the check as Unix seconds; present only while the check fails and the node reports it.'),
  spec('avalanchego_health_check_unparsed_fields', 'gauge', ['node', 'check'], 'health',
    `Fields of the health check message the exporter could not parse in the last report (0 when all parsed). ${HEALTH}.`,
    'Number of fields of the check\'s `message` (or `timestamp`, `duration`) that had an unexpected type or format in the last report. Never fatal: the other fields are still served.'),

  // --- per chain (checks named C, P, X or an L1 chain's ID or alias) ------
  spec('avalanchego_chain_last_accepted_height', 'gauge', ['node', 'chain'], 'health',
    `Height of the last accepted block of the chain. ${HEALTH} (engine.consensus.lastAcceptedHeight).`,
    '`message.engine.consensus.lastAcceptedHeight` of the chain\'s check; absent while the chain bootstraps.'),
  spec('avalanchego_chain_processing_blocks', 'gauge', ['node', 'chain'], 'health',
    `Blocks the chain is processing (issued, not yet accepted or rejected). ${HEALTH} (engine.consensus.processingBlocks).`,
    '`message.engine.consensus.processingBlocks` (`outstandingBlocks` on nodes before v1.10.16).'),
  spec('avalanchego_chain_longest_processing_block_seconds', 'gauge', ['node', 'chain'], 'health',
    `Age of the chain's longest-processing block, in seconds. ${HEALTH} (engine.consensus.longestProcessingBlock).`,
    '`message.engine.consensus.longestProcessingBlock` (Go duration; `longestRunningBlock` before v1.10.16).'),
  spec('avalanchego_chain_avg_acceptance_time_seconds', 'gauge', ['node', 'chain'], 'health',
    `Average time to accept a block on the chain, in seconds (nodes that report it). ${HEALTH} (engine.consensus.avgAcceptanceTime).`,
    '`message.engine.consensus.avgAcceptanceTime` (Go duration); only v1.14.x nodes report it.'),
  spec('avalanchego_chain_connected_stake_ratio', 'gauge', ['node', 'chain'], 'health',
    `Fraction (0..1) of the chain's validator stake this node is connected to. ${HEALTH} (networking.percentConnected).`,
    '`message.networking.percentConnected` of the chain\'s check (already a fraction 0..1). The node fails the check below 0.8.'),
  spec('avalanchego_chain_disconnected_validators', 'gauge', ['node', 'chain'], 'health',
    `Validators of the chain this node is not connected to. ${HEALTH} (networking.disconnectedValidators).`,
    'Length of `message.networking.disconnectedValidators` (nodes v1.11.11 and later).'),
  spec('avalanchego_chain_bootstrapping', 'gauge', ['node', 'chain'], 'health',
    `1 while the chain bootstraps or state-syncs (its consensus details are empty), else 0. ${HEALTH}.`,
    '1 when the chain check\'s `engine.consensus` is an empty object or `engine` is null, else 0.'),

  // --- application checks --------------------------------------------------
  spec('avalanchego_network_connected_peers', 'gauge', ['node'], 'health',
    `Peers the node is connected to. ${HEALTH} (network.connectedPeers).`,
    '`message.connectedPeers` of the `network` check.'),
  spec('avalanchego_network_send_fail_ratio', 'gauge', ['node'], 'health',
    `Fraction (0..1) of recent outbound messages that failed to send. ${HEALTH} (network.sendFailRate).`,
    '`message.sendFailRate` of the `network` check. The node fails the check above 0.9.'),
  spec('avalanchego_network_time_since_last_msg_received_seconds', 'gauge', ['node'], 'health',
    `Seconds since the node last received a message from the network. ${HEALTH} (network.timeSinceLastMsgReceived).`,
    '`message.timeSinceLastMsgReceived` of the `network` check (Go duration); absent until a first message arrived.'),
  spec('avalanchego_network_time_since_last_msg_sent_seconds', 'gauge', ['node'], 'health',
    `Seconds since the node last sent a message to the network. ${HEALTH} (network.timeSinceLastMsgSent).`,
    '`message.timeSinceLastMsgSent` of the `network` check (Go duration); absent until a first message was sent.'),
  spec('avalanchego_network_ingress_connections', 'gauge', ['node'], 'health',
    `Inbound connections of a primary network validator (nodes v1.13.0 and later, after the grace period). ${HEALTH} (network."primary network validator health".ingressConnectionCount).`,
    '`message["primary network validator health"].ingressConnectionCount` of the `network` check.'),
  spec('avalanchego_router_outstanding_requests', 'gauge', ['node'], 'health',
    `Requests the node's chain router is waiting on. ${HEALTH} (router.outstandingRequests).`,
    '`message.outstandingRequests` of the `router` check. The node fails the check above 1024.'),
  spec('avalanchego_router_longest_running_request_seconds', 'gauge', ['node'], 'health',
    `Age of the router's longest-running request, in seconds. ${HEALTH} (router.longestRunningRequest).`,
    '`message.longestRunningRequest` of the `router` check (Go duration). The node fails the check above 5m.'),
  spec('avalanchego_disk_available_bytes', 'gauge', ['node'], 'health',
    `Disk space available to the node's database, in bytes. ${HEALTH} (diskspace.availableDiskBytes).`,
    '`message.availableDiskBytes` of the `diskspace` check.'),
  spec('avalanchego_disk_available_ratio', 'gauge', ['node'], 'health',
    `Fraction (0..1) of the disk still available (nodes v1.14.1 and later). ${HEALTH} (diskspace.availableDiskPercentage / 100).`,
    '`message.availableDiskPercentage` of the `diskspace` check / 100, when the node reports it (v1.14.1+). The node warns below 0.10 and shuts down below 0.03.'),
  spec('avalanchego_bootstrapping_subnets', 'gauge', ['node'], 'health',
    `Subnets still bootstrapping (0 once done). ${HEALTH} (bootstrapped).`,
    'Length of the `bootstrapped` check\'s `message` array.'),
  spec('avalanchego_future_upgrade_seconds_until', 'gauge', ['node'], 'health',
    `Seconds until a network upgrade unknown to this node, as scheduled by the validator majority. ${HEALTH} (futureupgrade.timeUntilUpgrade).`,
    '`message.timeUntilUpgrade` of the `futureupgrade` check (Go duration), present only when validators announce an upgrade this node does not know (v1.14.1+).'),
  spec('avalanchego_future_upgrade_stake_ratio', 'gauge', ['node'], 'health',
    `Fraction (0..1) of stake announcing the most common upgrade time. ${HEALTH} (futureupgrade.modeUpgradeWeightPercentage / 100).`,
    '`message.modeUpgradeWeightPercentage` of the `futureupgrade` check / 100 (v1.14.1+).'),
  spec('avalanchego_node_info', 'gauge', ['node', 'node_id'], 'health',
    'The node\'s ID, from the node-id header of its health API answers. Always 1.',
    '1, labelled with the `node-id` response header of the last successful health poll (absent when the node sends none).'),

  // --- index API -----------------------------------------------------------
  spec('avalanchego_index_available', 'gauge', ['node', 'endpoint'], 'index',
    `1 when the index endpoint answers, 0 when the node has indexing off (HTTP 404). Polled from index.getLastAccepted.`,
    '0 when `index.getLastAccepted` answered HTTP 404 (the node runs without `--index-enabled`), 1 when the endpoint answered. Absent while the poll fails otherwise.'),
  spec('avalanchego_index_accepted_containers', 'gauge', ['node', 'endpoint'], 'index',
    `Containers accepted in this index (0 when empty). ${INDEX} (index + 1).`,
    '`index` of `index.getLastAccepted` + 1; 0 when the node answers `no containers have been accepted`.'),
  spec('avalanchego_index_last_accepted_index', 'gauge', ['node', 'endpoint'], 'index',
    `Position of the last accepted container in the index. ${INDEX} (index).`,
    '`index` of `index.getLastAccepted` (a decimal string on the wire); absent while the index is empty.'),
  spec('avalanchego_index_last_accepted_timestamp_seconds', 'gauge', ['node', 'endpoint'], 'index',
    `Unix time this node accepted the last container of the index. ${INDEX} (timestamp).`,
    '`timestamp` of `index.getLastAccepted` as Unix seconds (node-local accept time; the bootstrap time for containers indexed while bootstrapping).'),

  // --- the exporter's own view of each poll --------------------------------
  spec('avalanchego_exporter_poll_success', 'gauge', ['node', 'source'], 'exporter',
    'Whether the last poll of the source (health, index) succeeded.',
    '1 when the last poll of that source succeeded, else 0. An index poll succeeds when every configured endpoint answered (404 and an empty index count as answers).'),
  spec('avalanchego_exporter_poll_duration_seconds', 'gauge', ['node', 'source'], 'exporter',
    'Duration of the last poll of the source, in seconds.',
    'Wall-clock time of the last poll of that source, including every request it made.'),
  spec('avalanchego_exporter_poll_errors_total', 'counter', ['node', 'source', 'reason'], 'exporter',
    'Failed polls of the source by reason (timeout, connect, http_status, rpc_error, invalid_response, host_rejected, tls, internal).',
    'Counter, +1 for each failed poll, by `reason`: `timeout` (no answer within `timeout`), `connect` (refused, reset, DNS), `tls`, `host_rejected` (HTTP 403 `invalid host specified`), `http_status` (other non-2xx), `rpc_error` (JSON-RPC error object), `invalid_response` (not JSON, wrong shape or types), `internal` (a bug in the exporter).'),
  spec('avalanchego_exporter_last_success_timestamp_seconds', 'gauge', ['node', 'source'], 'exporter',
    'Unix time of the last successful poll of the source.',
    'Wall-clock time at the end of the last successful poll of that source; absent until one succeeds.'),
] as const satisfies readonly MetricSpec[];

/** Process-wide metrics (no `node` label), registered with prom-client. */
export const GLOBAL_CATALOG = [
  spec('avalanchego_exporter_build_info', 'gauge', ['version', 'revision', 'nodejs_version'], 'exporter',
    'Build of the exporter. Always 1.',
    '1, labelled with the exporter\'s version, git revision (or `unknown`) and the Node.js version.'),
  spec('avalanchego_exporter_targets', 'gauge', [], 'exporter',
    'Nodes configured for polling.',
    'Number of `targets` in the loaded configuration.'),
  spec('avalanchego_exporter_requests_in_flight', 'gauge', [], 'exporter',
    'Requests to nodes under way right now (capped by scheduler.max_concurrent_requests).',
    'HTTP requests to nodes started and not yet answered, across all nodes and sources; at the cap, further requests wait.'),
  spec('avalanchego_exporter_requests_queued', 'gauge', [], 'exporter',
    'Requests waiting for a free slot under scheduler.max_concurrent_requests.',
    'Requests that wait for the in-flight cap; above 0 for long means the cap or the timeouts are too tight for the fleet.'),
  spec('avalanchego_exporter_config_last_reload_successful', 'gauge', [], 'exporter',
    'Whether the last configuration reload succeeded.',
    '1 when the last reload (SIGHUP or POST /-/reload) succeeded or none was attempted, 0 when it failed and the previous configuration stays in force.'),
  spec('avalanchego_exporter_config_last_reload_success_timestamp_seconds', 'gauge', [], 'exporter',
    'Unix time of the last successful configuration load.',
    'Wall-clock time of the start-up load or the last successful reload.'),
] as const satisfies readonly MetricSpec[];

export type MetricName = (typeof CATALOG)[number]['name'];
export type GlobalMetricName = (typeof GLOBAL_CATALOG)[number]['name'];
