// The JavaScript heap's growth between full collections. V8's own growing factor
// (dynamic, up to 4×) lets the old generation grow to several times the live
// state before a full collection reclaims what polls leave behind. A fixed,
// smaller factor trades more full collections for a resident size closer to the
// live state. Measured on the 2-core development machine (bench/RESULTS.md),
// when every poll still replaced a node's snapshots and lines: at 4,000 nodes,
// 40 % took RSS from 446 to 265 MiB at the same CPU a request; at 10,000 nodes
// from 736 to 463 MiB, but at 1.4 × the CPU (23 full collections in 40 s instead
// of 3). So V8's own factor stays the default, and this is the knob for
// memory-bound deployments. Where short-lived objects are allocated is not a
// knob: allocation-site pretenuring is always off (disablePretenuring).
import { setFlagsFromString } from 'node:v8';

/** The default of --runtime.heap-growing-percent. */
export const DEFAULT_HEAP_GROWING_PERCENT = 0;

/**
 * Sets V8's heap growing factor to 1 + percent/100 (its --heap-growing-percent, a whole number ≥ 0 as the
 * flag's check in main.ts guarantees), read at every full collection; 0 leaves V8's dynamic factor. Call
 * once, before the fleet's state is built.
 */
export function setHeapGrowingPercent(percent: number): void {
  setFlagsFromString(`--heap-growing-percent=${percent}`);
}

/**
 * Turns V8's allocation-site pretenuring off. V8 watches where objects are allocated and, when most of a site's
 * objects outlive a young-generation collection, allocates that site's objects in the old generation from then
 * on. A polling fleet misleads it: the objects of one request (undici's header buffers, the body's string, the
 * parsed answer, a poll's AbortSignal) die within milliseconds, yet they are what full collections reclaim
 * (a sampled heap profile at 4,000 nodes: 194 MB in 30 s, led by exactly those), so they reach the old
 * generation. With pretenuring on, 200 MB was promoted in 40 s at 4,000 nodes; off, 57 MB in 66 s, and RSS
 * fell by a quarter or more at the same CPU (bench/RESULTS.md). Call once, before the fleet's state is built.
 */
export function disablePretenuring(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
