// The metric catalog: every series the exporter serves, in one place. Names,
// label sets and meanings are a public contract (dashboards and alert rules
// depend on them): add with care, never rename.
//
// `help` is the HELP text on /metrics; it says the value is polled and which
// node API method it comes from. `derivation` documents, for the README, how
// the value is computed.
import { PRIMARY_NETWORK_ID } from '../config/schema.js';

export type MetricType = 'gauge' | 'counter' | 'histogram';
/**
 * The source whose poll produces the series (the `source` label of the poll metrics):
 * `info` (/ext/info), `platform` (/ext/bc/P) and `admin` (the node posture check) are
 * the slow sources of the validator and posture issues; `exporter` is the exporter itself.
 */
export type MetricSource = 'health' | 'index' | 'exporter' | 'info' | 'platform' | 'admin' | 'evm' | 'proposervm';

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
const UPTIME = 'Polled from info.uptime';
const VALIDATORS = "Polled from platform.getCurrentValidators (nodeIDs: the node's own ID)";

function spec(name: string, type: MetricType, labels: readonly string[], source: MetricSource, help: string, derivation: string): MetricSpec {
  return { name, type, labels, source, help, derivation };
}

export const CATALOG = [
  // --- node state from the health API -------------------------------------
  spec(
    'avalanchego_up',
    'gauge',
    ['node'],
    'health',
    '1 when the last poll of health.health returned a valid report, else 0. Polled from health.health.',
    '1 when the last `health.health` poll returned a valid report, else 0 (connection refused, timeout, HTTP error, JSON-RPC error or a malformed body).',
  ),
  spec(
    'avalanchego_healthy',
    'gauge',
    ['node'],
    'health',
    `1 when the node reports itself healthy (all selected checks pass). ${HEALTH} (result.healthy).`,
    '`result.healthy` of `health.health` (with the configured `tags`): 1 or 0.',
  ),
  spec(
    'avalanchego_health_check_passing',
    'gauge',
    ['node', 'check'],
    'health',
    `1 when the health check has no error, else 0. ${HEALTH}.`,
    '1 when the check has no `error`, 0 otherwise; a check that has not run yet (`not yet run`) is failing, as on the node.',
  ),
  spec(
    'avalanchego_health_check_contiguous_failures',
    'gauge',
    ['node', 'check'],
    'health',
    `Consecutive failed runs of the health check (0 while passing). ${HEALTH} (contiguousFailures).`,
    '`contiguousFailures` of the check; 0 when the node omits it (passing).',
  ),
  spec(
    'avalanchego_health_check_duration_seconds',
    'gauge',
    ['node', 'check'],
    'health',
    `How long the last run of the health check took, in seconds. ${HEALTH} (duration).`,
    '`duration` of the check (integer nanoseconds) / 1e9.',
  ),
  spec(
    'avalanchego_health_check_timestamp_seconds',
    'gauge',
    ['node', 'check'],
    'health',
    `Unix time of the last run of the health check; absent while never run. ${HEALTH} (timestamp).`,
    "`timestamp` of the check as Unix seconds; absent while it is Go's zero time (`0001-01-01T00:00:00Z`, never run).",
  ),
  spec(
    'avalanchego_health_check_first_failure_timestamp_seconds',
    'gauge',
    ['node', 'check'],
    'health',
    `Unix time of the first failure of the current run of failures; only while failing. ${HEALTH} (timeOfFirstFailure).`,
    '`timeOfFirstFailure` of the check as Unix seconds; present only while the check fails and the node reports it.',
  ),
  spec(
    'avalanchego_health_check_unparsed_fields',
    'gauge',
    ['node', 'check'],
    'health',
    `Fields of the health check message the exporter could not parse in the last report (0 when all parsed). ${HEALTH}.`,
    "Number of fields of the check's `message` (or `timestamp`, `duration`) that had an unexpected type or format in the last report. Never fatal: the other fields are still served.",
  ),

  // --- per chain (checks named C, P, X or an L1 chain's ID or alias) ------
  spec(
    'avalanchego_chain_last_accepted_height',
    'gauge',
    ['node', 'chain'],
    'health',
    `Height of the last accepted block of the chain. ${HEALTH} (engine.consensus.lastAcceptedHeight).`,
    "`message.engine.consensus.lastAcceptedHeight` of the chain's check; absent while the chain bootstraps.",
  ),
  spec(
    'avalanchego_chain_processing_blocks',
    'gauge',
    ['node', 'chain'],
    'health',
    `Blocks the chain is processing (issued, not yet accepted or rejected). ${HEALTH} (engine.consensus.processingBlocks).`,
    '`message.engine.consensus.processingBlocks` (`outstandingBlocks` on nodes before v1.10.16).',
  ),
  spec(
    'avalanchego_chain_longest_processing_block_seconds',
    'gauge',
    ['node', 'chain'],
    'health',
    `Age of the chain's longest-processing block, in seconds. ${HEALTH} (engine.consensus.longestProcessingBlock).`,
    '`message.engine.consensus.longestProcessingBlock` (Go duration; `longestRunningBlock` before v1.10.16).',
  ),
  spec(
    'avalanchego_chain_avg_acceptance_time_seconds',
    'gauge',
    ['node', 'chain'],
    'health',
    `Average time to accept a block on the chain, in seconds (nodes that report it). ${HEALTH} (engine.consensus.avgAcceptanceTime).`,
    '`message.engine.consensus.avgAcceptanceTime` (Go duration); only v1.14.x nodes report it.',
  ),
  spec(
    'avalanchego_chain_connected_stake_ratio',
    'gauge',
    ['node', 'chain'],
    'health',
    `Fraction (0..1) of the chain's validator stake this node is connected to. ${HEALTH} (networking.percentConnected).`,
    "`message.networking.percentConnected` of the chain's check (already a fraction 0..1). The node fails the check below 0.8.",
  ),
  spec(
    'avalanchego_chain_disconnected_validators',
    'gauge',
    ['node', 'chain'],
    'health',
    `Validators of the chain this node is not connected to. ${HEALTH} (networking.disconnectedValidators).`,
    'Length of `message.networking.disconnectedValidators` (nodes v1.11.11 and later).',
  ),
  spec(
    'avalanchego_chain_bootstrapping',
    'gauge',
    ['node', 'chain'],
    'health',
    `1 while the chain bootstraps or state-syncs (its consensus details are empty), else 0. ${HEALTH}.`,
    "1 when the chain check's `engine.consensus` is an empty object or `engine` is null, else 0.",
  ),

  // --- application checks --------------------------------------------------
  spec(
    'avalanchego_network_connected_peers',
    'gauge',
    ['node'],
    'health',
    `Peers the node is connected to. ${HEALTH} (network.connectedPeers).`,
    '`message.connectedPeers` of the `network` check.',
  ),
  spec(
    'avalanchego_network_send_fail_ratio',
    'gauge',
    ['node'],
    'health',
    `Fraction (0..1) of recent outbound messages that failed to send. ${HEALTH} (network.sendFailRate).`,
    '`message.sendFailRate` of the `network` check. The node fails the check above 0.9.',
  ),
  spec(
    'avalanchego_network_time_since_last_msg_received_seconds',
    'gauge',
    ['node'],
    'health',
    `Seconds since the node last received a message from the network. ${HEALTH} (network.timeSinceLastMsgReceived).`,
    '`message.timeSinceLastMsgReceived` of the `network` check (Go duration); absent until a first message arrived.',
  ),
  spec(
    'avalanchego_network_time_since_last_msg_sent_seconds',
    'gauge',
    ['node'],
    'health',
    `Seconds since the node last sent a message to the network. ${HEALTH} (network.timeSinceLastMsgSent).`,
    '`message.timeSinceLastMsgSent` of the `network` check (Go duration); absent until a first message was sent.',
  ),
  spec(
    'avalanchego_network_ingress_connections',
    'gauge',
    ['node'],
    'health',
    `Inbound connections of a primary network validator (nodes v1.13.0 and later, after the grace period). ${HEALTH} (network."primary network validator health".ingressConnectionCount).`,
    '`message["primary network validator health"].ingressConnectionCount` of the `network` check.',
  ),
  spec(
    'avalanchego_router_outstanding_requests',
    'gauge',
    ['node'],
    'health',
    `Requests the node's chain router is waiting on. ${HEALTH} (router.outstandingRequests).`,
    '`message.outstandingRequests` of the `router` check. The node fails the check above 1024.',
  ),
  spec(
    'avalanchego_router_longest_running_request_seconds',
    'gauge',
    ['node'],
    'health',
    `Age of the router's longest-running request, in seconds. ${HEALTH} (router.longestRunningRequest).`,
    '`message.longestRunningRequest` of the `router` check (Go duration). The node fails the check above 5m.',
  ),
  spec(
    'avalanchego_disk_available_bytes',
    'gauge',
    ['node'],
    'health',
    `Disk space available to the node's database, in bytes. ${HEALTH} (diskspace.availableDiskBytes).`,
    '`message.availableDiskBytes` of the `diskspace` check.',
  ),
  spec(
    'avalanchego_disk_available_ratio',
    'gauge',
    ['node'],
    'health',
    `Fraction (0..1) of the disk still available (nodes v1.14.1 and later). ${HEALTH} (diskspace.availableDiskPercentage / 100).`,
    '`message.availableDiskPercentage` of the `diskspace` check / 100, when the node reports it (v1.14.1+). The node warns below 0.10 and shuts down below 0.03.',
  ),
  spec(
    'avalanchego_bootstrapping_subnets',
    'gauge',
    ['node'],
    'health',
    `Subnets still bootstrapping (0 once done). ${HEALTH} (bootstrapped).`,
    "Length of the `bootstrapped` check's `message` array.",
  ),
  spec(
    'avalanchego_future_upgrade_seconds_until',
    'gauge',
    ['node'],
    'health',
    `Seconds until a network upgrade unknown to this node, as scheduled by the validator majority. ${HEALTH} (futureupgrade.timeUntilUpgrade).`,
    '`message.timeUntilUpgrade` of the `futureupgrade` check (Go duration), present only when validators announce an upgrade this node does not know (v1.14.1+).',
  ),
  spec(
    'avalanchego_future_upgrade_stake_ratio',
    'gauge',
    ['node'],
    'health',
    `Fraction (0..1) of stake announcing the most common upgrade time. ${HEALTH} (futureupgrade.modeUpgradeWeightPercentage / 100).`,
    '`message.modeUpgradeWeightPercentage` of the `futureupgrade` check / 100 (v1.14.1+).',
  ),
  // The help text stays as it was (the golden test pins it); the derivation covers both sources.
  spec(
    'avalanchego_node_info',
    'gauge',
    ['node', 'node_id', 'version', 'network_id'],
    'health',
    "The node's ID, from the node-id header of its health API answers. Always 1.",
    '1, labelled with `node_id`, `version` and `network_id`. With the info source on (the default) the info source alone serves it: `node_id` from `info.getNodeID` `nodeID`, `version` from `info.getNodeVersion` `version` without the `avalanchego/` prefix (e.g. `1.14.2`), `network_id` from `info.getNetworkID` `networkID` (e.g. `1` Mainnet, `5` Fuji); absent until the info source answers getNodeID, and a label is left out while its method fails. With the info source off, the health source serves it with `node_id` only, from the `node-id` response header of the last successful health poll (absent when the node sends none). Never both: one series per node. Fleet rules join on `network_id` so that only nodes of one network are compared.',
  ),

  // --- index API -----------------------------------------------------------
  spec(
    'avalanchego_index_available',
    'gauge',
    ['node', 'endpoint'],
    'index',
    `1 when the index endpoint answers, 0 when the node has indexing off (HTTP 404). Polled from index.getLastAccepted.`,
    '0 when `index.getLastAccepted` answered HTTP 404 (the node runs without `--index-enabled`), 1 when the endpoint answered. Absent while the poll fails otherwise.',
  ),
  spec(
    'avalanchego_index_accepted_containers',
    'gauge',
    ['node', 'endpoint'],
    'index',
    `Containers accepted in this index (0 when empty). ${INDEX} (index + 1).`,
    '`index` of `index.getLastAccepted` + 1; 0 when the node answers `no containers have been accepted`.',
  ),
  spec(
    'avalanchego_index_last_accepted_index',
    'gauge',
    ['node', 'endpoint'],
    'index',
    `Position of the last accepted container in the index. ${INDEX} (index).`,
    '`index` of `index.getLastAccepted` (a decimal string on the wire); absent while the index is empty.',
  ),
  spec(
    'avalanchego_index_last_accepted_timestamp_seconds',
    'gauge',
    ['node', 'endpoint'],
    'index',
    `Unix time this node accepted the last container of the index. ${INDEX} (timestamp).`,
    '`timestamp` of `index.getLastAccepted` as Unix seconds (node-local accept time; the bootstrap time for containers indexed while bootstrapping).',
  ),

  // --- info API (/ext/info), issue 9 ---------------------------------------
  spec(
    'avalanchego_node_version_number',
    'gauge',
    ['node'],
    'info',
    "The node's AvalancheGo version as one comparable number: MAJOR*1e6 + MINOR*1e3 + PATCH (1.14.2 is 1014002). Polled from info.getNodeVersion.",
    '`version` of `info.getNodeVersion` (`avalanchego/MAJOR.MINOR.PATCH`) as MAJOR × 1,000,000 + MINOR × 1,000 + PATCH, so that rules can compare versions (the `version` label of `avalanchego_node_info` is the same version as text). Absent when the version string does not parse.',
  ),
  spec(
    'avalanchego_uptime_rewarding_stake_ratio',
    'gauge',
    ['node'],
    'info',
    `Fraction (0..1) of stake that sees this validator's uptime as high enough to reward it. ${UPTIME} (rewardingStakePercentage / 100).`,
    '`rewardingStakePercentage` of `info.uptime` (a decimal string, 0–100) / 100: the uptime the network perceives, on which rewards are decided. Absent while the node is not a validator (see `avalanchego_info_method_state`).',
  ),
  spec(
    'avalanchego_uptime_weighted_average_ratio',
    'gauge',
    ['node'],
    'info',
    `Stake-weighted average (0..1) of the uptime other validators observe for this validator. ${UPTIME} (weightedAveragePercentage / 100).`,
    '`weightedAveragePercentage` of `info.uptime` (a decimal string, 0–100) / 100. Absent while the node is not a validator.',
  ),
  spec(
    'avalanchego_next_upgrade_timestamp_seconds',
    'gauge',
    ['node'],
    'info',
    "Unix time of the next network upgrade the node's version knows about; absent when none is scheduled. Polled from info.upgrades.",
    'The earliest `*Time` of `info.upgrades` (v1.11.11+) that is still in the future at the poll; times more than 10 years ahead count as unscheduled. Absent when no upgrade is scheduled or the node lacks the method.',
  ),
  spec(
    'avalanchego_network_peers_by_version',
    'gauge',
    ['node', 'version'],
    'info',
    'Connected peers per AvalancheGo minor version (e.g. 1.14); at most 10 versions, the rest under "other". Polled from info.peers.',
    'Peers of `info.peers` counted by the MAJOR.MINOR of their `version` (`avalanchego/1.14.2` → `1.14`). The 10 most common minor versions get their own series, the rest are summed under `other`, versions that do not parse under `unknown`: never a series per peer.',
  ),
  spec(
    'avalanchego_network_peers_newer_version_ratio',
    'gauge',
    ['node'],
    'info',
    'Fraction (0..1) of connected peers running a newer AvalancheGo version than this node. Polled from info.peers and info.getNodeVersion.',
    "Peers of `info.peers` whose `version` (MAJOR.MINOR.PATCH) is greater than the node's own `info.getNodeVersion`, over all peers with a parseable version; absent with no such peer. Above 0.5 the node is behind most of the network.",
  ),
  spec(
    'avalanchego_info_method_state',
    'gauge',
    ['node', 'method', 'state'],
    'info',
    'State of each info API method the exporter calls: one series per method, for its current state (ok, not_validator, start_time_bootstrapping, start_time_not_found, unsupported). Polled from the info API (/ext/info).',
    '1, one series per method (`info.getNodeID`, `info.getNodeVersion`, `info.getNetworkID`, `info.uptime`, `info.peers`, `info.upgrades`) with its `state` at the last info poll: `ok` (answered), `not_validator` (`info.uptime` answered `node is not a validator`), `start_time_bootstrapping` and `start_time_not_found` (v1.15 `info.uptime`: `… error while fetching local validator start time still bootstrapping` while the P-Chain bootstraps, `… start time not found` on a node counted as a validator but absent from the P-Chain state), `unsupported` (the node\'s version lacks the method: `method not found`). These are states of the node, not poll failures; failures are `avalanchego_exporter_poll_errors_total{source="info"}`.',
  ),

  // --- platform API (/ext/bc/P), issue 9 -----------------------------------
  spec(
    'avalanchego_validator',
    'gauge',
    ['node', 'subnet'],
    'platform',
    `1 when the node is in the current validator set of the subnet, else 0. ${VALIDATORS}.`,
    `1 when \`platform.getCurrentValidators\` with \`subnetID\` and \`nodeIDs: [<own node ID>]\` lists the node, 0 when the list is empty. \`subnet\` is the primary network (\`${PRIMARY_NETWORK_ID}\`) and each ID of \`platform.subnets\`. Absent while the P-Chain is not bootstrapped (HTTP 503) or the node ID is unknown.`,
  ),
  spec(
    'avalanchego_validator_start_timestamp_seconds',
    'gauge',
    ['node', 'subnet'],
    'platform',
    `Unix time the node's current validation period started. ${VALIDATORS} (startTime).`,
    "`startTime` of the node's validator entry (a decimal string of Unix seconds). Stakers that start after the Helicon upgrade need 90% uptime instead of 80%.",
  ),
  spec(
    'avalanchego_validator_end_timestamp_seconds',
    'gauge',
    ['node', 'subnet'],
    'platform',
    `Unix time the node's current validation period ends. ${VALIDATORS} (endTime).`,
    "`endTime` of the node's validator entry (a decimal string of Unix seconds), for primary network and legacy subnet validators; L1 validators have none.",
  ),
  spec(
    'avalanchego_validator_weight',
    'gauge',
    ['node', 'subnet'],
    'platform',
    `Weight of the node's validator entry (nAVAX of stake on the primary network). ${VALIDATORS} (weight).`,
    "`weight` of the node's validator entry (a decimal string; nAVAX staked on the primary network, the L1's own units on an L1).",
  ),
  spec(
    'avalanchego_validator_potential_reward_navax',
    'gauge',
    ['node'],
    'platform',
    `Reward in nAVAX the node receives at the end of its primary network validation if its uptime is high enough. ${VALIDATORS} (potentialReward).`,
    "`potentialReward` of the node's primary network validator entry (a decimal string of nAVAX).",
  ),
  spec(
    'avalanchego_validator_registered_key_match',
    'gauge',
    ['node', 'subnet'],
    'platform',
    `1 when the BLS key registered for the validator equals the node's own key, else 0. ${VALIDATORS} (signer.publicKey) and info.getNodeID (nodePOP.publicKey).`,
    "1 when the validator entry's `signer.publicKey` (`publicKey` on an L1 entry) equals `nodePOP.publicKey` of `info.getNodeID`, 0 when they differ. Absent when either key is missing (a validator registered without a BLS key, a node without `nodePOP`). The node's key comes from the info source, or from `info.getNodeID` asked by the platform source when the info source is off.",
  ),
  spec(
    'avalanchego_l1_validator_balance_navax',
    'gauge',
    ['node', 'subnet'],
    'platform',
    `Remaining P-Chain balance in nAVAX of the node's L1 validator (0 = inactive). ${VALIDATORS} (balance).`,
    "`balance` of the node's L1 validator entry (a decimal string of nAVAX); the continuous fee is paid from it, and at 0 the validator is inactive.",
  ),
  spec(
    'avalanchego_l1_validator_active',
    'gauge',
    ['node', 'subnet'],
    'platform',
    `1 while the node's L1 validator has a balance, 0 when it is inactive (balance 0). ${VALIDATORS} (balance).`,
    '0 when `balance` of the node\'s L1 validator entry is `"0"` (the validator is inactive and no longer counts toward the L1\'s stake), else 1.',
  ),
  spec(
    'avalanchego_validator_fee_price_navax_per_second',
    'gauge',
    ['node'],
    'platform',
    'Current continuous fee of one L1 validator, in nAVAX per second. Polled from platform.getValidatorFeeState (price).',
    '`price` of `platform.getValidatorFeeState` (v1.12.2+): nAVAX per validator per second at the current excess. Runway ≈ balance / price.',
  ),
  spec(
    'avalanchego_platform_method_state',
    'gauge',
    ['node', 'method', 'state'],
    'platform',
    'State of each platform API method the exporter calls: one series per method, for its current state (ok, not_bootstrapped, unsupported). Polled from the platform API (/ext/bc/P).',
    "1, one series per method (`platform.getCurrentValidators`, `platform.getValidatorFeeState`, `platform.getHeight`) with its `state` at the last platform poll: `ok`, `not_bootstrapped` (HTTP 503 while the P-Chain bootstraps), `unsupported` (the node's version lacks the method). States, not poll failures.",
  ),

  spec(
    'avalanchego_platform_height',
    'gauge',
    ['node'],
    'platform',
    "The P-Chain's last accepted height. Polled from platform.getHeight.",
    "`height` of `platform.getHeight` (a decimal string). An L1's ProposerVM epoch (`avalanchego_proposervm_epoch_pchain_height`) is compared with it: an epoch that falls further and further behind while the L1's height is flat is a frozen L1.",
  ),
  spec(
    'avalanchego_validator_uptime_requirement_ratio',
    'gauge',
    ['node', 'subnet'],
    'platform',
    `Uptime (0..1) the node's primary network validation needs to be rewarded: 0.9 when it started at or after Helicon, else 0.8. ${VALIDATORS} (startTime) and info.upgrades (heliconTime).`,
    "0.9 when the `startTime` of the node's primary network validator entry is at or after `heliconTime` of `info.upgrades` (ACP-267, AvalancheGo v1.15), else 0.8 (also on releases without Helicon). An auto-renewed validator's cycles all start after Helicon. Absent while `info.upgrades` cannot be read. The uptime alerts use it through `node:avalanchego_uptime_reward_threshold:ratio`, with 0.8 only when it is absent.",
  ),
  spec(
    'avalanchego_validator_auto_renew',
    'gauge',
    ['node', 'subnet'],
    'platform',
    `1 when the node's primary network validator is auto-renewed (ACP-236) and renews at the end of this cycle, else 0. ${VALIDATORS} (nextPeriod).`,
    '1 when the validator entry carries the auto-renew config (`nextPeriod`, `autoCompoundRewardShares`, `validatorAuthority`; AvalancheGo v1.15+) with `nextPeriod` above 0; 0 for a fixed-term validator and for an auto-renewed one with `nextPeriod` `"0"`, which leaves at the end of its cycle. While it is 1, `avalanchego_validator_end_timestamp_seconds` is the end of the current cycle, not of the stake, and AvalancheGoValidatorStakeExpiring stays silent. Served for every primary network validator entry, 0 on releases before v1.15 (rules treat an absent series as fixed-term too).',
  ),
  spec(
    'avalanchego_validator_next_period_seconds',
    'gauge',
    ['node', 'subnet'],
    'platform',
    `Length in seconds of the auto-renewed validator's next cycle. ${VALIDATORS} (nextPeriod).`,
    '`nextPeriod` of the validator entry (a decimal string of seconds), for an auto-renewed validator that renews (`avalanchego_validator_auto_renew` 1); absent otherwise.',
  ),
  spec(
    'avalanchego_validator_auto_compound_reward_ratio',
    'gauge',
    ['node', 'subnet'],
    'platform',
    `Share (0..1) of the auto-renewed validator's rewards restaked at each cycle end. ${VALIDATORS} (autoCompoundRewardShares).`,
    '`autoCompoundRewardShares` of the validator entry (millionths: `"500000"` = 0.5) / 1,000,000, for an auto-renewed validator that renews; absent otherwise.',
  ),
  spec(
    'avalanchego_validator_restaked_validation_reward_navax',
    'gauge',
    ['node', 'subnet'],
    'platform',
    `Validation rewards in nAVAX the auto-renewed validator has restaked so far. ${VALIDATORS} (restakedValidationRewards).`,
    '`restakedValidationRewards` of the validator entry (a decimal string of nAVAX), when the node reports it (releases after v1.15.0); absent otherwise.',
  ),
  spec(
    'avalanchego_validator_restaked_delegatee_reward_navax',
    'gauge',
    ['node', 'subnet'],
    'platform',
    `Delegation fee rewards in nAVAX the auto-renewed validator has restaked so far. ${VALIDATORS} (restakedDelegateeRewards).`,
    '`restakedDelegateeRewards` of the validator entry (a decimal string of nAVAX), when the node reports it (releases after v1.15.0); absent otherwise.',
  ),

  // --- the C-Chain's executed height (eth_blockNumber), issue 20 -------------
  spec(
    'avalanchego_chain_executed_height',
    'gauge',
    ['node', 'chain'],
    'evm',
    "Height of the chain's last executed block. Polled from eth_blockNumber on /ext/bc/<chain>/rpc.",
    '`result` of `eth_blockNumber` (a 0x-hex quantity) on `/ext/bc/<chain>/rpc`, for each chain of `evm.chains`; `chain` is the name as configured (`C`). After Helicon the C-Chain accepts blocks before it executes them (ACP-194): `avalanchego_chain_last_accepted_height` minus this is the execution backlog. Before Helicon the two agree. Absent while the chain bootstraps (its RPC answers HTTP 503 `chain is not done bootstrapping`: a state, not a failed poll).',
  ),

  // --- an L1's ProposerVM view of the P-Chain, issue 20 -------------------------
  spec(
    'avalanchego_proposervm_epoch_pchain_height',
    'gauge',
    ['node', 'chain'],
    'proposervm',
    "P-Chain height the chain's current ProposerVM epoch uses for its validator set. Polled from proposervm.getCurrentEpoch.",
    "`pChainHeight` of `proposervm.getCurrentEpoch` (a decimal string) on `/ext/bc/<chain>/proposervm`, for each chain of `proposervm.chains`; `chain` is the name as configured. Falling further and further behind `avalanchego_platform_height` while the chain's height is flat is the frozen L1 of builders-hub #4534. Absent, without a failed poll, when the node answers `method not found` or HTTP 404 (a release before the ProposerVM API, or a chain the node does not run: logged once).",
  ),
  spec(
    'avalanchego_proposervm_epoch_number',
    'gauge',
    ['node', 'chain'],
    'proposervm',
    "Number of the chain's current ProposerVM epoch. Polled from proposervm.getCurrentEpoch.",
    '`number` of `proposervm.getCurrentEpoch` (a decimal string): it rises as the chain builds blocks across epoch boundaries (Granite+).',
  ),

  // --- node posture (admin API and indexing), issue 12 ---------------------
  spec(
    'avalanchego_admin_api_enabled',
    'gauge',
    ['node'],
    'admin',
    "1 when the node's admin API answers (a security finding on a production node), else 0. Polled from admin.getLoggerLevel (read-only).",
    '1 when the read-only `admin.getLoggerLevel` on `/ext/admin` answered, 0 when the endpoint is off (HTTP 404 or `method not found`). Posture check, off by default.',
  ),
  spec(
    'avalanchego_logger_level',
    'gauge',
    ['node', 'output', 'level'],
    'admin',
    'Loggers of the node at each level, for the log file (output="log") and the console (output="display"). Polled from admin.getLoggerLevel.',
    'Number of loggers of `admin.getLoggerLevel` (`loggerLevels`) whose `logLevel` (`output="log"`) or `displayLevel` (`output="display"`) is `level`, one of the fixed set `off`, `fatal`, `error`, `warn`, `info`, `trace`, `debug`, `verbo` (anything else is `unknown`). Absent while the admin API is off.',
  ),
  spec(
    'avalanchego_indexing_enabled',
    'gauge',
    ['node'],
    'admin',
    '1 when the node runs with indexing on (its index API answers), else 0. Posture check; polled from index.getLastAccepted.',
    "1 when the node's index API answers, 0 when it answers HTTP 404 (`--index-enabled` off). Posture check, on the posture source's interval.",
  ),

  // --- the exporter's own view of each poll --------------------------------
  spec(
    'avalanchego_exporter_poll_success',
    'gauge',
    ['node', 'source'],
    'exporter',
    'Whether the last poll of the source (health, index) succeeded.',
    '1 when the last poll of that source succeeded, else 0. An index poll succeeds when every configured endpoint answered (404 and an empty index count as answers).',
  ),
  spec(
    'avalanchego_exporter_poll_duration_seconds',
    'gauge',
    ['node', 'source'],
    'exporter',
    'Duration of the last poll of the source, in seconds.',
    'Wall-clock time of the last poll of that source, including every request it made.',
  ),
  spec(
    'avalanchego_exporter_poll_errors_total',
    'counter',
    ['node', 'source', 'reason'],
    'exporter',
    'Failed polls of the source by reason (timeout, connect, http_status, rpc_error, invalid_response, host_rejected, tls, internal).',
    'Counter, +1 for each failed poll, by `reason`: `timeout` (no answer within `timeout`), `connect` (refused, reset, DNS), `tls`, `host_rejected` (HTTP 403 `invalid host specified`), `http_status` (other non-2xx), `rpc_error` (JSON-RPC error object), `invalid_response` (not JSON, wrong shape or types), `internal` (a bug in the exporter).',
  ),
  spec(
    'avalanchego_exporter_last_success_timestamp_seconds',
    'gauge',
    ['node', 'source'],
    'exporter',
    'Unix time of the last successful poll of the source.',
    'Wall-clock time at the end of the last successful poll of that source; absent until one succeeds.',
  ),
  spec(
    'avalanchego_exporter_series_dropped',
    'gauge',
    ['node', 'source'],
    'exporter',
    "Series of the source's last poll left out by limits.max_series_per_node (a node reporting too much).",
    "Series the last poll of that source would have served past `limits.max_series_per_node` (as a Prometheus `sample_limit` would; the limit is one budget for all the sources of a node, each source getting what the others' last polls left), plus series that became duplicates once their label values were cut to `limits.max_label_length`. Absent when nothing was left out. The exporter's own poll metrics are not counted.",
  ),
] as const satisfies readonly MetricSpec[];

/** Process-wide metrics (no `node` label), registered with prom-client. */
export const GLOBAL_CATALOG = [
  spec(
    'avalanchego_exporter_build_info',
    'gauge',
    ['version', 'revision', 'nodejs_version'],
    'exporter',
    'Build of the exporter. Always 1.',
    "1, labelled with the exporter's version, git revision (or `unknown`) and the Node.js version.",
  ),
  spec(
    'avalanchego_exporter_targets',
    'gauge',
    [],
    'exporter',
    'Nodes this exporter polls (with sharding, only the targets this shard owns).',
    'Number of `targets` in the loaded configuration that this replica owns: all of them without sharding (`--shard.count=1`).',
  ),
  spec(
    'avalanchego_exporter_requests_in_flight',
    'gauge',
    [],
    'exporter',
    'Requests to nodes under way right now (capped by scheduler.max_concurrent_requests).',
    'HTTP requests to nodes started and not yet answered, across all nodes and sources; at the cap, further requests wait.',
  ),
  spec(
    'avalanchego_exporter_requests_queued',
    'gauge',
    [],
    'exporter',
    'Requests waiting for a free slot: of their origin (scheduler.max_connections_per_origin) or of the process (scheduler.max_concurrent_requests).',
    "Requests that wait for their origin's connections or for the in-flight cap. Polls are skipped before they join a queue that would take a quarter of their interval to start (avalanchego_exporter_polls_skipped_total), so it stays near that; above 0 for long means the caps or the timeouts are too tight for the fleet, or the process is saturated.",
  ),
  spec(
    'avalanchego_exporter_config_last_reload_successful',
    'gauge',
    [],
    'exporter',
    'Whether the last configuration reload succeeded.',
    '1 when the last reload (SIGHUP or POST /-/reload) succeeded or none was attempted, 0 when it failed and the previous configuration stays in force.',
  ),
  spec(
    'avalanchego_exporter_config_last_reload_success_timestamp_seconds',
    'gauge',
    [],
    'exporter',
    'Unix time of the last successful configuration load.',
    'Wall-clock time of the start-up load or the last successful reload.',
  ),
  spec(
    'avalanchego_exporter_shard_index',
    'gauge',
    [],
    'exporter',
    "This replica's shard index (0-based) when the targets are sharded over replicas; 0 without sharding.",
    "From `--shard.index` or the StatefulSet pod name's ordinal (`--shard.from-pod-name`); 0 without sharding.",
  ),
  spec(
    'avalanchego_exporter_shards',
    'gauge',
    [],
    'exporter',
    'Number of shards the targets are split over (1 without sharding).',
    'From `--shard.count` (or `$AVALANCHEGO_EXPORTER_SHARD_COUNT` with `--shard.from-pod-name`); 1 without sharding. Replicas of one fleet must agree on it. Named as kube-state-metrics names its shard gauges; it was `avalanchego_exporter_shard_count`, a name `promtool check metrics` rejects (`_count` is for histograms and summaries).',
  ),
  spec(
    'avalanchego_exporter_poll_start_delay_seconds',
    'histogram',
    [],
    'exporter',
    'How late each poll started compared with when it was due, in seconds.',
    "Histogram of (start − due time) of every poll of every source (no node label): how long after it was due the poll's timer ran. Polls start in batches at most every 25 ms (those due in between start together), so it is up to 0.025 s in the steady state. Grows when the process is over capacity (CPU, a busy event loop); a wait for a request slot shows in avalanchego_exporter_requests_queued and the poll durations instead. Buckets 0.005 … 60 s.",
  ),
  spec(
    'avalanchego_exporter_file_descriptor_errors_total',
    'counter',
    [],
    'exporter',
    'Connections to nodes that failed because the process ran out of file descriptors (EMFILE, ENFILE).',
    'Counter, +1 for each connection attempt that failed with EMFILE or ENFILE (the process or the system is out of file descriptors); such polls fail with reason `connect`. Raise `ulimit -n` or lower the socket budget.',
  ),
  spec(
    'avalanchego_exporter_polls_skipped_total',
    'counter',
    ['reason'],
    'exporter',
    "Polls skipped because of the exporter's own load, by reason (`saturated`); never a fault of a node.",
    "Counter (no node label), +1 for each poll that could not send its requests within the source's interval: every request slot (`scheduler.max_concurrent_requests`) or socket to the node's origin, when other nodes share it, was taken for that long, or the requests already queued for them would take a quarter of the interval to start (half after one skipped poll of the source, the whole interval after two in a row), and the poll was skipped before it joined them. A skipped poll is not a poll error: the node's `avalanchego_up`, data series and poll metrics stay as they were (its `avalanchego_exporter_last_success_timestamp_seconds` ages). A request's `timeout` counts the time it is on the wire (from being sent to the answer), and for a node alone on its origin also its wait for its own connections, which queue only its own unanswered requests (a node that hangs fails as its own `timeout`, never skipped); the wait for the process's slots or for an origin other nodes share is the exporter's, never a node's `timeout`. Alerted on by AvalancheGoExporterSaturated: one alert for the exporter, not one per node.",
  ),
  spec(
    'avalanchego_exporter_debug_probes_refused_total',
    'counter',
    [],
    'exporter',
    'Debug probes (/probe?debug=true) answered 429 because the cap on debug polls running at once was reached.',
    'Counter, +1 for each `/probe?target=…&debug=true` refused with 429: at most 4 debug polls run at once in the process. A target is polled for a debug probe at most once at a time and at most once per 5 s (or its interval if shorter); requests in between get the last trace and are not counted here.',
  ),
  spec(
    'avalanchego_exporter_scrapes_refused_total',
    'counter',
    [],
    'exporter',
    'Scrapes of /metrics answered 503 because --web.max-requests scrapes were already being served.',
    'Counter, +1 for each `/metrics` request refused with 503 (as node_exporter with `--web.max-requests`). Concurrent scrapes share one render (single flight), so the cap bounds the memory of answers being sent, not the rendering work.',
  ),
  spec(
    'avalanchego_exporter_password_checks_refused_total',
    'counter',
    [],
    'exporter',
    'Requests answered 429 because too many bcrypt password checks were queued (basic auth of the web config).',
    'Counter, +1 for each request refused with 429 before its password was checked: a password not yet verified costs a bcrypt compare, run one at a time on a worker thread; at most 32 wait (8 of them kept for client addresses that have passed a check before) and at most 4 from one client address (an IPv4 address, or an IPv6 /64). A verified password costs a SHA-256 and is never refused here. Rises under a flood of wrong passwords; the flooding address is refused, other users keep getting in.',
  ),
] as const satisfies readonly MetricSpec[];

export type MetricName = (typeof CATALOG)[number]['name'];
export type GlobalMetricName = (typeof GLOBAL_CATALOG)[number]['name'];
