// @ts-check
// The validators (avalanchego-validators): one table row per validator node and subnet,
// uptime, validation periods, L1 runway, versions and upgrades.
import {
  RUNWAY_STEPS,
  TIME_LEFT_STEPS,
  byName,
  byRegexp,
  colorBg,
  countStat,
  dashed,
  mappingsProp,
  merge,
  row,
  tablePanel,
  tableTarget,
  target,
  thresholdsProp,
  timeseriesPanel,
  unitProp,
  zeroOne,
} from './panels.mjs';
import { FLEET, PRIMARY_NETWORK, buildDashboard, dashboardsLink, nodeVariables, queryVar } from './shared.mjs';

export function validators() {
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
  // Each validation's own uptime requirement (80 % before Helicon, 90 % for one started after it): the uptime alerts
  // warn below it + 5 points and page below it + 2. A fixed threshold would show a post-Helicon validator at 86–91 %
  // green while it pages, so the table colours the margin over the node's own requirement, with the alerts' steps.
  const threshold = `node:avalanchego_uptime_reward_threshold:ratio${S}`;
  const MARGIN_STEPS = [
    { color: 'red', value: null },
    { color: 'orange', value: 0.02 },
    { color: 'green', value: 0.05 },
  ];
  /** @type {Array<import('./shared.mjs').PanelOrRow>} */
  const panels = [];

  panels.push(row('Validators'));
  panels.push(
    countStat(
      'Validator entries',
      'Validator entries of the selected nodes and subnets in the current validator sets (avalanchego_validator == 1).',
      `avalanchego_validator${V} == 1`,
    ),
    countStat(
      'Not validating',
      'Node and subnet pairs the exporter checks that are not in the current validator set (avalanchego_validator == 0).',
      `avalanchego_validator${V} == 0`,
      'orange',
    ),
    countStat(
      'Uptime near threshold',
      'Validators whose perceived uptime is within 5 points of the reward threshold (AvalancheGoUptimeBelowRewardThreshold warning).',
      `avalanchego_uptime_weighted_average_ratio${S} < on (job, instance, node) (node:avalanchego_uptime_reward_threshold:ratio${S} + 0.05) unless on (job, instance, node) (avalanchego_validator{${FLEET}, subnet="${PRIMARY_NETWORK}"} == 0)`,
      'red',
    ),
    countStat(
      'Ending within 7 days',
      'Validations that end within 7 days (AvalancheGoValidatorStakeExpiring).',
      `avalanchego_validator_end_timestamp_seconds${V} - time() < 7 * 86400`,
      'orange',
    ),
    countStat(
      'L1 runway under 30 days',
      'L1 validators whose balance lasts less than 30 days at the current fee price, or is used up (AvalancheGoL1ValidatorBalanceLow, AvalancheGoL1ValidatorInactive).',
      `node_subnet:avalanchego_l1_validator_balance_navax:runway_seconds${V} < 30 * 86400 or avalanchego_l1_validator_active${V} == 0`,
      'red',
    ),
    countStat(
      'Key mismatches',
      "Validator entries whose registered BLS key is not the node's key (AvalancheGoRegisteredBLSKeyMismatch).",
      `avalanchego_validator_registered_key_match${V} == 0`,
      'red',
    ),
  );

  panels.push(
    tablePanel(
      'Validators',
      "One row per validator node and subnet (11111111111111111111111111111111LpoYY is the primary network): whether it is in the current validator set, the uptime the network perceives (primary network, info.uptime), start and end of the validation, stake, L1 balance and runway at the current fee price, whether the registered BLS key is the node's, and the node's ID and version.",
      'none',
      [
        column(`avalanchego_validator${V}`, 'validator'),
        column(onPrimary(`avalanchego_uptime_weighted_average_ratio${S}`), 'uptime'),
        column(onPrimary(threshold), 'required'),
        column(onPrimary(`avalanchego_uptime_weighted_average_ratio${S} - on (job, instance, node) ${threshold}`), 'margin'),
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
      { h: 12, w: 24 },
      [
        merge(),
        {
          id: 'organize',
          options: {
            excludeByName: { Time: true },
            indexByName: {
              node: 0,
              subnet: 1,
              'Value #validator': 2,
              'Value #uptime': 3,
              'Value #required': 4,
              'Value #margin': 5,
              'Value #rewarding': 6,
              'Value #start': 7,
              'Value #end': 8,
              'Value #left': 9,
              'Value #weight': 10,
              'Value #reward': 11,
              'Value #balance': 12,
              'Value #runway': 13,
              'Value #active': 14,
              'Value #key': 15,
              version: 16,
              node_id: 17,
              job: 18,
              instance: 19,
            },
            renameByName: {
              subnet: 'Subnet',
              node_id: 'Node ID',
              version: 'Version',
              'Value #validator': 'Validator',
              'Value #uptime': 'Perceived uptime',
              'Value #required': 'Uptime required',
              'Value #margin': 'Margin over required',
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
        byName('Validator', [mappingsProp(zeroOne(['no', 'orange'], ['yes', 'green'])), colorBg]),
        byName('Perceived uptime', [unitProp('percentunit')]),
        byName('Uptime required', [unitProp('percentunit')]),
        byName('Margin over required', [unitProp('percentunit'), colorBg, thresholdsProp(MARGIN_STEPS)]),
        byName('Stake that would reward', [unitProp('percentunit')]),
        byName('Started', [unitProp('dateTimeAsIso')]),
        byName('Ends', [unitProp('dateTimeAsIso')]),
        byName('Time left', [unitProp('dtdurations'), colorBg, thresholdsProp(TIME_LEFT_STEPS)]),
        byName('L1 runway', [unitProp('dtdurations'), colorBg, thresholdsProp(RUNWAY_STEPS)]),
        byName('L1 active', [mappingsProp(zeroOne(['inactive', 'red'], ['active', 'green'])), colorBg]),
        byName('Key match', [mappingsProp(zeroOne(['mismatch', 'red'], ['match', 'green'])), colorBg]),
      ],
    ),
  );

  panels.push(row('Uptime and validation periods'));
  panels.push(
    timeseriesPanel(
      'Perceived uptime',
      "The uptime the network perceives of each validator (info.uptime weightedAveragePercentage) and, dashed, each validator's own reward threshold (node:avalanchego_uptime_reward_threshold:ratio: 80 %, or 90 % for a validation started after Helicon).",
      'percentunit',
      [target(`avalanchego_uptime_weighted_average_ratio${S}`, '{{node}}'), target(threshold, '{{node}} required')],
      { h: 8, w: 12 },
      {
        max: 1,
        overrides: [byRegexp('.* required$', [dashed])],
      },
    ),
    timeseriesPanel(
      'Validation time left',
      'Time until each validation ends (endTime); warning below 7 days, pages below 1 day and 1 hour.',
      'dtdurations',
      [target(`avalanchego_validator_end_timestamp_seconds${V} - time()`, '{{node}} {{subnet}}')],
      { h: 8, w: 12 },
      { thresholds: TIME_LEFT_STEPS },
    ),
  );

  panels.push(row('L1 validators'));
  panels.push(
    timeseriesPanel(
      'L1 runway',
      "How long each L1 validator's balance lasts at the current fee price (balance / price); ticket below 30 days, page below 7.",
      'dtdurations',
      [target(`node_subnet:avalanchego_l1_validator_balance_navax:runway_seconds${V}`, '{{node}} {{subnet}}')],
      { h: 8, w: 8 },
      { thresholds: RUNWAY_STEPS },
    ),
    timeseriesPanel(
      'L1 balance',
      'P-Chain balance of each L1 validator, in AVAX (0 = inactive).',
      'short',
      [target(`avalanchego_l1_validator_balance_navax${V} / 1e9`, '{{node}} {{subnet}}')],
      { h: 8, w: 8 },
      { axisLabel: 'AVAX' },
    ),
    timeseriesPanel(
      'Validator fee price',
      'Continuous fee of one L1 validator as each node reports it (platform.getValidatorFeeState price), in nAVAX per second.',
      'none',
      [target(`avalanchego_validator_fee_price_navax_per_second${S}`, '{{node}}')],
      { h: 8, w: 8 },
      { axisLabel: 'nAVAX/s' },
    ),
  );

  // The L1 set (`l1s:`): every validator of each L1, seen from every vantage. The set-wide series have no node label
  // (one per validator, whichever vantage told it): filtered by job and instance only; who is connected is per vantage.
  const L = '{job=~"$job", instance=~"$instance"}';
  const byValidator = 'job, instance, subnet, validation_id, validator_node_id';
  const downShare = `count by (${byValidator}) (avalanchego_l1_set_validator_connected${S} == 0) / count by (${byValidator}) (avalanchego_l1_set_validator_connected${S})`;
  /**
   * @param {string} expr
   * @param {string} refId
   */
  const setColumn = (expr, refId) => tableTarget(`max by (subnet, validation_id, validator_node_id) (${expr})`, refId);
  panels.push(row('L1 set: every validator, seen from every vantage'));
  panels.push(
    countStat(
      'L1 validators down',
      'Active validators of the l1s: L1s seen disconnected by more than half of the vantages that report them (AvalancheGoL1ValidatorDown, before its for:).',
      `(${downShare}) > 0.5 and on (${byValidator}) (avalanchego_l1_set_validator_active${L} == 1)`,
      'orange',
    ),
    countStat(
      'L1 validators inactive',
      'Validators of the l1s: L1s whose balance is 0: their weight no longer counts (avalanchego_l1_set_validator_active == 0).',
      `avalanchego_l1_set_validator_active${L} == 0`,
      'red',
    ),
    countStat(
      'L1 validators past max_validators',
      'Validators of the L1s that get no per-validator series (l1s[].max_validators); the totals count them.',
      `avalanchego_l1_set_validators_dropped${L} > 0`,
      'orange',
    ),
    timeseriesPanel(
      'L1 weight active',
      "Share of each L1's weight whose validators have a balance (AvalancheGoL1WeightAtRisk pages when the inactive, short-runway or down share reaches 25 %).",
      'percentunit',
      [
        target(
          `sum by (subnet) (avalanchego_l1_set_validator_weight${L} and on (${byValidator}) (avalanchego_l1_set_validator_active${L} == 1)) / on (subnet) max by (subnet) (avalanchego_l1_set_weight${L})`,
          '{{subnet}}',
        ),
      ],
      { h: 8, w: 12 },
      { min: 0, max: 1 },
    ),
    tablePanel(
      'L1 validators',
      "Every validator of the l1s: L1s (heaviest max_validators): weight, balance, runway at the current fee, and the lowest uptime any vantage sees (validators.getCurrentValidators). The exporter's /l1/<subnet> page adds one column per vantage.",
      'none',
      [
        setColumn(`avalanchego_l1_set_validator_weight${L}`, 'weight'),
        setColumn(`avalanchego_l1_set_validator_balance_navax${L}`, 'balance'),
        setColumn(`avalanchego_l1_set_validator_runway_seconds${L}`, 'runway'),
        setColumn(`avalanchego_l1_set_validator_active${L}`, 'active'),
        tableTarget(`min by (subnet, validation_id, validator_node_id) (avalanchego_l1_set_validator_uptime_ratio${S})`, 'uptime'),
      ],
      { h: 10, w: 24 },
      [merge()],
      [byName('Value #runway', [unitProp('s')]), byName('Value #uptime', [unitProp('percentunit')])],
    ),
    tablePanel(
      'L1 chains',
      "The chains the exporter watches on each vantage, with their names (avalanchego_chain_info): the join key for an ICM relayer's source_blockchain_id.",
      'none',
      [tableTarget(`avalanchego_chain_info${S}`, 'chain')],
      { h: 6, w: 12 },
      [],
    ),
  );
  panels.push(row('Versions and upgrades'));
  panels.push(
    tablePanel(
      'Versions',
      "Each node's version and network (avalanchego_node_info), the share of its peers on a newer version, and its next known network upgrade (info.upgrades).",
      'none',
      [
        tableTarget(`max by (job, instance, node, version, network_id) (avalanchego_node_info${S})`, 'info'),
        tableTarget(`max by (job, instance, node) (avalanchego_network_peers_newer_version_ratio${S})`, 'newer'),
        tableTarget(`max by (job, instance, node) (avalanchego_next_upgrade_timestamp_seconds${S}) * 1000`, 'upgrade'),
      ],
      { h: 8, w: 12 },
      [
        merge(),
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
        byName('Peers on a newer version', [
          unitProp('percentunit'),
          colorBg,
          thresholdsProp([
            { color: 'green', value: null },
            { color: 'orange', value: 0.5 },
          ]),
        ]),
        byName('Next upgrade', [unitProp('dateTimeAsIso')]),
      ],
    ),
    timeseriesPanel(
      'Peers on a newer version',
      "Share of each node's peers that run a newer AvalancheGo (info.peers); above 50% for an hour is AvalancheGoNodeVersionBehindPeers.",
      'percentunit',
      [target(`avalanchego_network_peers_newer_version_ratio${S}`, '{{node}}')],
      { h: 8, w: 12 },
      {
        min: 0,
        max: 1,
        thresholds: [
          { color: 'green', value: null },
          { color: 'orange', value: 0.5 },
        ],
      },
    ),
  );

  return buildDashboard({
    uid: 'avalanchego-validators',
    title: 'AvalancheGo / Validators',
    description:
      "Validators and L1 validators among the selected nodes: one row per node and subnet with uptime, validation end, stake, L1 balance runway, BLS key match and version; from the exporter's info and platform sources.",
    variables: [
      ...nodeVariables(),
      queryVar('subnet', 'Subnet', 'label_values(avalanchego_validator{job=~"$job", instance=~"$instance", node=~"$node"}, subnet)'),
    ],
    links: [dashboardsLink('Node detail')],
    panels,
  });
}
