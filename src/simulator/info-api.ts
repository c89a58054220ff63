// The info API (/ext/info, api/info/service.go) of a simulated node: identity,
// version, network, uptime as the network perceives it, peers and the
// upgrade schedule, with the methods and shapes of the node's release.

import { formatRfc3339Nano } from '../util/gotime.js';
import { byteOrder, goJson } from './gojson.js';
import { hexNoChecksum, nodeIdFor, sha256 } from './ids.js';
import type { SimNode } from './node.js';
import { RpcServiceError, type MethodSpec, type Services } from './rpc.js';
import { MAINNET_HELICON, MAINNET_HELICON_S, type Release } from './scenarios.js';

export const MAINNET_ID = 1;

/** info.uptime's errors of v1.15.0 before the figures (network/network.go NodeUptime, snow/uptime, database). */
export const UPTIME_START_TIME_ERRORS = {
  bootstrapping: 'error while fetching local validator start time still bootstrapping',
  notFound: 'error while fetching local validator start time not found',
} as const;

const MAINNET_UPGRADES_V1_13: Array<[string, string | number]> = [
  ['apricotPhase1Time', '2021-03-31T14:00:00Z'],
  ['apricotPhase2Time', '2021-05-10T11:00:00Z'],
  ['apricotPhase3Time', '2021-08-24T14:00:00Z'],
  ['apricotPhase4Time', '2021-09-22T21:00:00Z'],
  ['apricotPhase4MinPChainHeight', 793005],
  ['apricotPhase5Time', '2021-12-02T18:00:00Z'],
  ['apricotPhasePre6Time', '2022-09-05T01:30:00Z'],
  ['apricotPhase6Time', '2022-09-06T20:00:00Z'],
  ['apricotPhasePost6Time', '2022-09-07T03:00:00Z'],
  ['banffTime', '2022-10-18T16:00:00Z'],
  ['cortinaTime', '2023-04-25T15:00:00Z'],
  ['cortinaXChainStopVertexID', 'jrGWDh5Po9FMj54depyunNixpia5PN4aAYxfmNzU8n752Rjga'],
  ['durangoTime', '2024-03-06T16:00:00Z'],
  ['etnaTime', '2024-12-16T17:00:00Z'],
  ['fortunaTime', '2025-04-08T15:00:00Z'],
  // v1.13.x does not know Granite's date yet: upgrade.UnscheduledActivationTime.
  ['graniteTime', '9999-12-01T00:00:00Z'],
];

/** upgrade.Mainnet of the node's release, in struct field order. */
function upgradesJson(kind: 'v1.15' | 'v1.14' | 'v1.13'): string {
  const fields = new Map(MAINNET_UPGRADES_V1_13);
  if (kind !== 'v1.13') {
    fields.set('graniteTime', '2025-11-19T16:00:00Z');
    fields.set('graniteEpochDuration', 300_000_000_000);
    // v1.14.x knows Helicon's key but not its date; v1.15.0 schedules it.
    fields.set('heliconTime', kind === 'v1.15' ? MAINNET_HELICON : '9999-12-01T00:00:00Z');
  }
  return goJson(Object.fromEntries(fields));
}

/** constants.CurrentACPs of each release (info.acps lists them even without votes). */
function currentAcps(release: Release): number[] {
  return release.acps;
}

/** Total primary-network stake the node sees, in nAVAX (about 250 M AVAX, mainnet). */
const TOTAL_STAKE = 250_000_000_000_000_000n;

/** The versions a node's peers run, by share: most current, a tail behind. */
const PEER_VERSIONS: Array<[number, string, number]> = [
  // [cumulative share, version, upgradeTime the peer announces]
  [0.8, '1.14.2', 1763568000],
  [0.92, '1.14.1', 1763568000],
  [0.98, '1.13.5', 1744124400],
  [1, '1.12.2', 1744124400],
];
/** After Helicon, v1.15 nodes refuse peers below v1.15.0 (version/compatibility.go): every peer runs it. */
const PEER_VERSIONS_HELICON: Array<[number, string, number]> = [[1, '1.15.0', MAINNET_HELICON_S]];

/** Deterministic public IPv4 for a seed (not in reserved ranges' first octets). */
function ipFor(seed: string): string {
  const h = sha256(`ip:${seed}`);
  return `${11 + (h.readUInt8(0) % 180)}.${h.readUInt8(1)}.${h.readUInt8(2)}.${1 + (h.readUInt8(3) % 254)}:9651`;
}

export function nodeIpOf(node: SimNode): string {
  return ipFor(node.nodeId);
}

/**
 * A peer of the network as info.peers writes it, split around the parts that
 * change per call (lastSent, lastReceived, observedUptime): the rest is built
 * once per seed and release, so a call over thousands of peers only joins strings.
 */
interface PeerTemplate {
  nodeId: string;
  /** `{"ip":…,"lastSent":"` */
  head: string;
  /** `","lastReceived":"` (v1.7: the same) */
  middle: string;
  /** `","observedUptime":"` and what follows it, up to the closing brace, in two parts around the uptime. */
  beforeUptime: string;
  afterUptime: string;
  /** Which of the per-call message times the peer shows. */
  slot: number;
}

/** Distinct lastSent/lastReceived offsets per call (formatting a time per peer would dominate). */
const TIME_SLOTS = 16;
const peerTemplates = new Map<string, PeerTemplate[]>();

function templatesFor(seed: string, release: Release, count: number): PeerTemplate[] {
  const key = `${seed}:${release.version}`;
  let list = peerTemplates.get(key);
  if (!list) peerTemplates.set(key, (list = []));
  const era = release.version === '1.7.3' ? 'v1.7' : release.version.startsWith('1.10.') ? 'v1.10' : 'modern';
  for (let i = list.length; i < count; i++) {
    const nodeId = nodeIdFor(`peer:${seed}:${i}`);
    const h = sha256(`peer-version:${seed}:${i}`);
    const u = h.readUInt32BE(0) / 4294967296;
    const version = (release.helicon ? PEER_VERSIONS_HELICON : PEER_VERSIONS).find(([share]) => u < share);
    if (!version) throw new Error('PEER_VERSIONS must end with a share of 1');
    const [, current, upgradeTime] = version;
    const ip = ipFor(nodeId);
    const slot = h.readUInt8(4) % TIME_SLOTS;
    const id = `"ip":${goJson(ip)},"publicIP":${goJson(ip)},"nodeID":"${nodeId}"`;
    if (era === 'v1.7') {
      // network.PeerInfo of v1.7.3: benched before observedUptime (a Uint8).
      const version = `avalanche/${current === '1.14.2' ? '1.7.3' : '1.7.2'}`;
      list.push({
        nodeId,
        slot,
        head: `{${id},"version":"${version}","lastSent":"`,
        middle: '","lastReceived":"',
        beforeUptime: '","benched":[],"observedUptime":"',
        afterUptime: '"}',
      });
    } else if (era === 'v1.10') {
      const version = `avalanchego/${current === '1.14.2' ? '1.10.19' : '1.10.18'}`;
      list.push({
        nodeId,
        slot,
        head: `{${id},"version":"${version}","lastSent":"`,
        middle: '","lastReceived":"',
        beforeUptime: '","observedUptime":"',
        afterUptime: '","observedSubnetUptimes":{},"trackedSubnets":[],"supportedACPs":[],"objectedACPs":[],"benched":[]}',
      });
    } else {
      list.push({
        nodeId,
        slot,
        head: `{${id},"version":"avalanchego/${current}","upgradeTime":${upgradeTime},"lastSent":"`,
        middle: '","lastReceived":"',
        beforeUptime: '","observedUptime":"',
        afterUptime: '","trackedSubnets":[],"supportedACPs":[],"objectedACPs":[],"benched":[]}',
      });
    }
  }
  return list;
}

interface PeerCache {
  key: string;
  entries: Array<{ nodeId: string; json: string }>;
  /** The unfiltered result, joined once per cache period. */
  all?: string;
}
const peerCaches = new WeakMap<SimNode, PeerCache>();

/** The node's peers as info.peers lists them; rebuilt at most once per wall second. */
function peerEntries(node: SimNode, release: Release): PeerCache {
  const count = node.peerCount();
  const nowNs = node.clock.nowNs();
  const key = `${count}:${release.version}:${nowNs / 1_000_000_000n}:${node.nodeId}:${node.scenario}`;
  const cached = peerCaches.get(node);
  if (cached?.key === key) return cached;
  const nowMs = node.clock.simMs();
  // Message times up to two seconds old, in the node's zone.
  const sent: string[] = [];
  const received: string[] = [];
  for (let k = 0; k < TIME_SLOTS; k++) {
    sent.push(formatRfc3339Nano(nowNs - BigInt(((k * 7_919_993) % 2_000_000_000) + 1_000), node.offsetMinutes));
    received.push(formatRfc3339Nano(nowNs - BigInt(((k * 104_729_003) % 2_000_000_000) + 1_000), node.offsetMinutes));
  }
  const entries = templatesFor(node.seed, release, count)
    .slice(0, count)
    .map((t, i) => ({
      nodeId: t.nodeId,
      json: `${t.head}${sent[t.slot]}${t.middle}${received[t.slot]}${t.beforeUptime}${node.staking.observedUptime(i, nowMs)}${t.afterUptime}`,
    }));
  const cache = { key, entries };
  peerCaches.set(node, cache);
  return cache;
}

export function infoServices(node: SimNode): Services {
  const release = node.release;
  const none = (call: () => string): MethodSpec => ({ args: {}, call });
  const info: Record<string, MethodSpec> = {
    GetNodeVersion: none(() => {
      const vms: Record<string, string> = { avm: release.vm, evm: release.evm, platform: release.vm };
      if (node.l1 && release.l1) vms['subnet-evm'] = 'v0.8.0';
      const reply: Record<string, unknown> = { version: `${release.client}/${release.version}`, databaseVersion: 'v1.4.5' };
      if (release.rpcProtocol !== undefined) reply.rpcProtocolVersion = String(release.rpcProtocol);
      reply.gitCommit = release.gitCommit;
      reply.vmVersions = Object.fromEntries(Object.entries(vms).sort(([a], [b]) => byteOrder(a, b)));
      return goJson(reply);
    }),
    GetNodeID: none(() => {
      const id = node.staking.identity;
      if (!release.nodePop) return goJson({ nodeID: id.nodeId });
      return goJson({
        nodeID: id.nodeId,
        nodePOP: { publicKey: hexNoChecksum(id.publicKey), proofOfPossession: hexNoChecksum(id.proofOfPossession) },
      });
    }),
    GetNodeIP: none(() => goJson({ ip: nodeIpOf(node) })),
    GetNetworkID: none(() => goJson({ networkID: String(MAINNET_ID) })),
    GetNetworkName: none(() => goJson({ networkName: 'mainnet' })),
    GetBlockchainID: {
      args: { alias: 'string' },
      call: (a) => {
        const id = node.admin.lookupChain(a.alias as string);
        if (id === undefined) throw new RpcServiceError(`there is no ID with alias: ${a.alias as string}`);
        return goJson({ blockchainID: id });
      },
    },
    IsBootstrapped: {
      args: { chain: 'string' },
      call: (a) => {
        const chain = a.chain as string;
        if (chain === '') throw new RpcServiceError("argument 'chain' not given");
        if (node.admin.lookupChain(chain) === undefined) throw new RpcServiceError(`there is no chain with alias/ID '${chain}'`);
        return goJson({ isBootstrapped: node.chainsBootstrapped() });
      },
    },
    Peers: {
      args: { nodeIDs: 'nodeIDs' },
      call: (a) => {
        const wanted = new Set(a.nodeIDs as string[]);
        const cache = peerEntries(node, release);
        const list = (entries: Array<{ json: string }>) => `{"numPeers":"${entries.length}","peers":[${entries.map((e) => e.json).join(',')}]}`;
        if (wanted.size > 0) return list(cache.entries.filter((e) => wanted.has(e.nodeId)));
        return (cache.all ??= list(cache.entries));
      },
    },
    Uptime: {
      // v1.11.12 dropped the optional subnetID.
      args: release.version.startsWith('1.10.') ? { subnetID: 'id' } : {},
      call: (a) => {
        const subnet = a.subnetID as Buffer | undefined;
        const primary = subnet === undefined || subnet.equals(Buffer.alloc(32));
        // v1.15 asks the P-Chain for the node's start time first (network.go NodeUptime): it errors while
        // the P-Chain bootstraps, where v1.14 answered numbers.
        if (release.helicon && primary && node.scenario !== 'starting' && !node.chainsBootstrapped()) {
          throw new RpcServiceError(`couldn't get node uptime: ${UPTIME_START_TIME_ERRORS.bootstrapping}`);
        }
        // Until the chains are created (starting) the validator set is empty.
        const u = primary && node.scenario !== 'starting' ? node.staking.uptime(node.clock.simMs(), release.helicon) : undefined;
        if (!u) {
          throw new RpcServiceError(
            release.version === '1.7.3' ? 'this is not a validator node' : "couldn't get node uptime: node is not a validator",
          );
        }
        // A real node counts every validator it is not connected to as 0 (network.NodeUptime): its
        // perceived uptime falls with its connected stake, whatever its own.
        const share = node.connectedShare();
        return `{"rewardingStakePercentage":"${(u.rewardingStake * share).toFixed(4)}","weightedAveragePercentage":"${(u.weightedAverage * share).toFixed(4)}"}`;
      },
    },
  };
  if (release.version !== '1.7.3') {
    info.Acps = none(() => {
      const acps = currentAcps(release)
        .map(String)
        .sort(byteOrder)
        .map((n) => `"${n}":{"supportWeight":"0","supporters":[],"objectWeight":"0","objectors":[],"abstainWeight":"${TOTAL_STAKE}"}`);
      return `{"acps":{${acps.join(',')}}}`;
    });
  }
  if (release.upgrades) {
    const kind = release.upgrades;
    info.Upgrades = none(() => upgradesJson(kind));
  }
  return { info };
}
