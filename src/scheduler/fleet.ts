// What the server reads of the fleet, and nothing more: the series to serve,
// the status pages' views and the traced poll. The Scheduler implements it; the
// server takes this interface, never the Scheduler (it cannot start, stop or
// reconfigure polls), and test/static/architecture.test.ts keeps it so.
// Every read is of the last snapshots and lines: no I/O, except debugPoll.
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

  /** Every L1 of `l1s:` (the landing page links each), from the last polls. */
  l1s(): L1View[];

  /** One L1 by its subnet ID (/l1/<subnet>), or undefined. */
  l1(subnet: string): L1View | undefined;
}
