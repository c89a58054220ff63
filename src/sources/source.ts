// The Source contract: what a data source of a node is, for the poller. One
// module per source (health.ts, index-api.ts …), listed in registry.ts.
//
// A source owns its name (the `source` label and its logger's), its config
// section (its keys and their defaults), its request(s), a pure parse from the
// answers to a snapshot (exported, no I/O, no clock, so tests run tables over
// fixtures), the sample lines it contributes, the logs of its state changes,
// and what it shows people (its part of the node's summary and its node-page
// sections, section.ts). The one source that decides whether the node is up
// says so through `status`. The poller owns the rest: the schedule, the poll's
// deadline, timing, the mapping of a failure to its reason (rpc/errors.ts
// classifyError), the poll metrics and the poll logs.
//
// Sources are peers: no source imports another (test/static/architecture.test.ts).
// One that reads another's facts names it in `uses`, and the node gives them
// (NodeSnapshots); the other `offers` them, in the shapes of facts.ts.
import type { Logger } from 'pino';
import type { ConfigSection, TargetConfig } from '../config/schema.js';
import type { BodySink, HttpReply, RpcReply } from '../rpc/client.js';
import type { LinesBuilder } from '../metrics/render.js';
import type { Facts } from './facts.js';
import type { PageSection, SummaryPart } from './section.js';

export interface Source<S, M = unknown, C extends ConfigSection = ConfigSection> {
  /** The `source` label of the poll metrics and the logger's `source` field; unique, lowercase. */
  readonly name: string;

  /**
   * Its section of the config file, keyed by its name (config/source-section.ts configSection): its keys and
   * their built-in defaults, whether a target's settings turn it on, and its cadence (its own `interval`,
   * else the target's; a source's polls of one node never overlap). The registry puts it in the config file.
   */
  readonly config: C;

  /**
   * The sources whose facts this one reads, by name (as ethereum-metrics-exporter's jobs declare
   * RequiredModules): each must be registered and offer facts (registry.ts checks), and this source reads
   * only those (`node.use`, `node.runs`; test/static/architecture.test.ts checks).
   */
  readonly uses?: readonly string[];

  /**
   * Optional, for a source others use: its facts (their shape is `Facts[name]`, facts.ts) from the snapshot
   * it serves now, or asked of the node here, within the poll of the source that uses them (`ctx`: its
   * deadline, its requests), when it is off for the node or its last poll did not tell them.
   */
  offers?(latest: S | undefined, ctx: PollContext): Promise<unknown>;

  /**
   * One poll: the request(s) through `ctx`, then the source's pure parse.
   * Rejects with whatever the transport or the parse throws (rpc/errors.ts
   * types); the poller maps it to a reason.
   */
  poll(ctx: PollContext): Promise<S>;

  /**
   * For a source that keeps partial data (some requests answered, some not):
   * the failure that makes the poll fail, or undefined when it succeeded. The
   * snapshot is still served.
   */
  failure?(snapshot: S): unknown;

  /**
   * Optional, for a source polled at every interval of every node: `next` with the objects of `previous`
   * (the snapshot the source served until this poll) when both have the same shape, `next`'s values copied
   * into them; else `next`. A snapshot lives until the next poll, so a new one each poll is garbage the
   * collector must promote and then compact; an updated one is not. Nothing may hold a snapshot across polls
   * expecting it unchanged (watchers keep what they compare).
   */
  reuse?(previous: S, next: S): S;

  /**
   * The source's sample lines for the node, built once when a poll ends.
   * `snapshot` is undefined after a poll that failed without data: a source
   * then adds what says so (health: avalanchego_up 0) and no data series.
   * `node` says which of the node's sources it `uses` run (absent in a test of
   * the lines alone: as if none did).
   */
  samples(lines: LinesBuilder, snapshot: S | undefined, node?: NodeSources): void;

  /**
   * Makes the node's state-change logger for this source (one per node, with
   * its own memory); see StateWatcher.
   */
  watch?(log: Logger): StateWatcher<S>;

  /**
   * Only for the source that decides whether the node is up (health): the
   * node's status from the snapshot it serves now (undefined after a poll that
   * failed without data). Decided here once; the node state keeps it, with
   * since when, and the pages and their ordering read that value. The source's
   * own `avalanchego_up` sample uses the same function.
   */
  status?(snapshot: S | undefined): NodeStatus;

  /**
   * Optional: what the source remembers of the node across its polls, failed ones included: what no
   * one snapshot holds (the platform source: that the node was a validator an hour ago, before its
   * node ID changed). Called after every poll with the memory so far (undefined at first), the
   * snapshot served now (undefined after a poll that failed without data) and the time; returns
   * the memory to keep (the same object when nothing changed). Kept by this process only: a restart
   * forgets it (the alerts' rules look back in Prometheus instead). Pure.
   */
  remember?(memory: M | undefined, snapshot: S | undefined, nowSeconds: number): M;

  /**
   * Optional: what the source adds to the node's line on the fleet page, from the snapshot it serves
   * (none after a failed poll) and its memory (remember).
   */
  summary?(snapshot: S, memory: M | undefined): SummaryPart;

  /**
   * Optional: the source's sections of the node page, from the snapshot it
   * serves (undefined before its first answer or after a failed poll: say so
   * in the section's `empty`) and its memory. Built when the page is asked for.
   */
  sections?(snapshot: S | undefined, memory: M | undefined): PageSection[];
}

/** A node's status, as the source that decides it sees it: no answer (down), an answer saying unhealthy, still bootstrapping, or healthy. */
export type NodeStatus = 'down' | 'unhealthy' | 'bootstrapping' | 'healthy';

/** Logs a source's state changes for one node (ok → failing → ok) at info/warn, never every poll. */
export interface StateWatcher<S> {
  /** Called after every poll with the snapshot the source serves now. */
  observe(snapshot: S | undefined): void;
}

/** What a poll gets: the target, the deadline, requests bounded by it, and the node's other sources. */
export interface PollContext {
  /** The target's settings: the common ones; the source's own are `source.config.of(target)`. */
  readonly target: TargetConfig;
  /** The poll's deadline (the target's timeout from the start of the poll, slot waits included). */
  readonly signal: AbortSignal;
  /** A JSON-RPC 2.0 request to `{url}{path}` under the poll's deadline; decode the reply with rpc/jsonrpc.ts. */
  rpc(path: string, method: string, params: object): Promise<RpcReply>;
  /**
   * A GET of `{url}{path}` under the poll's deadline, its 200 body given to `sink` chunk by chunk as it
   * streams (the answer's `body` is then ''); any other status's body is kept, bounded (rpc/client.ts stream).
   */
  stream(path: string, sink: BodySink): Promise<HttpReply>;
  /** The node's other sources, as far as the polled source `uses` them. */
  readonly node: NodeSnapshots;
  /** Wall-clock milliseconds (the exporter's clock: fixed in tests), for parsers that compare times with now. */
  now(): number;
}

/** Which of the node's sources run: for a source that `uses` them. */
export interface NodeSources {
  /** Whether the source `name` runs for this node (its settings turn it on). */
  runs(name: string): boolean;
}

/** What a poll reads of the node's other sources: the facts of those its source `uses`. */
export interface NodeSnapshots extends NodeSources {
  /**
   * The facts the source `name` offers (Source.offers): from the snapshot it serves now, or asked of the node
   * by its own code under `ctx`, this poll's deadline, when it is off or has not told them yet.
   */
  use<K extends keyof Facts>(name: K, ctx: PollContext): Promise<Facts[K]>;
}

/**
 * The sources of an exporter, as given: their names unique and lowercase, each its config section's key, each
 * source it `uses` among them and offering facts. A mistake here is the source author's: it fails at start.
 */
export function checkSources<const L extends ReadonlyArray<Source<unknown>>>(sources: L): L {
  const names = sources.map((s) => s.name);
  for (const s of sources) {
    if (!/^[a-z][a-z0-9_]*$/.test(s.name)) throw new Error(`source ${JSON.stringify(s.name)}: a name is lowercase letters, digits and _`);
    if (names.indexOf(s.name) !== names.lastIndexOf(s.name)) throw new Error(`source ${s.name} is listed twice`);
    if (s.config.key !== s.name) throw new Error(`source ${s.name}: its config section is keyed ${s.config.key}, not by its name`);
    for (const used of s.uses ?? []) {
      if (!sources.some((o) => o.name === used && o.offers !== undefined))
        throw new Error(`source ${s.name} uses ${used}, which is not among the sources or offers nothing (Source.offers)`);
    }
  }
  return sources;
}
