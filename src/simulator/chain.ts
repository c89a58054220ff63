// Chains and their indexes, computed from time instead of stored: a node's
// height is a function of the scenario clock, and every container is derived
// from (index, position), so thousands of nodes cost no memory per block.

import type { SimClock } from './clock.js';
import { PRIMARY_NETWORK_ID, cb58Encode, sha256 } from './ids.js';

export type ChainAlias = 'C' | 'P' | 'X';

export interface ChainSpec {
  /** The primary alias, which names the chain's health check (the chain ID when it has none). */
  alias: string;
  /** Mainnet blockchain ID. */
  chainId: string;
  /** Every alias the chain manager gives the chain, in registration order. */
  aliases: string[];
  /** Network height when the simulator starts. */
  baseHeight: number;
  /** Scenario-clock milliseconds between accepted blocks. */
  blockIntervalMs: number;
}

export const CHAINS: Record<ChainAlias, ChainSpec> = {
  C: {
    alias: 'C',
    chainId: '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5',
    aliases: ['C', 'evm'],
    baseHeight: 72_418_653,
    blockIntervalMs: 2_000,
  },
  P: {
    alias: 'P',
    chainId: PRIMARY_NETWORK_ID,
    aliases: ['P', 'platform'],
    baseHeight: 24_819_733,
    blockIntervalMs: 5_000,
  },
  X: {
    alias: 'X',
    chainId: '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM',
    aliases: ['X', 'avm'],
    baseHeight: 1_316_275,
    blockIntervalMs: 10_000,
  },
};

export const CHAIN_ORDER: ChainAlias[] = ['C', 'P', 'X'];

/**
 * An L1 a node may track: a subnet-evm chain with no alias, so its health
 * check is keyed by its chain ID and tagged with its subnet ID.
 */
export const L1_SUBNET_ID = cb58Encode(sha256('simulated-l1-subnet'));
export const L1_CHAIN: ChainSpec = {
  alias: cb58Encode(sha256('simulated-l1-chain')),
  chainId: cb58Encode(sha256('simulated-l1-chain')),
  aliases: [],
  baseHeight: 1_204_331,
  blockIntervalMs: 1_000,
};

/** How many vertices X/vtx holds: frozen since Cortina. */
export const VTX_COUNT = 480_213;
/** X/tx holds this many transactions per X block. */
export const TXS_PER_X_BLOCK = 2;

interface CatchUp {
  /** Heights in (from, to] were accepted at once, at wallNs. */
  from: number;
  to: number;
  wallNs: bigint;
}

/** One node's view of one chain. */
export class NodeChain {
  /** Scenario time from which the height stops growing (a stall), or null. */
  private frozenSinceMs: number | null = null;
  private readonly catchUps: CatchUp[] = [];

  constructor(
    readonly spec: ChainSpec,
    private readonly clock: SimClock,
    /** How far this node trails the network, in scenario milliseconds. */
    private readonly lagMs: number,
    /** Containers up to this height were indexed while bootstrapping… */
    private readonly bootHeight: number,
    /** …and carry this wall-clock time. */
    private readonly bootWallNs: bigint,
  ) {}

  private networkHeight(simMs: number): number {
    return this.spec.baseHeight + Math.floor(simMs / this.spec.blockIntervalMs);
  }

  height(simMs = this.clock.simMs()): number {
    const t = this.frozenSinceMs === null ? simMs : Math.min(simMs, this.frozenSinceMs);
    return this.networkHeight(t - this.lagMs);
  }

  get frozenSince(): number | null {
    return this.frozenSinceMs;
  }

  /** Stops accepting blocks from scenario time `atMs` (may be in the future). */
  freeze(atMs: number): void {
    this.resume();
    this.frozenSinceMs = atMs;
  }

  /** Accepts again; blocks missed while frozen are accepted now, at once. */
  resume(): void {
    if (this.frozenSinceMs === null) return;
    const now = this.clock.simMs();
    const frozenHeight = this.height(now);
    this.frozenSinceMs = null;
    const current = this.height(now);
    if (current > frozenHeight) {
      this.catchUps.push({ from: frozenHeight, to: current, wallNs: this.clock.nowNs() });
      // A long run of scenario switches must not grow memory without bound.
      if (this.catchUps.length > 64) this.catchUps.shift();
    }
  }

  /** Wall-clock time at which this node accepted the block at `height`. */
  acceptedAtNs(height: number): bigint {
    if (height <= this.bootHeight) return this.bootWallNs;
    for (const c of this.catchUps) {
      if (height > c.from && height <= c.to) return c.wallNs;
    }
    const simMs = (height - this.spec.baseHeight) * this.spec.blockIntervalMs + this.lagMs;
    // A few hundred microseconds of per-block jitter, below the block interval.
    return this.clock.wallNsAt(simMs) + BigInt(((height % 1_000_003) * 7_919) % 999_983);
  }

  private lastId: { height: number; id: string } | undefined;

  lastAcceptedId(simMs?: number): string {
    const height = this.height(simMs);
    // Health ticks ask far more often than blocks arrive.
    if (this.lastId?.height !== height) this.lastId = { height, id: containerId(`${this.spec.alias}/block`, height - 1) };
    return this.lastId.id;
  }
}

export type IndexName = 'C/block' | 'P/block' | 'X/block' | 'X/tx' | 'X/vtx';
export const INDEX_NAMES: IndexName[] = ['C/block', 'P/block', 'X/block', 'X/tx', 'X/vtx'];

export interface Container {
  id: string;
  bytes: Buffer;
  wallNs: bigint;
  index: number;
}

/**
 * A node's index of one chain's containers (indexer/index.go), derived from
 * its chain. Containers are numbered network-wide by a sequence number (a
 * block's is its height - 1); a node's index holds those accepted since
 * indexing began at `firstSeq`, so position = seq - firstSeq.
 */
export class ChainIndex {
  private readonly mask: bigint;

  constructor(
    readonly name: IndexName,
    private readonly chain: NodeChain,
    private readonly vtxWallNs: bigint,
    /** 0 for a complete index; the sequence number reached when indexing was turned on otherwise. */
    readonly firstSeq: number,
  ) {
    this.mask = maskOf(name);
  }

  /** Sequence numbers accepted so far on this node (the next one to be used). */
  private acceptedSeqs(simMs?: number): number {
    if (this.name === 'X/vtx') return VTX_COUNT;
    const h = this.chain.height(simMs);
    return this.name === 'X/tx' ? h * TXS_PER_X_BLOCK : h;
  }

  /** Number of containers in the index. */
  count(simMs?: number): number {
    return Math.max(0, this.acceptedSeqs(simMs) - this.firstSeq);
  }

  /** The container at `index`; the caller checks the bound. */
  at(index: number): Container {
    const seq = this.firstSeq + index;
    const id = containerIdBytes(this.name, seq, this.mask);
    const body = sha256(`body:${this.name}:${seq}`);
    const parent = seq > 0 ? containerIdBytes(this.name, seq - 1, this.mask) : Buffer.alloc(32);
    const position = Buffer.alloc(8);
    position.writeBigUInt64BE(BigInt(seq + 1));
    // Variable-length bodies, like real blocks and transactions.
    const bytes = Buffer.concat([parent, position, ...new Array<Buffer>(1 + (body.readUInt8(0) % 3)).fill(body)]);
    return { id: cb58Encode(id), bytes, wallNs: this.acceptedAtNs(seq), index };
  }

  private acceptedAtNs(seq: number): bigint {
    if (this.name === 'X/vtx') return this.vtxWallNs;
    const height = this.name === 'X/tx' ? Math.floor(seq / TXS_PER_X_BLOCK) + 1 : seq + 1;
    return this.chain.acceptedAtNs(height);
  }

  /** The position of a container ID in this index, if accepted. */
  indexOf(id: Buffer, simMs?: number): number | undefined {
    const candidate = id.readBigUInt64BE(20) ^ this.mask;
    if (candidate < BigInt(this.firstSeq) || candidate >= BigInt(this.acceptedSeqs(simMs))) return undefined;
    const seq = Number(candidate);
    return containerIdBytes(this.name, seq, this.mask).equals(id) ? seq - this.firstSeq : undefined;
  }
}

/**
 * A container ID that encodes its sequence number (XOR-masked) so that a lookup
 * by ID needs no table; the rest is hash, so IDs look random and never collide
 * across indexes. IDs are identical on every node, as on a real network.
 */
function containerIdBytes(name: string, seq: number, mask: bigint): Buffer {
  const h = sha256(`id:${name}:${seq}`);
  const out = Buffer.alloc(32);
  h.copy(out, 0, 0, 20);
  out.writeBigUInt64BE(BigInt(seq) ^ mask, 20);
  h.copy(out, 28, 28, 32);
  return out;
}

const masks = new Map<string, bigint>();

/** The per-index XOR mask hiding sequence numbers in IDs. */
function maskOf(name: string): bigint {
  let mask = masks.get(name);
  if (mask === undefined) masks.set(name, (mask = sha256(`mask:${name}`).readBigUInt64BE(0)));
  return mask;
}

export function containerId(name: string, seq: number): string {
  return cb58Encode(containerIdBytes(name, seq, maskOf(name)));
}
