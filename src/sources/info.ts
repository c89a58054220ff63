// The info source: the node's identity, version, network, the uptime the
// network perceives of it, the next scheduled upgrade and a bounded summary of
// its peers' versions, from /ext/info. Each method is asked in parallel and
// keeps its own outcome: a method the node's version lacks (`rpc: can't find
// method`) and `node is not a validator` from info.uptime are states of the
// node (avalanchego_info_method_state), not poll failures; so are v1.15's
// `… start time still bootstrapping` and `… start time not found` (it asks the
// validator's start time first). A method that fails fails the poll while the
// others' values are still served.
import type { Logger } from 'pino';
import { z } from 'zod';
import type { RpcReply } from '../rpc/client.js';
import { InvalidResponseError } from '../rpc/errors.js';
import type { LinesBuilder } from '../metrics/render.js';
import { parseRfc3339 } from '../util/gotime.js';
import { isNodeId } from '../config/cb58.js';
import { configSection, sourceKeys } from '../config/source-section.js';
import type { NodeIdentity } from './facts.js';
import type { PageSection, SectionRow, SummaryPart } from './section.js';
import type { PollContext, Source, StateWatcher } from './source.js';
import { askAll, decodeMethod, firstIssue, replyOf, uint, type Failed } from './wire.js';

export const INFO_PATH = '/ext/info';
export const INFO_METHODS = ['info.getNodeID', 'info.getNodeVersion', 'info.getNetworkID', 'info.uptime', 'info.upgrades', 'info.peers'] as const;
export type InfoMethod = (typeof INFO_METHODS)[number];

/**
 * What a method's answer says about the node: answered, not a validator (info.uptime), or absent from its
 * version; from v1.15, info.uptime's start time of the node's validation not known yet (the P-Chain
 * bootstraps) or not in the P-Chain state (a lone node with sybil protection off).
 */
export type MethodState = 'ok' | 'not_validator' | 'unsupported' | 'start_time_bootstrapping' | 'start_time_not_found';

/** info.uptime on a node outside the primary network's validator set: `couldn't get node uptime: node is not a validator` (v1.7: `this is not a validator node`). */
const NOT_VALIDATOR = /not a validator/;
/**
 * v1.15.0 info.uptime (network/network.go NodeUptime): `couldn't get node uptime: error while fetching local
 * validator start time still bootstrapping` (snow/uptime errStillBootstrapping) or `… start time not found`
 * (database.ErrNotFound).
 */
export const START_TIME_ERRORS = {
  start_time_bootstrapping: 'error while fetching local validator start time still bootstrapping',
  start_time_not_found: 'error while fetching local validator start time not found',
} as const;
/** Upgrade times further ahead than this are placeholders (upgrade.UnscheduledActivationTime is in year 9999). */
const UNSCHEDULED_AFTER_SECONDS = 10 * 365.25 * 86_400;
/** At most this many minor versions get their own peers series; the rest are summed under `other`. */
export const MAX_PEER_VERSIONS = 10;
const MAX_VERSION_LABEL = 64;

export interface Version {
  /** `1.14.2`, or the reported text (cut) when it does not parse. */
  text: string;
  /** [major, minor, patch] when it parses. */
  parts?: [number, number, number];
}

export interface PeersSummary {
  total: number;
  /** Peers by MAJOR.MINOR (`1.14`), the most common first, at most MAX_PEER_VERSIONS plus `other` and `unknown`. */
  byMinor: Array<{ version: string; count: number }>;
  /** Share of the peers with a parseable version that run a newer version than the node; undefined when none or the node's own is unknown. */
  newerRatio?: number;
}

export interface InfoSnapshot {
  /** Each method's state at this poll; a method whose request or answer failed has none. */
  methods: Partial<Record<InfoMethod, MethodState>>;
  /** The first failure of the poll (it fails the poll; the rest is still served). */
  failure?: unknown;
  nodeId?: string;
  /** `nodePOP.publicKey` (lower-case hex), absent when the node has no BLS key or a version without it. */
  blsPublicKey?: string;
  version?: Version;
  networkId?: string;
  uptime?: { rewardingStakeRatio: number; weightedAverageRatio: number };
  /** Unix seconds of the earliest scheduled upgrade still ahead at the poll. */
  nextUpgradeSeconds?: number;
  /**
   * Unix seconds of `heliconTime` in info.upgrades (v1.14.1+; a placeholder in year 9999 while unscheduled);
   * undefined when the node's version has no Helicon (no key, or no info.upgrades).
   */
  heliconSeconds?: number;
  peers?: PeersSummary;
}

/** What the info source remembers across polls: when info.uptime last answered an uptime (the node was a validator), and under which node ID. */
export interface InfoMemory {
  readonly uptimeOk?: { readonly nodeId?: string; readonly lastSeenSeconds: number };
}

/** As the platform source's (NO_LONGER_WINDOW_SECONDS): 7 days, the alert's look-back. */
const UPTIME_MEMORY_SECONDS = 7 * 86_400;

export const infoConfig = configSection('info', {
  description: 'The info source (info.* on {url}/ext/info).',
  keys: sourceKeys({
    enabled: 'Poll the info API (node ID, version, network ID, uptime, upgrades, a summary of peers).',
    interval: 'the info API is polled',
  }),
  defaults: { enabled: true, interval: '30s' },
});

export const info: Source<InfoSnapshot, InfoMemory, typeof infoConfig> = {
  name: 'info',
  config: infoConfig,
  offers: identity,
  async poll(ctx) {
    const answers = await askAll(INFO_METHODS, (method) => ctx.rpc(INFO_PATH, method, {}));
    return parseInfo(Object.fromEntries(INFO_METHODS.map((m, i) => [m, answers[i]])) as InfoAnswers, ctx.now() / 1000);
  },
  failure: (snapshot) => snapshot.failure,
  samples: addInfoLines,
  watch: watchInfo,
  remember: rememberInfo,
  summary: summarizeInfo,
  sections: infoSections,
};

/** Pure: the memory after a poll: an uptime answered now is stamped; it is forgotten 7 days after. */
export function rememberInfo(memory: InfoMemory | undefined, s: InfoSnapshot | undefined, nowSeconds: number): InfoMemory {
  if (s?.methods['info.uptime'] === 'ok') return { uptimeOk: { ...(s.nodeId ? { nodeId: s.nodeId } : {}), lastSeenSeconds: nowSeconds } };
  if (memory?.uptimeOk && nowSeconds - memory.uptimeOk.lastSeenSeconds > UPTIME_MEMORY_SECONDS) return {};
  return memory ?? {};
}

/** Pure: the info source's part of the fleet page's line: uptime against its requirement, version, peers on newer versions. */
export function summarizeInfo(s: InfoSnapshot, memory?: InfoMemory): SummaryPart {
  return {
    ...(s.nodeId ? { nodeId: s.nodeId } : {}),
    validator: {
      ...(s.uptime ? { uptimeRatio: s.uptime.weightedAverageRatio } : {}),
      ...(s.methods['info.uptime'] === 'not_validator' ? { notValidator: true } : {}),
      ...(s.methods['info.uptime'] === 'not_validator' && memory?.uptimeOk ? { uptimeLost: memory.uptimeOk } : {}),
      ...(s.version ? { version: { text: s.version.text, ...(s.version.parts ? { number: versionNumber(s.version.parts) } : {}) } } : {}),
      ...(s.peers?.newerRatio !== undefined ? { peersNewerRatio: s.peers.newerRatio } : {}),
    },
  };
}

const pct = (ratio: number) => ({ number: ratio * 100, digits: 1, unit: '%' });

/** Pure: the node page's info section: identity, version against its peers, uptime against its requirement, upgrades. */
export function infoSections(s: InfoSnapshot | undefined): PageSection[] {
  const rows: SectionRow[] = [];
  if (s) {
    if (s.nodeId) rows.push({ label: 'node ID', values: [{ text: s.nodeId }] });
    if (s.networkId) rows.push({ label: 'network ID', values: [{ text: s.networkId }] });
    if (s.version) {
      const newer = s.peers?.newerRatio;
      rows.push({
        label: 'version',
        values: [
          {
            text: `${s.version.text}${newer !== undefined && newer > 0 ? ` · ${Math.round(newer * 100)} % of its peers run a newer version` : ''}`,
            ...(newer !== undefined && newer >= 0.5 ? { tone: 'warn' as const } : {}),
          },
        ],
      });
    }
    if (s.uptime) {
      // Its requirement (80 %, 90 % for validations started after Helicon) is the platform section's.
      rows.push({ label: 'uptime (stake-weighted, as the network sees it)', values: [pct(s.uptime.weightedAverageRatio)] });
      rows.push({ label: 'stake that sees it above the requirement', values: [pct(s.uptime.rewardingStakeRatio)] });
    } else if (s.methods['info.uptime'] === 'not_validator') {
      rows.push({ label: 'uptime', values: [{ text: 'not a validator (info.uptime)', tone: 'dim' }] });
    }
    if (s.nextUpgradeSeconds !== undefined) rows.push({ label: 'next network upgrade', values: [{ time: s.nextUpgradeSeconds }] });
    if (s.peers) {
      rows.push({ label: 'peers', values: [{ number: s.peers.total }] });
      rows.push({ label: 'peers by version', values: [{ text: s.peers.byMinor.map((v) => `${v.version}: ${v.count}`).join(', ') }] });
    }
    for (const [method, state] of Object.entries(s.methods))
      if (state !== 'ok') rows.push({ label: method, values: [{ text: state.replace('_', ' '), tone: 'dim' }] });
  }
  return [{ title: 'Node (info API)', rows, empty: 'The info source has not answered yet, or is off for this node.' }];
}

export type InfoAnswers = Record<InfoMethod, RpcReply | Failed>;

/** info.uptime's errors that are states of the node (its version's words for them). */
function uptimeState(message: string): 'not_validator' | 'start_time_bootstrapping' | 'start_time_not_found' | undefined {
  if (NOT_VALIDATOR.test(message)) return 'not_validator';
  if (message.endsWith(START_TIME_ERRORS.start_time_bootstrapping)) return 'start_time_bootstrapping';
  if (message.endsWith(START_TIME_ERRORS.start_time_not_found)) return 'start_time_not_found';
  return undefined;
}

/**
 * Pure: one method's answer → its result or a state. Throws (rpc/errors.ts
 * types) for an answer that is neither: another HTTP status, another JSON-RPC
 * error, not JSON-RPC at all.
 */
export function methodOutcome(reply: RpcReply): { state: 'ok'; result: unknown } | { state: Exclude<MethodState, 'ok'> } {
  return decodeMethod(reply, ['unsupported'], reply.method === 'info.uptime' ? uptimeState : undefined);
}

/**
 * What the info source offers the sources that use it (facts.ts NodeIdentity): the node ID and BLS key, and
 * the Helicon time, from its last poll; what that poll did not tell is asked here (info.getNodeID, then
 * info.upgrades), under the poll of the source that uses them. No node ID when the node's release has no
 * info.getNodeID: the Helicon time is then not asked.
 */
async function identity(latest: InfoSnapshot | undefined, ctx: PollContext): Promise<NodeIdentity> {
  // A poll that did not get the node ID tells nothing the other's poll can use.
  let known = latest?.nodeId ? latest : undefined;
  if (!known) {
    const outcome = methodOutcome(await ctx.rpc(INFO_PATH, 'info.getNodeID', {}));
    if (outcome.state !== 'ok') return {};
    known = { methods: {}, ...parseNodeId(outcome.result) };
  }
  const heliconSeconds = await heliconTime(ctx, known);
  return {
    ...(known.nodeId ? { nodeId: known.nodeId } : {}),
    ...(known.blsPublicKey ? { blsPublicKey: known.blsPublicKey } : {}),
    ...(heliconSeconds !== undefined ? { heliconSeconds } : {}),
  };
}

/**
 * The Helicon time from the info source's last poll when it asked info.upgrades, else from info.upgrades
 * asked now. undefined when it cannot be known now.
 */
async function heliconTime(ctx: PollContext, known: InfoSnapshot): Promise<number | null | undefined> {
  const state = known.methods['info.upgrades'];
  if (state === 'ok') return known.heliconSeconds ?? null;
  if (state === 'unsupported') return null;
  try {
    const outcome = methodOutcome(await ctx.rpc(INFO_PATH, 'info.upgrades', {}));
    if (outcome.state !== 'ok') return null;
    parseUpgrades(outcome.result);
    return heliconOf(outcome.result) ?? null;
  } catch {
    // The using poll does not fail for it: what depends on it is left out until it is known.
    return undefined;
  }
}

/** Pure: every method's answer (or failure) → the snapshot. `nowSeconds` decides which upgrades are still ahead. */
export function parseInfo(answers: InfoAnswers, nowSeconds: number): InfoSnapshot {
  const s: InfoSnapshot = { methods: {} };
  let peerVersions: PeerVersions | undefined;
  for (const method of INFO_METHODS) {
    try {
      const outcome = methodOutcome(replyOf(answers[method]));
      s.methods[method] = outcome.state;
      if (outcome.state !== 'ok') continue;
      switch (method) {
        case 'info.getNodeID':
          Object.assign(s, parseNodeId(outcome.result));
          break;
        case 'info.getNodeVersion':
          s.version = parseNodeVersion(outcome.result);
          break;
        case 'info.getNetworkID':
          s.networkId = parseNetworkId(outcome.result);
          break;
        case 'info.uptime':
          s.uptime = parseUptime(outcome.result);
          break;
        case 'info.upgrades': {
          const next = nextUpgrade(parseUpgrades(outcome.result), nowSeconds);
          if (next !== undefined) s.nextUpgradeSeconds = next;
          const helicon = heliconOf(outcome.result);
          if (helicon !== undefined) s.heliconSeconds = helicon;
          break;
        }
        case 'info.peers':
          peerVersions = parsePeers(outcome.result);
          break;
      }
    } catch (error) {
      Reflect.deleteProperty(s.methods, method);
      s.failure ??= error;
    }
  }
  if (peerVersions) s.peers = summarizePeers(peerVersions, s.version?.parts);
  if (s.failure === undefined) delete s.failure;
  return s;
}

function invalid(method: string, what: string): InvalidResponseError {
  return new InvalidResponseError(`${method} returned ${what}`);
}

// json.Float64 is a decimal string with four decimals.
const decimal = z.union([z.string().regex(/^-?\d+(\.\d+)?$/, 'expected a decimal string'), z.number()]);

const nodeIdSchema = z.object({
  // Bounded to the real format: the ID is sent back to the node (platform.getCurrentValidators), served and printed.
  nodeID: z.string().refine(isNodeId, 'expected NodeID- and the CB58 of 20 bytes'),
  nodePOP: z.object({ publicKey: z.string().regex(/^0x[0-9a-fA-F]+$/, 'expected 0x-hex') }).nullish(),
});

/** Pure: info.getNodeID → node ID and BLS public key (v1.8.6+; null or absent without one). */
export function parseNodeId(result: unknown): { nodeId: string; blsPublicKey?: string } {
  const r = nodeIdSchema.safeParse(result);
  if (!r.success) throw invalid('info.getNodeID', `no node ID: ${firstIssue(r.error)}`);
  const key = r.data.nodePOP?.publicKey;
  return key ? { nodeId: r.data.nodeID, blsPublicKey: key.toLowerCase() } : { nodeId: r.data.nodeID };
}

const versionSchema = z.object({ version: z.string() });

/** Pure: info.getNodeVersion → `1.14.2` (`avalanchego/1.14.2`; `avalanche/1.7.3` before v1.8). */
export function parseNodeVersion(result: unknown): Version {
  const r = versionSchema.safeParse(result);
  if (!r.success) throw invalid('info.getNodeVersion', `no version: ${firstIssue(r.error)}`);
  return parseVersionText(r.data.version);
}

/** `avalanchego/1.14.2` (or `1.14.2`) → its parts; other text is kept, cut, without parts. */
export function parseVersionText(text: string): Version {
  const m = /^(?:[a-z-]+\/)?v?(\d{1,6})\.(\d{1,6})\.(\d{1,6})/.exec(text);
  if (!m) return { text: text.slice(0, MAX_VERSION_LABEL) };
  const parts: [number, number, number] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return { text: parts.join('.'), parts };
}

/** MAJOR*1e6 + MINOR*1e3 + PATCH: one number rules can compare. */
export function versionNumber(parts: [number, number, number]): number {
  return parts[0] * 1_000_000 + parts[1] * 1_000 + parts[2];
}

function compareVersions(a: [number, number, number], b: [number, number, number]): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** Pure: info.getNetworkID → the network ID as text (`1` Mainnet, `5` Fuji, `12345` local). */
export function parseNetworkId(result: unknown): string {
  const r = z.object({ networkID: uint }).safeParse(result);
  if (!r.success) throw invalid('info.getNetworkID', `no network ID: ${firstIssue(r.error)}`);
  return String(r.data.networkID);
}

const uptimeSchema = z.object({ rewardingStakePercentage: decimal, weightedAveragePercentage: decimal });

/** Pure: info.uptime (percentages 0–100 as strings) → ratios 0..1. */
export function parseUptime(result: unknown): { rewardingStakeRatio: number; weightedAverageRatio: number } {
  const r = uptimeSchema.safeParse(result);
  if (!r.success) throw invalid('info.uptime', `no uptime: ${firstIssue(r.error)}`);
  const rewarding = Number(r.data.rewardingStakePercentage);
  const average = Number(r.data.weightedAveragePercentage);
  for (const [name, v] of [
    ['rewardingStakePercentage', rewarding],
    ['weightedAveragePercentage', average],
  ] as const) {
    if (!Number.isFinite(v) || v < 0) throw invalid('info.uptime', `${name} ${JSON.stringify(v)}, not a percentage`);
  }
  return { rewardingStakeRatio: rewarding / 100, weightedAverageRatio: average / 100 };
}

/** Pure: info.upgrades → every `…Time` of the schedule as Unix seconds (keys the exporter does not know are kept). */
export function parseUpgrades(result: unknown): number[] {
  if (!result || typeof result !== 'object' || Array.isArray(result)) throw invalid('info.upgrades', 'a result that is not an object');
  const times: number[] = [];
  for (const [key, value] of Object.entries(result)) {
    if (!key.endsWith('Time') || typeof value !== 'string') continue;
    const t = parseRfc3339(value);
    if (!t) throw invalid('info.upgrades', `${key} ${JSON.stringify(value.slice(0, 40))}, not an RFC 3339 time`);
    times.push(t.seconds);
  }
  return times;
}

/** Pure: info.upgrades (already checked by parseUpgrades) → `heliconTime` in Unix seconds, when the release has it. */
export function heliconOf(result: unknown): number | undefined {
  const text = (result as { heliconTime?: unknown }).heliconTime;
  return typeof text === 'string' ? parseRfc3339(text)?.seconds : undefined;
}

/** The earliest upgrade still ahead of `nowSeconds`; placeholders over 10 years ahead are unscheduled. */
export function nextUpgrade(times: number[], nowSeconds: number): number | undefined {
  let next: number | undefined;
  for (const t of times) {
    if (t > nowSeconds && t - nowSeconds <= UNSCHEDULED_AFTER_SECONDS && (next === undefined || t < next)) next = t;
  }
  return next;
}

/** Peers by full version (`1.14.2` → count) and those whose version does not parse. */
export interface PeerVersions {
  byVersion: Map<string, { parts: [number, number, number]; count: number }>;
  unknown: number;
}

/**
 * Pure: info.peers → peers counted by version. Hand-read rather than
 * schema-checked: a mainnet node has thousands of peers and only `version`
 * matters here.
 */
export function parsePeers(result: unknown): PeerVersions {
  const peers = (result as { peers?: unknown } | null)?.peers;
  // numPeers 0 comes with `peers: null` on some versions.
  if (peers !== null && !Array.isArray(peers)) throw invalid('info.peers', 'no peers list');
  const out: PeerVersions = { byVersion: new Map(), unknown: 0 };
  for (const peer of peers ?? []) {
    const text = (peer as { version?: unknown } | null)?.version;
    const v = typeof text === 'string' ? parseVersionText(text) : undefined;
    if (!v?.parts) {
      out.unknown++;
      continue;
    }
    const entry = out.byVersion.get(v.text);
    if (entry) entry.count++;
    else out.byVersion.set(v.text, { parts: v.parts, count: 1 });
  }
  return out;
}

/** Pure: peer counts → the bounded summary (top minor versions, `other`, `unknown`) and the share on a newer version. */
export function summarizePeers(pv: PeerVersions, own: [number, number, number] | undefined): PeersSummary {
  const minors = new Map<string, number>();
  let parsed = 0;
  let newer = 0;
  for (const { parts, count } of pv.byVersion.values()) {
    const minor = `${parts[0]}.${parts[1]}`;
    minors.set(minor, (minors.get(minor) ?? 0) + count);
    parsed += count;
    if (own && compareVersions(parts, own) > 0) newer += count;
  }
  const sorted = [...minors].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const byMinor = sorted.slice(0, MAX_PEER_VERSIONS).map(([version, count]) => ({ version, count }));
  const rest = sorted.slice(MAX_PEER_VERSIONS).reduce((sum, [, count]) => sum + count, 0);
  if (rest > 0) byMinor.push({ version: 'other', count: rest });
  if (pv.unknown > 0) byMinor.push({ version: 'unknown', count: pv.unknown });
  const summary: PeersSummary = { total: parsed + pv.unknown, byMinor };
  if (own && parsed > 0) summary.newerRatio = newer / parsed;
  return summary;
}

function addInfoLines(b: LinesBuilder, s: InfoSnapshot | undefined): void {
  if (!s) return;
  if (s.nodeId) {
    const labels: Record<string, string> = { node_id: s.nodeId };
    if (s.version) labels.version = s.version.text;
    if (s.networkId) labels.network_id = s.networkId;
    b.add('avalanchego_node_info', 1, labels);
  }
  if (s.version?.parts) b.add('avalanchego_node_version_number', versionNumber(s.version.parts));
  if (s.uptime) {
    b.add('avalanchego_uptime_rewarding_stake_ratio', s.uptime.rewardingStakeRatio);
    b.add('avalanchego_uptime_weighted_average_ratio', s.uptime.weightedAverageRatio);
  }
  b.add('avalanchego_next_upgrade_timestamp_seconds', s.nextUpgradeSeconds);
  if (s.peers) {
    for (const { version, count } of s.peers.byMinor) b.add('avalanchego_network_peers_by_version', count, { version });
    b.add('avalanchego_network_peers_newer_version_ratio', s.peers.newerRatio);
  }
  for (const method of INFO_METHODS) {
    const state = s.methods[method];
    if (state) b.add('avalanchego_info_method_state', 1, { method, state });
  }
}

/** Logs what changes about the node, once: its node ID or version, becoming or ceasing to be a validator, methods its version lacks. */
function watchInfo(log: Logger): StateWatcher<InfoSnapshot> {
  let last: InfoSnapshot | undefined;
  return {
    observe(s) {
      if (!s) return;
      const prev = last;
      last = s;
      if (prev?.nodeId && s.nodeId && prev.nodeId !== s.nodeId) {
        log.warn({ previous: prev.nodeId, nodeId: s.nodeId }, 'node ID changed: the node runs with another staking certificate');
      }
      if (prev?.version && s.version && prev.version.text !== s.version.text) {
        log.info({ previous: prev.version.text, version: s.version.text }, 'node version changed');
      }
      const uptime = s.methods['info.uptime'];
      const before = prev?.methods['info.uptime'];
      if (uptime === 'not_validator' && before !== 'not_validator') {
        log.info('info.uptime: node is not a validator (no uptime series; avalanchego_info_method_state says so)');
      } else if ((uptime === 'start_time_bootstrapping' || uptime === 'start_time_not_found') && before !== uptime) {
        log.info(
          { state: uptime },
          uptime === 'start_time_bootstrapping'
            ? "info.uptime: the node's validation start time is not known while the P-Chain bootstraps (no uptime series)"
            : 'info.uptime: the node counts as a validator but its start time is not in the P-Chain state (no uptime series)',
        );
      } else if (uptime === 'ok' && before === 'not_validator') {
        log.info('info.uptime: node is a validator again');
      }
      const unsupported = INFO_METHODS.filter((m) => s.methods[m] === 'unsupported' && prev?.methods[m] !== 'unsupported');
      if (unsupported.length > 0) {
        log.info({ methods: unsupported, version: s.version?.text }, "the node's version lacks these info methods; their series are absent");
      }
    },
  };
}
