// The fleet: one NodePoller per configured target, reconciled on reload.
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../clock.js';
import { lazyChild } from '../log.js';
import { nameHash } from '../util/hash.js';
import type { Config, TargetConfig } from '../config/schema.js';
import { Admission } from '../rpc/admission.js';
import { RequestBodies } from '../rpc/client.js';
import type { Dispatchers } from '../rpc/sockets.js';
import { LabelTable } from '../metrics/render.js';
import { renderChunks, renderNodes } from '../metrics/scrape.js';
import type { FleetView } from '../metrics/self.js';
import { SOURCES } from '../sources/registry.js';
import type { Source } from '../sources/source.js';
import { debugPoll } from './debug-poll.js';
import { DueQueue } from './due.js';
import type { DebugStep, FleetReader } from './fleet.js';
import type { NodeDetail, NodeSummary } from './node-state.js';
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

/** A stable fraction in [0,1) from a name, so a fleet's first polls spread over the interval. */
export function spreadFraction(name: string): number {
  return nameHash(name)[0] / 2 ** 32;
}

export class Scheduler implements FleetView, FleetReader {
  private pollers = new Map<string, NodePoller>();
  /** The L1s of `l1s:`, each polled on its own through its vantages' pollers (l1-poller.ts). */
  private l1Pollers: L1Poller[] = [];
  /** What the L1 pollers were made from: remade when it changes (or a vantage's poller was). */
  private l1Key = '';
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

  /** Applies a (re)loaded config: new targets start, removed ones stop, changed ones restart with fresh state. */
  async apply(config: Config): Promise<void> {
    this.config = config;
    if (this.started) await this.reconcile(config);
  }

  private async reconcile(config: Config): Promise<void> {
    this.admission.setLayout(
      config.targets.map((t) => t.url),
      config.maxConcurrentRequests,
      config.maxConnectionsPerOrigin,
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
    stopping.push(this.reconcileL1s(config));
    await Promise.all(stopping);
  }

  /** The L1 pollers, remade when the L1s or their vantages' targets changed (a vantage's poller and client are new then). */
  private async reconcileL1s(config: Config): Promise<void> {
    const l1s = config.l1s ?? [];
    const plans = l1s.map((l1) => ({ l1, vantages: vantagesOf(l1, config.targets, this.pollers) }));
    const key = JSON.stringify(plans.map((p) => [p.l1, p.vantages.map((v) => this.pollers.get(v)?.target)]));
    if (key === this.l1Key) return;
    this.l1Key = key;
    const old = this.l1Pollers;
    this.l1Pollers = plans.map(
      (p) =>
        new L1Poller(p.l1, p.vantages, {
          clock: this.clock,
          logger: this.deps.logger,
          labels: this.labels,
          timetable: this.timetable,
          pollers: this.pollers,
          ...(this.deps.onPollSkipped ? { onPollSkipped: this.deps.onPollSkipped } : {}),
        }),
    );
    await Promise.all(old.map((p) => p.stop()));
    for (const p of this.l1Pollers) p.start(Math.floor(spreadFraction(p.l1.subnet) * Math.min(p.l1.intervalMs, 15_000)));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.pollers.values()].map((p) => p.stop()).concat(this.l1Pollers.map((p) => p.stop())));
  }

  get targetCount(): number {
    return this.pollers.size;
  }

  get requestsInFlight(): number {
    return this.admission.inFlight;
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
