// What the server reads of the fleet, and nothing more: the series to serve,
// the status pages' views and the traced poll. The Scheduler implements it; the
// server takes this interface, never the Scheduler (it cannot start, stop or
// reconfigure polls), and test/static/architecture.test.ts keeps it so.
// Every read is of the last snapshots and lines: no I/O, except debugPoll.
import type { LabelTableSize } from '../metrics/render.js';
import type { L1View } from '../sources/l1-set.js';
import type { NodeDetail, NodeSummary } from './node-state.js';

export type { L1View, NodeDetail, NodeSummary };

/** One step of a debug poll (debug-poll.ts): what was asked, what came back, and how long it took. */
export interface DebugStep {
  /** Milliseconds since the debug poll started. */
  atMs: number;
  source: string;
  text: string;
}

/**
 * What one exporter keeps, by kind (the debug state endpoint, --web.enable-debug-state): each keyed table and
 * queue the exporter fills, summed over its nodes. When the config and the nodes are back where they were, every
 * count is back where it was (bench/soak.mjs); `lineBytes` varies with the values' text lengths.
 */
export interface StateSizes {
  /** Targets polled (one poller each). */
  targets: number;
  /** Entries on the poll timetable (one a source of a node waiting for its next poll, and the sweep), and those of no current target. */
  timetable: { entries: number; orphaned: number };
  labelTable: LabelTableSize;
  /** Summed over the targets. */
  nodes: {
    /** Enabled sources. */
    sources: number;
    /** Polls kept for the node page (at most RECENT_POLLS a source). */
    recentPolls: number;
    /** Reasons counted by avalanchego_exporter_poll_errors_total (a counter: kept while the target is). */
    errorReasons: number;
    /** Entries the sources remember across polls (the platform source's validator sets). */
    remembered: number;
    /** Line blocks (one a source that has polled) and their buffers' bytes. */
    lineBlocks: number;
    lineBytes: number;
    /** Requests kept as sent. */
    preparedCalls: number;
  };
  /** Request bodies shared by the nodes. */
  requestBodies: number;
  /** The process's request slots: held, and waited for. */
  limiter: { inFlight: number; queued: number };
  /** undici agents (one a TLS setting), the origins admitted (rpc/admission.ts) and the requests queued for their slots, sockets. */
  dispatchers: { agents: number; origins: number; originQueued: number; openConnections: number };
  /** Debug polls under way. */
  debugPolls: number;
  /** Polls under way (scheduled and debug), each holding its deadline's timer: the timers that come and go with polls. */
  pollsUnderWay: number;
  /** The L1s watched as a whole (l1s:): pollers, each vantage's last chain-API state, the sets' validators, their lines' bytes. */
  l1s: { sets: number; vantageStates: number; validators: number; lineBytes: number };
}

export interface FleetReader {
  /**
   * Every node's series in chunks, rendered as they are pulled from the nodes'
   * lines (a poll that ends during the scrape may update a node's families in
   * place: see metrics/render.ts renderChunks). For /metrics.
   */
  renderChunks(): Iterable<Buffer>;

  /** One node's series, or undefined when no target of this replica has that name. For /probe. */
  renderNode(name: string): Buffer | undefined;

  /** Targets whose first poll has not ended yet (/-/ready). */
  readonly pendingFirstPoll: number;

  /** Every node's one-line summary, for the fleet page. */
  summaries(): NodeSummary[];

  /** One node's page data, or undefined when no target has that name. */
  detail(name: string): NodeDetail | undefined;

  /**
   * A fresh, traced poll of one node (/probe?debug=true), or undefined when no
   * target has that name. Concurrent requests for one node share one poll.
   */
  debugPoll(name: string): Promise<DebugStep[]> | undefined;

  /** What the exporter keeps, by kind and key (the debug state endpoint). */
  stateSizes(): StateSizes;
  /** Every L1 of `l1s:` (the landing page links each), from the last polls. */
  l1s(): L1View[];

  /** One L1 by its subnet ID (/l1/<subnet>), or undefined. */
  l1(subnet: string): L1View | undefined;
}
