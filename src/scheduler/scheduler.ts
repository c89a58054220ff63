// The fleet: one NodePoller per configured target, reconciled on reload.
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../clock.js';
import { lazyChild } from '../log.js';
import { nameHash } from '../util/hash.js';
import { compactMap } from '../util/compact-map.js';
import type { Config, L1Config, TargetConfig } from '../config/schema.js';
import { Admission } from '../rpc/admission.js';
import { RequestBodies } from '../rpc/bodies.js';
import type { Dispatchers } from '../rpc/sockets.js';
import { LabelTable } from '../metrics/render.js';
import { renderChunks, renderNodes } from '../metrics/scrape.js';
import type { FleetView } from '../metrics/self.js';
import { SOURCES } from '../sources/registry.js';
import type { Source } from '../sources/source.js';
import { debugPoll } from './debug-poll.js';
import { DueQueue, type Due } from './due.js';
import type { DebugStep, FleetReader, StateSizes } from './fleet.js';
import type { NodeDetail, NodeSummary, SourceState } from './node-state.js';
import type { L1View } from '../sources/l1-set.js';
import { L1Poller, vantagesOf } from './l1-poller.js';
import { NodePoller } from './poller.js';

export interface SchedulerDeps {
  dispatchers: Dispatchers;
  logger: Logger;
  clock?: Clock;
  /** The sources to poll (default: every source of sources/registry.ts). */
  sources?: ReadonlyArray<Source<unknown>>;
  /** Called as each poll starts, with how late it is in seconds (avalanchego_exporter_poll_start_delay_seconds). */
  onPollStart?: (delaySeconds: number) => void;
  /** Called when a poll is skipped because the exporter is saturated (avalanchego_exporter_polls_skipped_total). */
  onPollSkipped?: (reason: 'saturated') => void;
}

/** How often the sweep looks whether a round of polls has ended, when no target is polled. */
const IDLE_SWEEP_CHECK_MS = 60_000;
/** The sweep runs at the latest this many of the longest interval after the last, every poll ended or not. */
const SWEEP_LATEST = 8;

/** What an L1's poller was made from (Scheduler.reconcileL1s): its config, and its vantages with their targets (JSON). */
interface L1Keys {
  readonly config: string;
  readonly vantages: string;
}

/** A stable fraction in [0,1) from a name, so a fleet's first polls spread over the interval. */
export function spreadFraction(name: string): number {
  return nameHash(name)[0] / 2 ** 32;
}

export class Scheduler implements FleetView, FleetReader {
  private pollers = new Map<string, NodePoller>();
  /** The L1s of `l1s:`, each polled on its own through its vantages' pollers (l1-poller.ts). */
  private l1Pollers: L1Poller[] = [];
  /** What each L1's poller was made from, by subnet: its config, and its vantages with their targets. */
  private l1Keys = new Map<string, L1Keys>();
  private readonly clock: Clock;
  private readonly sources: ReadonlyArray<Source<unknown>>;
  private config: Config;
  private started = false;
  private readonly debugPolls = new Map<string, Promise<DebugStep[]>>();
  // What this exporter's nodes share, and no other exporter in the process: the poll timetable
  // (due.ts), the admission (rpc/admission.ts), the request bodies (rpc/client.ts) and the label
  // table (metrics/render.ts).
  private readonly timetable = new DueQueue();
  private readonly admission: Admission;
  private readonly bodies = new RequestBodies();
  private readonly labels = new LabelTable();
  /**
   * The sweep of what is keyed by values that churn (label sets, request bodies and a node's requests naming a node
   * ID, the admission and pools of origins and TLS settings no target has). It runs once every source of every target
   * has ended a poll since the last sweep (a round): an entry in use was used in that round, so what was not used
   * goes, and nothing in use does, however late the polls run. A round that does not end (polls skipped as
   * saturated) is cut after SWEEP_LATEST times the longest interval. It is one entry of the poll timetable, looking
   * every half of the longest interval.
   */
  private readonly sweeper: Due = { due: 0, slot: -1, fire: () => this.sweepWhenRoundEnds() };
  private sweepCheckMs = IDLE_SWEEP_CHECK_MS;
  private latestSweepMs = SWEEP_LATEST * IDLE_SWEEP_CHECK_MS;
  private lastSweep = performance.now();
  /** Each source's polls at the last sweep: a round has ended when every source has polled more since. */
  private polledAtSweep = new WeakMap<SourceState, number>();
  private stopped = false;

  constructor(
    private readonly deps: SchedulerDeps,
    config: Config,
  ) {
    this.clock = deps.clock ?? systemClock;
    this.sources = deps.sources ?? SOURCES;
    this.admission = new Admission(config.maxConcurrentRequests, deps.dispatchers.maxConnections);
    // The pools to each origin are as large as this exporter's origin layout says.
    deps.dispatchers.sizePoolsBy(this.admission);
    this.config = config;
  }

  /** Starts every target's polls. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.reconcile(this.config);
  }

  private sweepWhenRoundEnds(): void {
    if (this.roundEnded() || performance.now() - this.lastSweep >= this.latestSweepMs) this.sweep();
    if (!this.stopped) this.timetable.add(this.sweeper, this.sweepCheckMs);
  }

  private roundEnded(): boolean {
    for (const p of this.pollers.values()) for (const s of p.state.sources) if (s.polls <= (this.polledAtSweep.get(s) ?? 0)) return false;
    return true;
  }

  private sweep(): void {
    this.lastSweep = performance.now();
    this.labels.sweep();
    this.bodies.turn();
    const polled = new WeakMap<SourceState, number>();
    for (const p of this.pollers.values()) {
      p.client.turnCalls();
      for (const s of p.state.sources) polled.set(s, s.polls);
    }
    this.polledAtSweep = polled;
    this.deps.dispatchers.prune(this.config.targets.map((t) => t.tls));
    this.admission.prune();
  }

  /** Applies a (re)loaded config: new targets start, removed ones stop, changed ones restart with fresh state. */
  async apply(config: Config): Promise<void> {
    this.config = config;
    if (!this.started) return;
    await this.reconcile(config);
    this.config = { ...config, targets: this.held(config.targets) };
  }

  /**
   * The targets, each as the object its poller holds when it has one. After a reload a poller whose target did not
   * change keeps the object of the load that started it, equal to the new one (reconcile restarts it otherwise): whoever
   * keeps the config keeps these, not a second copy of every unchanged target for each reload since (issue 35's soak).
   */
  held<T extends TargetConfig>(targets: readonly T[]): T[] {
    return targets.map((t) => (this.pollers.get(t.name)?.target as T | undefined) ?? t);
  }

  private async reconcile(config: Config): Promise<void> {
    this.admission.setLayout(
      config.targets.map((t) => t.url),
      config.maxConcurrentRequests,
      config.maxConnectionsPerOrigin,
      config.maxBufferedBytes,
    );
    const wanted = new Map<string, TargetConfig>(config.targets.map((t) => [t.name, t]));
    const stopping: Promise<void>[] = [];
    for (const [name, poller] of this.pollers) {
      const target = wanted.get(name);
      if (!target || JSON.stringify(poller.target) !== JSON.stringify(target)) {
        this.pollers.delete(name);
        stopping.push(poller.stop());
        this.deps.logger.info({ node: name }, target ? 'target changed: restarting its polls' : 'target removed');
      }
    }
    // Targets that come and go leave deleted entries in the Map's table: sized for the pollers kept (util/compact-map.ts).
    if (stopping.length > 0) compactMap(this.pollers);
    for (const target of config.targets) {
      if (this.pollers.has(target.name)) continue;
      const poller = new NodePoller(
        target,
        {
          dispatchers: this.deps.dispatchers,
          admission: this.admission,
          clock: this.clock,
          sources: this.sources,
          timetable: this.timetable,
          bodies: this.bodies,
          labels: this.labels,
          ...(this.deps.onPollStart ? { onPollStart: this.deps.onPollStart } : {}),
          ...(this.deps.onPollSkipped ? { onPollSkipped: this.deps.onPollSkipped } : {}),
        },
        lazyChild(this.deps.logger, { node: target.name }),
      );
      // Secrets in the target (headers, basicAuth, tls.key) are redacted by the logger.
      this.deps.logger.debug({ node: target.name, target }, 'target configured');
      this.pollers.set(target.name, poller);
      poller.start(Math.floor(spreadFraction(target.name) * target.intervalMs));
    }
    let longest = 0;
    for (const p of this.pollers.values()) for (const s of p.state.sources) longest = Math.max(longest, s.intervalMs);
    this.sweepCheckMs = longest > 0 ? Math.max(1, longest / 2) : IDLE_SWEEP_CHECK_MS;
    this.latestSweepMs = SWEEP_LATEST * (longest > 0 ? longest : IDLE_SWEEP_CHECK_MS);
    // A shorter period takes effect now; a longer one at the next look (reloads more often than the period must not
    // put the sweep off for ever).
    if (!this.stopped && (this.sweeper.slot < 0 || this.sweeper.due > performance.now() + this.sweepCheckMs))
      this.timetable.add(this.sweeper, this.sweepCheckMs);
    stopping.push(this.reconcileL1s(config));
    await Promise.all(stopping);
    // The pools of TLS settings the removed or changed targets alone had: closed now, not at the next sweep.
    this.deps.dispatchers.prune(config.targets.map((t) => t.tls));
    this.admission.prune();
  }

  /**
   * The L1 pollers for a config: an L1 whose own config changed gets a new poller (from its predecessor's members), one
   * whose vantages alone changed (their names, `l1s[].vantages`, or a vantage's target, whose node poller and client
   * are new then) keeps its poller with the new vantages (L1Poller.retarget: its counters, set and lines go on), and
   * the rest are untouched.
   */
  private async reconcileL1s(config: Config): Promise<void> {
    const old = new Map(this.l1Pollers.map((p) => [p.l1.subnet, p]));
    const kept = new Set<L1Poller>();
    const moving: Promise<void>[] = [];
    const keys = new Map<string, L1Keys>();
    const firstDelay = (l1: L1Config) => Math.floor(spreadFraction(l1.subnet) * Math.min(l1.intervalMs, 15_000));
    this.l1Pollers = (config.l1s ?? []).map((l1) => {
      const vantages = vantagesOf(l1, config.targets, this.pollers);
      // Its vantages by name (`l1s[].vantages`) are what they resolve to.
      const key = {
        config: JSON.stringify({ ...l1, vantages: undefined }),
        vantages: JSON.stringify(vantages.map((v) => [v, this.pollers.get(v)?.target])),
      };
      keys.set(l1.subnet, key);
      const before = old.get(l1.subnet);
      const was = this.l1Keys.get(l1.subnet);
      if (before && was?.config === key.config) {
        kept.add(before);
        if (was.vantages !== key.vantages) moving.push(before.retarget(l1, vantages, firstDelay(l1)));
        return before;
      }
      // A remade poller starts from the members its predecessor read: the label table still serves the set's series
      // with their strings, and its reads keep them (no copy of the set's IDs a remake, issue 35).
      return new L1Poller(
        l1,
        vantages,
        {
          clock: this.clock,
          logger: this.deps.logger,
          labels: this.labels,
          timetable: this.timetable,
          pollers: this.pollers,
          ...(this.deps.onPollSkipped ? { onPollSkipped: this.deps.onPollSkipped } : {}),
        },
        before?.members,
      );
    });
    this.l1Keys = keys;
    await Promise.all(
      [...old.values()]
        .filter((p) => !kept.has(p))
        .map((p) => p.stop())
        .concat(moving),
    );
    for (const p of this.l1Pollers) if (!kept.has(p)) p.start(firstDelay(p.l1));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timetable.remove(this.sweeper);
    await Promise.all([...this.pollers.values()].map((p) => p.stop()).concat(this.l1Pollers.map((p) => p.stop())));
  }

  /** What the exporter keeps, by kind and key: counts, and bytes where they are kept apart (the debug state endpoint). */
  stateSizes(): StateSizes {
    const nodes = { sources: 0, recentPolls: 0, errorReasons: 0, remembered: 0, lineBlocks: 0, lineBytes: 0, preparedCalls: 0 };
    let pollsUnderWay = 0;
    for (const p of this.pollers.values()) {
      nodes.preparedCalls += p.client.preparedCalls;
      pollsUnderWay += p.pollsUnderWay;
      for (const s of p.state.sources) {
        nodes.sources++;
        nodes.recentPolls += s.recent.length;
        nodes.errorReasons += s.stats?.errors.size ?? 0;
        nodes.remembered += entriesOf(s.memory);
        if (s.lines) {
          nodes.lineBlocks++;
          nodes.lineBytes += s.lines.bytes.length;
        }
      }
    }
    // An entry on the timetable that is neither the sweep nor a loop of a current target's source (a poller's loop
    // holds its source's state, poller.ts): the loop of a target a reload removed that was not taken off.
    const live = new Set<unknown>();
    for (const p of this.pollers.values()) for (const s of p.state.sources) live.add(s);
    const admission = this.admission.sizes;
    const l1Pollers = new Set<unknown>(this.l1Pollers);
    let orphaned = 0;
    for (const item of this.timetable.items())
      if (item !== this.sweeper && !l1Pollers.has(item) && !live.has((item as { state?: unknown }).state)) orphaned++;
    const l1s = { sets: this.l1Pollers.length, vantageStates: 0, validators: 0, lineBytes: 0 };
    for (const p of this.l1Pollers) {
      const z = p.sizes;
      l1s.vantageStates += z.vantageStates;
      l1s.validators += z.validators;
      l1s.lineBytes += z.lineBytes;
    }
    return {
      targets: this.pollers.size,
      timetable: { entries: this.timetable.size, orphaned },
      labelTable: this.labels.size,
      nodes,
      requestBodies: this.bodies.size,
      limiter: { inFlight: this.admission.inFlight, queued: admission.processQueued },
      dispatchers: {
        agents: this.deps.dispatchers.agentCount,
        origins: admission.origins,
        originQueued: admission.originQueued,
        openConnections: this.deps.dispatchers.openConnections,
      },
      debugPolls: this.debugPolls.size,
      pollsUnderWay,
      l1s,
    };
  }

  get targetCount(): number {
    return this.pollers.size;
  }

  get requestsInFlight(): number {
    return this.admission.inFlight;
  }

  /** Bytes of answers being read now, and the budget they are held to (scheduler.max_buffered_bytes). */
  get responseBytesInFlight(): number {
    return this.admission.bytes.inUse;
  }

  get responseBytesBudget(): number {
    return this.admission.bytes.max;
  }

  /** Requests waiting for a slot: of the process's limiter, and of their origin's (where a saturated fleet queues first). */
  get requestsQueued(): number {
    return this.admission.queued;
  }

  /**
   * Every node's series in chunks, rendered as they are pulled from the nodes'
   * lines (a poll that ends during the scrape may update a node's families in
   * place: see renderChunks).
   */
  renderChunks(): Iterable<Buffer> {
    const lines = Array.from(this.pollers.values(), (p) => p.nodeLines);
    for (const l1 of this.l1Pollers) if (l1.lines) lines.push([l1.lines]);
    return renderChunks(lines);
  }

  /** Every L1 of `l1s:`, for the pages. */
  l1s(): L1View[] {
    return this.l1Pollers.map((p) => p.view());
  }

  /** One L1 by its subnet ID, or undefined. */
  l1(subnet: string): L1View | undefined {
    return this.l1Pollers.find((p) => p.l1.subnet === subnet)?.view();
  }

  /** One node's series, or undefined when no target has that name. */
  renderNode(name: string): Buffer | undefined {
    const poller = this.pollers.get(name);
    return poller ? renderNodes([poller.nodeLines]) : undefined;
  }

  /** Targets whose first poll has not ended yet. */
  get pendingFirstPoll(): number {
    let n = 0;
    for (const p of this.pollers.values()) if (!p.hasPolled) n++;
    return n;
  }

  summaries(): NodeSummary[] {
    return [...this.pollers.values()].map((p) => p.summary());
  }

  /** One node's status page data, or undefined when no target has that name. */
  detail(name: string): NodeDetail | undefined {
    return this.pollers.get(name)?.detail();
  }

  /**
   * A fresh, traced poll of one node (/probe?debug=true), or undefined when no target has
   * that name. Concurrent requests for the same node share one poll: a burst of debug
   * requests costs the node one poll.
   */
  debugPoll(name: string): Promise<DebugStep[]> | undefined {
    const poller = this.pollers.get(name);
    if (!poller) return undefined;
    let running = this.debugPolls.get(name);
    if (!running) {
      running = debugPoll(poller, this.clock).finally(() => this.debugPolls.delete(name));
      this.debugPolls.set(name, running);
    }
    return running;
  }
}

/** The entries a source's memory holds: the items of its lists, maps and sets, and each other value it has set. */
function entriesOf(memory: unknown): number {
  if (memory === undefined || memory === null) return 0;
  if (Array.isArray(memory)) return memory.length;
  if (memory instanceof Map || memory instanceof Set) return memory.size;
  if (typeof memory !== 'object') return 1;
  let n = 0;
  for (const value of Object.values(memory)) {
    if (value === undefined) continue;
    n += Array.isArray(value) || value instanceof Map || value instanceof Set ? entriesOf(value) : 1;
  }
  return n;
}
