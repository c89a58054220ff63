#!/usr/bin/env node
// Builds grafana/dashboards/*.json from the panel lists below, so that every panel gets
// the same datasource reference, selectors, description and unit handling.
//
//   node grafana/build.mjs          write the dashboards
//   node grafana/build.mjs --check  exit 1 when a committed dashboard differs (a test runs this)
//
// Every selector carries job, instance and node matchers: the job and instance variables
// are what Grafana's dashboard-linter expects, node is the exporter's own target label.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const OUT = join(dirname(fileURLToPath(import.meta.url)), 'dashboards');
const DS = { type: 'prometheus', uid: '${datasource}' };

// Selector fragments.
const FLEET = 'job=~"$job", instance=~"$instance", node=~"$node"';
const EXP = 'job=~"$job", instance=~"$instance"';

// ---------------------------------------------------------------------------------------
// Types of the dashboard JSON the helpers pass through (Grafana's dashboard model)

/** @typedef {{ h: number, w: number, x: number, y: number }} GridPos */
/** @typedef {{ color: string, value: number | null }} ThresholdStep */
/** @typedef {{ mode: string, steps: readonly ThresholdStep[] }} Thresholds */
/** @typedef {{ type: string, options: object }} ValueMapping */
/** @typedef {{ id: string, value: unknown }} FieldProperty */
/** @typedef {{ matcher: { id: string, options: string }, properties: readonly FieldProperty[] }} FieldOverride */
/** @typedef {{ id: string, options: object }} Transformation */
/** @typedef {{ expr: string, refId?: string }} Target a query of a panel (target or tableTarget) */

// ---------------------------------------------------------------------------------------
// Panel helpers

let nextId = 1;
/**
 * A range query drawn over time.
 * @param {string} expr
 * @param {string} [legendFormat]
 * @param {object} [extra] more fields of the target
 */
function target(expr, legendFormat = '__auto', extra = {}) {
  return { datasource: DS, expr, legendFormat, range: true, instant: false, ...extra };
}
/**
 * An instant query of a table, named `refId` (the merge of a table's queries keys on it).
 * @param {string} expr
 * @param {string} refId
 */
function tableTarget(expr, refId) {
  return { datasource: DS, expr, format: 'table', instant: true, range: false, refId, legendFormat: '__auto' };
}
/**
 * The targets with a refId each: their own, or A, B, C … by position.
 * @template {Target} T
 * @param {readonly T[]} targets
 */
function withRefIds(targets) {
  return targets.map((t, i) => ({ refId: t.refId ?? String.fromCharCode(65 + i), ...t }));
}

/**
 * The fields every panel starts with, in the order the committed JSON has them.
 * @param {string} type
 * @param {string} title
 * @param {string} description
 * @param {GridPos} gridPos
 */
function panel(type, title, description, gridPos) {
  return { id: nextId++, type, title, description, datasource: DS, gridPos };
}

/**
 * @param {string} title
 * @param {string} description
 * @param {string} unit
 * @param {readonly Target[]} targets
 * @param {GridPos} gridPos
 * @param {{ min?: number, max?: number, fill?: number, axisLabel?: string, thresholds?: Thresholds, overrides?: readonly FieldOverride[], calcs?: readonly string[] }} [opts]
 */
function timeseries(title, description, unit, targets, gridPos, opts = {}) {
  return {
    ...panel('timeseries', title, description, gridPos),
    fieldConfig: {
      defaults: {
        unit,
        min: opts.min,
        max: opts.max,
        custom: {
          drawStyle: 'line',
          lineWidth: 1,
          fillOpacity: opts.fill ?? 10,
          showPoints: 'never',
          spanNulls: false,
          axisLabel: opts.axisLabel ?? '',
        },
        thresholds: opts.thresholds ?? { mode: 'absolute', steps: [{ color: 'green', value: null }] },
      },
      overrides: opts.overrides ?? [],
    },
    options: {
      legend: { displayMode: 'table', placement: 'bottom', showLegend: true, calcs: opts.calcs ?? ['lastNotNull', 'max'] },
      tooltip: { mode: 'multi', sort: 'desc' },
    },
    targets: withRefIds(targets),
  };
}

/**
 * @param {string} title
 * @param {string} description
 * @param {string} unit
 * @param {readonly Target[]} targets
 * @param {GridPos} gridPos
 * @param {{ mappings?: readonly ValueMapping[], thresholds?: Thresholds }} [opts]
 */
function stat(title, description, unit, targets, gridPos, opts = {}) {
  return {
    ...panel('stat', title, description, gridPos),
    fieldConfig: {
      defaults: {
        unit,
        mappings: opts.mappings ?? [],
        thresholds: opts.thresholds ?? { mode: 'absolute', steps: [{ color: 'green', value: null }] },
      },
      overrides: [],
    },
    options: {
      colorMode: 'background',
      graphMode: 'none',
      justifyMode: 'auto',
      orientation: 'auto',
      textMode: 'auto',
      reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
    },
    targets: withRefIds(targets),
  };
}

// State timeline of 0/1 series (checks, poll success).
/** @type {readonly ValueMapping[]} */
const PASS_FAIL = [{ type: 'value', options: { 0: { text: 'failing', color: 'red', index: 0 }, 1: { text: 'passing', color: 'green', index: 1 } } }];
/**
 * @param {string} title
 * @param {string} description
 * @param {readonly Target[]} targets
 * @param {GridPos} gridPos
 * @param {readonly ValueMapping[]} [mappings]
 */
function stateTimeline(title, description, targets, gridPos, mappings = PASS_FAIL) {
  return {
    ...panel('state-timeline', title, description, gridPos),
    fieldConfig: {
      defaults: {
        unit: 'none',
        mappings,
        color: { mode: 'thresholds' },
        thresholds: {
          mode: 'absolute',
          steps: [
            { color: 'red', value: null },
            { color: 'green', value: 1 },
          ],
        },
        custom: { fillOpacity: 80, lineWidth: 0 },
      },
      overrides: [],
    },
    options: {
      mergeValues: true,
      showValue: 'never',
      alignValue: 'left',
      rowHeight: 0.9,
      legend: { displayMode: 'list', placement: 'bottom', showLegend: false },
      tooltip: { mode: 'single', sort: 'none' },
    },
    targets: withRefIds(targets),
  };
}

/**
 * @param {string} title
 * @param {string} description
 * @param {string} unit
 * @param {readonly Target[]} targets
 * @param {GridPos} gridPos
 * @param {readonly Transformation[]} transformations
 * @param {readonly FieldOverride[]} [overrides]
 */
function table(title, description, unit, targets, gridPos, transformations, overrides = []) {
  return {
    ...panel('table', title, description, gridPos),
    fieldConfig: {
      defaults: {
        unit,
        custom: { align: 'auto', cellOptions: { type: 'auto' }, filterable: true },
        thresholds: { mode: 'absolute', steps: [{ color: 'green', value: null }] },
      },
      overrides,
    },
    options: { showHeader: true, cellHeight: 'sm', footer: { show: false, reducer: ['sum'], fields: '' } },
    targets: withRefIds(targets),
    transformations,
  };
}

/**
 * @param {string} title
 * @param {number} y
 */
function row(title, y) {
  return { id: nextId++, type: 'row', title, collapsed: false, gridPos: { h: 1, w: 24, x: 0, y }, panels: [] };
}

// Field overrides for the fleet table.
/**
 * @param {string} name the column
 * @param {readonly FieldProperty[]} props
 * @returns {FieldOverride}
 */
function columnOverride(name, props) {
  return { matcher: { id: 'byName', options: name }, properties: props };
}
/**
 * @param {string} u
 * @returns {FieldProperty}
 */
const unitProp = (u) => ({ id: 'unit', value: u });
/** @type {FieldProperty} */
const colorBg = { id: 'custom.cellOptions', value: { type: 'color-background' } };
/**
 * @param {readonly ThresholdStep[]} steps
 * @returns {FieldProperty}
 */
const thresholdsProp = (steps) => ({ id: 'thresholds', value: { mode: 'absolute', steps } });
/**
 * @param {readonly ValueMapping[]} m
 * @returns {FieldProperty}
 */
const mappingsProp = (m) => ({ id: 'mappings', value: m });
// Colours of a validation's time left (page below 1 day, ticket below 7) and of an L1
// validator's runway (page below 7 days, ticket below 30), as the alerts have them.
const TIME_LEFT_STEPS = [
  { color: 'red', value: null },
  { color: 'orange', value: 86400 },
  { color: 'green', value: 604800 },
];
const RUNWAY_STEPS = [
  { color: 'red', value: null },
  { color: 'orange', value: 604800 },
  { color: 'green', value: 2592000 },
];
/**
 * @param {readonly ThresholdStep[]} steps
 * @returns {Thresholds}
 */
const absoluteSteps = (steps) => ({ mode: 'absolute', steps });
/** @type {readonly ValueMapping[]} */
const UP_DOWN = [{ type: 'value', options: { 0: { text: 'down', color: 'red', index: 0 }, 1: { text: 'up', color: 'green', index: 1 } } }];
/** @type {readonly ValueMapping[]} */
const YES_NO_HEALTHY = [
  { type: 'value', options: { 0: { text: 'unhealthy', color: 'red', index: 0 }, 1: { text: 'healthy', color: 'green', index: 1 } } },
];

// ---------------------------------------------------------------------------------------
// Variables

function datasourceVar() {
  return {
    name: 'datasource',
    label: 'Data source',
    type: 'datasource',
    query: 'prometheus',
    current: {},
    hide: 0,
    includeAll: false,
    multi: false,
    options: [],
    refresh: 1,
    regex: '',
    skipUrlSync: false,
  };
}
/**
 * A query variable.
 * @param {string} name
 * @param {string} label
 * @param {string} query
 * @param {{ multi?: boolean, includeAll?: boolean }} [options]
 */
function queryVar(name, label, query, { multi = true, includeAll = true } = {}) {
  return {
    name,
    label,
    type: 'query',
    datasource: DS,
    definition: query,
    query: { query, refId: `${name}-query` },
    current: {},
    hide: 0,
    includeAll,
    multi,
    allValue: includeAll ? '.+' : undefined,
    options: [],
    refresh: 2,
    regex: '',
    skipUrlSync: false,
    sort: 1,
  };
}

/**
 * The datasource, job, instance and node variables every dashboard starts with.
 * @param {{ multi?: boolean, includeAll?: boolean }} [nodeOptions]
 */
function nodeVariables(nodeOptions = {}) {
  return [
    datasourceVar(),
    queryVar('job', 'Job', 'label_values(avalanchego_up, job)'),
    queryVar('instance', 'Instance', 'label_values(avalanchego_up{job=~"$job"}, instance)'),
    queryVar('node', 'Node', 'label_values(avalanchego_up{job=~"$job", instance=~"$instance"}, node)', nodeOptions),
  ];
}

/**
 * @param {{ uid: string, title: string, description: string, panels: readonly object[], variables: readonly object[], links?: readonly object[] }} d
 */
function dashboard({ uid, title, description, panels, variables, links = [] }) {
  return {
    uid,
    title,
    description,
    tags: ['avalanchego', 'avalanchego-exporter'],
    editable: false,
    graphTooltip: 1,
    time: { from: 'now-6h', to: 'now' },
    timepicker: {},
    timezone: 'utc',
    refresh: '30s',
    schemaVersion: 39,
    version: 1,
    fiscalYearStartMonth: 0,
    liveNow: false,
    weekStart: '',
    annotations: { list: [] },
    links,
    templating: { list: variables },
    panels,
  };
}

// ---------------------------------------------------------------------------------------
// Fleet overview

function fleet() {
  nextId = 1;
  const S = `{${FLEET}}`;
  const panels = [];
  let y = 0;
  panels.push(row('Fleet', y));
  y += 1;
  panels.push(
    stat('Nodes', 'Nodes the selected exporters poll (series of avalanchego_up).', 'none', [target(`count(avalanchego_up${S})`)], {
      h: 4,
      w: 4,
      x: 0,
      y,
    }),
    stat('Up', 'Nodes whose last health poll returned a valid report (avalanchego_up).', 'none', [target(`sum(avalanchego_up${S})`)], {
      h: 4,
      w: 4,
      x: 4,
      y,
    }),
    stat(
      'Down',
      'Nodes the exporter cannot read (avalanchego_up == 0): see the AvalancheGoNodeDown runbook.',
      'none',
      [target(`count(avalanchego_up${S} == 0) or vector(0)`)],
      { h: 4, w: 4, x: 8, y },
      {
        thresholds: {
          mode: 'absolute',
          steps: [
            { color: 'green', value: null },
            { color: 'red', value: 1 },
          ],
        },
      },
    ),
    stat(
      'Unhealthy',
      'Nodes that report themselves unhealthy (avalanchego_healthy == 0).',
      'none',
      [target(`count(avalanchego_healthy${S} == 0) or vector(0)`)],
      { h: 4, w: 4, x: 12, y },
      {
        thresholds: {
          mode: 'absolute',
          steps: [
            { color: 'green', value: null },
            { color: 'orange', value: 1 },
          ],
        },
      },
    ),
    stat(
      'Failing checks',
      'Health checks failing across the selected nodes (avalanchego_health_check_passing == 0).',
      'none',
      [target(`count(avalanchego_health_check_passing${S} == 0) or vector(0)`)],
      { h: 4, w: 4, x: 16, y },
      {
        thresholds: {
          mode: 'absolute',
          steps: [
            { color: 'green', value: null },
            { color: 'orange', value: 1 },
          ],
        },
      },
    ),
    stat(
      'Bootstrapping',
      'Nodes with subnets still bootstrapping (avalanchego_bootstrapping_subnets > 0).',
      'none',
      [target(`count(avalanchego_bootstrapping_subnets${S} > 0) or vector(0)`)],
      { h: 4, w: 4, x: 20, y },
      {
        thresholds: {
          mode: 'absolute',
          steps: [
            { color: 'green', value: null },
            { color: 'blue', value: 1 },
          ],
        },
      },
    ),
  );
  y += 4;

  // One row per node: instant queries merged on the node's labels.
  const by = 'by (job, instance, node)';
  const nodeTable = table(
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
    { h: 10, w: 24, x: 0, y },
    [
      { id: 'merge', options: {} },
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
      columnOverride('Up', [mappingsProp(UP_DOWN), colorBg]),
      columnOverride('Healthy', [mappingsProp(YES_NO_HEALTHY), colorBg]),
      columnOverride('Failing checks', [
        colorBg,
        thresholdsProp([
          { color: 'green', value: null },
          { color: 'orange', value: 1 },
        ]),
      ]),
      columnOverride('Max lag (blocks)', [
        colorBg,
        thresholdsProp([
          { color: 'green', value: null },
          { color: 'orange', value: 100 },
        ]),
      ]),
      columnOverride('Peers', [
        colorBg,
        thresholdsProp([
          { color: 'red', value: null },
          { color: 'orange', value: 1 },
          { color: 'green', value: 3 },
        ]),
      ]),
      columnOverride('Min connected stake', [
        unitProp('percentunit'),
        colorBg,
        thresholdsProp([
          { color: 'red', value: null },
          { color: 'orange', value: 0.8 },
          { color: 'green', value: 0.85 },
        ]),
      ]),
      columnOverride('Disk free', [
        unitProp('percentunit'),
        colorBg,
        thresholdsProp([
          { color: 'red', value: null },
          { color: 'orange', value: 0.05 },
          { color: 'green', value: 0.1 },
        ]),
      ]),
      columnOverride('Disk free (bytes)', [unitProp('bytes')]),
      columnOverride('Last accepted age', [unitProp('s')]),
    ],
  );
  panels.push(nodeTable);
  y += 10;

  panels.push(row('Chains', y));
  y += 1;
  panels.push(
    table(
      'Height by chain',
      'Last accepted height of each chain (columns) on each node (rows), from avalanchego_chain_last_accepted_height; empty while the chain bootstraps.',
      'none',
      [tableTarget(`max by (node, chain) (avalanchego_chain_last_accepted_height${S})`, 'height')],
      { h: 8, w: 12, x: 0, y },
      [{ id: 'groupingToMatrix', options: { columnField: 'chain', rowField: 'node', valueField: 'Value' } }],
    ),
    table(
      'Lag to the fleet by chain',
      'Blocks each node (rows) is behind the highest node of its job on each chain (columns): node_chain:avalanchego_chain_last_accepted_height:lag. AvalancheGoChainBehindFleet fires above 100 for 15 minutes.',
      'none',
      [tableTarget(`max by (node, chain) (node_chain:avalanchego_chain_last_accepted_height:lag${S})`, 'lag')],
      { h: 8, w: 12, x: 12, y },
      [{ id: 'groupingToMatrix', options: { columnField: 'chain', rowField: 'node', valueField: 'Value' } }],
    ),
  );
  y += 8;
  panels.push(
    timeseries(
      'Lag to the fleet',
      "Blocks behind the fleet's highest node, per node and chain.",
      'none',
      [target(`node_chain:avalanchego_chain_last_accepted_height:lag${S}`, '{{node}} {{chain}}')],
      { h: 8, w: 12, x: 0, y },
    ),
    timeseries(
      'Fleet block rate',
      'Blocks accepted per second on each chain by the median node (5-minute slope of the height).',
      'none',
      [target(`quantile by (chain) (0.5, node_chain:avalanchego_chain_last_accepted_height:deriv5m${S})`, '{{chain}}')],
      { h: 8, w: 12, x: 12, y },
      { axisLabel: 'blocks/s' },
    ),
  );
  y += 8;
  panels.push(
    timeseries(
      'Last accepted age',
      'Seconds since each node accepted the last container of each index (index.getLastAccepted timestamp).',
      's',
      [target(`time() - avalanchego_index_last_accepted_timestamp_seconds{${FLEET}, endpoint!="X/vtx"}`, '{{node}} {{endpoint}}')],
      { h: 8, w: 12, x: 0, y },
    ),
    timeseries(
      'Processing blocks',
      'Blocks issued and not yet decided, per node and chain (warning above 6, critical above 15).',
      'none',
      [target(`avalanchego_chain_processing_blocks${S}`, '{{node}} {{chain}}')],
      { h: 8, w: 12, x: 12, y },
      {
        thresholds: {
          mode: 'absolute',
          steps: [
            { color: 'green', value: null },
            { color: 'orange', value: 6 },
            { color: 'red', value: 15 },
          ],
        },
      },
    ),
  );
  y += 8;

  panels.push(row('Exporters', y));
  y += 1;
  panels.push(
    table(
      'Exporter builds',
      'Version and revision of each exporter (avalanchego_exporter_build_info).',
      'none',
      [tableTarget(`avalanchego_exporter_build_info{${EXP}}`, 'build')],
      { h: 6, w: 12, x: 0, y },
      [{ id: 'organize', options: { excludeByName: { Time: true, Value: true, __name__: true } } }],
    ),
    stat(
      'Configured targets',
      "Nodes in each exporter's loaded configuration (avalanchego_exporter_targets).",
      'none',
      [target(`sum(avalanchego_exporter_targets{${EXP}})`)],
      { h: 6, w: 4, x: 12, y },
    ),
    stat(
      'Last reload',
      'Whether the last configuration reload of every exporter succeeded (avalanchego_exporter_config_last_reload_successful).',
      'none',
      [target(`min(avalanchego_exporter_config_last_reload_successful{${EXP}})`)],
      { h: 6, w: 4, x: 16, y },
      { mappings: [{ type: 'value', options: { 0: { text: 'failed', color: 'red', index: 0 }, 1: { text: 'ok', color: 'green', index: 1 } } }] },
    ),
    stat(
      'Configuration age',
      'Time since the configuration in force was loaded (avalanchego_exporter_config_last_reload_success_timestamp_seconds).',
      's',
      [target(`time() - max(avalanchego_exporter_config_last_reload_success_timestamp_seconds{${EXP}})`)],
      { h: 6, w: 4, x: 20, y },
    ),
  );
  y += 6;
  panels.push(
    timeseries(
      'Requests to nodes',
      'Requests in flight and waiting for a slot under scheduler.max_concurrent_requests; waiting for long means the cap or the timeouts are too tight.',
      'none',
      [
        target(`sum by (instance) (avalanchego_exporter_requests_in_flight{${EXP}})`, '{{instance}} in flight'),
        target(`sum by (instance) (avalanchego_exporter_requests_queued{${EXP}})`, '{{instance}} queued'),
      ],
      { h: 8, w: 8, x: 0, y },
    ),
    timeseries(
      'Exporter CPU',
      'CPU time used by each exporter process.',
      'percentunit',
      [target(`rate(process_cpu_seconds_total{${EXP}}[$__rate_interval])`, '{{instance}}')],
      { h: 8, w: 8, x: 8, y },
    ),
    timeseries(
      'Exporter memory and event loop',
      'Resident memory of each exporter process; event-loop lag p99 on the right axis.',
      'bytes',
      [
        target(`process_resident_memory_bytes{${EXP}}`, '{{instance}} RSS'),
        target(`nodejs_eventloop_lag_p99_seconds{${EXP}}`, '{{instance}} event loop lag p99'),
      ],
      { h: 8, w: 8, x: 16, y },
      {
        overrides: [
          { matcher: { id: 'byRegexp', options: '.*event loop.*' }, properties: [unitProp('s'), { id: 'custom.axisPlacement', value: 'right' }] },
        ],
      },
    ),
  );
  y += 8;
  panels.push(
    table(
      'Exporter shards',
      'Shard index and shard count of each exporter replica (avalanchego_exporter_shard_index, avalanchego_exporter_shards); every index 0..count-1 needs a live replica (AvalancheGoExporterShardsMissing) and all replicas the same count (AvalancheGoExporterShardingMismatch).',
      'none',
      [
        tableTarget(`max by (job, instance) (avalanchego_exporter_shard_index{${EXP}})`, 'index'),
        tableTarget(`max by (job, instance) (avalanchego_exporter_shards{${EXP}})`, 'count'),
        tableTarget(`max by (job, instance) (avalanchego_exporter_targets{${EXP}})`, 'targets'),
      ],
      { h: 8, w: 8, x: 0, y },
      [
        { id: 'merge', options: {} },
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
    timeseries(
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
      { h: 8, w: 8, x: 8, y },
      {
        thresholds: {
          mode: 'absolute',
          steps: [
            { color: 'green', value: null },
            { color: 'orange', value: 1 },
          ],
        },
      },
    ),
    timeseries(
      'Exporter file descriptors',
      'Share of the file descriptor limit each exporter uses (process_open_fds / process_max_fds; warning above 80%), and connections refused for lack of descriptors per second (right axis).',
      'percentunit',
      [
        target(`process_open_fds{${EXP}} / process_max_fds{${EXP}}`, '{{instance}} used'),
        target(`rate(avalanchego_exporter_file_descriptor_errors_total{${EXP}}[$__rate_interval])`, '{{instance}} EMFILE/ENFILE errors'),
      ],
      { h: 8, w: 8, x: 16, y },
      {
        overrides: [
          { matcher: { id: 'byRegexp', options: '.*errors' }, properties: [unitProp('ops'), { id: 'custom.axisPlacement', value: 'right' }] },
        ],
      },
    ),
  );

  return dashboard({
    uid: 'avalanchego-fleet',
    title: 'AvalancheGo / Fleet overview',
    description:
      'Every AvalancheGo node the selected avalanchego-exporter instances poll: one row per node, chain heights and lag to the fleet, and the exporters themselves.',
    variables: nodeVariables(),
    links: [{ title: 'Node detail', type: 'dashboards', tags: ['avalanchego'], asDropdown: false, includeVars: true, keepTime: true }],
    panels,
  });
}

// ---------------------------------------------------------------------------------------
// Node detail

function nodeDetail() {
  nextId = 1;
  const S = `{${FLEET}}`;
  const C = `{${FLEET}, chain=~"$chain"}`;
  const panels = [];
  let y = 0;

  panels.push(row('Health', y));
  y += 1;
  panels.push(
    stat(
      'Up',
      'Whether the last health poll returned a valid report (avalanchego_up).',
      'none',
      [target(`avalanchego_up${S}`)],
      { h: 4, w: 4, x: 0, y },
      { mappings: UP_DOWN },
    ),
    stat(
      'Healthy',
      'Whether the node reports itself healthy (avalanchego_healthy).',
      'none',
      [target(`avalanchego_healthy${S}`)],
      { h: 4, w: 4, x: 4, y },
      { mappings: YES_NO_HEALTHY },
    ),
    stat(
      'Failing checks',
      'Health checks with an error right now.',
      'none',
      [target(`count(avalanchego_health_check_passing${S} == 0) or vector(0)`)],
      { h: 4, w: 4, x: 8, y },
      {
        thresholds: {
          mode: 'absolute',
          steps: [
            { color: 'green', value: null },
            { color: 'orange', value: 1 },
          ],
        },
      },
    ),
    stat(
      'Bootstrapping subnets',
      "Subnets still bootstrapping (length of the bootstrapped check's message).",
      'none',
      [target(`avalanchego_bootstrapping_subnets${S}`)],
      { h: 4, w: 4, x: 12, y },
      {
        thresholds: {
          mode: 'absolute',
          steps: [
            { color: 'green', value: null },
            { color: 'blue', value: 1 },
          ],
        },
      },
    ),
    table(
      'Node ID',
      "The node's ID from the node-id header of its health API answers (avalanchego_node_info).",
      'none',
      [tableTarget(`avalanchego_node_info${S}`, 'info')],
      { h: 4, w: 8, x: 16, y },
      [{ id: 'organize', options: { excludeByName: { Time: true, Value: true, __name__: true, job: true, instance: true } } }],
    ),
  );
  y += 4;
  panels.push(
    stateTimeline(
      'Health checks',
      'Each health check over time: green passing, red failing (avalanchego_health_check_passing). A check that has not run yet counts as failing, as on the node.',
      [target(`avalanchego_health_check_passing${S}`, '{{check}}')],
      { h: 10, w: 24, x: 0, y },
    ),
  );
  y += 10;
  panels.push(
    timeseries(
      'Contiguous failures',
      'Consecutive failed runs of each check (avalanchego_health_check_contiguous_failures).',
      'none',
      [target(`avalanchego_health_check_contiguous_failures${S}`, '{{check}}')],
      { h: 8, w: 8, x: 0, y },
    ),
    timeseries(
      'Failing since',
      "How long each failing check has been failing, from the node's timeOfFirstFailure.",
      's',
      [target(`time() - avalanchego_health_check_first_failure_timestamp_seconds${S}`, '{{check}}')],
      { h: 8, w: 8, x: 8, y },
    ),
    timeseries(
      'Check run time and age',
      'How long the last run of each check took (left) and how old the last run is (check runs every 30s by default).',
      's',
      [
        target(`avalanchego_health_check_duration_seconds${S}`, '{{check}} duration'),
        target(`time() - avalanchego_health_check_timestamp_seconds${S}`, '{{check}} age'),
      ],
      { h: 8, w: 8, x: 16, y },
    ),
  );
  y += 8;

  panels.push(row('Chains', y));
  y += 1;
  panels.push(
    timeseries(
      'Last accepted height',
      'Height of the last accepted block of each chain (avalanchego_chain_last_accepted_height); absent while the chain bootstraps.',
      'none',
      [target(`avalanchego_chain_last_accepted_height${C}`, '{{chain}}')],
      { h: 8, w: 8, x: 0, y },
      { fill: 0 },
    ),
    timeseries(
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
      { h: 8, w: 8, x: 8, y },
      {
        axisLabel: 'blocks/s',
        overrides: [
          {
            matcher: { id: 'byRegexp', options: '.*fleet median' },
            properties: [{ id: 'custom.lineStyle', value: { fill: 'dash', dash: [10, 10] } }],
          },
        ],
      },
    ),
    timeseries(
      'Lag to the fleet',
      'Blocks behind the highest node of the job on each chain.',
      'none',
      [target(`node_chain:avalanchego_chain_last_accepted_height:lag${C}`, '{{chain}}')],
      { h: 8, w: 8, x: 16, y },
    ),
  );
  y += 8;
  panels.push(
    timeseries(
      'Processing blocks',
      'Blocks issued and not yet accepted or rejected (warning above 6, critical above 15, the node fails above 256).',
      'none',
      [target(`avalanchego_chain_processing_blocks${C}`, '{{chain}}')],
      { h: 8, w: 8, x: 0, y },
      {
        thresholds: {
          mode: 'absolute',
          steps: [
            { color: 'green', value: null },
            { color: 'orange', value: 6 },
            { color: 'red', value: 15 },
          ],
        },
      },
    ),
    timeseries(
      'Longest processing block and acceptance time',
      'Age of the longest-processing block (the node fails above 30s) and the average acceptance time (v1.14.x nodes).',
      's',
      [
        target(`avalanchego_chain_longest_processing_block_seconds${C}`, '{{chain}} longest processing'),
        target(`avalanchego_chain_avg_acceptance_time_seconds${C}`, '{{chain}} average acceptance'),
      ],
      { h: 8, w: 8, x: 8, y },
    ),
    stateTimeline(
      'Chain bootstrapping',
      'Whether each chain bootstraps or state-syncs (avalanchego_chain_bootstrapping).',
      [target(`avalanchego_chain_bootstrapping${C}`, '{{chain}}')],
      { h: 8, w: 8, x: 16, y },
      [{ type: 'value', options: { 0: { text: 'running', color: 'green', index: 0 }, 1: { text: 'bootstrapping', color: 'blue', index: 1 } } }],
    ),
  );
  y += 8;

  panels.push(row('Index', y));
  y += 1;
  panels.push(
    timeseries(
      'Last accepted age',
      'Seconds since this node accepted the last container of each index (index.getLastAccepted timestamp). X/vtx is frozen since Cortina.',
      's',
      [target(`time() - avalanchego_index_last_accepted_timestamp_seconds${S}`, '{{endpoint}}')],
      { h: 8, w: 8, x: 0, y },
    ),
    timeseries(
      'Containers accepted',
      'Containers in each index (avalanchego_index_accepted_containers) and the last accepted position (avalanchego_index_last_accepted_index).',
      'none',
      [
        target(`avalanchego_index_accepted_containers${S}`, '{{endpoint}} containers'),
        target(`avalanchego_index_last_accepted_index${S}`, '{{endpoint}} last index'),
      ],
      { h: 8, w: 8, x: 8, y },
      { fill: 0 },
    ),
    stateTimeline(
      'Index available',
      'Whether each index endpoint answers (0: the node runs without --index-enabled).',
      [target(`avalanchego_index_available${S}`, '{{endpoint}}')],
      { h: 8, w: 8, x: 16, y },
      [{ type: 'value', options: { 0: { text: 'off (404)', color: 'orange', index: 0 }, 1: { text: 'available', color: 'green', index: 1 } } }],
    ),
  );
  y += 8;

  panels.push(row('Network', y));
  y += 1;
  panels.push(
    timeseries(
      'Peers and connections',
      'Connected peers and, on primary network validators, inbound connections.',
      'none',
      [target(`avalanchego_network_connected_peers${S}`, 'peers'), target(`avalanchego_network_ingress_connections${S}`, 'inbound connections')],
      { h: 8, w: 8, x: 0, y },
    ),
    timeseries(
      'Connected stake',
      "Fraction of each chain's validator stake this node is connected to; the node fails its check below 80%.",
      'percentunit',
      [target(`avalanchego_chain_connected_stake_ratio${C}`, '{{chain}}')],
      { h: 8, w: 8, x: 8, y },
      {
        min: 0,
        max: 1,
        thresholds: {
          mode: 'absolute',
          steps: [
            { color: 'red', value: null },
            { color: 'orange', value: 0.8 },
            { color: 'green', value: 0.85 },
          ],
        },
      },
    ),
    timeseries(
      'Disconnected validators',
      'Validators of each chain this node is not connected to (v1.11.11+).',
      'none',
      [target(`avalanchego_chain_disconnected_validators${C}`, '{{chain}}')],
      { h: 8, w: 8, x: 16, y },
    ),
  );
  y += 8;
  panels.push(
    timeseries(
      'Send fail ratio',
      'Fraction of recent outbound messages that failed; the node fails its network check above 90%.',
      'percentunit',
      [target(`avalanchego_network_send_fail_ratio${S}`, 'send fail ratio')],
      { h: 8, w: 8, x: 0, y },
      { min: 0, max: 1 },
    ),
    timeseries(
      'Time since last message',
      'Seconds since the node last received and sent a network message; the node fails above 1m.',
      's',
      [
        target(`avalanchego_network_time_since_last_msg_received_seconds${S}`, 'received'),
        target(`avalanchego_network_time_since_last_msg_sent_seconds${S}`, 'sent'),
      ],
      { h: 8, w: 8, x: 8, y },
    ),
    timeseries(
      'Router',
      'Requests the chain router waits on (left; the node fails above 1024) and the age of the oldest one (right; fails above 5m).',
      'none',
      [
        target(`avalanchego_router_outstanding_requests${S}`, 'outstanding requests'),
        target(`avalanchego_router_longest_running_request_seconds${S}`, 'longest running request'),
      ],
      { h: 8, w: 8, x: 16, y },
      {
        overrides: [
          {
            matcher: { id: 'byName', options: 'longest running request' },
            properties: [unitProp('s'), { id: 'custom.axisPlacement', value: 'right' }],
          },
        ],
      },
    ),
  );
  y += 8;

  panels.push(row('Disk and upgrades', y));
  y += 1;
  panels.push(
    timeseries(
      'Disk available',
      "Disk space available to the node's database, and where the trend of the last 6 hours puts it in 24 hours (predict_linear).",
      'bytes',
      [
        target(`avalanchego_disk_available_bytes${S}`, 'available'),
        target(`predict_linear(avalanchego_disk_available_bytes${S}[6h], 24 * 3600)`, 'forecast in 24h'),
      ],
      { h: 8, w: 8, x: 0, y },
      {
        overrides: [
          {
            matcher: { id: 'byName', options: 'forecast in 24h' },
            properties: [{ id: 'custom.lineStyle', value: { fill: 'dash', dash: [10, 10] } }],
          },
        ],
      },
    ),
    timeseries(
      'Disk available ratio',
      'Fraction of the disk still free (v1.14.1+); the node warns below 10% and shuts down below 3%.',
      'percentunit',
      [
        target(`avalanchego_disk_available_ratio${S}`, 'available'),
        target(`predict_linear(avalanchego_disk_available_ratio${S}[6h], 24 * 3600)`, 'forecast in 24h'),
      ],
      { h: 8, w: 8, x: 8, y },
      {
        min: 0,
        max: 1,
        thresholds: {
          mode: 'absolute',
          steps: [
            { color: 'red', value: null },
            { color: 'orange', value: 0.05 },
            { color: 'green', value: 0.1 },
          ],
        },
      },
    ),
    timeseries(
      'Unknown network upgrade',
      'Time until a network upgrade this node does not know (left) and the share of stake announcing it (right); absent when there is none.',
      's',
      [
        target(`avalanchego_future_upgrade_seconds_until${S}`, 'time until upgrade'),
        target(`avalanchego_future_upgrade_stake_ratio${S}`, 'stake announcing it'),
      ],
      { h: 8, w: 8, x: 16, y },
      {
        overrides: [
          {
            matcher: { id: 'byName', options: 'stake announcing it' },
            properties: [unitProp('percentunit'), { id: 'custom.axisPlacement', value: 'right' }],
          },
        ],
      },
    ),
  );
  y += 8;

  panels.push(row('Validator', y));
  y += 1;
  panels.push(
    timeseries(
      'Uptime',
      'The uptime the network perceives of this validator (info.uptime weightedAveragePercentage), the share of stake that would reward it (rewardingStakePercentage), and the reward threshold (node:avalanchego_uptime_reward_threshold:ratio, dashed). Absent while the node is not a validator.',
      'percentunit',
      [
        target(`avalanchego_uptime_weighted_average_ratio${S}`, 'perceived uptime'),
        target(`avalanchego_uptime_rewarding_stake_ratio${S}`, 'stake that would reward'),
        target(`node:avalanchego_uptime_reward_threshold:ratio${S}`, 'reward threshold'),
      ],
      { h: 8, w: 8, x: 0, y },
      {
        min: 0,
        max: 1,
        overrides: [
          {
            matcher: { id: 'byName', options: 'reward threshold' },
            properties: [{ id: 'custom.lineStyle', value: { fill: 'dash', dash: [10, 10] } }],
          },
        ],
      },
    ),
    stateTimeline(
      'Validator',
      'Whether the node is in the current validator set of each subnet (platform.getCurrentValidators with its own node ID; 11111111111111111111111111111111LpoYY is the primary network).',
      [target(`avalanchego_validator${S}`, '{{subnet}}')],
      { h: 8, w: 8, x: 8, y },
      [{ type: 'value', options: { 0: { text: 'not a validator', color: 'orange', index: 0 }, 1: { text: 'validator', color: 'green', index: 1 } } }],
    ),
    timeseries(
      'Validation time left',
      'Time until the end of the current validation period on each subnet (endTime); AvalancheGoValidatorStakeExpiring warns below 7 days and pages below 1 day and 1 hour.',
      'dtdurations',
      [target(`avalanchego_validator_end_timestamp_seconds${S} - time()`, '{{subnet}}')],
      { h: 8, w: 8, x: 16, y },
      { thresholds: absoluteSteps(TIME_LEFT_STEPS) },
    ),
  );
  y += 8;
  panels.push(
    timeseries(
      'L1 runway',
      "How long the balance of the node's L1 validators lasts at the current fee price (balance / price: node_subnet:avalanchego_l1_validator_balance_navax:runway_seconds); ticket below 30 days, page below 7.",
      'dtdurations',
      [target(`node_subnet:avalanchego_l1_validator_balance_navax:runway_seconds${S}`, '{{subnet}}')],
      { h: 8, w: 8, x: 0, y },
      { thresholds: absoluteSteps(RUNWAY_STEPS) },
    ),
    timeseries(
      'Stake and reward',
      'Weight of each validator entry (nAVAX staked on the primary network) and the potential reward of the primary network validation (potentialReward), in AVAX.',
      'short',
      [
        target(`avalanchego_validator_weight${S} / 1e9`, '{{subnet}} weight'),
        target(`avalanchego_validator_potential_reward_navax${S} / 1e9`, 'potential reward'),
      ],
      { h: 8, w: 8, x: 8, y },
      { axisLabel: 'AVAX' },
    ),
    stateTimeline(
      'Registered BLS key',
      "Whether the BLS key registered for each validator entry (signer.publicKey) is the node's own key (info.getNodeID nodePOP.publicKey).",
      [target(`avalanchego_validator_registered_key_match${S}`, '{{subnet}}')],
      { h: 8, w: 8, x: 16, y },
      [{ type: 'value', options: { 0: { text: 'mismatch', color: 'red', index: 0 }, 1: { text: 'match', color: 'green', index: 1 } } }],
    ),
  );
  y += 8;
  panels.push(
    timeseries(
      'Peers by version',
      'Connected peers per AvalancheGo minor version (info.peers, at most 10 versions and "other").',
      'none',
      [target(`avalanchego_network_peers_by_version${S}`, '{{version}}')],
      { h: 8, w: 8, x: 0, y },
      { fill: 30 },
    ),
    timeseries(
      'Peers on a newer version',
      'Share of peers running a newer AvalancheGo than this node (AvalancheGoNodeVersionBehindPeers above 50%).',
      'percentunit',
      [target(`avalanchego_network_peers_newer_version_ratio${S}`, 'newer than this node')],
      { h: 8, w: 8, x: 8, y },
      {
        min: 0,
        max: 1,
        thresholds: {
          mode: 'absolute',
          steps: [
            { color: 'green', value: null },
            { color: 'orange', value: 0.5 },
          ],
        },
      },
    ),
    table(
      'Version, network and next upgrade',
      "The node's version and network (avalanchego_node_info), and when its next known network upgrade activates (info.upgrades); no upgrade time when none is scheduled.",
      'dateTimeAsIso',
      [
        tableTarget(`max by (job, instance, node, node_id, version, network_id) (avalanchego_node_info${S})`, 'info'),
        tableTarget(`max by (job, instance, node) (avalanchego_next_upgrade_timestamp_seconds${S}) * 1000`, 'upgrade'),
      ],
      { h: 8, w: 8, x: 16, y },
      [
        { id: 'merge', options: {} },
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
  y += 8;

  panels.push(row('Posture and API states', y));
  y += 1;
  panels.push(
    stat(
      'Admin API',
      'Whether the node answers its admin API (admin.getLoggerLevel, read-only): a security finding on a production node (AvalancheGoAdminAPIExposed). Empty while the posture check is off.',
      'none',
      [target(`avalanchego_admin_api_enabled${S}`)],
      { h: 8, w: 4, x: 0, y },
      { mappings: [{ type: 'value', options: { 0: { text: 'off', color: 'green', index: 0 }, 1: { text: 'exposed', color: 'orange', index: 1 } } }] },
    ),
    stat(
      'Indexing',
      'Whether the node runs with indexing on (its index API answers).',
      'none',
      [target(`avalanchego_indexing_enabled${S}`)],
      { h: 8, w: 4, x: 4, y },
      { mappings: [{ type: 'value', options: { 0: { text: 'off', color: 'blue', index: 0 }, 1: { text: 'on', color: 'green', index: 1 } } }] },
    ),
    table(
      'Loggers by level',
      'Loggers of the node at each level, for the log file and the console (admin.getLoggerLevel); verbo, debug or trace on the log file for an hour is AvalancheGoVerboseLogLevel.',
      'none',
      [tableTarget(`sum by (output, level) (avalanchego_logger_level${S})`, 'loggers')],
      { h: 8, w: 6, x: 8, y },
      [{ id: 'groupingToMatrix', options: { columnField: 'output', rowField: 'level', valueField: 'Value' } }],
    ),
    table(
      'API method states',
      "State of each info and platform method the exporter calls: ok, not_validator (info.uptime on a node that is not a validator), not_bootstrapped (HTTP 503 while the P-Chain bootstraps), unsupported (the node's version lacks the method).",
      'none',
      [
        tableTarget(`max by (method, state) (avalanchego_info_method_state${S})`, 'info'),
        tableTarget(`max by (method, state) (avalanchego_platform_method_state${S})`, 'platform'),
      ],
      { h: 8, w: 10, x: 14, y },
      [
        { id: 'merge', options: {} },
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
  y += 8;

  panels.push(row('Exporter', y));
  y += 1;
  panels.push(
    stateTimeline(
      'Poll success',
      'Whether the last poll of each source (health, index, info, platform, admin) succeeded.',
      [target(`avalanchego_exporter_poll_success${S}`, '{{source}}')],
      { h: 6, w: 8, x: 0, y },
      [{ type: 'value', options: { 0: { text: 'failed', color: 'red', index: 0 }, 1: { text: 'ok', color: 'green', index: 1 } } }],
    ),
    timeseries(
      'Poll duration',
      'Wall-clock time of the last poll of each source.',
      's',
      [target(`avalanchego_exporter_poll_duration_seconds${S}`, '{{source}}')],
      { h: 6, w: 8, x: 8, y },
    ),
    timeseries(
      'Poll errors',
      'Failed polls per second by source and reason (timeout, connect, http_status, rpc_error, invalid_response, host_rejected, tls, internal).',
      'ops',
      [target(`sum by (source, reason) (rate(avalanchego_exporter_poll_errors_total${S}[$__rate_interval]))`, '{{source}} {{reason}}')],
      { h: 6, w: 8, x: 16, y },
    ),
  );
  y += 6;
  panels.push(
    timeseries(
      'Time since last successful poll',
      'Seconds since the last successful poll of each source.',
      's',
      [target(`time() - avalanchego_exporter_last_success_timestamp_seconds${S}`, '{{source}}')],
      { h: 6, w: 8, x: 0, y },
    ),
    timeseries(
      'Unparsed fields',
      "Fields of each check's report the exporter could not parse (0 when all parsed); above 0 the node may be newer than the exporter.",
      'none',
      [target(`avalanchego_health_check_unparsed_fields${S}`, '{{check}}')],
      { h: 6, w: 8, x: 8, y },
    ),
    timeseries(
      'Series dropped',
      "Series of each source's last poll left out by limits.max_series_per_node or limits.max_label_length (AvalancheGoExporterSeriesDropped); absent when nothing was left out.",
      'none',
      [target(`avalanchego_exporter_series_dropped${S}`, '{{source}}')],
      { h: 6, w: 8, x: 16, y },
    ),
  );

  return dashboard({
    uid: 'avalanchego-node',
    title: 'AvalancheGo / Node detail',
    description: "One AvalancheGo node over time: health checks, chains, index, network, router, disk and the exporter's polls.",
    variables: [
      ...nodeVariables({ multi: false, includeAll: false }),
      queryVar('chain', 'Chain', 'label_values(avalanchego_chain_last_accepted_height{job=~"$job", instance=~"$instance", node=~"$node"}, chain)'),
    ],
    links: [{ title: 'Fleet overview', type: 'dashboards', tags: ['avalanchego'], asDropdown: false, includeVars: true, keepTime: true }],
    panels,
  });
}

// ---------------------------------------------------------------------------------------
// Validators

const PRIMARY_NETWORK = '11111111111111111111111111111111LpoYY';

function validators() {
  nextId = 1;
  const S = `{${FLEET}}`;
  const V = `{${FLEET}, subnet=~"$subnet"}`;
  // Every column of the table carries the same labels (node, subnet, node ID, version), so
  // that the merge puts one validator entry on one row.
  // One identity series per node (with version when the info source gives it), so the join never matches twice.
  const nodeIdentity = `(group by (job, instance, node, node_id, version) (avalanchego_node_info{${FLEET}, version!=""}) or on (job, instance, node) group by (job, instance, node, node_id) (avalanchego_node_info${S}))`;
  /** @param {string} expr */
  const identity = (expr) => `(${expr}) * on (job, instance, node) group_left (node_id, version) ${nodeIdentity}`;
  // Per-node facts of the primary network validation (info.uptime, potentialReward) on its row.
  /** @param {string} expr */
  const onPrimary = (expr) => `label_replace(${expr}, "subnet", "${PRIMARY_NETWORK}", "", "")`;
  /**
   * @param {string} expr
   * @param {string} refId
   */
  const column = (expr, refId) => tableTarget(`max by (job, instance, node, subnet, node_id, version) (${identity(expr)})`, refId);
  const panels = [];
  let y = 0;

  panels.push(row('Validators', y));
  y += 1;
  /**
   * @param {string} title
   * @param {string} description
   * @param {string} expr
   * @param {number} x
   * @param {string} color
   */
  const countStat = (title, description, expr, x, color) =>
    stat(
      title,
      description,
      'none',
      [target(`count(${expr}) or vector(0)`)],
      { h: 4, w: 4, x, y },
      {
        thresholds: {
          mode: 'absolute',
          steps: [
            { color: 'green', value: null },
            { color, value: 1 },
          ],
        },
      },
    );
  panels.push(
    stat(
      'Validator entries',
      'Validator entries of the selected nodes and subnets in the current validator sets (avalanchego_validator == 1).',
      'none',
      [target(`count(avalanchego_validator${V} == 1) or vector(0)`)],
      { h: 4, w: 4, x: 0, y },
    ),
    countStat(
      'Not validating',
      'Node and subnet pairs the exporter checks that are not in the current validator set (avalanchego_validator == 0).',
      `avalanchego_validator${V} == 0`,
      4,
      'orange',
    ),
    countStat(
      'Uptime near threshold',
      'Validators whose perceived uptime is within 5 points of the reward threshold (AvalancheGoUptimeBelowRewardThreshold warning).',
      `avalanchego_uptime_weighted_average_ratio${S} < on (job, instance, node) (node:avalanchego_uptime_reward_threshold:ratio${S} + 0.05) unless on (job, instance, node) (avalanchego_validator{${FLEET}, subnet="${PRIMARY_NETWORK}"} == 0)`,
      8,
      'red',
    ),
    countStat(
      'Ending within 7 days',
      'Validations that end within 7 days (AvalancheGoValidatorStakeExpiring).',
      `avalanchego_validator_end_timestamp_seconds${V} - time() < 7 * 86400`,
      12,
      'orange',
    ),
    countStat(
      'L1 runway under 30 days',
      'L1 validators whose balance lasts less than 30 days at the current fee price, or is used up (AvalancheGoL1ValidatorBalanceLow, AvalancheGoL1ValidatorInactive).',
      `node_subnet:avalanchego_l1_validator_balance_navax:runway_seconds${V} < 30 * 86400 or avalanchego_l1_validator_active${V} == 0`,
      16,
      'red',
    ),
    countStat(
      'Key mismatches',
      "Validator entries whose registered BLS key is not the node's key (AvalancheGoRegisteredBLSKeyMismatch).",
      `avalanchego_validator_registered_key_match${V} == 0`,
      20,
      'red',
    ),
  );
  y += 4;

  panels.push(
    table(
      'Validators',
      "One row per validator node and subnet (11111111111111111111111111111111LpoYY is the primary network): whether it is in the current validator set, the uptime the network perceives (primary network, info.uptime), start and end of the validation, stake, L1 balance and runway at the current fee price, whether the registered BLS key is the node's, and the node's ID and version.",
      'none',
      [
        column(`avalanchego_validator${V}`, 'validator'),
        column(onPrimary(`avalanchego_uptime_weighted_average_ratio${S}`), 'uptime'),
        column(onPrimary(`avalanchego_uptime_rewarding_stake_ratio${S}`), 'rewarding'),
        column(`avalanchego_validator_start_timestamp_seconds${V} * 1000`, 'start'),
        column(`avalanchego_validator_end_timestamp_seconds${V} * 1000`, 'end'),
        column(`avalanchego_validator_end_timestamp_seconds${V} - time()`, 'left'),
        column(`avalanchego_validator_weight${V} / 1e9`, 'weight'),
        column(onPrimary(`avalanchego_validator_potential_reward_navax${S} / 1e9`), 'reward'),
        column(`avalanchego_l1_validator_balance_navax${V} / 1e9`, 'balance'),
        column(`node_subnet:avalanchego_l1_validator_balance_navax:runway_seconds${V}`, 'runway'),
        column(`avalanchego_l1_validator_active${V}`, 'active'),
        column(`avalanchego_validator_registered_key_match${V}`, 'key'),
      ],
      { h: 12, w: 24, x: 0, y },
      [
        { id: 'merge', options: {} },
        {
          id: 'organize',
          options: {
            excludeByName: { Time: true },
            indexByName: {
              node: 0,
              subnet: 1,
              'Value #validator': 2,
              'Value #uptime': 3,
              'Value #rewarding': 4,
              'Value #start': 5,
              'Value #end': 6,
              'Value #left': 7,
              'Value #weight': 8,
              'Value #reward': 9,
              'Value #balance': 10,
              'Value #runway': 11,
              'Value #active': 12,
              'Value #key': 13,
              version: 14,
              node_id: 15,
              job: 16,
              instance: 17,
            },
            renameByName: {
              subnet: 'Subnet',
              node_id: 'Node ID',
              version: 'Version',
              'Value #validator': 'Validator',
              'Value #uptime': 'Perceived uptime',
              'Value #rewarding': 'Stake that would reward',
              'Value #start': 'Started',
              'Value #end': 'Ends',
              'Value #left': 'Time left',
              'Value #weight': 'Weight (AVAX)',
              'Value #reward': 'Potential reward (AVAX)',
              'Value #balance': 'L1 balance (AVAX)',
              'Value #runway': 'L1 runway',
              'Value #active': 'L1 active',
              'Value #key': 'Key match',
            },
          },
        },
      ],
      [
        columnOverride('Validator', [
          mappingsProp([{ type: 'value', options: { 0: { text: 'no', color: 'orange', index: 0 }, 1: { text: 'yes', color: 'green', index: 1 } } }]),
          colorBg,
        ]),
        columnOverride('Perceived uptime', [
          unitProp('percentunit'),
          colorBg,
          thresholdsProp([
            { color: 'red', value: null },
            { color: 'orange', value: 0.82 },
            { color: 'green', value: 0.85 },
          ]),
        ]),
        columnOverride('Stake that would reward', [unitProp('percentunit')]),
        columnOverride('Started', [unitProp('dateTimeAsIso')]),
        columnOverride('Ends', [unitProp('dateTimeAsIso')]),
        columnOverride('Time left', [unitProp('dtdurations'), colorBg, thresholdsProp(TIME_LEFT_STEPS)]),
        columnOverride('L1 runway', [unitProp('dtdurations'), colorBg, thresholdsProp(RUNWAY_STEPS)]),
        columnOverride('L1 active', [
          mappingsProp([
            { type: 'value', options: { 0: { text: 'inactive', color: 'red', index: 0 }, 1: { text: 'active', color: 'green', index: 1 } } },
          ]),
          colorBg,
        ]),
        columnOverride('Key match', [
          mappingsProp([
            { type: 'value', options: { 0: { text: 'mismatch', color: 'red', index: 0 }, 1: { text: 'match', color: 'green', index: 1 } } },
          ]),
          colorBg,
        ]),
      ],
    ),
  );
  y += 12;

  panels.push(row('Uptime and validation periods', y));
  y += 1;
  panels.push(
    timeseries(
      'Perceived uptime',
      'The uptime the network perceives of each validator (info.uptime weightedAveragePercentage) and the reward threshold (node:avalanchego_uptime_reward_threshold:ratio, dashed).',
      'percentunit',
      [
        target(`avalanchego_uptime_weighted_average_ratio${S}`, '{{node}}'),
        target(`min(node:avalanchego_uptime_reward_threshold:ratio${S})`, 'reward threshold'),
      ],
      { h: 8, w: 12, x: 0, y },
      {
        max: 1,
        overrides: [
          {
            matcher: { id: 'byName', options: 'reward threshold' },
            properties: [{ id: 'custom.lineStyle', value: { fill: 'dash', dash: [10, 10] } }],
          },
        ],
      },
    ),
    timeseries(
      'Validation time left',
      'Time until each validation ends (endTime); warning below 7 days, pages below 1 day and 1 hour.',
      'dtdurations',
      [target(`avalanchego_validator_end_timestamp_seconds${V} - time()`, '{{node}} {{subnet}}')],
      { h: 8, w: 12, x: 12, y },
      { thresholds: absoluteSteps(TIME_LEFT_STEPS) },
    ),
  );
  y += 8;

  panels.push(row('L1 validators', y));
  y += 1;
  panels.push(
    timeseries(
      'L1 runway',
      "How long each L1 validator's balance lasts at the current fee price (balance / price); ticket below 30 days, page below 7.",
      'dtdurations',
      [target(`node_subnet:avalanchego_l1_validator_balance_navax:runway_seconds${V}`, '{{node}} {{subnet}}')],
      { h: 8, w: 8, x: 0, y },
      { thresholds: absoluteSteps(RUNWAY_STEPS) },
    ),
    timeseries(
      'L1 balance',
      'P-Chain balance of each L1 validator, in AVAX (0 = inactive).',
      'short',
      [target(`avalanchego_l1_validator_balance_navax${V} / 1e9`, '{{node}} {{subnet}}')],
      { h: 8, w: 8, x: 8, y },
      { axisLabel: 'AVAX' },
    ),
    timeseries(
      'Validator fee price',
      'Continuous fee of one L1 validator as each node reports it (platform.getValidatorFeeState price), in nAVAX per second.',
      'none',
      [target(`avalanchego_validator_fee_price_navax_per_second${S}`, '{{node}}')],
      { h: 8, w: 8, x: 16, y },
      { axisLabel: 'nAVAX/s' },
    ),
  );
  y += 8;

  panels.push(row('Versions and upgrades', y));
  y += 1;
  panels.push(
    table(
      'Versions',
      "Each node's version and network (avalanchego_node_info), the share of its peers on a newer version, and its next known network upgrade (info.upgrades).",
      'none',
      [
        tableTarget(`max by (job, instance, node, version, network_id) (avalanchego_node_info${S})`, 'info'),
        tableTarget(`max by (job, instance, node) (avalanchego_network_peers_newer_version_ratio${S})`, 'newer'),
        tableTarget(`max by (job, instance, node) (avalanchego_next_upgrade_timestamp_seconds${S}) * 1000`, 'upgrade'),
      ],
      { h: 8, w: 12, x: 0, y },
      [
        { id: 'merge', options: {} },
        {
          id: 'organize',
          options: {
            excludeByName: { Time: true, 'Value #info': true },
            indexByName: { node: 0, version: 1, network_id: 2, 'Value #newer': 3, 'Value #upgrade': 4, job: 5, instance: 6 },
            renameByName: {
              version: 'Version',
              network_id: 'Network ID',
              'Value #newer': 'Peers on a newer version',
              'Value #upgrade': 'Next upgrade',
            },
          },
        },
      ],
      [
        columnOverride('Peers on a newer version', [
          unitProp('percentunit'),
          colorBg,
          thresholdsProp([
            { color: 'green', value: null },
            { color: 'orange', value: 0.5 },
          ]),
        ]),
        columnOverride('Next upgrade', [unitProp('dateTimeAsIso')]),
      ],
    ),
    timeseries(
      'Peers on a newer version',
      "Share of each node's peers that run a newer AvalancheGo (info.peers); above 50% for an hour is AvalancheGoNodeVersionBehindPeers.",
      'percentunit',
      [target(`avalanchego_network_peers_newer_version_ratio${S}`, '{{node}}')],
      { h: 8, w: 12, x: 12, y },
      {
        min: 0,
        max: 1,
        thresholds: {
          mode: 'absolute',
          steps: [
            { color: 'green', value: null },
            { color: 'orange', value: 0.5 },
          ],
        },
      },
    ),
  );

  return dashboard({
    uid: 'avalanchego-validators',
    title: 'AvalancheGo / Validators',
    description:
      "Validators and L1 validators among the selected nodes: one row per node and subnet with uptime, validation end, stake, L1 balance runway, BLS key match and version; from the exporter's info and platform sources.",
    variables: [
      ...nodeVariables(),
      queryVar('subnet', 'Subnet', 'label_values(avalanchego_validator{job=~"$job", instance=~"$instance", node=~"$node"}, subnet)'),
    ],
    links: [{ title: 'Node detail', type: 'dashboards', tags: ['avalanchego'], asDropdown: false, includeVars: true, keepTime: true }],
    panels,
  });
}

// ---------------------------------------------------------------------------------------

const outputs = {
  'avalanchego-fleet.json': fleet(),
  'avalanchego-node.json': nodeDetail(),
  'avalanchego-validators.json': validators(),
};

const check = process.argv.includes('--check');
let stale = [];
for (const [file, dash] of Object.entries(outputs)) {
  const text = JSON.stringify(dash, null, 2) + '\n';
  const path = join(OUT, file);
  if (check) {
    let current = '';
    try {
      current = readFileSync(path, 'utf8');
    } catch {
      /* missing counts as stale */
    }
    if (current !== text) stale.push(file);
  } else {
    writeFileSync(path, text);
  }
}
if (stale.length > 0) {
  console.error(`out of date: ${stale.join(', ')}; run: node grafana/build.mjs`);
  process.exit(1);
}
