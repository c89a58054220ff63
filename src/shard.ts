// Horizontal sharding of the polling, the kube-state-metrics way: every replica loads the
// same configuration and polls only the targets it owns. Ownership is rendezvous (highest
// random weight) hashing of the target name: a function of the name and the shard count
// alone, so adding or removing a target moves no other target, and going from N to N+1
// shards moves only the targets the new shard wins (1/(N+1) of them on average, the least
// any scheme that balances the shards can move). kube-state-metrics takes a plain
// `hash % N`, which moves about N/(N+1) of the objects when N changes.

import { fmix32, nameHash } from './util/hash.js';

export interface ShardSpec {
  /** 0-based index of this replica. */
  readonly index: number;
  /** Number of shards the targets are split over (1 = no sharding). */
  readonly count: number;
}

export const NO_SHARDING: ShardSpec = { index: 0, count: 1 };

/** Highest accepted shard count: rendezvous hashing costs O(count) per target at load time. */
export const MAX_SHARD_COUNT = 1024;

/** The environment variable that `--shard.from-pod-name` reads the count from when no flag gives it. */
export const SHARD_COUNT_ENV = 'AVALANCHEGO_EXPORTER_SHARD_COUNT';

/** The shard (0..count-1) that owns a target name. Stable across processes, versions and reloads. */
export function shardOf(name: string, count: number): number {
  if (count <= 1) return 0;
  const [a, b] = nameHash(name);
  let best = 0;
  let bestWeight = -1;
  for (let shard = 0; shard < count; shard++) {
    // A 52-bit weight per (name, shard): ties between shards are practically impossible.
    const s = fmix32(Math.imul(shard + 1, 0x9e3779b9) ^ a);
    const weight = fmix32(s ^ b) * 2 ** 20 + (fmix32(s + b) >>> 12);
    if (weight > bestWeight) {
      bestWeight = weight;
      best = shard;
    }
  }
  return best;
}

export function owns(spec: ShardSpec, name: string): boolean {
  return spec.count <= 1 || shardOf(name, spec.count) === spec.index;
}

/** The ordinal at the end of a StatefulSet pod name (`exporter-3` → 3), or undefined. */
export function ordinalFromPodName(podName: string): number | undefined {
  const m = /-(0|[1-9]\d{0,5})$/.exec(podName.trim());
  return m ? Number(m[1]) : undefined;
}

export interface ShardFlags {
  count?: string | undefined;
  index?: string | undefined;
  fromPodName?: boolean | undefined;
}

export interface ShardEnvironment {
  /** The pod's name: $POD_NAME (downward API), else $HOSTNAME, else the host name (a StatefulSet pod's is its name). */
  podName: string | undefined;
  /** $AVALANCHEGO_EXPORTER_SHARD_COUNT, used by --shard.from-pod-name when --shard.count is absent. */
  countFromEnv: string | undefined;
}

export class ShardFlagError extends Error {}

function wholeNumber(text: string, flag: string, min: number, max: number): number {
  if (!/^\d{1,7}$/.test(text.trim())) throw new ShardFlagError(`${flag}="${text}" is not a whole number: write e.g. ${flag}=${min + 2}`);
  const n = Number(text.trim());
  if (n < min || n > max) throw new ShardFlagError(`${flag}=${n} is out of range: it takes ${min} to ${max}`);
  return n;
}

/**
 * The shard of this process from --shard.count, --shard.index and --shard.from-pod-name.
 * Throws ShardFlagError with what to write instead.
 */
export function resolveShard(flags: ShardFlags, env: ShardEnvironment): ShardSpec {
  const countText = flags.count ?? (flags.fromPodName ? env.countFromEnv : undefined);
  const countSource = flags.count !== undefined ? '--shard.count' : `$${SHARD_COUNT_ENV}`;
  if (flags.fromPodName && flags.index !== undefined) {
    throw new ShardFlagError('--shard.index and --shard.from-pod-name both set the shard index: give one of them');
  }
  if (countText === undefined) {
    if (flags.fromPodName) {
      throw new ShardFlagError(`--shard.from-pod-name needs the number of shards: give --shard.count=N or set $${SHARD_COUNT_ENV}`);
    }
    if (flags.index !== undefined) throw new ShardFlagError('--shard.index needs --shard.count=N (the number of shards)');
    return NO_SHARDING;
  }
  const count = wholeNumber(countText, countSource, 1, MAX_SHARD_COUNT);
  let index: number;
  if (flags.fromPodName) {
    const pod = env.podName;
    if (!pod)
      throw new ShardFlagError(
        '--shard.from-pod-name: no pod name found in $POD_NAME, $HOSTNAME or the host name; set POD_NAME from the downward API (metadata.name)',
      );
    const ordinal = ordinalFromPodName(pod);
    if (ordinal === undefined) {
      throw new ShardFlagError(
        `--shard.from-pod-name: the pod name "${pod.slice(0, 253)}" does not end in -<ordinal> as a StatefulSet pod's does (e.g. exporter-2)`,
      );
    }
    index = ordinal;
  } else {
    index = flags.index === undefined ? 0 : wholeNumber(flags.index, '--shard.index', 0, MAX_SHARD_COUNT - 1);
    if (flags.index === undefined && count > 1)
      throw new ShardFlagError(`--shard.count=${count} needs --shard.index=I (0 to ${count - 1}) or --shard.from-pod-name`);
  }
  if (index >= count) {
    throw new ShardFlagError(
      `shard index ${index} is not below the shard count ${count}: indexes run from 0 to ${count - 1} (is --shard.count the StatefulSet's replicas?)`,
    );
  }
  return { index, count };
}

/** Splits a configuration's targets: the ones this shard owns, and the owner of every configured name. */
export function splitTargets<T extends { name: string }>(
  spec: ShardSpec,
  targets: readonly T[],
): { owned: T[]; ownerOf: (name: string) => number | undefined } {
  if (spec.count <= 1) {
    const names = new Set(targets.map((t) => t.name));
    return { owned: [...targets], ownerOf: (name) => (names.has(name) ? 0 : undefined) };
  }
  const owners = new Map<string, number>();
  const owned: T[] = [];
  for (const t of targets) {
    const shard = shardOf(t.name, spec.count);
    owners.set(t.name, shard);
    if (shard === spec.index) owned.push(t);
  }
  return { owned, ownerOf: (name) => owners.get(name) };
}
