// The health source: health.health over JSON-RPC on {url}/ext/health, a pure
// parser from its answer to a snapshot, the node's state and health series,
// and the logs of checks that start failing or recover. The parser knows every
// check and message shape of AvalancheGo v1.7.4+ and the older ones it still
// meets; an unknown check keeps its per-check values, an unparseable field is
// counted.
import type { Logger } from 'pino';
import { z } from 'zod';
import { configSection, enabledKey } from '../config/source-section.js';
import { PRIMARY_NETWORK_ID, nonEmpty } from '../config/schema.js';
import type { RpcReply } from '../rpc/client.js';
import { jsonKind } from '../util/json-kind.js';
import { InvalidResponseError, NotFoundAtUrlError } from '../rpc/errors.js';
import { header, rpcResult } from '../rpc/jsonrpc.js';
import type { LinesBuilder } from '../metrics/render.js';
import { parseGoDuration, parseRfc3339 } from '../util/gotime.js';
import type { PageSection, SummaryPart } from './section.js';
import type { NodeSources, NodeStatus, Source, StateWatcher } from './source.js';
import type { HealthApi } from './facts.js';
import { NODE_ID_SHAPE } from '../config/cb58.js';
import { shorten, truncate } from '../util/text.js';

export interface CheckSnapshot {
  name: string;
  passing: boolean;
  contiguousFailures: number;
  durationSeconds?: number;
  /** Last run; undefined while the check has never run (Go zero time). */
  timestampSeconds?: number;
  firstFailureSeconds?: number;
  /** The check's error text (may hold newlines), for logs and the landing page. */
  error?: string;
  /** The block a chain's SAE executor died on, when its error says so (v1.15.1+, executorFailure). */
  executorFailedHeight?: number;
  unparsed: number;
}

export interface ChainSnapshot {
  chain: string;
  bootstrapping: boolean;
  lastAcceptedHeight?: number;
  processingBlocks?: number;
  longestProcessingBlockSeconds?: number;
  avgAcceptanceTimeSeconds?: number;
  connectedStakeRatio?: number;
  disconnectedValidators?: number;
}

export interface HealthSnapshot {
  /** The node's ID, from the `node-id` header AvalancheGo (v1.11.3+) sets on its answers. */
  nodeId?: string;
  healthy: boolean;
  checks: CheckSnapshot[];
  chains: ChainSnapshot[];
  network: {
    connectedPeers?: number;
    sendFailRatio?: number;
    timeSinceLastMsgReceivedSeconds?: number;
    timeSinceLastMsgSentSeconds?: number;
    ingressConnections?: number;
  };
  router: { outstandingRequests?: number; longestRunningRequestSeconds?: number };
  disk: { availableBytes?: number; availableRatio?: number };
  bootstrappingSubnets?: number;
  futureUpgrade: { secondsUntil?: number; stakeRatio?: number };
}

const PRIMARY_CHAINS = new Set(['C', 'P', 'X']);

export const HEALTH_PATH = '/ext/health';
export const HEALTH_METHOD = 'health.health';

/** Polled at the target's own interval (no interval key). */
export const healthConfig = configSection('health', {
  description: 'The health source (health.health on {url}/ext/health).',
  keys: {
    enabled: enabledKey('Poll health.health. Without it avalanchego_up is not served for the node.'),
    tags: z
      .array(nonEmpty('a tag'), { error: `expected a list of tags, e.g. [${PRIMARY_NETWORK_ID}]` })
      .optional()
      .describe(
        "Sent as the `tags` param of health.health: subnet IDs select their chains' checks; application checks are always included. [] = all checks.",
      ),
  },
  defaults: { enabled: true, tags: [] },
});

const FOUND: HealthApi = { found: true };

export const health: Source<HealthSnapshot, unknown, typeof healthConfig> = {
  name: 'health',
  config: healthConfig,
  // Whether the info source runs: it, not health, then serves avalanchego_node_info (one series, never two).
  uses: ['info'],
  async poll(ctx) {
    const { tags } = healthConfig.of(ctx.target);
    const reply = await ctx.rpc(HEALTH_PATH, HEALTH_METHOD, tags.length > 0 ? { tags } : {});
    if (reply.status === 404) {
      throw new NotFoundAtUrlError(
        reply.body,
        reply.url,
        `no health API there: check that the target's url is the node's base URL (e.g. http://10.0.0.5:9650, no /ext/… path), or the node runs with --api-health-enabled=false`,
      );
    }
    return parseHealthReply(reply);
  },
  // Whether a node answers at the target's URL: yes once health has answered; else health.health is asked once.
  async offers(latest, ctx): Promise<HealthApi> {
    if (latest) return FOUND;
    const reply = await ctx.rpc(HEALTH_PATH, HEALTH_METHOD, {});
    return reply.status === 404 ? { found: false, reply } : FOUND;
  },
  reuse: reuseHealth,
  samples: addHealthLines,
  watch: watchChecks,
  status: healthStatus,
  summary: summarizeHealth,
  sections: healthSections,
};

/** Whether the node is up, and healthy: the one place it is decided (a health answer, whatever it says, is up). */
export function healthStatus(s: HealthSnapshot | undefined): NodeStatus {
  if (!s) return 'down';
  if (s.healthy) return 'healthy';
  // AvalancheGo's `bootstrapped` check fails until every chain has bootstrapped (its chain checks
  // fail with it): a node catching up after a start, not one that broke.
  return s.checks.some((c) => c.name === 'bootstrapped' && !c.passing) ? 'bootstrapping' : 'unhealthy';
}

/**
 * `next`'s values in `previous`'s objects when the node reports the same checks and chains, in the same
 * order, as at the last poll (the steady case); else `next`. Fields `next` lacks become undefined.
 */
export function reuseHealth(previous: HealthSnapshot, next: HealthSnapshot): HealthSnapshot {
  const { checks, chains } = previous;
  if (checks.length !== next.checks.length || chains.length !== next.chains.length) return next;
  for (let i = 0; i < checks.length; i++) if ((checks[i] as CheckSnapshot).name !== (next.checks[i] as CheckSnapshot).name) return next;
  for (let i = 0; i < chains.length; i++) if ((chains[i] as ChainSnapshot).chain !== (next.chains[i] as ChainSnapshot).chain) return next;
  // A node ID seen before is kept (the header's string is new at every answer).
  if (next.nodeId !== previous.nodeId) previous.nodeId = next.nodeId;
  previous.healthy = next.healthy;
  for (let i = 0; i < checks.length; i++) {
    const to = checks[i] as CheckSnapshot;
    const from = next.checks[i] as CheckSnapshot;
    to.passing = from.passing;
    to.contiguousFailures = from.contiguousFailures;
    to.durationSeconds = from.durationSeconds;
    to.timestampSeconds = from.timestampSeconds;
    to.firstFailureSeconds = from.firstFailureSeconds;
    if (to.error !== from.error) to.error = from.error;
    to.executorFailedHeight = from.executorFailedHeight;
    to.unparsed = from.unparsed;
  }
  for (let i = 0; i < chains.length; i++) Object.assign(chains[i] as ChainSnapshot, blankChain, next.chains[i]);
  Object.assign(previous.network, blankNetwork, next.network);
  Object.assign(previous.router, blankRouter, next.router);
  Object.assign(previous.disk, blankDisk, next.disk);
  Object.assign(previous.futureUpgrade, blankUpgrade, next.futureUpgrade);
  previous.bootstrappingSubnets = next.bootstrappingSubnets;
  return previous;
}

// Every optional field of a part, undefined: assigned first, so a field the new report lacks is cleared.
const blankChain: Omit<ChainSnapshot, 'chain' | 'bootstrapping'> = {
  lastAcceptedHeight: undefined,
  processingBlocks: undefined,
  longestProcessingBlockSeconds: undefined,
  avgAcceptanceTimeSeconds: undefined,
  connectedStakeRatio: undefined,
  disconnectedValidators: undefined,
};
const blankNetwork: HealthSnapshot['network'] = {
  connectedPeers: undefined,
  sendFailRatio: undefined,
  timeSinceLastMsgReceivedSeconds: undefined,
  timeSinceLastMsgSentSeconds: undefined,
  ingressConnections: undefined,
};
const blankRouter: HealthSnapshot['router'] = { outstandingRequests: undefined, longestRunningRequestSeconds: undefined };
const blankDisk: HealthSnapshot['disk'] = { availableBytes: undefined, availableRatio: undefined };
const blankUpgrade: HealthSnapshot['futureUpgrade'] = { secondsUntil: undefined, stakeRatio: undefined };

/** Pure: the answer to health.health → snapshot (the report and the `node-id` header). */
export function parseHealthReply(reply: RpcReply): HealthSnapshot {
  // The header is the node's word: a value that is not a node ID is left out, not served.
  const nodeId = header(reply, 'node-id');
  return parseHealth(rpcResult(reply), nodeId !== undefined && NODE_ID_SHAPE.test(nodeId) ? nodeId : undefined);
}

/** Pure: the `result` of health.health → snapshot. Throws InvalidResponseError when it is not a health report. */
export function parseHealth(result: unknown, nodeId?: string): HealthSnapshot {
  // Checked by hand, not by a schema library: this runs for every node at every poll.
  const notReport = (what: string, value: unknown): InvalidResponseError =>
    new InvalidResponseError(`health.health result is not a health report: ${what}, got ${jsonKind(value)}`);
  if (!isObject(result)) throw notReport('result: expected an object', result);
  const { checks, healthy } = result;
  if (!isObject(checks)) throw notReport('checks: expected an object of check results', checks);
  if (typeof healthy !== 'boolean') throw notReport('healthy: expected a boolean', healthy);
  const snapshot: HealthSnapshot = {
    ...(nodeId ? { nodeId } : {}),
    healthy,
    checks: [],
    chains: [],
    network: {},
    router: {},
    disk: {},
    futureUpgrade: {},
  };
  // The node sends checks sorted by name; sort anyway so the output is stable.
  for (const name of Object.keys(checks).sort()) {
    const raw = checks[name];
    const fields = new FieldReader(raw);
    const check = readCheck(name, raw, fields);
    const message = isObject(raw) ? raw.message : undefined;
    if (isObject(raw)) readMessage(name, message, snapshot, fields);
    check.unparsed = fields.unparsed;
    snapshot.checks.push(check);
  }
  return snapshot;
}

/** Counts fields that are present but not of the expected type or format. */
class FieldReader {
  unparsed = 0;
  constructor(readonly raw: unknown) {}

  number(obj: Record<string, unknown>, key: string): number | undefined {
    const v = obj[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    this.unparsed++;
    return undefined;
  }

  /** A height, a count or a size: a negative value is not one (counted as unparsed, not served). */
  count(obj: Record<string, unknown>, key: string): number | undefined {
    const v = this.number(obj, key);
    if (v === undefined || v >= 0) return v;
    this.unparsed++;
    return undefined;
  }

  duration(obj: Record<string, unknown>, key: string): number | undefined {
    const v = obj[key];
    if (v === undefined || v === null) return undefined;
    const seconds = typeof v === 'string' ? parseGoDuration(v) : undefined;
    if (seconds === undefined) this.unparsed++;
    return seconds;
  }

  time(obj: Record<string, unknown>, key: string): { seconds: number; zero: boolean } | undefined {
    const v = obj[key];
    if (v === undefined || v === null) return undefined;
    const t = typeof v === 'string' ? parseRfc3339(v) : undefined;
    if (t === undefined) this.unparsed++;
    return t;
  }

  array(obj: Record<string, unknown>, key: string): unknown[] | undefined {
    const v = obj[key];
    if (v === undefined || v === null) return undefined;
    if (Array.isArray(v)) return v as unknown[];
    this.unparsed++;
    return undefined;
  }

  object(obj: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
    const v = obj[key];
    if (v === undefined || v === null) return undefined;
    if (isObject(v)) return v;
    this.unparsed++;
    return undefined;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function readCheck(name: string, raw: unknown, fields: FieldReader): CheckSnapshot {
  if (!isObject(raw)) {
    // Not a check result at all: report it failing rather than guess it passes.
    fields.unparsed++;
    return { name, passing: false, contiguousFailures: 0, error: 'check result is not an object', unparsed: 0 };
  }
  // v1.7.4+: error is a string; ≤v1.7.3 (go-sundheit): {"message": "..."}; passing: absent or null.
  const rawError = raw.error;
  let error: string | undefined;
  if (rawError !== undefined && rawError !== null) {
    if (typeof rawError === 'string') error = rawError;
    else if (isObject(rawError) && typeof rawError.message === 'string') error = rawError.message;
    else error = JSON.stringify(rawError);
  }
  const check: CheckSnapshot = { name, passing: error === undefined, contiguousFailures: 0, unparsed: 0 };
  if (error !== undefined) {
    check.error = error;
    const dead = executorFailure(error);
    if (dead !== undefined) check.executorFailedHeight = dead;
  }
  const failures = fields.count(raw, 'contiguousFailures');
  if (failures !== undefined) check.contiguousFailures = failures;
  const durationNs = fields.number(raw, 'duration');
  if (durationNs !== undefined) check.durationSeconds = durationNs / 1e9;
  const ts = fields.time(raw, 'timestamp');
  if (ts && !ts.zero) check.timestampSeconds = ts.seconds;
  if (!check.passing) {
    const first = fields.time(raw, 'timeOfFirstFailure');
    if (first && !first.zero) check.firstFailureSeconds = first.seconds;
  }
  return check;
}

/**
 * The block a chain's SAE executor stopped on, from a chain check's error (AvalancheGo v1.15.1+,
 * vms/saevm/sae/health.go: `saexec.Executor unhealthy due to block <N> (<0xhash>): <cause>`), wherever it
 * stands in the error: alone, or inside the engine's `vm: … ; consensus: …` and the handler's
 * `engine: …; networking: …`. Terminal until the node restarts. Undefined for any other error.
 */
export function executorFailure(error: string): number | undefined {
  const m = EXECUTOR_DEAD.exec(error);
  if (!m) return undefined;
  const height = Number(m[1]);
  return Number.isSafeInteger(height) ? height : undefined;
}
const EXECUTOR_DEAD = /saexec\.Executor unhealthy due to block (\d{1,20}) \(0x[0-9a-fA-F]{1,64}\)/;

function readMessage(name: string, message: unknown, s: HealthSnapshot, f: FieldReader): void {
  // An application check's message of the wrong kind counts as one unparsed field.
  const asObject = (): Record<string, unknown> | undefined => {
    if (isObject(message)) return message;
    if (message !== undefined && message !== null) f.unparsed++;
    return undefined;
  };
  let m: Record<string, unknown> | undefined;
  switch (name) {
    case 'network':
      if ((m = asObject())) {
        s.network.connectedPeers = f.count(m, 'connectedPeers');
        s.network.sendFailRatio = f.number(m, 'sendFailRate');
        s.network.timeSinceLastMsgReceivedSeconds = f.duration(m, 'timeSinceLastMsgReceived');
        s.network.timeSinceLastMsgSentSeconds = f.duration(m, 'timeSinceLastMsgSent');
        const validator = f.object(m, 'primary network validator health');
        if (validator) s.network.ingressConnections = f.count(validator, 'ingressConnectionCount');
      }
      return;
    case 'router':
      if ((m = asObject())) {
        s.router.outstandingRequests = f.count(m, 'outstandingRequests');
        s.router.longestRunningRequestSeconds = f.duration(m, 'longestRunningRequest');
      }
      return;
    case 'diskspace':
      if ((m = asObject())) {
        s.disk.availableBytes = f.count(m, 'availableDiskBytes');
        const percent = f.number(m, 'availableDiskPercentage');
        if (percent !== undefined) s.disk.availableRatio = percent / 100;
      }
      return;
    case 'bootstrapped':
      if (Array.isArray(message)) s.bootstrappingSubnets = message.length;
      else if (message !== undefined && message !== null) f.unparsed++;
      return;
    case 'futureupgrade':
      if ((m = asObject())) {
        s.futureUpgrade.secondsUntil = f.duration(m, 'timeUntilUpgrade');
        const weight = f.number(m, 'modeUpgradeWeightPercentage');
        if (weight !== undefined) s.futureUpgrade.stakeRatio = weight / 100;
      }
      return;
    case 'bls':
    case 'validation':
    case 'database':
    case 'shuttingDown':
      // Strings or flags whose meaning is carried by the check's pass/fail state.
      return;
  }
  const chain = readChain(name, message, f);
  if (chain) s.chains.push(chain);
}

/**
 * A chain check's message. Shapes by node version:
 * - v1.10.3+: {engine: {consensus, vm}, networking: {percentConnected, disconnectedValidators}}
 * - before v1.10.3: {consensus, vm}
 * - before v1.10.16 the consensus keys were outstandingBlocks / longestRunningBlock
 * - v1.x (≤v1.7.3) P-chain: {percentConnected}
 * While bootstrapping, consensus is {} (or engine is null).
 */
function readChain(name: string, message: unknown, f: FieldReader): ChainSnapshot | undefined {
  const looksLikeChain =
    isObject(message) && ('engine' in message || 'consensus' in message || 'networking' in message || 'percentConnected' in message);
  if (!looksLikeChain) {
    // A primary chain whose creation failed, or that has not run yet, has no message.
    if (PRIMARY_CHAINS.has(name) && (message === undefined || message === null)) return undefined;
    if (message !== undefined && message !== null && PRIMARY_CHAINS.has(name)) f.unparsed++;
    return undefined;
  }
  const msg = message;
  const chain: ChainSnapshot = { chain: name, bootstrapping: false };
  let consensus: Record<string, unknown> | undefined;
  let engineNull = false;
  if ('engine' in msg) {
    if (msg.engine === null) engineNull = true;
    else {
      const engine = f.object(msg, 'engine');
      if (engine) consensus = f.object(engine, 'consensus');
    }
  } else if ('consensus' in msg) {
    consensus = f.object(msg, 'consensus');
  }
  if (engineNull || (consensus !== undefined && Object.keys(consensus).length === 0)) {
    chain.bootstrapping = true;
  } else if (consensus) {
    chain.lastAcceptedHeight = f.count(consensus, 'lastAcceptedHeight');
    chain.processingBlocks = f.count(consensus, 'processingBlocks') ?? f.number(consensus, 'outstandingBlocks');
    chain.longestProcessingBlockSeconds = f.duration(consensus, 'longestProcessingBlock') ?? f.duration(consensus, 'longestRunningBlock');
    chain.avgAcceptanceTimeSeconds = f.duration(consensus, 'avgAcceptanceTime');
  }
  const networking = f.object(msg, 'networking') ?? ('percentConnected' in msg ? msg : undefined);
  if (networking) {
    chain.connectedStakeRatio = f.number(networking, 'percentConnected');
    const disconnected = f.array(networking, 'disconnectedValidators');
    if (disconnected) chain.disconnectedValidators = disconnected.length;
  }
  return chain;
}

/**
 * The node's series: avalanchego_up always (0 after a failed poll), the rest only from a valid report.
 * avalanchego_node_info only when the info source does not run for the node (it serves its own, with the
 * version and network ID).
 */
function addHealthLines(b: LinesBuilder, s: HealthSnapshot | undefined, node?: NodeSources): void {
  b.add('avalanchego_up', healthStatus(s) === 'down' ? 0 : 1);
  if (!s) return;
  b.add('avalanchego_healthy', s.healthy ? 1 : 0);
  if (s.nodeId && !node?.runs('info')) b.add('avalanchego_node_info', 1, { node_id: s.nodeId });
  for (const c of s.checks) {
    const labels = { check: c.name };
    b.add('avalanchego_health_check_passing', c.passing ? 1 : 0, labels);
    b.add('avalanchego_health_check_contiguous_failures', c.contiguousFailures, labels);
    b.add('avalanchego_health_check_duration_seconds', c.durationSeconds, labels);
    b.add('avalanchego_health_check_timestamp_seconds', c.timestampSeconds, labels);
    b.add('avalanchego_health_check_first_failure_timestamp_seconds', c.firstFailureSeconds, labels);
    b.add('avalanchego_health_check_unparsed_fields', c.unparsed, labels);
  }
  // A dead executor is rare: the chains it names, looked up only when there is one.
  let dead: Map<string, number> | undefined;
  for (const c of s.checks) if (c.executorFailedHeight !== undefined) (dead ??= new Map()).set(c.name, c.executorFailedHeight);
  for (const c of s.chains) {
    const labels = { chain: c.chain };
    b.add('avalanchego_chain_bootstrapping', c.bootstrapping ? 1 : 0, labels);
    const deadAt = dead?.get(c.chain);
    b.add('avalanchego_chain_executor_failed', deadAt === undefined ? 0 : 1, labels);
    b.add('avalanchego_chain_executor_failed_height', deadAt, labels);
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

/** Check changes logged one by one at a poll at most; the rest are counted in one line. */
export const MAX_CHECK_LINES = 10;
/** How much of a check name and of its error a log line holds. */
const MAX_LOGGED_NAME = 200;
const MAX_LOGGED_ERROR = 1000;

/** Logs checks that start failing or recover (state changes only); a failed poll changes nothing. */
function watchChecks(log: Logger): StateWatcher<HealthSnapshot> {
  let failing = new Map<string, string | undefined>();
  return {
    observe(snapshot) {
      if (!snapshot) return;
      // The same checks failing as at the last poll (the steady case): nothing to log, nothing to keep anew.
      let count = 0;
      let same = true;
      for (const c of snapshot.checks) {
        if (c.passing) continue;
        count++;
        if (!failing.has(c.name)) {
          same = false;
          break;
        }
      }
      if (same && count === failing.size) return;
      const now = new Map(snapshot.checks.filter((c) => !c.passing).map((c) => [c.name, c.error]));
      // A node's text in the log is cut, and a poll logs MAX_CHECK_LINES changes at most: a node rotating
      // thousands of failing check names is one line for the rest ("and 3,990 more"), not thousands a poll.
      let logged = 0;
      let failingMore = 0;
      let recoveredMore = 0;
      for (const [check, error] of now) {
        if (failing.has(check)) continue;
        if (logged++ < MAX_CHECK_LINES)
          log.warn(
            { check: shorten(check, MAX_LOGGED_NAME), error: error === undefined ? undefined : truncate(error, MAX_LOGGED_ERROR) },
            'health check failing',
          );
        else failingMore++;
      }
      for (const check of failing.keys()) {
        if (now.has(check)) continue;
        if (logged++ < MAX_CHECK_LINES) log.info({ check: shorten(check, MAX_LOGGED_NAME) }, 'health check recovered');
        else recoveredMore++;
      }
      if (failingMore + recoveredMore > 0)
        log.warn(
          { failing: failingMore, recovered: recoveredMore },
          `and ${(failingMore + recoveredMore).toLocaleString('en-US')} more health check changes at this poll (not logged one by one)`,
        );
      failing = now;
    },
  };
}

/** The fleet page's line: the node ID, the failing checks with the node's text, the last accepted heights. */
function summarizeHealth(s: HealthSnapshot): SummaryPart {
  return {
    ...(s.nodeId ? { nodeId: s.nodeId } : {}),
    problems: s.checks
      .filter((c) => !c.passing)
      .map((c) => ({
        name: c.name,
        ...(c.error !== undefined ? { error: c.error } : {}),
        ...(c.firstFailureSeconds !== undefined ? { sinceSeconds: c.firstFailureSeconds } : {}),
      })),
    heights: s.chains.flatMap((c) => (c.lastAcceptedHeight !== undefined ? [{ chain: c.chain, height: c.lastAcceptedHeight }] : [])),
  };
}

/** The node page: every check (failing first) with the node's own text, and every chain. */
function healthSections(s: HealthSnapshot | undefined): PageSection[] {
  const checks = [...(s?.checks ?? [])].sort((a, b) => Number(a.passing) - Number(b.passing) || a.name.localeCompare(b.name));
  return [
    {
      title: 'Health checks',
      columns: ['check', 'passing', 'contiguous failures', 'failing since', 'last run', 'duration', "the node's error text"],
      rows: checks.map((c) => ({
        label: c.name,
        values: [
          { flag: c.passing },
          { number: c.contiguousFailures },
          c.firstFailureSeconds !== undefined ? { time: c.firstFailureSeconds } : { text: '' },
          { time: c.timestampSeconds },
          { number: c.durationSeconds, digits: 3, unit: 's' },
          { error: c.error, ...(c.unparsed > 0 ? { note: `${c.unparsed} field(s) of the message could not be parsed` } : {}) },
        ],
      })),
      empty: 'No health report (the node has not answered yet, or its last health poll failed).',
    },
    {
      title: 'Chains',
      columns: ['chain', 'bootstrapping', 'last accepted height', 'processing blocks', 'longest processing', 'avg acceptance', 'connected stake'],
      rows: (s?.chains ?? []).map((c) => ({
        label: c.chain,
        values: [
          { flag: c.bootstrapping, good: false },
          { number: c.lastAcceptedHeight },
          { number: c.processingBlocks },
          { number: c.longestProcessingBlockSeconds, digits: 3, unit: 's' },
          { number: c.avgAcceptanceTimeSeconds, digits: 3, unit: 's' },
          { number: c.connectedStakeRatio === undefined ? undefined : c.connectedStakeRatio * 100, digits: 1, unit: '%' },
        ],
      })),
      empty: 'No chain in the last health report.',
    },
  ];
}
