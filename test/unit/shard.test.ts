import { describe, expect, it } from 'vitest';
import { NO_SHARDING, ShardFlagError, ordinalFromPodName, owns, resolveShard, shardOf, splitTargets, type ShardFlags } from '../../src/shard.js';
import { defined } from '../helpers/assert.js';

const names = (n: number, prefix = 'node-') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('shardOf (rendezvous hashing of the target name)', () => {
  it('is pinned: the owner of a name never changes between releases (a change here re-shards every fleet)', () => {
    expect([1, 2, 3, 4, 5].map((n) => shardOf('node-0', n))).toEqual([0, 0, 2, 2, 2]);
    expect(['validator-1', 'rpc-eu-7', 'fuji-archive', 'node-1234'].map((n) => shardOf(n, 7))).toEqual([4, 2, 4, 2]);
  });

  it('gives every name one shard in 0..N-1, and shard 0 when N is 1', () => {
    for (const n of [1, 2, 3, 10, 64]) {
      for (const name of names(200)) {
        const s = shardOf(name, n);
        expect(Number.isInteger(s) && s >= 0 && s < n).toBe(true);
      }
    }
    expect(shardOf('anything', 1)).toBe(0);
  });

  it.each([2, 3, 5, 8])('spreads 30,000 sequential names evenly over %i shards (each within 4 %% of its share)', (n) => {
    const counts = new Array<number>(n).fill(0);
    for (const name of names(30_000)) {
      const shard = shardOf(name, n);
      counts[shard] = defined(counts[shard], `the count of shard ${shard}`) + 1;
    }
    // Measured: at most 1.9 % off the even share (8 shards); 4 % leaves room without hiding a skew.
    for (const c of counts) expect(Math.abs((c / 30_000) * n - 1)).toBeLessThan(0.04);
  });

  it.each([1, 2, 3, 4, 7, 15])('going from %i to N+1 shards moves about 1/(N+1) of the targets, all of them to the new shard', (n) => {
    const all = names(20_000, 'host-');
    let moved = 0;
    for (const name of all) {
      const before = shardOf(name, n);
      const after = shardOf(name, n + 1);
      if (before !== after) {
        moved++;
        expect(after).toBe(n);
      }
    }
    expect(moved / all.length).toBeGreaterThan(1 / (n + 1) - 0.02);
    expect(moved / all.length).toBeLessThan(1 / (n + 1) + 0.02);
  });

  it('adding or removing targets moves no other target (ownership depends on the name only)', () => {
    const before = names(500);
    const after = [...before.slice(0, 250), ...names(100, 'new-'), ...before.slice(300)];
    const ownerBefore = splitTargets(
      { index: 0, count: 4 },
      before.map((name) => ({ name })),
    ).ownerOf;
    const ownerAfter = splitTargets(
      { index: 0, count: 4 },
      after.map((name) => ({ name })),
    ).ownerOf;
    for (const name of after) if (ownerBefore(name) !== undefined) expect(ownerAfter(name)).toBe(ownerBefore(name));
  });
});

describe('splitTargets', () => {
  it('gives each target to exactly one of N replicas', () => {
    const targets = names(1000).map((name) => ({ name }));
    const seen = new Map<string, number>();
    for (let index = 0; index < 3; index++) {
      const { owned, ownerOf } = splitTargets({ index, count: 3 }, targets);
      for (const t of owned) {
        expect(seen.has(t.name)).toBe(false);
        seen.set(t.name, index);
        expect(ownerOf(t.name)).toBe(index);
        expect(owns({ index, count: 3 }, t.name)).toBe(true);
      }
    }
    expect(seen.size).toBe(1000);
  });

  it('without sharding owns everything and knows only configured names', () => {
    const { owned, ownerOf } = splitTargets(NO_SHARDING, [{ name: 'a' }, { name: 'b' }]);
    expect(owned.map((t) => t.name)).toEqual(['a', 'b']);
    expect(ownerOf('a')).toBe(0);
    expect(ownerOf('zzz')).toBeUndefined();
  });
});

describe('ordinalFromPodName', () => {
  it.each([
    ['avalanchego-exporter-0', 0],
    ['release-avalanchego-exporter-3', 3],
    ['x-12', 12],
    ['exporter', undefined],
    ['exporter-', undefined],
    ['exporter-01', undefined],
    ['exporter-7f9c8d-abcde', undefined],
  ])('%s → %s', (pod, ordinal) => {
    expect(ordinalFromPodName(pod)).toBe(ordinal);
  });
});

describe('resolveShard (the flags)', () => {
  const env = { podName: 'exporter-2', countFromEnv: undefined };
  it.each<[string, ShardFlags, { podName?: string; countFromEnv?: string }, { index: number; count: number }]>([
    ['no flags: one shard', {}, {}, { index: 0, count: 1 }],
    ['--shard.count=1 alone', { count: '1' }, {}, { index: 0, count: 1 }],
    ['count and index', { count: '3', index: '2' }, {}, { index: 2, count: 3 }],
    ['from the pod name, count from the flag', { count: '4', fromPodName: true }, { podName: 'exporter-3' }, { index: 3, count: 4 }],
    ['from the pod name, count from the environment', { fromPodName: true }, { podName: 'exporter-1', countFromEnv: '2' }, { index: 1, count: 2 }],
    ['the flag wins over the environment', { count: '5', fromPodName: true }, { podName: 'exporter-4', countFromEnv: '2' }, { index: 4, count: 5 }],
  ])('%s', (_what, flags, e, expected) => {
    expect(resolveShard(flags, { ...env, podName: undefined, ...e })).toEqual(expected);
  });

  it.each<[ShardFlags, { podName?: string; countFromEnv?: string }, RegExp]>([
    [{ count: '3', index: '3' }, {}, /shard index 3 is not below the shard count 3: indexes run from 0 to 2/],
    [{ count: '0', index: '0' }, {}, /--shard.count=0 is out of range: it takes 1 to 1024/],
    [{ count: 'three', index: '0' }, {}, /--shard.count="three" is not a whole number/],
    [{ count: '3', index: '-1' }, {}, /--shard.index="-1" is not a whole number/],
    [{ count: '3' }, {}, /--shard.count=3 needs --shard.index=I \(0 to 2\) or --shard.from-pod-name/],
    [{ index: '1' }, {}, /--shard.index needs --shard.count=N/],
    [{ fromPodName: true }, { podName: 'exporter-1' }, /needs the number of shards: give --shard.count=N or set \$AVALANCHEGO_EXPORTER_SHARD_COUNT/],
    [{ fromPodName: true, count: '3', index: '1' }, { podName: 'exporter-1' }, /both set the shard index/],
    [{ fromPodName: true, count: '3' }, { podName: 'exporter-7f9c8d-abcde' }, /does not end in -<ordinal>/],
    [{ fromPodName: true, count: '3' }, { podName: 'exporter-5' }, /shard index 5 is not below the shard count 3/],
    [{ fromPodName: true, count: '3' }, {}, /no pod name found/],
    [{ fromPodName: true }, { podName: 'exporter-1', countFromEnv: 'x' }, /\$AVALANCHEGO_EXPORTER_SHARD_COUNT="x" is not a whole number/],
  ])('refuses %j %j', (flags, e, message) => {
    expect(() => resolveShard(flags, { podName: undefined, countFromEnv: undefined, ...e })).toThrow(ShardFlagError);
    expect(() => resolveShard(flags, { podName: undefined, countFromEnv: undefined, ...e })).toThrow(message);
  });
});
