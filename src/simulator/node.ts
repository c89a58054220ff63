// One simulated AvalancheGo node: identity, chains and indexes, the health
// and readiness workers with the checks of the node's version, admin state,
// and the scenario that drives all of them.

import { formatGoDuration } from '../util/gotime.js';
import { AdminState, routesFor } from './admin.js';
import {
  CHAIN_ORDER,
  CHAINS,
  ChainIndex,
  INDEX_NAMES,
  L1_CHAIN,
  L1_SUBNET_ID,
  NodeChain,
  type ChainAlias,
  type ChainSpec,
  type IndexName,
} from './chain.js';
import type { SimClock } from './clock.js';
import { HealthWorker, type CheckOutcome, type ResultDialect } from './health.js';
import { PRIMARY_NETWORK_ID, cb58Encode, nodeIdFor, prng, sha256 } from './ids.js';
import {
  MAINNET_HELICON,
  THRESHOLDS,
  releaseOf,
  versionOf,
  type NodeVersion,
  type Release,
  type ScenarioName,
  type ScenarioTimings,
} from './scenarios.js';
import { Staking } from './validator.js';
import type { FleetL1 } from './l1-set.js';
import { renderNodeMetrics, type MetricsFiller, type MetricsState } from './metrics.js';

export interface NodeOptions {
  index: number;
  name: string;
  seed: string;
  offsetMinutes: number;
  clock: SimClock;
  timings: ScenarioTimings;
  checkFrequencyMs: number;
  scenario: ScenarioName;
  adminEnabled: boolean;
  indexEnabled: boolean;
  /** Serve /ext/metrics (--api-metrics-enabled); else it answers 404. */
  metricsEnabled: boolean;
  /** A real node's other families, added to a v1.11+ body (metrics.ts parseMetricsFiller). */
  metricsFiller?: MetricsFiller;
  /** Indexing was turned on when the simulator started: indexes start empty (X/vtx stays so). */
  freshIndex: boolean;
  /** The node also tracks an L1 (L1_CHAIN): one more chain check, tagged with its subnet ID. */
  trackL1: boolean;
  /** The node validates the primary network (a current stake under its node ID). */
  validator: boolean;
  /** The node validates the L1 (an ACP-77 L1 validator with a balance); needs trackL1. */
  l1Validator: boolean;
  /** Peers when connected to all (default: 1,500 to 1,899, by seed). */
  peers?: number;
  /** The L1 the fleet's nodes validate and track, one set for all (l1-set.ts). */
  l1Set: FleetL1;
}

const APP_CHECKS: Record<NodeVersion, string[]> = {
  'v1.14': ['bls', 'database', 'diskspace', 'futureupgrade', 'network', 'router'],
  'v1.10': ['database', 'diskspace', 'network', 'router'],
  'v1.7': ['network.validators.heartbeat'],
};
const BOOTSTRAPPED: Record<NodeVersion, string> = {
  'v1.14': 'bootstrapped',
  'v1.10': 'bootstrapped',
  'v1.7': 'chains.default.bootstrapped',
};

/** Snowman polls a chain's engine ends a scenario second (C busiest), and the share that fails on a healthy node. */
const POLL_RATES: Record<string, number> = { C: 40, P: 8, X: 4 };
const pollRate = (alias: string): number => POLL_RATES[alias] ?? 20;
const BASE_POLL_FAILURES = 0.002;

/** disk-filling: the free space (a fraction) the fill reaches after diskFillSeconds, below the 5 % critical level. */
const DISK_FILLED = 0.045;

/** graniteEpochDuration (5 minutes), in scenario milliseconds. */
const EPOCH_MS = 300_000;
/** Epochs since Granite's activation on Mainnet when the simulator starts (about a year of 5-minute epochs). */
const EPOCH_BASE = 105_000;

/** Typical run times of each check, in nanoseconds (from real nodes' reports). */
const TYPICAL_DURATION_NS: Record<string, number> = {
  C: 30_000,
  P: 18_000,
  X: 22_000,
  bls: 2_500,
  bootstrapped: 1_300,
  'chains.default.bootstrapped': 6_000,
  database: 1_600,
  diskspace: 5_500,
  futureupgrade: 2_500_000,
  network: 3_200_000,
  'network.validators.heartbeat': 4_500,
  router: 5_000,
};

export class SimNode {
  /** Identity, stake, L1 validation and the uptime the network perceives. */
  readonly staking: Staking;
  readonly chains: Record<ChainAlias, NodeChain>;
  /** The tracked L1's chain, when the node tracks one. */
  readonly l1: NodeChain | undefined;
  /** chain-added: the chain of another L1 the node tracks while in the scenario, and that L1's subnet ID. */
  private added: { chain: NodeChain; subnetId: string } | undefined;
  /** Times the node entered chain-added (each time another chain: its ID is new). */
  private additions = 0;
  readonly indexes: Map<IndexName, ChainIndex>;
  readonly health: HealthWorker;
  readonly readiness: HealthWorker;
  readonly admin: AdminState;
  /** Requests answered while in `garbage`, to rotate the kinds. */
  garbageCounter = 0;
  /** Called after every scenario change (the server reacts to `down`). */
  onScenarioChange: ((node: SimNode, previous: ScenarioName) => void) | undefined;
  /** Called when the node shuts itself down (the server closes its port). */
  onExit: ((node: SimNode) => void) | undefined;

  private scenarioName: ScenarioName;
  /** Why the process exited (a real node shuts itself down below the disk's minimum); undefined while it runs. */
  private exitReason: string | undefined;
  private scenarioStartMs = 0;
  private ticksInScenario = 0;
  private uptimeStartMs: number;
  private timer: NodeJS.Timeout | undefined;
  private tickCount = 0;
  private readonly base: {
    peers: number;
    percentConnected: number;
    diskTotal: number;
    diskFraction: number;
    ingress: number;
    avgAcceptanceNs: Record<string, number>;
    upgradeWeight: number;
  };
  private readonly seedNum: number;
  /** The Snowman poll counters of each chain, integrated up to `atMs` since the process started at `startMs`. */
  private polls: { atMs: number; startMs: number; byChain: Map<string, { successful: number; failed: number }> } | undefined;
  /** The last /ext/metrics body, by scenario second: a fleet's polls within one second share it. */
  private metricsCache: { second: number; scenario: ScenarioName; body: string } | undefined;

  constructor(private readonly opts: NodeOptions) {
    this.staking = new Staking({
      // The identity's seed gives the node ID the simulator has always given this node.
      seed: `${opts.seed}:${opts.index}`,
      clock: opts.clock,
      timings: opts.timings,
      primary: opts.validator,
      l1: opts.l1Validator && opts.trackL1,
    });
    // A node may start in a validator scenario (a changed certificate, an expiring stake …).
    this.staking.scenarioChanged('healthy', opts.scenario, opts.clock.simMs());
    this.seedNum = sha256(`${opts.seed}:${opts.name}`).readUInt32BE(0);
    const r = prng(this.seedNum);
    // Drawn even when given, so that the other figures are the seed's as always.
    const drawnPeers = 1500 + Math.floor(r() * 400);
    this.base = {
      peers: opts.peers ?? drawnPeers,
      percentConnected: 0.995 + r() * 0.0049,
      diskTotal: 2 ** 40 * (2 + Math.floor(r() * 3)),
      diskFraction: 0.3 + r() * 0.15,
      ingress: 10 + Math.floor(r() * 25),
      avgAcceptanceNs: { C: 1.1e9 + Math.floor(r() * 8e8), P: 1.6e9 + Math.floor(r() * 6e8), X: 1.3e9 + Math.floor(r() * 6e8) },
      upgradeWeight: 98.5 + r() * 1.2,
    };
    const clock = opts.clock;
    // The node has been up for 3 to 30 hours (scenario time) when the simulator starts.
    this.uptimeStartMs = -(3 + r() * 27) * 3_600_000;
    const bootWallNs = clock.wallNsAt(this.uptimeStartMs);
    const chains = {} as Record<ChainAlias, NodeChain>;
    for (const alias of CHAIN_ORDER) {
      const spec = CHAINS[alias];
      const lagMs = Math.floor(r() * spec.blockIntervalMs);
      const bootHeight = spec.baseHeight + Math.floor((this.uptimeStartMs - lagMs) / spec.blockIntervalMs);
      chains[alias] = new NodeChain(spec, clock, lagMs, bootHeight, bootWallNs);
    }
    this.chains = chains;
    if (opts.trackL1) {
      const lagMs = Math.floor(r() * L1_CHAIN.blockIntervalMs);
      const bootHeight = L1_CHAIN.baseHeight + Math.floor((this.uptimeStartMs - lagMs) / L1_CHAIN.blockIntervalMs);
      this.l1 = new NodeChain(L1_CHAIN, clock, lagMs, bootHeight, bootWallNs);
      this.base.avgAcceptanceNs[L1_CHAIN.alias] = 0.8e9 + Math.floor(r() * 4e8);
    }
    const startMs = clock.simMs();
    this.indexes = new Map(
      INDEX_NAMES.map((name) => {
        const chain = chains[name.slice(0, 1) as ChainAlias];
        const complete = new ChainIndex(name, chain, bootWallNs, 0);
        // A fresh index holds only what is accepted from now on.
        return [name, opts.freshIndex ? new ChainIndex(name, chain, bootWallNs, complete.count(startMs)) : complete];
      }),
    );
    this.health = new HealthWorker(
      () => opts.offsetMinutes,
      () => this.dialect(),
    );
    this.readiness = new HealthWorker(
      () => opts.offsetMinutes,
      () => this.dialect(),
    );
    this.admin = new AdminState(opts.index, opts.trackL1 ? [L1_CHAIN] : []);
    this.scenarioName = opts.scenario;
    this.install(versionOf(opts.scenario));
    if (opts.scenario === 'starting' || opts.scenario === 'bootstrapping') {
      this.restartAt(clock.simMs());
    } else {
      // Up for hours already: every check has run.
      this.runChecks(false);
    }
    this.applyFreezes();
  }

  get name(): string {
    return this.opts.name;
  }
  /** The node ID of the running staking certificate (changes in node-id-changed). */
  get nodeId(): string {
    return this.staking.identity.nodeId;
  }
  get seed(): string {
    return this.opts.seed;
  }
  /** The L1 set, the same on every node. */
  get l1Set(): FleetL1 {
    return this.opts.l1Set;
  }
  get clock(): SimClock {
    return this.opts.clock;
  }
  /** The release the node runs (info.getNodeVersion, available methods). */
  get release(): Release {
    return releaseOf(this.scenarioName);
  }
  /** Connected peers now (the network check's connectedPeers, info.peers' numPeers). */
  peerCount(): number {
    return this.connectivity(this.opts.clock.simMs()).peers;
  }
  /** The share of its usual peers (and their stake) the node is still connected to: 1, less while peers drop. */
  connectedShare(): number {
    return 1 - this.connectivity(this.opts.clock.simMs()).fraction;
  }
  /** Every chain is done bootstrapping (info.isBootstrapped; the P-Chain API answers). */
  chainsBootstrapped(): boolean {
    return this.scenarioName !== 'starting' && this.scenarioName !== 'bootstrapping';
  }
  get index(): number {
    return this.opts.index;
  }
  get scenario(): ScenarioName {
    return this.scenarioName;
  }
  /**
   * Set when the node has shut itself down, as AvalancheGo does on the first `diskspace` check below
   * the required level (`--system-tracker-disk-required-available-space-percentage`, 3 %): the
   * process is gone, nothing answers until the node is switched to a scenario (a restart).
   */
  get exited(): string | undefined {
    return this.exitReason;
  }
  get version(): NodeVersion {
    return versionOf(this.scenarioName);
  }
  get offsetMinutes(): number {
    return this.opts.offsetMinutes;
  }
  get checkFrequencyNs(): number {
    return this.opts.checkFrequencyMs * 1e6;
  }
  get adminEnabled(): boolean {
    return this.opts.adminEnabled;
  }
  get indexEnabled(): boolean {
    return this.opts.indexEnabled;
  }
  get timings(): ScenarioTimings {
    return this.opts.timings;
  }

  private dialect(): ResultDialect {
    return this.version === 'v1.7' ? 'legacy' : 'modern';
  }

  /** Starts the health worker's ticks, with a per-node phase so a fleet does not tick in lockstep. */
  start(): void {
    const freq = this.opts.checkFrequencyMs;
    const phase = (this.seedNum % 1000) / 1000;
    this.timer = setTimeout(
      () => {
        this.tick();
        this.timer = setInterval(() => this.tick(), freq);
      },
      Math.max(1, Math.floor(freq * phase)),
    );
  }

  stop(): void {
    clearTimeout(this.timer);
    clearInterval(this.timer);
    this.timer = undefined;
  }

  setScenario(next: ScenarioName): void {
    const previous = this.scenarioName;
    const now = this.opts.clock.simMs();
    for (const chain of this.allChains()) chain.resume();
    const previousId = this.nodeId;
    this.staking.scenarioChanged(previous, next, now);
    this.scenarioName = next;
    this.scenarioStartMs = now;
    this.ticksInScenario = 0;
    const wasExited = this.exitReason !== undefined;
    this.exitReason = undefined;
    const tracks = this.added !== undefined;
    if (next === 'chain-added' && !this.added) this.added = this.addChain(now);
    else if (next !== 'chain-added') this.added = undefined;
    if (wasExited || releaseOf(previous) !== releaseOf(next) || this.nodeId !== previousId || tracks !== (this.added !== undefined)) {
      // Tracking another subnet or no longer (--track-subnets) is a restart as well.
      // A process that exited starts again (the disk freed); a different binary or staking certificate: the node restarted.
      // Either way its checks are registered anew.
      this.install(versionOf(next));
      this.restartAt(now);
    } else if (next === 'starting' || next === 'bootstrapping') {
      this.install(versionOf(next));
      this.restartAt(now);
    }
    this.applyFreezes();
    this.opts.l1Set.scenarioChanged(now);
    this.onScenarioChange?.(this, previous);
  }

  /**
   * chain-added: a chain of another L1, new at each entry (another chain ID and subnet ID, so the check's name is one
   * the exporter has not seen), a subnet-evm chain like the tracked L1's: keyed by its chain ID, tagged with its subnet.
   */
  private addChain(nowMs: number): { chain: NodeChain; subnetId: string } {
    this.additions++;
    const key = `${this.opts.seed}:${this.opts.name}:${this.additions}`;
    const chainId = cb58Encode(sha256(`added-chain:${key}`));
    const spec: ChainSpec = { alias: chainId, chainId, aliases: [], baseHeight: 0, blockIntervalMs: L1_CHAIN.blockIntervalMs };
    // A new chain: its first block is accepted now (height 1).
    const chain = new NodeChain(
      { ...spec, baseHeight: 1 - Math.floor(nowMs / spec.blockIntervalMs) },
      this.opts.clock,
      0,
      0,
      this.opts.clock.nowNs(),
    );
    return { chain, subnetId: cb58Encode(sha256(`added-subnet:${key}`)) };
  }

  /** Registers the checks of a node version; all report `not yet run`. */
  private install(version: NodeVersion): void {
    const routes = routesFor(version, this.opts.adminEnabled, this.opts.indexEnabled);
    if (this.opts.metricsEnabled) routes.push({ base: '/ext/metrics', endpoint: '' });
    // The C-Chain's and the L1's own handlers: the EVM's JSON-RPC; the ProposerVM service (v1.14+).
    for (const chain of this.l1 ? [this.chains.C, this.l1] : [this.chains.C]) {
      routes.push({ base: `/ext/bc/${chain.spec.chainId}`, endpoint: '/rpc' });
      if (this.release.upgrades === 'v1.14' || this.release.upgrades === 'v1.15') {
        routes.push({ base: `/ext/bc/${chain.spec.chainId}`, endpoint: '/proposervm' });
      }
    }
    // subnet-evm's validators API (validators-api-enabled, on by default), on an L1 whose release has L1 validators.
    if (this.l1 && this.release.l1) routes.push({ base: `/ext/bc/${this.l1.spec.chainId}`, endpoint: '/validators' });
    this.admin.setCanonicalRoutes(routes);
    this.health.clear();
    this.readiness.clear();
    const app = version === 'v1.7' ? [] : ['application'];
    for (const name of APP_CHECKS[version]) this.health.register(name, app);
    this.health.register(BOOTSTRAPPED[version], app);
    if (version !== 'v1.7') this.readiness.register(BOOTSTRAPPED[version], app, true);
    for (const alias of CHAIN_ORDER) this.health.register(alias, version === 'v1.7' ? [] : [PRIMARY_NETWORK_ID]);
    if (this.l1 && version !== 'v1.7') this.health.register(L1_CHAIN.alias, [L1_SUBNET_ID]);
    if (this.added && version !== 'v1.7') this.health.register(this.added.chain.spec.alias, [this.added.subnetId]);
  }

  /** Every chain the node runs. */
  private allChains(): NodeChain[] {
    return [...Object.values(this.chains), ...(this.l1 ? [this.l1] : []), ...(this.added ? [this.added.chain] : [])];
  }

  /** Names of the chain checks of the running version. */
  private chainCheckNames(): string[] {
    if (this.version === 'v1.7') return CHAIN_ORDER;
    return [...CHAIN_ORDER, ...(this.l1 ? [L1_CHAIN.alias] : []), ...(this.added ? [this.added.chain.spec.alias] : [])];
  }

  /** The subnets the node tracks besides the primary network, sorted (the `bootstrapped` check while bootstrapping). */
  private trackedSubnets(): string[] {
    return [...(this.l1 ? [L1_SUBNET_ID] : []), ...(this.added ? [this.added.subnetId] : [])];
  }

  /** A restart: the health worker runs the application checks at once; chains and bootstrapped wait for a tick. */
  private restartAt(nowMs: number): void {
    this.uptimeStartMs = nowMs;
    this.admin.reset();
    this.runChecks(true);
  }

  private applyFreezes(): void {
    const now = this.opts.clock.simMs();
    const t = this.opts.timings;
    switch (this.scenarioName) {
      case 'starting':
      case 'bootstrapping':
        // Not accepting blocks until bootstrapped.
        for (const chain of this.allChains()) chain.freeze(now);
        break;
      case 'stalled-chain':
        this.chains[t.stalledChain].freeze(now);
        break;
      case 'peers-dropping':
        // No peers, no blocks: every chain stops when the last peer goes.
        for (const chain of this.allChains()) chain.freeze(now + t.peersDropSeconds * 1000);
        break;
      case 'l1-proposer-view-frozen':
        // builders-hub #4534: the L1's ProposerVM epoch keeps its P-Chain height and the L1 builds no block.
        this.l1?.freeze(now);
        break;
      default:
        break;
    }
  }

  /** One health-worker tick: run every registered check and record its result. */
  tick(): void {
    if (this.exitReason !== undefined) return;
    this.tickCount++;
    this.ticksInScenario++;
    this.runChecks(false);
  }

  private runChecks(applicationOnly: boolean): void {
    const clock = this.opts.clock;
    const nowMs = clock.simMs();
    const endNs = clock.nowNs();
    const r = prng(this.seedNum ^ this.tickCount);
    const version = this.version;
    const chainChecks = this.chainCheckNames();
    const chainNames = new Set<string>([...chainChecks, BOOTSTRAPPED[version]]);
    // In `starting` the chains are not created yet: their checks stay `not yet run`.
    const skipChains = applicationOnly || this.scenarioName === 'starting';
    const names = [...APP_CHECKS[version], BOOTSTRAPPED[version], ...chainChecks];
    let offsetNs = 0n;
    for (const name of names) {
      if (skipChains && chainNames.has(name)) continue;
      const outcome = this.check(name, nowMs, r);
      const typical = TYPICAL_DURATION_NS[name] ?? 5_000;
      const duration = Math.max(1, Math.round(typical * (0.6 + r() * 0.9)));
      // Checks run concurrently; their end times differ by microseconds.
      offsetNs += BigInt(Math.floor(r() * 4_000));
      this.health.record(name, outcome, endNs + offsetNs, duration);
      if (name === BOOTSTRAPPED[version] && this.readiness.has(name)) {
        this.readiness.record(name, outcome, endNs + offsetNs + 700n, Math.max(1, Math.round(500 * (0.6 + r()))));
      }
    }
    // node/node.go: the diskspace check that sees less than the required space logs
    // `low on disk space. Shutting down...` and shuts the node down (exit code 1) at once
    // (--http-shutdown-wait is 0): its failing result is recorded, but no client reads it.
    const disk = this.disk(nowMs);
    if (version === 'v1.14' && disk.percent < THRESHOLDS.diskRequiredPercent) this.exit('low on disk space');
  }

  private exit(reason: string): void {
    if (this.exitReason !== undefined) return;
    this.exitReason = reason;
    this.onExit?.(this);
  }

  private elapsedS(nowMs: number): number {
    return Math.max(0, (nowMs - this.scenarioStartMs) / 1000);
  }

  /** Peers and connected stake, falling in `peers-dropping`. */
  private connectivity(nowMs: number): { peers: number; percentConnected: number; fraction: number } {
    let fraction = 0;
    if (this.scenarioName === 'peers-dropping') {
      fraction = Math.min(1, this.elapsedS(nowMs) / this.opts.timings.peersDropSeconds);
    }
    if (this.scenarioName === 'starting') fraction = 1;
    return {
      peers: Math.round(this.base.peers * (1 - fraction)),
      percentConnected: this.base.percentConnected * (1 - fraction),
      fraction,
    };
  }

  private check(name: string, nowMs: number, r: () => number): CheckOutcome {
    const version = this.version;
    switch (name) {
      case 'C':
      case 'P':
      case 'X':
        return this.chainCheck(this.chains[name], nowMs, r);
      case 'bootstrapped':
        return this.scenarioName === 'bootstrapping'
          ? { message: [PRIMARY_NETWORK_ID, ...this.trackedSubnets()].sort(), error: 'subnets not bootstrapped' }
          : { message: [] };
      case 'chains.default.bootstrapped':
      case 'database':
        return {};
      case 'network.validators.heartbeat':
        return { message: { heartbeat: Math.floor(Number(this.opts.clock.nowNs() / 1_000_000_000n)) - 2 } };
      case 'bls':
        return { message: this.staking.isPrimaryValidator() ? 'node has the correct BLS key' : 'node is not a validator' };
      case 'futureupgrade': {
        if (this.scenarioName === 'starting') return { error: 'no validators in the current validator set' };
        // The latest scheduled upgrade of the release: Granite for v1.14, Helicon for v1.15.
        const upgrade = this.release.helicon ? MAINNET_HELICON : '2025-11-19T16:00:00Z';
        return {
          message: {
            localUpgradeTime: upgrade,
            modeUpgradeTime: upgrade,
            modeUpgradeWeightPercentage: this.base.upgradeWeight,
            numUpgradeTimes: 2,
          },
        };
      }
      case 'diskspace':
        return this.diskCheck(nowMs, version);
      case 'network':
        return this.networkCheck(nowMs, r, version);
      case 'router':
        return this.routerCheck(nowMs, r);
      default:
        if (this.l1 && name === L1_CHAIN.alias) return this.chainCheck(this.l1, nowMs, r);
        if (this.added && name === this.added.chain.spec.alias) return this.chainCheck(this.added.chain, nowMs, r);
        throw new Error(`no check ${name}`);
    }
  }

  private chainCheck(chain: NodeChain, nowMs: number, r: () => number): CheckOutcome {
    const alias = chain.spec.alias;
    const isL1 = chain === this.l1 || chain === this.added?.chain;
    const { percentConnected, fraction } = this.connectivity(nowMs);
    const version = this.version;
    if (version === 'v1.7') {
      // go-sundheit era shapes (v1.7.3 docs): the C check reports a stuck block, with no details.
      if (alias === 'C') {
        const stuckNs = 41_500_000_000 + Math.round(this.elapsedS(nowMs) * 1e9);
        return { message: null, error: `block processing time ${formatGoDuration(stuckNs)} > 30s` };
      }
      return alias === 'P' ? { message: { percentConnected } } : {};
    }
    let processing = 0;
    let longestNs = 0;
    const stalled = this.scenarioName === 'stalled-chain' && this.opts.timings.stalledChain === alias;
    if (stalled) {
      const s = this.elapsedS(nowMs);
      processing = Math.floor(s * this.opts.timings.stallPileupPerSecond);
      longestNs = processing > 0 ? Math.round(s * 1e9) + Math.floor(r() * 1e6) : 0;
    }
    let consensus: Record<string, unknown>;
    const consensusErrors: string[] = [];
    if (version === 'v1.10') {
      consensus = { longestRunningBlock: formatGoDuration(longestNs), outstandingBlocks: processing };
    } else if (this.scenarioName === 'bootstrapping') {
      consensus = {};
    } else {
      if (this.scenarioName === 'c-chain-flapping' && alias === 'C' && this.flapFailing(nowMs)) {
        // avalanchego #6010: a block processing for over 30s, about a minute every 8 minutes.
        processing = 1;
        longestNs = 30_000_000_000 + Math.round(((this.elapsedS(nowMs) % this.opts.timings.flapPeriodSeconds) + 1) * 1e9);
      }
      consensus = {
        // Helicon (PR 5821) removed the average acceptance time from the chain checks.
        ...(this.release.helicon ? {} : { avgAcceptanceTime: formatGoDuration((this.base.avgAcceptanceNs[alias] ?? 0) + Math.floor(r() * 2e7)) }),
        lastAcceptedHeight: chain.height(nowMs),
        lastAcceptedID: chain.lastAcceptedId(nowMs),
        longestProcessingBlock: formatGoDuration(longestNs),
        processingBlocks: processing,
      };
      if (processing > THRESHOLDS.maxProcessingBlocks) {
        consensusErrors.push(`too many processing blocks: ${processing} > ${THRESHOLDS.maxProcessingBlocks}`);
      }
      if (longestNs > THRESHOLDS.maxBlockProcessingNs) {
        consensusErrors.push(`block processing too long: ${formatGoDuration(longestNs)} > ${formatGoDuration(THRESHOLDS.maxBlockProcessingNs)}`);
      }
    }
    let networking: Record<string, unknown>;
    // Plugin VMs (rpcchainvm, such as subnet-evm) wrap their details; P, X and C report none.
    let vm: unknown = isL1 ? { database: null, health: null } : null;
    if (version === 'v1.10') {
      networking = { percentConnected };
      if (alias === 'P') vm = { 'primary-percentConnected': percentConnected };
    } else {
      networking = { disconnectedValidators: this.disconnectedValidators(fraction), percentConnected };
    }
    const consensusError = consensusErrors.length > 0 ? consensusErrors.join('\n') : undefined;
    // snow/engine/snowman Engine.HealthCheck: the VM's error and consensus's, composed when both fail.
    const vmError = chain === this.chains.C ? this.executorError(nowMs) : undefined;
    const engineError = vmError && consensusError ? `vm: ${vmError} ; consensus: ${consensusError}` : (vmError ?? consensusError);
    const networkingError =
      percentConnected < THRESHOLDS.minPercentConnected
        ? `not connected to enough stake: connected to ${(percentConnected * 100).toFixed(6)}%; required at least ${(THRESHOLDS.minPercentConnected * 100).toFixed(6)}%`
        : undefined;
    const error = engineError && networkingError ? `engine: ${engineError}; networking: ${networkingError}` : (engineError ?? networkingError);
    return { message: { engine: { consensus, vm }, networking }, error };
  }

  /** A sorted, bounded list of validators this node lost (`disconnectedValidators`). */
  private disconnectedValidators(fraction: number): string[] {
    const count = Math.min(20, Math.ceil(fraction * 20));
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push(nodeIdFor(`validator:${this.opts.seed}:${i}`));
    return ids.sort();
  }

  /**
   * The free space of the database's disk. In disk-filling it falls linearly from its start to
   * 4.5 % in diskFillSeconds, then to 3 % in diskShutdownSeconds (where the node exits), and on
   * to at most 1 %. The percentage is rounded down (`bavail × 100 / blocks`), as the node does.
   */
  private disk(nowMs: number): { bytes: number; percent: number } {
    const total = this.base.diskTotal;
    let fraction = this.base.diskFraction - nowMs * 1e-12; // slow growth of the database
    if (this.scenarioName === 'disk-filling') {
      const t = this.opts.timings;
      const s = this.elapsedS(nowMs);
      fraction =
        s <= t.diskFillSeconds
          ? fraction - (fraction - DISK_FILLED) * (s / t.diskFillSeconds)
          : Math.max(0.01, DISK_FILLED - (DISK_FILLED - THRESHOLDS.diskRequiredPercent / 100) * ((s - t.diskFillSeconds) / t.diskShutdownSeconds));
    }
    const bytes = Math.floor(total * fraction);
    return { bytes, percent: Math.floor((bytes * 100) / total) };
  }

  private diskCheck(nowMs: number, version: NodeVersion): CheckOutcome {
    const { bytes, percent } = this.disk(nowMs);
    if (version === 'v1.10') return { message: { availableDiskBytes: bytes } };
    let error: string | undefined;
    if (percent < THRESHOLDS.diskRequiredPercent) {
      error = `remaining available disk space percentage (${percent}%) is below minimum required available space percentage (${THRESHOLDS.diskRequiredPercent}%)`;
    } else if (percent < THRESHOLDS.diskWarningPercent) {
      error = `remaining available disk space percentage (${percent}%) is below warning threshold available space percentage (${THRESHOLDS.diskWarningPercent}%)`;
    }
    return { message: { availableDiskBytes: bytes, availableDiskPercentage: percent }, error };
  }

  private networkCheck(nowMs: number, r: () => number, version: NodeVersion): CheckOutcome {
    const { peers } = this.connectivity(nowMs);
    const t = this.opts.timings;
    const reasons: string[] = [];
    const message: Record<string, unknown> = { connectedPeers: peers, sendFailRate: 0 };
    if (this.scenarioName === 'starting') {
      // Nothing received or sent yet: the timeSince keys are absent.
      reasons.push('not connected to a minimum of 1 peer(s) only 0', 'no messages received from network', 'no messages sent to network');
    } else {
      let silentNs = 0;
      if (this.scenarioName === 'peers-dropping') {
        silentNs = Math.max(0, this.elapsedS(nowMs) - t.peersDropSeconds) * 1e9;
      }
      const received = Math.round(silentNs + 1e6 + r() * 3e8);
      const sent = Math.round(silentNs + 5e3 + r() * 3e8);
      message.timeSinceLastMsgReceived = formatGoDuration(received);
      message.timeSinceLastMsgSent = formatGoDuration(sent);
      if (peers < 1) reasons.push(`not connected to a minimum of 1 peer(s) only ${peers}`);
      if (received > THRESHOLDS.maxTimeSinceMsgNs) {
        reasons.push(`no messages from network received in ${formatGoDuration(received)} > ${formatGoDuration(THRESHOLDS.maxTimeSinceMsgNs)}`);
      }
      if (sent > THRESHOLDS.maxTimeSinceMsgNs) {
        reasons.push(`no messages from network sent in ${formatGoDuration(sent)} > ${formatGoDuration(THRESHOLDS.maxTimeSinceMsgNs)}`);
      }
      if (this.scenarioName === 'flapping' && Math.floor((this.ticksInScenario - 1) / Math.max(1, t.flapTicks)) % 2 === 0) {
        message.sendFailRate = 0.95;
        reasons.push(`messages failure send rate 0.95 > ${THRESHOLDS.maxSendFailRate}`);
      }
      const uptimeMs = nowMs - this.uptimeStartMs;
      if (version === 'v1.14' && uptimeMs >= THRESHOLDS.ingressGraceMs) {
        const ingress = Math.max(0, Math.round(this.base.ingress * (peers / this.base.peers)));
        const validator = this.staking.isPrimaryValidator();
        message['primary network validator health'] = { ingressConnectionCount: ingress, primaryNetworkValidator: validator };
        if (validator && ingress === 0) reasons.push('primary network validator has no inbound connections');
      }
    }
    return { message, error: reasons.length > 0 ? `network layer is unhealthy reason: ${reasons.join(', ')}` : undefined };
  }

  private routerCheck(nowMs: number, r: () => number): CheckOutcome {
    if (this.scenarioName === 'starting') return { message: { longestRunningRequest: '0s', outstandingRequests: 0 } };
    let outstanding = 3 + Math.floor(r() * 15);
    let longestNs = Math.round(5e7 + r() * 2e9);
    if (this.scenarioName === 'router-overload') {
      const s = this.elapsedS(nowMs);
      outstanding = 11 + Math.floor((1014 * s) / this.opts.timings.routerOverloadSeconds);
      longestNs = Math.round(s * 1e9) + 2_051_874_250;
    }
    const reasons: string[] = [];
    if (outstanding > THRESHOLDS.maxOutstandingRequests) {
      reasons.push(`number of outstanding requests ${outstanding} > ${THRESHOLDS.maxOutstandingRequests}`);
    }
    if (longestNs > THRESHOLDS.maxOutstandingNs) {
      reasons.push(`time for outstanding requests ${formatGoDuration(longestNs)} > ${formatGoDuration(THRESHOLDS.maxOutstandingNs)}`);
    }
    return {
      message: { longestRunningRequest: formatGoDuration(longestNs), outstandingRequests: outstanding },
      error: reasons.length > 0 ? `the router is not healthy reason: ${reasons.join(', ')}` : undefined,
    };
  }

  /** c-chain-flapping: the C check fails for flapFailSeconds at the start of every flapPeriodSeconds. */
  private flapFailing(nowMs: number): boolean {
    const t = this.opts.timings;
    return this.elapsedS(nowMs) % t.flapPeriodSeconds < t.flapFailSeconds;
  }

  /**
   * The last executed block of a chain (eth_blockNumber `latest`). Before Helicon it is the accepted
   * height; in c-chain-execution-lag the C-Chain's execution falls further behind acceptance (ACP-194).
   */
  executedHeight(chain: NodeChain, nowMs = this.opts.clock.simMs()): number {
    const accepted = chain.height(nowMs);
    if (this.scenarioName === 'c-chain-executor-dead' && chain === this.chains.C) return Math.min(accepted, this.deadBlock() - 1);
    if (this.scenarioName !== 'c-chain-execution-lag' || chain !== this.chains.C) return accepted;
    return accepted - Math.floor(this.elapsedS(nowMs) * this.opts.timings.executionLagBlocksPerSecond);
  }

  /** c-chain-executor-dead: the block the C-Chain's SAE executor died on (the one after the last executed at the switch). */
  private deadBlock(): number {
    return this.chains.C.height(this.scenarioStartMs) + 1;
  }

  /**
   * c-chain-executor-dead (v1.15.1+, vms/saevm/sae/health.go): the VM's health error once the SAE executor has
   * stopped, terminal until the node restarts. The cause is the executor's error; this one is illustrative.
   */
  private executorError(nowMs: number): string | undefined {
    if (this.scenarioName !== 'c-chain-executor-dead' || nowMs < this.scenarioStartMs) return undefined;
    const block = this.deadBlock();
    return `saexec.Executor unhealthy due to block ${block} (0x${sha256(`c-block:${block}`).toString('hex')}): executing block: state root mismatch`;
  }

  /** GET /ext/metrics: the body of the node's release (metrics.ts), its poll counters integrated up to now. */
  metricsBody(nowMs = this.opts.clock.simMs()): string {
    const second = Math.floor(nowMs / 1000);
    const cached = this.metricsCache;
    if (cached && cached.second === second && cached.scenario === this.scenarioName) return cached.body;
    const release = this.release;
    const chains: MetricsState['chains'] = [
      { alias: 'C', vm: 'evm' },
      { alias: 'P', vm: 'platformvm' },
      { alias: 'X', vm: 'avm' },
      ...(this.l1 && this.version !== 'v1.7' ? [{ alias: L1_CHAIN.alias, vm: 'subnetevm' as const }] : []),
    ];
    const state: MetricsState = {
      shape: release.helicon ? 'transition' : this.version === 'v1.14' ? 'labelled' : 'chain-in-name',
      chains,
      uptimeSeconds: Math.max(0, (nowMs - this.uptimeStartMs) / 1000),
      polls: this.pollCounters(
        nowMs,
        chains.map((c) => c.alias),
      ),
      badBlocks: new Map(chains.filter((c) => c.vm === 'evm' || c.vm === 'subnetevm').map((c) => [c.alias, 0])),
    };
    const body = renderNodeMetrics(state, this.opts.metricsFiller);
    this.metricsCache = { second, scenario: this.scenarioName, body };
    return body;
  }

  /**
   * The poll counters now: integrated from the last read at this read's rates (a poll outcome per chain is a
   * rate of the scenario), from zero at the process's start. A chain that bootstraps sends no polls; a node
   * losing its peers fails their share and stops polling below 75 % connected stake (AlphaConfidence/K); a
   * stalled chain fails half.
   */
  private pollCounters(nowMs: number, aliases: string[]): Map<string, { successful: number; failed: number }> {
    if (!this.polls || this.polls.startMs !== this.uptimeStartMs) {
      // Up for a while already: the counters hold what the healthy node counted since its start.
      const upS = Math.max(0, (nowMs - this.uptimeStartMs) / 1000);
      const byChain = new Map(
        aliases.map((a) => [
          a,
          { successful: Math.floor(pollRate(a) * upS * (1 - BASE_POLL_FAILURES)), failed: Math.floor(pollRate(a) * upS * BASE_POLL_FAILURES) },
        ]),
      );
      if (this.scenarioName === 'starting' || this.scenarioName === 'bootstrapping')
        for (const c of byChain.values()) {
          c.successful = 0;
          c.failed = 0;
        }
      this.polls = { atMs: nowMs, startMs: this.uptimeStartMs, byChain };
      return byChain;
    }
    const dtS = Math.max(0, (nowMs - this.polls.atMs) / 1000);
    this.polls.atMs = nowMs;
    const { percentConnected, fraction } = this.connectivity(nowMs);
    for (const alias of aliases) {
      let c = this.polls.byChain.get(alias);
      if (!c) this.polls.byChain.set(alias, (c = { successful: 0, failed: 0 }));
      if (!this.chainsBootstrapped() || percentConnected < 0.75) continue;
      let share = Math.max(BASE_POLL_FAILURES, fraction);
      if (this.scenarioName === 'stalled-chain' && this.opts.timings.stalledChain === alias) share = 0.5;
      const polls = pollRate(alias) * dtS;
      c.failed += Math.round(polls * share);
      c.successful += Math.round(polls * (1 - share));
    }
    return this.polls.byChain;
  }

  /**
   * The chain's current ProposerVM epoch (Granite: 5-minute epochs, vms/proposervm): its number, start
   * (wall seconds) and the P-Chain height at its start. A frozen L1 keeps the epoch it had when it froze.
   */
  epoch(chain: NodeChain, nowMs = this.opts.clock.simMs()): { number: number; startS: number; pChainHeight: number } {
    const frozen = chain === this.l1 ? chain.frozenSince : null;
    const t = frozen === null ? nowMs : Math.min(nowMs, frozen);
    const n = Math.floor(t / EPOCH_MS);
    const startMs = n * EPOCH_MS;
    return {
      number: EPOCH_BASE + n,
      startS: Number(this.opts.clock.wallNsAt(startMs) / 1_000_000_000n),
      pChainHeight: this.chains.P.height(startMs),
    };
  }

  /** The chain whose RPC answers at /ext/bc/<chainId>/…, when the node runs it. */
  chainById(chainId: string): NodeChain | undefined {
    return this.allChains().find((c) => c.spec.chainId === chainId);
  }

  /** Where the node is, for the control API. */
  describe(): Record<string, unknown> {
    const now = this.opts.clock.simMs();
    const heights: Record<string, number> = {};
    for (const alias of CHAIN_ORDER) heights[alias] = this.chains[alias].height(now);
    if (this.l1) heights[L1_CHAIN.alias] = this.l1.height(now);
    if (this.added) heights[this.added.chain.spec.alias] = this.added.chain.height(now);
    return {
      scenario: this.scenarioName,
      version: this.version,
      release: this.release.version,
      utcOffsetMinutes: this.opts.offsetMinutes,
      heights,
      // Staking roles now: the primary-network stake under the running node ID, the L1 validation.
      validator: this.staking.isPrimaryValidator(),
      l1Validator: this.staking.isL1Validator(),
      ...(this.exitReason === undefined ? {} : { exited: this.exitReason }),
    };
  }
}
