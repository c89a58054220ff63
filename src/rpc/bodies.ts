// The bodies of the JSON-RPC requests, made once and shared by the nodes that send them (rpc/client.ts
// NodeClient sends them; the Scheduler turns them over each round so that bodies no node sends go).
import { AgingMap } from '../util/aging-map.js';

const MAX_SHARED_BODIES = 10_000;

/**
 * The bodies of JSON-RPC requests, one per path, method and params, shared by every node of one exporter
 * sent that request (its id is echoed by each node; nothing needs it unique across nodes): a fleet of
 * thousands holds a handful of bodies, not one a node and method. Bounded: past the cap a body is made per
 * node. One per exporter (its Scheduler's), so two exporters in a process share none.
 */
export class RequestBodies {
  /** Params name a node ID (platform.getCurrentValidators): a body no node sent for a whole turn goes (turn()). */
  private readonly bodies = new AgingMap<string, { id: number; body: Buffer }>();
  private nextId = 1;

  get size(): number {
    return this.bodies.size;
  }

  /** Drops the bodies no request used since the last turn (the Scheduler's sweep). */
  turn(): void {
    this.bodies.turn();
  }

  /** A node sent its request for `key` again: the shared body stays (or is shared again) while some node sends it. */
  keep(key: string, shared: { id: number; body: Buffer }): void {
    if (this.bodies.get(key) === undefined && this.bodies.size < MAX_SHARED_BODIES) this.bodies.set(key, shared);
  }

  /** The body for `key` (path, method and params), made on its first use. */
  get(key: string, method: string, paramsJson: string): { id: number; body: Buffer } {
    let shared = this.bodies.get(key);
    if (!shared) {
      const id = this.nextId++;
      shared = { id, body: Buffer.from(`{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${paramsJson}}`) };
      if (this.bodies.size < MAX_SHARED_BODIES) this.bodies.set(key, shared);
    }
    return shared;
  }
}
