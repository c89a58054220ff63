// Hashes of names that must be stable across processes, versions and reloads:
// the shard that owns a target (shard.ts) and where in its interval a target's
// first poll falls (scheduler/scheduler.ts). Plain 32-bit integer arithmetic,
// no crypto: the inputs are the operator's own target names.

/** murmur3's 32-bit finalizer: every input bit reaches every output bit. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * Two independent 32-bit hashes of the name's UTF-16 code units (FNV-1a with
 * two bases, finalized). The first alone is FNV-1a with the murmur3 finalizer:
 * fleets use sequential names, which FNV alone spreads unevenly.
 */
export function nameHash(name: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return [fmix32(a), fmix32(b ^ name.length)];
}
