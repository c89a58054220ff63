// @ts-check
// The node detail (avalanchego-node): one node over time, from its health checks to the
// exporter's polls of it.
import {
  RUNWAY_STEPS,
  TIME_LEFT_STEPS,
  UP_DOWN,
  YES_NO_HEALTHY,
  byName,
  byRegexp,
  countStat,
  dashed,
  matrix,
  merge,
  rightAxis,
  row,
  statPanel,
  stateTimelinePanel,
  tablePanel,
  tableTarget,
  target,
  timeseriesPanel,
  unitProp,
  zeroOne,
} from './panels.mjs';
import { FLEET, buildDashboard, dashboardsLink, nodeVariables, queryVar } from './shared.mjs';

export function nodeDetail() {
  const S = `{${FLEET}}`;
  const C = `{${FLEET}, chain=~"$chain"}`;
  /** @type {Array<import('./shared.mjs').PanelOrRow>} */
  const panels = [];

  panels.push(row('Health'));
  panels.push(
    statPanel(
      'Up',
      'Whether the last health poll returned a valid report (avalanchego_up).',
      'none',
      [target(`avalanchego_up${S}`)],
      { h: 4, w: 4 },
      { mappings: UP_DOWN },
    ),
    statPanel(
      'Healthy',
      'Whether the node reports itself healthy (avalanchego_healthy).',
      'none',
      [target(`avalanchego_healthy${S}`)],
      { h: 4, w: 4 },
      { mappings: YES_NO_HEALTHY },
    ),
    countStat('Failing checks', 'Health checks with an error right now.', `avalanchego_health_check_passing${S} == 0`, 'orange'),
    statPanel(
      'Bootstrapping subnets',
      "Subnets still bootstrapping (length of the bootstrapped check's message).",
      'none',
      [target(`avalanchego_bootstrapping_subnets${S}`)],
      { h: 4, w: 4 },
      {
        thresholds: [
          { color: 'green', value: null },
          { color: 'blue', value: 1 },
        ],
      },
    ),
    tablePanel(
      'Node ID',
      "The node's ID from the node-id header of its health API answers (avalanchego_node_info).",
      'none',
      [tableTarget(`avalanchego_node_info${S}`, 'info')],
      { h: 4, w: 8 },
      [{ id: 'organize', options: { excludeByName: { Time: true, Value: true, __name__: true, job: true, instance: true } } }],
    ),
  );
  panels.push(
    stateTimelinePanel(
      'Health checks',
      'Each health check over time: green passing, red failing (avalanchego_health_check_passing). A check that has not run yet counts as failing, as on the node.',
      [target(`avalanchego_health_check_passing${S}`, '{{check}}')],
      { h: 10, w: 24 },
    ),
  );
  panels.push(
    timeseriesPanel(
      'Contiguous failures',
      'Consecutive failed runs of each check (avalanchego_health_check_contiguous_failures).',
      'none',
      [target(`avalanchego_health_check_contiguous_failures${S}`, '{{check}}')],
      { h: 8, w: 8 },
    ),
    timeseriesPanel(
      'Failing since',
      "How long each failing check has been failing, from the node's timeOfFirstFailure.",
      's',
      [target(`time() - avalanchego_health_check_first_failure_timestamp_seconds${S}`, '{{check}}')],
      { h: 8, w: 8 },
    ),
    timeseriesPanel(
      'Check run time and age',
      'How long the last run of each check took (left) and how old the last run is (check runs every 30s by default).',
      's',
      [
        target(`avalanchego_health_check_duration_seconds${S}`, '{{check}} duration'),
        target(`time() - avalanchego_health_check_timestamp_seconds${S}`, '{{check}} age'),
      ],
      { h: 8, w: 8 },
    ),
  );

  panels.push(row('Chains'));
  panels.push(
    timeseriesPanel(
      'Last accepted height',
      'Height of the last accepted block of each chain (avalanchego_chain_last_accepted_height); absent while the chain bootstraps.',
      'none',
      [target(`avalanchego_chain_last_accepted_height${C}`, '{{chain}}')],
      { h: 8, w: 8 },
      { fill: 0 },
    ),
    timeseriesPanel(
      'Block rate',
      'Blocks accepted per second on each chain: this node (solid) and the fleet median (dashed).',
      'none',
      [
        target(`node_chain:avalanchego_chain_last_accepted_height:deriv5m${C}`, '{{chain}}'),
        target(
          `quantile by (chain) (0.5, node_chain:avalanchego_chain_last_accepted_height:deriv5m{job=~"$job", instance=~"$instance", chain=~"$chain"})`,
          '{{chain}} fleet median',
        ),
      ],
      { h: 8, w: 8 },
      {
        axisLabel: 'blocks/s',
        overrides: [byRegexp('.*fleet median', [dashed])],
      },
    ),
    timeseriesPanel(
      'Lag to the fleet',
      'Blocks behind the highest node of the job on each chain.',
      'none',
      [target(`node_chain:avalanchego_chain_last_accepted_height:lag${C}`, '{{chain}}')],
      { h: 8, w: 8 },
    ),
  );
  panels.push(
    timeseriesPanel(
      'Processing blocks',
      'Blocks issued and not yet accepted or rejected (warning above 6, critical above 15, the node fails above 256).',
      'none',
      [target(`avalanchego_chain_processing_blocks${C}`, '{{chain}}')],
      { h: 8, w: 8 },
      {
        thresholds: [
          { color: 'green', value: null },
          { color: 'orange', value: 6 },
          { color: 'red', value: 15 },
        ],
      },
    ),
    timeseriesPanel(
      'Longest processing block and acceptance time',
      'Age of the longest-processing block (the node fails above 30s) and the average acceptance time (v1.14.x nodes).',
      's',
      [
        target(`avalanchego_chain_longest_processing_block_seconds${C}`, '{{chain}} longest processing'),
        target(`avalanchego_chain_avg_acceptance_time_seconds${C}`, '{{chain}} average acceptance'),
      ],
      { h: 8, w: 8 },
    ),
    stateTimelinePanel(
      'Chain bootstrapping',
      'Whether each chain bootstraps or state-syncs (avalanchego_chain_bootstrapping).',
      [target(`avalanchego_chain_bootstrapping${C}`, '{{chain}}')],
      { h: 8, w: 8 },
      zeroOne(['running', 'green'], ['bootstrapping', 'blue']),
    ),
  );
  panels.push(
    timeseriesPanel(
      'Consensus poll success',
      "Share of each chain's consensus polls that succeeded over 5m (node_metrics source, off by default: the node's own /ext/metrics). Warning below 95 %, paging below 90 % (Ava Labs' first alert).",
      'percentunit',
      [target(`node_chain:avalanchego_consensus_polls:success_ratio_rate5m${C}`, '{{chain}}')],
      { h: 8, w: 8 },
      {
        thresholds: [
          { color: 'red', value: null },
          { color: 'orange', value: 0.9 },
          { color: 'green', value: 0.95 },
        ],
      },
    ),
  );

  panels.push(row('Index'));
  panels.push(
    timeseriesPanel(
      'Last accepted age',
      'Seconds since this node accepted the last container of each index (index.getLastAccepted timestamp). X/vtx is frozen since Cortina.',
      's',
      [target(`time() - avalanchego_index_last_accepted_timestamp_seconds${S}`, '{{endpoint}}')],
      { h: 8, w: 8 },
    ),
    timeseriesPanel(
      'Containers accepted',
      'Containers in each index (avalanchego_index_accepted_containers) and the last accepted position (avalanchego_index_last_accepted_index).',
      'none',
      [
        target(`avalanchego_index_accepted_containers${S}`, '{{endpoint}} containers'),
        target(`avalanchego_index_last_accepted_index${S}`, '{{endpoint}} last index'),
      ],
      { h: 8, w: 8 },
      { fill: 0 },
    ),
    stateTimelinePanel(
      'Index available',
      'Whether each index endpoint answers (0: the node runs without --index-enabled).',
      [target(`avalanchego_index_available${S}`, '{{endpoint}}')],
      { h: 8, w: 8 },
      zeroOne(['off (404)', 'orange'], ['available', 'green']),
    ),
  );

  panels.push(row('Network'));
  panels.push(
    timeseriesPanel(
      'Peers and connections',
      'Connected peers and, on primary network validators, inbound connections.',
      'none',
      [target(`avalanchego_network_connected_peers${S}`, 'peers'), target(`avalanchego_network_ingress_connections${S}`, 'inbound connections')],
      { h: 8, w: 8 },
    ),
    timeseriesPanel(
      'Connected stake',
      "Fraction of each chain's validator stake this node is connected to; the node fails its check below 80%.",
      'percentunit',
      [target(`avalanchego_chain_connected_stake_ratio${C}`, '{{chain}}')],
      { h: 8, w: 8 },
      {
        min: 0,
        max: 1,
        thresholds: [
          { color: 'red', value: null },
          { color: 'orange', value: 0.8 },
          { color: 'green', value: 0.85 },
        ],
      },
    ),
    timeseriesPanel(
      'Disconnected validators',
      'Validators of each chain this node is not connected to (v1.11.11+).',
      'none',
      [target(`avalanchego_chain_disconnected_validators${C}`, '{{chain}}')],
      { h: 8, w: 8 },
    ),
  );
  panels.push(
    timeseriesPanel(
      'Send fail ratio',
      'Fraction of recent outbound messages that failed; the node fails its network check above 90%.',
      'percentunit',
      [target(`avalanchego_network_send_fail_ratio${S}`, 'send fail ratio')],
      { h: 8, w: 8 },
      { min: 0, max: 1 },
    ),
    timeseriesPanel(
      'Time since last message',
      'Seconds since the node last received and sent a network message; the node fails above 1m.',
      's',
      [
        target(`avalanchego_network_time_since_last_msg_received_seconds${S}`, 'received'),
        target(`avalanchego_network_time_since_last_msg_sent_seconds${S}`, 'sent'),
      ],
      { h: 8, w: 8 },
    ),
    timeseriesPanel(
      'Router',
      'Requests the chain router waits on (left; the node fails above 1024) and the age of the oldest one (right; fails above 5m).',
      'none',
      [
        target(`avalanchego_router_outstanding_requests${S}`, 'outstanding requests'),
        target(`avalanchego_router_longest_running_request_seconds${S}`, 'longest running request'),
      ],
      { h: 8, w: 8 },
      {
        overrides: [byName('longest running request', [unitProp('s'), rightAxis])],
      },
    ),
  );

  panels.push(row('Disk and upgrades'));
  panels.push(
    timeseriesPanel(
      'Disk available',
      "Disk space available to the node's database, and where the trend of the last 6 hours puts it in 24 hours (predict_linear).",
      'bytes',
      [
        target(`avalanchego_disk_available_bytes${S}`, 'available'),
        target(`predict_linear(avalanchego_disk_available_bytes${S}[6h], 24 * 3600)`, 'forecast in 24h'),
      ],
      { h: 8, w: 8 },
      {
        overrides: [byName('forecast in 24h', [dashed])],
      },
    ),
    timeseriesPanel(
      'Disk available ratio',
      'Fraction of the disk still free (v1.14.1+); the node warns below 10% and shuts down below 3%.',
      'percentunit',
      [
        target(`avalanchego_disk_available_ratio${S}`, 'available'),
        target(`predict_linear(avalanchego_disk_available_ratio${S}[6h], 24 * 3600)`, 'forecast in 24h'),
      ],
      { h: 8, w: 8 },
      {
        min: 0,
        max: 1,
        thresholds: [
          { color: 'red', value: null },
          { color: 'orange', value: 0.05 },
          { color: 'green', value: 0.1 },
        ],
      },
    ),
    timeseriesPanel(
      'Unknown network upgrade',
      'Time until a network upgrade this node does not know (left) and the share of stake announcing it (right); absent when there is none.',
      's',
      [
        target(`avalanchego_future_upgrade_seconds_until${S}`, 'time until upgrade'),
        target(`avalanchego_future_upgrade_stake_ratio${S}`, 'stake announcing it'),
      ],
      { h: 8, w: 8 },
      {
        overrides: [byName('stake announcing it', [unitProp('percentunit'), rightAxis])],
      },
    ),
  );

  panels.push(row('Validator'));
  panels.push(
    timeseriesPanel(
      'Uptime',
      'The uptime the network perceives of this validator (info.uptime weightedAveragePercentage), the share of stake that would reward it (rewardingStakePercentage), and the reward threshold (node:avalanchego_uptime_reward_threshold:ratio, dashed). Absent while the node is not a validator.',
      'percentunit',
      [
        target(`avalanchego_uptime_weighted_average_ratio${S}`, 'perceived uptime'),
        target(`avalanchego_uptime_rewarding_stake_ratio${S}`, 'stake that would reward'),
        target(`node:avalanchego_uptime_reward_threshold:ratio${S}`, 'reward threshold'),
      ],
      { h: 8, w: 8 },
      {
        min: 0,
        max: 1,
        overrides: [byName('reward threshold', [dashed])],
      },
    ),
    stateTimelinePanel(
      'Validator',
      'Whether the node is in the current validator set of each subnet (platform.getCurrentValidators with its own node ID; 11111111111111111111111111111111LpoYY is the primary network).',
      [target(`avalanchego_validator${S}`, '{{subnet}}')],
      { h: 8, w: 8 },
      zeroOne(['not a validator', 'orange'], ['validator', 'green']),
    ),
    timeseriesPanel(
      'Validation time left',
      'Time until the end of the current validation period on each subnet (endTime); AvalancheGoValidatorStakeExpiring warns below 7 days and pages below 1 day and 1 hour.',
      'dtdurations',
      [target(`avalanchego_validator_end_timestamp_seconds${S} - time()`, '{{subnet}}')],
      { h: 8, w: 8 },
      { thresholds: TIME_LEFT_STEPS },
    ),
  );
  panels.push(
    timeseriesPanel(
      'L1 runway',
      "How long the balance of the node's L1 validators lasts at the current fee price (balance / price: node_subnet:avalanchego_l1_validator_balance_navax:runway_seconds); ticket below 30 days, page below 7.",
      'dtdurations',
      [target(`node_subnet:avalanchego_l1_validator_balance_navax:runway_seconds${S}`, '{{subnet}}')],
      { h: 8, w: 8 },
      { thresholds: RUNWAY_STEPS },
    ),
    timeseriesPanel(
      'Stake and reward',
      'Weight of each validator entry (nAVAX staked on the primary network) and the potential reward of the primary network validation (potentialReward), in AVAX.',
      'short',
      [
        target(`avalanchego_validator_weight${S} / 1e9`, '{{subnet}} weight'),
        target(`avalanchego_validator_potential_reward_navax${S} / 1e9`, 'potential reward'),
      ],
      { h: 8, w: 8 },
      { axisLabel: 'AVAX' },
    ),
    stateTimelinePanel(
      'Registered BLS key',
      "Whether the BLS key registered for each validator entry (signer.publicKey) is the node's own key (info.getNodeID nodePOP.publicKey).",
      [target(`avalanchego_validator_registered_key_match${S}`, '{{subnet}}')],
      { h: 8, w: 8 },
      zeroOne(['mismatch', 'red'], ['match', 'green']),
    ),
  );
  panels.push(
    timeseriesPanel(
      'Peers by version',
      'Connected peers per AvalancheGo minor version (info.peers, at most 10 versions and "other").',
      'none',
      [target(`avalanchego_network_peers_by_version${S}`, '{{version}}')],
      { h: 8, w: 8 },
      { fill: 30 },
    ),
    timeseriesPanel(
      'Peers on a newer version',
      'Share of peers running a newer AvalancheGo than this node (AvalancheGoNodeVersionBehindPeers above 50%).',
      'percentunit',
      [target(`avalanchego_network_peers_newer_version_ratio${S}`, 'newer than this node')],
      { h: 8, w: 8 },
      {
        min: 0,
        max: 1,
        thresholds: [
          { color: 'green', value: null },
          { color: 'orange', value: 0.5 },
        ],
      },
    ),
    tablePanel(
      'Version, network and next upgrade',
      "The node's version and network (avalanchego_node_info), and when its next known network upgrade activates (info.upgrades); no upgrade time when none is scheduled.",
      'dateTimeAsIso',
      [
        tableTarget(`max by (job, instance, node, node_id, version, network_id) (avalanchego_node_info${S})`, 'info'),
        tableTarget(`max by (job, instance, node) (avalanchego_next_upgrade_timestamp_seconds${S}) * 1000`, 'upgrade'),
      ],
      { h: 8, w: 8 },
      [
        merge(),
        {
          id: 'organize',
          options: {
            excludeByName: { Time: true, 'Value #info': true, job: true, instance: true },
            renameByName: { node_id: 'Node ID', version: 'Version', network_id: 'Network ID', 'Value #upgrade': 'Next upgrade' },
          },
        },
      ],
    ),
  );

  panels.push(row('Posture and API states'));
  panels.push(
    statPanel(
      'Admin API',
      'Whether the node answers its admin API (admin.getLoggerLevel, read-only): a security finding on a production node (AvalancheGoAdminAPIExposed). Empty while the posture check is off.',
      'none',
      [target(`avalanchego_admin_api_enabled${S}`)],
      { h: 8, w: 4 },
      { mappings: zeroOne(['off', 'green'], ['exposed', 'orange']) },
    ),
    statPanel(
      'Indexing',
      'Whether the node runs with indexing on (its index API answers).',
      'none',
      [target(`avalanchego_indexing_enabled${S}`)],
      { h: 8, w: 4 },
      { mappings: zeroOne(['off', 'blue'], ['on', 'green']) },
    ),
    tablePanel(
      'Loggers by level',
      'Loggers of the node at each level, for the log file and the console (admin.getLoggerLevel); verbo, debug or trace on the log file for an hour is AvalancheGoVerboseLogLevel.',
      'none',
      [tableTarget(`sum by (output, level) (avalanchego_logger_level${S})`, 'loggers')],
      { h: 8, w: 6 },
      [matrix('output', 'level')],
    ),
    tablePanel(
      'API method states',
      "State of each info and platform method the exporter calls: ok, not_validator (info.uptime on a node that is not a validator), not_bootstrapped (HTTP 503 while the P-Chain bootstraps), unsupported (the node's version lacks the method).",
      'none',
      [
        tableTarget(`max by (method, state) (avalanchego_info_method_state${S})`, 'info'),
        tableTarget(`max by (method, state) (avalanchego_platform_method_state${S})`, 'platform'),
      ],
      { h: 8, w: 10 },
      [
        merge(),
        {
          id: 'organize',
          options: {
            excludeByName: { Time: true, 'Value #info': true, 'Value #platform': true },
            renameByName: { method: 'Method', state: 'State' },
          },
        },
      ],
    ),
  );

  panels.push(row('Exporter'));
  panels.push(
    stateTimelinePanel(
      'Poll success',
      'Whether the last poll of each source (health, index, info, platform, admin) succeeded.',
      [target(`avalanchego_exporter_poll_success${S}`, '{{source}}')],
      { h: 6, w: 8 },
      zeroOne(['failed', 'red'], ['ok', 'green']),
    ),
    timeseriesPanel(
      'Poll duration',
      'Wall-clock time of the last poll of each source.',
      's',
      [target(`avalanchego_exporter_poll_duration_seconds${S}`, '{{source}}')],
      { h: 6, w: 8 },
    ),
    timeseriesPanel(
      'Poll errors',
      'Failed polls per second by source and reason (timeout, connect, http_status, rpc_error, invalid_response, host_rejected, tls, internal).',
      'ops',
      [target(`sum by (source, reason) (rate(avalanchego_exporter_poll_errors_total${S}[$__rate_interval]))`, '{{source}} {{reason}}')],
      { h: 6, w: 8 },
    ),
  );
  panels.push(
    timeseriesPanel(
      'Time since last successful poll',
      'Seconds since the last successful poll of each source.',
      's',
      [target(`time() - avalanchego_exporter_last_success_timestamp_seconds${S}`, '{{source}}')],
      { h: 6, w: 8 },
    ),
    timeseriesPanel(
      'Unparsed fields',
      "Fields of each check's report the exporter could not parse (0 when all parsed); above 0 the node may be newer than the exporter.",
      'none',
      [target(`avalanchego_health_check_unparsed_fields${S}`, '{{check}}')],
      { h: 6, w: 8 },
    ),
    timeseriesPanel(
      'Series dropped',
      "Series of each source's last poll left out by limits.max_series_per_node or limits.max_label_length (AvalancheGoExporterSeriesDropped); absent when nothing was left out.",
      'none',
      [target(`avalanchego_exporter_series_dropped${S}`, '{{source}}')],
      { h: 6, w: 8 },
    ),
  );

  return buildDashboard({
    uid: 'avalanchego-node',
    title: 'AvalancheGo / Node detail',
    description: "One AvalancheGo node over time: health checks, chains, index, network, router, disk and the exporter's polls.",
    variables: [
      ...nodeVariables({ multi: false, includeAll: false }),
      queryVar('chain', 'Chain', 'label_values(avalanchego_chain_last_accepted_height{job=~"$job", instance=~"$instance", node=~"$node"}, chain)'),
    ],
    links: [dashboardsLink('Fleet overview')],
    panels,
  });
}
