// @ts-check
// The fleet overview (avalanchego-fleet): counts, one table row per node, heights and lag to
// the fleet per chain, and the exporters themselves.
import {
  UP_DOWN,
  YES_NO_HEALTHY,
  byName,
  byRegexp,
  colorBg,
  countStat,
  mappingsProp,
  matrix,
  merge,
  rightAxis,
  row,
  statPanel,
  tablePanel,
  tableTarget,
  target,
  thresholdsProp,
  timeseriesPanel,
  unitProp,
  zeroOne,
} from './panels.mjs';
import { EXP, FLEET, buildDashboard, dashboardsLink, nodeVariables } from './shared.mjs';

export function fleet() {
  const S = `{${FLEET}}`;
  /** @type {Array<import('./shared.mjs').PanelOrRow>} */
  const panels = [];
  panels.push(row('Fleet'));
  panels.push(
    statPanel('Nodes', 'Nodes the selected exporters poll (series of avalanchego_up).', 'none', [target(`count(avalanchego_up${S})`)], {
      h: 4,
      w: 4,
    }),
    statPanel('Up', 'Nodes whose last health poll returned a valid report (avalanchego_up).', 'none', [target(`sum(avalanchego_up${S})`)], {
      h: 4,
      w: 4,
    }),
    countStat('Down', 'Nodes the exporter cannot read (avalanchego_up == 0): see the AvalancheGoNodeDown runbook.', `avalanchego_up${S} == 0`, 'red'),
    countStat('Unhealthy', 'Nodes that report themselves unhealthy (avalanchego_healthy == 0).', `avalanchego_healthy${S} == 0`, 'orange'),
    countStat(
      'Failing checks',
      'Health checks failing across the selected nodes (avalanchego_health_check_passing == 0).',
      `avalanchego_health_check_passing${S} == 0`,
      'orange',
    ),
    countStat(
      'Bootstrapping',
      'Nodes with subnets still bootstrapping (avalanchego_bootstrapping_subnets > 0).',
      `avalanchego_bootstrapping_subnets${S} > 0`,
      'blue',
    ),
  );

  // One row per node: instant queries merged on the node's labels.
  const by = 'by (job, instance, node)';
  const nodeTable = tablePanel(
    'Nodes',
    "One row per node: the latest value of each signal. Failing checks counts checks with an error; connected stake is the lowest over the node's chains; last accepted age is the newest container over the node's indexes (X/vtx excluded, frozen by design).",
    'none',
    [
      tableTarget(`max ${by} (avalanchego_up${S})`, 'up'),
      tableTarget(`max ${by} (avalanchego_healthy${S})`, 'healthy'),
      tableTarget(`sum ${by} (1 - avalanchego_health_check_passing${S})`, 'failing'),
      tableTarget(`max ${by} (avalanchego_network_connected_peers${S})`, 'peers'),
      tableTarget(`min ${by} (avalanchego_chain_connected_stake_ratio${S})`, 'stake'),
      tableTarget(`max ${by} (avalanchego_disk_available_ratio${S})`, 'disk_ratio'),
      tableTarget(`max ${by} (avalanchego_disk_available_bytes${S})`, 'disk_bytes'),
      tableTarget(`time() - max ${by} (avalanchego_index_last_accepted_timestamp_seconds{${FLEET}, endpoint!="X/vtx"})`, 'accepted_age'),
      tableTarget(`max ${by} (node_chain:avalanchego_chain_last_accepted_height:lag${S})`, 'max_lag'),
    ],
    { h: 10, w: 24 },
    [
      merge(),
      {
        id: 'organize',
        options: {
          excludeByName: { Time: true },
          indexByName: {
            node: 0,
            job: 1,
            instance: 2,
            'Value #up': 3,
            'Value #healthy': 4,
            'Value #failing': 5,
            'Value #max_lag': 6,
            'Value #peers': 7,
            'Value #stake': 8,
            'Value #disk_ratio': 9,
            'Value #disk_bytes': 10,
            'Value #accepted_age': 11,
          },
          renameByName: {
            'Value #up': 'Up',
            'Value #healthy': 'Healthy',
            'Value #failing': 'Failing checks',
            'Value #max_lag': 'Max lag (blocks)',
            'Value #peers': 'Peers',
            'Value #stake': 'Min connected stake',
            'Value #disk_ratio': 'Disk free',
            'Value #disk_bytes': 'Disk free (bytes)',
            'Value #accepted_age': 'Last accepted age',
          },
        },
      },
    ],
    [
      byName('Up', [mappingsProp(UP_DOWN), colorBg]),
      byName('Healthy', [mappingsProp(YES_NO_HEALTHY), colorBg]),
      byName('Failing checks', [
        colorBg,
        thresholdsProp([
          { color: 'green', value: null },
          { color: 'orange', value: 1 },
        ]),
      ]),
      byName('Max lag (blocks)', [
        colorBg,
        thresholdsProp([
          { color: 'green', value: null },
          { color: 'orange', value: 100 },
        ]),
      ]),
      byName('Peers', [
        colorBg,
        thresholdsProp([
          { color: 'red', value: null },
          { color: 'orange', value: 1 },
          { color: 'green', value: 3 },
        ]),
      ]),
      byName('Min connected stake', [
        unitProp('percentunit'),
        colorBg,
        thresholdsProp([
          { color: 'red', value: null },
          { color: 'orange', value: 0.8 },
          { color: 'green', value: 0.85 },
        ]),
      ]),
      byName('Disk free', [
        unitProp('percentunit'),
        colorBg,
        thresholdsProp([
          { color: 'red', value: null },
          { color: 'orange', value: 0.05 },
          { color: 'green', value: 0.1 },
        ]),
      ]),
      byName('Disk free (bytes)', [unitProp('bytes')]),
      byName('Last accepted age', [unitProp('s')]),
    ],
  );
  panels.push(nodeTable);

  panels.push(row('Chains'));
  panels.push(
    tablePanel(
      'Height by chain',
      'Last accepted height of each chain (columns) on each node (rows), from avalanchego_chain_last_accepted_height; empty while the chain bootstraps.',
      'none',
      [tableTarget(`max by (node, chain) (avalanchego_chain_last_accepted_height${S})`, 'height')],
      { h: 8, w: 12 },
      [matrix('chain', 'node')],
    ),
    tablePanel(
      'Lag to the fleet by chain',
      'Blocks each node (rows) is behind the highest node of its job on each chain (columns): node_chain:avalanchego_chain_last_accepted_height:lag. AvalancheGoChainBehindFleet fires above 100 for 15 minutes.',
      'none',
      [tableTarget(`max by (node, chain) (node_chain:avalanchego_chain_last_accepted_height:lag${S})`, 'lag')],
      { h: 8, w: 12 },
      [matrix('chain', 'node')],
    ),
  );
  panels.push(
    timeseriesPanel(
      'Lag to the fleet',
      "Blocks behind the fleet's highest node, per node and chain.",
      'none',
      [target(`node_chain:avalanchego_chain_last_accepted_height:lag${S}`, '{{node}} {{chain}}')],
      { h: 8, w: 12 },
    ),
    timeseriesPanel(
      'Fleet block rate',
      'Blocks accepted per second on each chain by the median node (5-minute slope of the height).',
      'none',
      [target(`quantile by (chain) (0.5, node_chain:avalanchego_chain_last_accepted_height:deriv5m${S})`, '{{chain}}')],
      { h: 8, w: 12 },
      { axisLabel: 'blocks/s' },
    ),
  );
  panels.push(
    timeseriesPanel(
      'Last accepted age',
      'Seconds since each node accepted the last container of each index (index.getLastAccepted timestamp).',
      's',
      [target(`time() - avalanchego_index_last_accepted_timestamp_seconds{${FLEET}, endpoint!="X/vtx"}`, '{{node}} {{endpoint}}')],
      { h: 8, w: 12 },
    ),
    timeseriesPanel(
      'Processing blocks',
      'Blocks issued and not yet decided, per node and chain (warning above 6, critical above 15).',
      'none',
      [target(`avalanchego_chain_processing_blocks${S}`, '{{node}} {{chain}}')],
      { h: 8, w: 12 },
      {
        thresholds: [
          { color: 'green', value: null },
          { color: 'orange', value: 6 },
          { color: 'red', value: 15 },
        ],
      },
    ),
  );

  panels.push(row('Exporters'));
  panels.push(
    tablePanel(
      'Exporter builds',
      'Version and revision of each exporter (avalanchego_exporter_build_info).',
      'none',
      [tableTarget(`avalanchego_exporter_build_info{${EXP}}`, 'build')],
      { h: 6, w: 12 },
      [{ id: 'organize', options: { excludeByName: { Time: true, Value: true, __name__: true } } }],
    ),
    statPanel(
      'Configured targets',
      "Nodes in each exporter's loaded configuration (avalanchego_exporter_targets).",
      'none',
      [target(`sum(avalanchego_exporter_targets{${EXP}})`)],
      { h: 6, w: 4 },
    ),
    statPanel(
      'Last reload',
      'Whether the last configuration reload of every exporter succeeded (avalanchego_exporter_config_last_reload_successful).',
      'none',
      [target(`min(avalanchego_exporter_config_last_reload_successful{${EXP}})`)],
      { h: 6, w: 4 },
      { mappings: zeroOne(['failed', 'red'], ['ok', 'green']) },
    ),
    statPanel(
      'Configuration age',
      'Time since the configuration in force was loaded (avalanchego_exporter_config_last_reload_success_timestamp_seconds).',
      's',
      [target(`time() - max(avalanchego_exporter_config_last_reload_success_timestamp_seconds{${EXP}})`)],
      { h: 6, w: 4 },
    ),
  );
  panels.push(
    timeseriesPanel(
      'Requests to nodes',
      'Requests in flight and waiting for a slot under scheduler.max_concurrent_requests; waiting for long means the cap or the timeouts are too tight.',
      'none',
      [
        target(`sum by (instance) (avalanchego_exporter_requests_in_flight{${EXP}})`, '{{instance}} in flight'),
        target(`sum by (instance) (avalanchego_exporter_requests_queued{${EXP}})`, '{{instance}} queued'),
      ],
      { h: 8, w: 8 },
    ),
    timeseriesPanel(
      'Exporter CPU',
      'CPU time used by each exporter process.',
      'percentunit',
      [target(`rate(process_cpu_seconds_total{${EXP}}[$__rate_interval])`, '{{instance}}')],
      { h: 8, w: 8 },
    ),
    timeseriesPanel(
      'Exporter memory and event loop',
      'Resident memory of each exporter process; event-loop lag p99 on the right axis.',
      'bytes',
      [
        target(`process_resident_memory_bytes{${EXP}}`, '{{instance}} RSS'),
        target(`nodejs_eventloop_lag_p99_seconds{${EXP}}`, '{{instance}} event loop lag p99'),
      ],
      { h: 8, w: 8 },
      {
        overrides: [byRegexp('.*event loop.*', [unitProp('s'), rightAxis])],
      },
    ),
  );
  panels.push(
    tablePanel(
      'Exporter shards',
      'Shard index and shard count of each exporter replica (avalanchego_exporter_shard_index, avalanchego_exporter_shards); every index 0..count-1 needs a live replica (AvalancheGoExporterShardsMissing) and all replicas the same count (AvalancheGoExporterShardingMismatch).',
      'none',
      [
        tableTarget(`max by (job, instance) (avalanchego_exporter_shard_index{${EXP}})`, 'index'),
        tableTarget(`max by (job, instance) (avalanchego_exporter_shards{${EXP}})`, 'count'),
        tableTarget(`max by (job, instance) (avalanchego_exporter_targets{${EXP}})`, 'targets'),
      ],
      { h: 8, w: 8 },
      [
        merge(),
        {
          id: 'organize',
          options: {
            excludeByName: { Time: true },
            indexByName: { instance: 0, job: 1, 'Value #index': 2, 'Value #count': 3, 'Value #targets': 4 },
            renameByName: { 'Value #index': 'Shard', 'Value #count': 'Shards', 'Value #targets': 'Targets owned' },
          },
        },
      ],
    ),
    timeseriesPanel(
      'Poll start delay',
      'How late polls start compared with when they were due (avalanchego_exporter_poll_start_delay_seconds), p50 and p99 per exporter; AvalancheGoExporterOverCapacity fires when p99 stays above 1s.',
      's',
      [
        target(
          `histogram_quantile(0.5, sum by (instance, le) (rate(avalanchego_exporter_poll_start_delay_seconds_bucket{${EXP}}[$__rate_interval])))`,
          '{{instance}} p50',
        ),
        target(
          `histogram_quantile(0.99, sum by (instance, le) (rate(avalanchego_exporter_poll_start_delay_seconds_bucket{${EXP}}[$__rate_interval])))`,
          '{{instance}} p99',
        ),
      ],
      { h: 8, w: 8 },
      {
        thresholds: [
          { color: 'green', value: null },
          { color: 'orange', value: 1 },
        ],
      },
    ),
    timeseriesPanel(
      'Exporter file descriptors',
      'Share of the file descriptor limit each exporter uses (process_open_fds / process_max_fds; warning above 80%), and connections refused for lack of descriptors per second (right axis).',
      'percentunit',
      [
        target(`process_open_fds{${EXP}} / process_max_fds{${EXP}}`, '{{instance}} used'),
        target(`rate(avalanchego_exporter_file_descriptor_errors_total{${EXP}}[$__rate_interval])`, '{{instance}} EMFILE/ENFILE errors'),
      ],
      { h: 8, w: 8 },
      {
        overrides: [byRegexp('.*errors', [unitProp('ops'), rightAxis])],
      },
    ),
  );

  return buildDashboard({
    uid: 'avalanchego-fleet',
    title: 'AvalancheGo / Fleet overview',
    description:
      'Every AvalancheGo node the selected avalanchego-exporter instances poll: one row per node, chain heights and lag to the fleet, and the exporters themselves.',
    variables: nodeVariables(),
    links: [dashboardsLink('Node detail')],
    panels,
  });
}
