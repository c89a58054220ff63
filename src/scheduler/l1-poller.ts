// One L1 of `l1s:`, polled as one source of its own (`source="l1"` and its `subnet` in the poll metrics), on its own
// interval, apart from the nodes' loops: every vantage's platform.getHeight, then the set-wide facts from the highest
// (the next on failure), then every vantage's view of the L1 chain's validators API (sources/l1-set.ts says what is
// read and served). Each request goes through its vantage's own client and admission (its URL, auth, TLS, slots), under
// a deadline per vantage (rpc/deadline.ts: the vantage's timeout on the wire, the exporter's waits bounded by the L1's
// interval); the poll never throws past its boundary, and a poll whose every wait was the exporter's is skipped as
// saturated, never the nodes' fault. Its lines are one block, first label `subnet`, served with the nodes'.
import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { L1Config, TargetConfig } from '../config/schema.js';
import { PollDeadline } from '../rpc/deadline.js';
import { classifyError, type PollError, type Reason } from '../rpc/errors.js';
import { LabelTable, LinesBuilder, NodeLabel, type LineBlock } from '../metrics/render.js';
import { addPollStats, type SourceStats } from '../metrics/samples.js';
import {
  addL1SetLines,
  parseBlockchains,
  parseChainValidators,
  parseL1Set,
  type Blockchain,
  type L1Member,
  type L1SetSnapshot,
  type L1View,
  type Seen,
  type VantageState,
  type VantageView,
} from '../sources/l1-set.js';
import { platformConfig } from '../sources/platform.js';
import { askAll, decodeMethod, parseFeeState, parseHeight, replyOf } from '../sources/wire.js';
import type { RpcReply } from '../rpc/client.js';
import type { DueQueue, Due } from './due.js';
import type { NodePoller } from './poller.js';

const P = '/ext/bc/P';

export interface L1PollerDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly labels: LabelTable;
  readonly timetable: DueQueue;
  /** The node pollers of this exporter, by target name: a vantage is asked through its own client. */
  readonly pollers: ReadonlyMap<string, NodePoller>;
  readonly onPollSkipped?: (reason: 'saturated') => void;
}

/**
 * The vantages of an L1: `vantages` when given, else the targets whose platform.subnets lists the subnet (with the
 * platform source on), in the order of the targets; only those this exporter polls (its shard's).
 */
export function vantagesOf(l1: L1Config, targets: readonly TargetConfig[], polled: ReadonlyMap<string, unknown>): string[] {
  const names =
    l1.vantages ?? targets.filter((t) => platformConfig.enabled(t) && platformConfig.of(t).subnets.includes(l1.subnet)).map((t) => t.name);
  return names.filter((n) => polled.has(n));
}

/** How far below the highest P-Chain height the last poll's vantage may be and still be read from first (P-Chain blocks come every few seconds: a vantage this close is seconds behind, not lagging). */
export const FROM_SLACK_BLOCKS = 10;

export class L1Poller implements Due {
  due = 0;
  slot = -1;
  private stopped = false;
  /** Aborts the poll under way (a stop, or new vantages: its answers are not used). */
  private pollAbort?: AbortController;
  private running?: Promise<void>;
  /** The target names the L1 is read through (new ones at a reload: retarget). */
  private current: readonly string[];
  private snapshot?: L1SetSnapshot;
  private stats?: SourceStats;
  private error?: string;
  private polls = 0;
  private block?: LineBlock;
  /** The P-Chain's chains, once a vantage told them (names and the L1's chain change rarely: asked until known). */
  private chains?: Blockchain[];
  /** The vantage the last set was read from (kept first while its height is near the highest). */
  private lastFrom?: string;
  /**
   * The members of the last set read, by validation ID: the next read keeps their strings (parseL1Set). A poller
   * remade for new vantages starts from its predecessor's (Scheduler.reconcileL1s).
   */
  private lastMembers: ReadonlyMap<string, L1Member>;
  /** Each vantage's last chain-API state, to log a change once. */
  private readonly states = new Map<string, VantageState>();
  private readonly label: NodeLabel;
  private readonly log: Logger;

  constructor(
    private config: L1Config,
    vantages: readonly string[],
    private readonly deps: L1PollerDeps,
    /** The members its predecessor for this L1 last read (the poller it replaces). */
    members: ReadonlyMap<string, L1Member> = new Map(),
  ) {
    this.current = vantages;
    this.lastMembers = members;
    this.label = new NodeLabel(config.subnet, 'subnet');
    this.log = deps.logger.child({ source: 'l1', subnet: config.subnet });
  }

  /** The L1's entry of `l1s:` (the reload's, once retargeted). */
  get l1(): L1Config {
    return this.config;
  }

  /** The target names the L1 is read through, in the order of the config's targets. */
  get vantages(): readonly string[] {
    return this.current;
  }

  /** The members of the last set read, by validation ID (for the poller that replaces this one). */
  get members(): ReadonlyMap<string, L1Member> {
    return this.lastMembers;
  }

  readonly fire = (): void => {
    const started = performance.now();
    this.running = this.poll().finally(() => {
      this.running = undefined;
      if (!this.stopped)
        this.deps.timetable.add(this, Math.max(0, this.l1.intervalMs - (performance.now() - started)) + Math.random() * this.l1.intervalMs * 0.01);
    });
  };

  start(initialDelayMs: number): void {
    if (this.vantages.length === 0)
      this.log.warn(
        'no vantage for this L1: no target of this exporter lists its subnet in platform.subnets, and l1s[].vantages names none: it is not polled',
      );
    else this.deps.timetable.add(this, initialDelayMs);
  }

  /**
   * A reload changed the L1's vantages (a target that lists its subnet added, removed or renamed, a vantage's own
   * settings, or `l1s[].vantages`), not the rest of its entry (`l1`, equal but for `vantages`): the poller goes on
   * through the new ones, and keeps its counters, its set and its lines. A remade poller served none of the L1's series
   * until its first poll and started its counters again, so every such reload restarted the `for:` of an alert on the
   * L1. A poll under way asked the old vantages: it is dropped, and the next one comes `firstDelayMs` from now, as a
   * new poller's first would. The series of a vantage that is gone go now, not at the next poll.
   */
  async retarget(l1: L1Config, vantages: readonly string[], firstDelayMs: number): Promise<void> {
    const running = this.running;
    this.pollAbort?.abort();
    await running;
    if (this.stopped) return;
    this.config = l1;
    this.current = vantages;
    const kept = new Set(vantages);
    for (const node of this.states.keys()) if (!kept.has(node)) this.states.delete(node);
    if (this.lastFrom !== undefined && !kept.has(this.lastFrom)) this.lastFrom = undefined;
    if (vantages.length === 0) {
      // Not polled any more: nothing of it is served (no old set, no old success), until a vantage comes back.
      this.snapshot = undefined;
      this.block = undefined;
      this.deps.timetable.remove(this);
    } else if (this.snapshot && this.snapshot.vantages.some((v) => !kept.has(v.node))) {
      this.snapshot = { ...this.snapshot, vantages: this.snapshot.vantages.filter((v) => kept.has(v.node)) };
      if (this.stats) this.render(this.stats);
    }
    // Soon, as a new poller's first: a poll was dropped (it queued the next an interval on), or it was not queued (it had
    // no vantage). Else its next poll stays when it was due.
    if (running !== undefined || this.slot < 0) this.start(firstDelayMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.pollAbort?.abort();
    this.deps.timetable.remove(this);
    await this.running;
  }

  /** The L1's lines (none before its first poll). */
  get lines(): LineBlock | undefined {
    return this.block;
  }

  /** What the poller keeps (the debug state endpoint): each vantage's last state, the set's validators, its lines. */
  get sizes(): { vantageStates: number; validators: number; lineBytes: number } {
    return { vantageStates: this.states.size, validators: this.snapshot?.validators.length ?? 0, lineBytes: this.block?.bytes.length ?? 0 };
  }

  get hasPolled(): boolean {
    return this.vantages.length === 0 || this.polls > 0;
  }

  view(): L1View {
    const name = this.l1.name ?? this.snapshot?.name;
    return {
      subnet: this.l1.subnet,
      ...(name !== undefined ? { name } : {}),
      intervalMs: this.l1.intervalMs,
      vantages: this.vantages,
      ...(this.snapshot ? { snapshot: this.snapshot } : {}),
      polls: this.polls,
      ...(this.stats ? { success: this.stats.success } : {}),
      ...(this.stats?.lastSuccessSeconds !== undefined ? { lastSuccessSeconds: this.stats.lastSuccessSeconds } : {}),
      ...(this.error !== undefined ? { error: this.error } : {}),
    };
  }

  /** One poll through the boundary: never rejects. */
  private async poll(): Promise<void> {
    const started = performance.now();
    const deadlines = new Map<string, PollDeadline>();
    const pollers = this.vantages.flatMap((name) => {
      const poller = this.deps.pollers.get(name);
      return poller ? [{ name, poller }] : [];
    });
    const abort = new AbortController();
    this.pollAbort = abort;
    // A deadline per vantage listens for the abort, each removed when the poll ends: past 10 vantages Node.js warned
    // of a leak on stderr (MaxListenersExceededWarning) at every L1 with that many, which there is not.
    setMaxListeners(pollers.length + 1, abort.signal);
    for (const { name, poller } of pollers) deadlines.set(name, new PollDeadline(poller.target.timeoutMs, this.l1.intervalMs, abort.signal));
    const ask = (name: string, path: string, method: string, params: object): Promise<RpcReply> => {
      const poller = this.deps.pollers.get(name);
      const deadline = deadlines.get(name);
      if (!poller || !deadline) return Promise.reject(new Error(`${name} is not polled by this exporter`));
      return poller.client.rpc(path, method, params, deadline);
    };
    let snapshot: L1SetSnapshot | undefined;
    let failure: { error: unknown; node: string } | undefined;
    try {
      const result = await this.read(
        pollers.map((p) => p.name),
        ask,
      );
      if ('failure' in result) failure = result.failure;
      else snapshot = result.snapshot;
    } catch (error) {
      failure = { error, node: pollers[0]?.name ?? '' };
    } finally {
      for (const d of deadlines.values()) d.clear();
    }
    if (abort.signal.aborted) return;
    const saturated = failure !== undefined && deadlines.size > 0 && [...deadlines.values()].every((d) => d.saturated);
    if (saturated) {
      this.deps.onPollSkipped?.('saturated');
      this.log.debug('poll skipped: the exporter could not send its requests within the interval (saturated)');
      return;
    }
    const durationSeconds = Math.round((performance.now() - started) * 1000) / 1e6;
    const target = failure ? this.deps.pollers.get(failure.node)?.target : undefined;
    const error = failure ? classifyError(failure.error, { url: target?.url ?? '', timeoutMs: target?.timeoutMs ?? 0 }) : undefined;
    this.settle(snapshot, error, failure?.node, durationSeconds);
  }

  /**
   * The reads of one poll: heights, then the set from the highest vantage that answers it with members (an empty
   * set only when none does), then every vantage's chain view. A failure of the set read on every vantage fails the
   * poll (the last one's failure).
   */
  private async read(
    names: readonly string[],
    ask: (name: string, path: string, method: string, params: object) => Promise<RpcReply>,
  ): Promise<{ snapshot: L1SetSnapshot } | { failure: { error: unknown; node: string } }> {
    const heights = await askAll(names, (name) => ask(name, P, 'platform.getHeight', {}).then((reply) => parseHeight(okResult(reply))));
    const height = new Map<string, number>();
    names.forEach((name, i) => {
      const h = heights[i];
      if (typeof h === 'number') height.set(name, h);
    });
    // Highest height first; those that did not tell their height last, in the config's order. The last poll's vantage
    // stays first while it is within FROM_SLACK_BLOCKS of the highest: healthy vantages' heights differ by a block or
    // two from poll to poll, and a set read that moved between them each time kept one more request per vantage.
    const order = [...names].sort((a, b) => (height.get(b) ?? -1) - (height.get(a) ?? -1));
    const last = this.lastFrom === undefined ? undefined : height.get(this.lastFrom);
    const highest = height.get(order[0] ?? '');
    if (this.lastFrom !== undefined && last !== undefined && highest !== undefined && last >= highest - FROM_SLACK_BLOCKS)
      order.splice(0, order.length, this.lastFrom, ...order.filter((n) => n !== this.lastFrom));
    let failure: { error: unknown; node: string } | undefined;
    let set: { from: string; members: L1Member[]; price?: number } | undefined;
    // An empty set is believed only when no other vantage reads one with members: a node of a release before L1s
    // (v1.12, Etna) answers no L1 validator (none, or a subnet's entries without a validationID), at the height of
    // the others (the soak's `old-version-v1.7` vantage, read from for a poll: the whole set gone from /metrics).
    let empty: typeof set;
    for (const name of order) {
      const needChains = this.chains === undefined && (this.l1.chain === undefined || this.l1.name === undefined);
      const [validators, fee, chains] = await askAll(
        [
          { method: 'platform.getCurrentValidators', params: { subnetID: this.l1.subnet } },
          { method: 'platform.getValidatorFeeState', params: {} },
          ...(needChains ? [{ method: 'platform.getBlockchains', params: {} }] : []),
        ],
        (request) => ask(name, P, request.method, request.params),
      );
      try {
        const members = parseL1Set(okResult(replyOf(validators)), this.lastMembers);
        let price: number | undefined;
        try {
          price = parseFeeState(okResult(replyOf(fee)));
        } catch {
          // A release before v1.12.2, or a failed read: no runway, the rest stands.
        }
        if (chains !== undefined) {
          try {
            this.chains = parseBlockchains(okResult(replyOf(chains)));
          } catch (error) {
            this.log.debug({ node: name, error: String(error) }, 'platform.getBlockchains did not answer: the chain and its name stay unknown');
          }
        }
        const read = { from: name, members, ...(price !== undefined ? { price } : {}) };
        if (members.length === 0) {
          empty ??= read;
          continue;
        }
        set = read;
        break;
      } catch (error) {
        failure = { error, node: name };
      }
    }
    set ??= empty;
    if (!set) return { failure: failure ?? { error: new Error('no vantage answered'), node: names[0] ?? '' } };
    this.lastFrom = set.from;
    this.lastMembers = new Map(set.members.map((m) => [m.validationId, m]));
    const ownChains = (this.chains ?? []).filter((c) => c.subnetId === this.l1.subnet);
    const chainId = this.l1.chain ?? ownChains[0]?.id;
    const chainName = (this.chains ?? []).find((c) => c.id === chainId)?.name;
    const views: VantageView[] =
      chainId === undefined
        ? names.map((node) => ({ node, state: 'not_asked' as const, seen: new Map<string, Seen>(), ...heightOf(height, node) }))
        : await Promise.all(
            names.map(async (node): Promise<VantageView> => {
              try {
                const reply = await ask(node, `/ext/bc/${chainId}/validators`, 'validators.getCurrentValidators', {});
                const outcome = decodeMethod(reply, ['not_served', 'not_bootstrapped', 'unsupported']);
                if (outcome.state !== 'ok') return { node, state: outcome.state, seen: new Map(), ...heightOf(height, node) };
                return { node, state: 'ok', seen: parseChainValidators(outcome.result), ...heightOf(height, node) };
              } catch (error) {
                const text = this.deps.pollers.get(node)?.state.text.text(error instanceof Error ? error.message : String(error)) ?? '';
                return { node, state: 'failed', error: text, seen: new Map(), ...heightOf(height, node) };
              }
            }),
          );
    const name = this.l1.name ?? chainName;
    return {
      snapshot: {
        subnet: this.l1.subnet,
        ...(name !== undefined ? { name } : {}),
        ...(chainId !== undefined ? { chain: { id: chainId, ...(chainName !== undefined ? { name: chainName } : {}) } } : {}),
        from: set.from,
        ...heightOf(height, set.from),
        ...(set.price !== undefined ? { feePriceNavaxPerSecond: set.price } : {}),
        validators: set.members,
        maxValidators: this.l1.maxValidators,
        vantages: views,
      },
    };
  }

  private settle(snapshot: L1SetSnapshot | undefined, error: PollError | undefined, node: string | undefined, durationSeconds: number): void {
    const previous = this.stats;
    const stats: SourceStats = previous ?? { success: false, durationSeconds: 0, errors: new Map<Reason, number>() };
    if (error) {
      if (!previous || previous.success)
        this.log.warn({ node, reason: error.reason, error: error.message }, 'L1 poll failed: no vantage answered the set');
      stats.errors.set(error.reason, (stats.errors.get(error.reason) ?? 0) + 1);
      this.error = (node !== undefined ? this.deps.pollers.get(node)?.state.text.text(error.message) : undefined) ?? error.reason;
    } else {
      if (previous && !previous.success) this.log.info('L1 poll recovered');
      stats.lastSuccessSeconds = this.deps.clock.now() / 1000;
      this.error = undefined;
    }
    stats.success = !error;
    stats.durationSeconds = durationSeconds;
    this.stats = stats;
    // After a failed poll the L1's data series go away: never an old "connected".
    this.snapshot = snapshot;
    if (snapshot) this.noteStates(snapshot);
    if (snapshot && snapshot.validators.length > snapshot.maxValidators && !(previous?.success ?? false))
      this.log.warn(
        { validators: snapshot.validators.length, maxValidators: snapshot.maxValidators },
        'the L1 has more validators than max_validators: the lightest get no per-validator series (avalanchego_l1_set_validators_dropped)',
      );
    this.render(stats);
    this.polls++;
  }

  /** The L1's lines from its snapshot and poll counters. */
  private render(stats: SourceStats): void {
    const b = new LinesBuilder(this.label, { maxSeries: Number.MAX_SAFE_INTEGER, maxLabelLength: 256 }, this.deps.labels);
    addL1SetLines(b, this.snapshot);
    b.unlimited();
    addPollStats(b, 'l1', stats);
    this.block = b.build(this.block);
  }

  /** A vantage's chain API changing state (no validators API, bootstrapping, failing, back) is logged once. */
  private noteStates(s: L1SetSnapshot): void {
    for (const v of s.vantages) {
      const before = this.states.get(v.node);
      this.states.set(v.node, v.state);
      if (before === v.state || (before === undefined && v.state === 'ok')) continue;
      const what: Record<VantageState, string> = {
        ok: "the L1 chain's validators API answers",
        not_served:
          "the L1 chain's VM serves no validators API (HTTP 404): no connectivity from this vantage; the set-wide series still come from the P-Chain",
        unsupported: "the L1 chain's VM has no validators.getCurrentValidators (method not found): no connectivity from this vantage",
        not_bootstrapped: 'the L1 chain is bootstrapping on this vantage',
        failed: "the L1 chain's validators API failed on this vantage",
        not_asked: "the L1's chain is not known (l1s[].chain, platform.getBlockchains): no connectivity is read",
      };
      this.log.info({ node: v.node, ...(v.error ? { error: v.error } : {}) }, what[v.state]);
    }
  }
}

function heightOf(heights: ReadonlyMap<string, number>, node: string): { height?: number } {
  const h = heights.get(node);
  return h !== undefined ? { height: h } : {};
}

/** A P-Chain answer's result, or what it throws (a bootstrapping P-Chain is a failure of this vantage here: the next one is asked). */
function okResult(reply: RpcReply): unknown {
  const outcome = decodeMethod(reply, []);
  return 'result' in outcome ? outcome.result : undefined;
}
