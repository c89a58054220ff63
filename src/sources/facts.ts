// What a source offers the sources that use it (Source.uses, Source.offers), by
// the offering source's name. The shapes are here, not in the offering source's
// module, because no source imports another, not even for a type
// (test/static/architecture.test.ts).
import type { RpcReply } from '../rpc/client.js';

/** The info source's: the node's identity (info.getNodeID) and its Helicon time (info.upgrades). */
export interface NodeIdentity {
  /** Absent when the node's release has no info.getNodeID. */
  nodeId?: string;
  /** `nodePOP.publicKey`, lower-case hex; absent when the node has no BLS key or a version without it. */
  blsPublicKey?: string;
  /**
   * `heliconTime` of info.upgrades (Unix seconds); null when the node's release has none (no key, no
   * info.upgrades); undefined when unknown (info.upgrades failed).
   */
  heliconSeconds?: number | null;
}

/**
 * The health source's: whether the node's health API answers at the target's URL. A 404 there (its answer
 * kept) says the URL is not a node's base URL.
 */
export type HealthApi = { found: true } | { found: false; reply: RpcReply };

export interface Facts {
  info: NodeIdentity;
  health: HealthApi;
}
