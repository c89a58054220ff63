// bench/heap-diff.mjs: what grew between two heap snapshots, by kind. Two real snapshots of Node.js processes that
// differ only in how many objects of one class they keep: the class's row says by how many, and the totals are the
// self sizes the snapshots hold.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs module without types (its JSDoc types are checked where bench/ is)
import * as tool from '../../bench/heap-diff.mjs';

interface Kind {
  count: number;
  bytes: number;
  newCount: number;
  newBytes: number;
}
interface Row {
  kind: string;
  countA: number;
  countB: number;
  count: number;
  bytes: number;
  newCount: number;
}
const { heapByKind, heapByOwner, diffKinds, idsOf } = tool as {
  heapByKind: (snapshot: unknown, known?: Set<unknown>) => Map<string, Kind>;
  heapByOwner: (snapshot: unknown, options?: { known?: Set<unknown>; external?: boolean }) => Map<string, Kind>;
  diffKinds: (a: Map<string, Kind>, b: Map<string, Kind>) => { totalA: number; totalB: number; rows: Row[] };
  idsOf: (snapshot: unknown) => Set<unknown>;
};

const dir = mkdtempSync(join(tmpdir(), 'heap-diff-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A snapshot of a Node.js process that keeps `n` objects of the class Kept, each with a string of its own. */
function snapshotKeeping(n: number): unknown {
  const file = join(dir, `keep-${n}.heapsnapshot`);
  const program = `
    class Kept { constructor(i) { this.i = i; this.text = 'kept object number ' + i; } }
    globalThis.kept = Array.from({ length: ${n} }, (_, i) => new Kept(i));
    require('node:v8').writeHeapSnapshot(process.argv[1]);`;
  execFileSync(process.execPath, ['-e', program, file], { timeout: 60_000 });
  return JSON.parse(readFileSync(file, 'utf8')) as unknown;
}

describe('heap-diff: two snapshots compared by kind', () => {
  it('counts the objects of a class in each snapshot, and the difference is the objects the second one kept more', () => {
    const a = heapByKind(snapshotKeeping(1_000));
    const b = heapByKind(snapshotKeeping(5_000));
    expect(a.get('object:Kept')?.count).toBe(1_000);
    expect(b.get('object:Kept')?.count).toBe(5_000);

    const d = diffKinds(a, b);
    const kept = d.rows.find((r) => r.kind === 'object:Kept');
    expect(kept).toMatchObject({ countA: 1_000, countB: 5_000, count: 4_000 });
    expect(kept?.bytes).toBeGreaterThan(4_000 * 16);
    // Of the objects by constructor, Kept grew the most; strings are one kind whatever their text.
    expect(d.rows.find((r) => r.kind.startsWith('object:'))?.kind).toBe('object:Kept');
    expect(d.rows.some((r) => r.kind.startsWith('string:'))).toBe(false);
    // The rows add up to the totals, and the totals to the difference in self sizes.
    const sum = (m: Map<string, Kind>) => [...m.values()].reduce((t, k) => t + k.bytes, 0);
    expect(d.totalA).toBe(sum(a));
    expect(d.totalB - d.totalA).toBe(d.rows.reduce((t, r) => t + r.bytes, 0));
    // The largest change in bytes first.
    const sizes = d.rows.map((r) => Math.abs(r.bytes));
    expect(sizes).toEqual([...sizes].sort((x, y) => y - x));
  });

  it('of one process, tells the objects made since the first snapshot from those it already had', () => {
    // One process, two snapshots: 1,000 objects kept before the first; then 500 of them dropped and 2,000 more kept.
    const [first, second] = [join(dir, 'one-a.heapsnapshot'), join(dir, 'one-b.heapsnapshot')];
    const program = `
      const v8 = require('node:v8');
      class Kept { constructor(i) { this.i = i; } }
      globalThis.kept = Array.from({ length: 1000 }, (_, i) => new Kept(i));
      v8.writeHeapSnapshot(process.argv[1]);
      globalThis.kept = globalThis.kept.slice(500).concat(Array.from({ length: 2000 }, (_, i) => new Kept(1000 + i)));
      v8.writeHeapSnapshot(process.argv[2]);`;
    execFileSync(process.execPath, ['-e', program, first, second], { timeout: 60_000 });
    const a = JSON.parse(readFileSync(first, 'utf8')) as unknown;
    const b = JSON.parse(readFileSync(second, 'utf8')) as unknown;
    const d = diffKinds(heapByKind(a), heapByKind(b, idsOf(a)));
    expect(d.rows.find((r) => r.kind === 'object:Kept')).toMatchObject({ countA: 1_000, countB: 2_500, count: 1_500, newCount: 2_000 });
    // Read without the first's ids, nothing is new.
    expect(heapByKind(b).get('object:Kept')?.newCount).toBe(0);
  });

  it('says which field a snapshot lacks, instead of counting nothing', () => {
    const snapshot = { snapshot: { meta: { node_fields: ['type', 'name', 'id'], node_types: [['object']] } }, nodes: [0, 0, 1], strings: [''] };
    expect(() => idsOf(snapshot)).toThrow(/no "self_size" field/);
    expect(() => heapByKind(snapshot)).toThrow(/no "self_size" field/);
  });

  it('by owner: gives each object to the instance of a class it hangs from, every byte once', () => {
    // A Holder keeps n plain objects in an array, each with a string of its own, and a buffer: all of it is the
    // Holder's `items` or `buffer`, however deep (the array, its elements' store, the objects, their strings).
    const snapshotHolding = (n: number): unknown => {
      const file = join(dir, `hold-${n}.heapsnapshot`);
      const program = `
        class Holder { constructor(n) { this.items = Array.from({ length: n }, (_, i) => ({ i, text: 'held object number ' + i })); this.buffer = Buffer.alloc(65536, 1); } }
        globalThis.holder = new Holder(${n});
        require('node:v8').writeHeapSnapshot(process.argv[1]);`;
      execFileSync(process.execPath, ['-e', program, file], { timeout: 60_000 });
      return JSON.parse(readFileSync(file, 'utf8')) as unknown;
    };
    const [small, large] = [snapshotHolding(1_000), snapshotHolding(5_000)];
    const a = heapByOwner(small);
    const b = heapByOwner(large);
    // The array, its elements' store, 5,000 objects and 5,000 strings.
    expect(b.get('Holder.items')?.count).toBeGreaterThanOrEqual(5_000 * 2 + 2);
    const d = diffKinds(a, b);
    expect(d.rows[0]?.kind).toBe('Holder.items');
    expect(d.rows[0]?.count).toBeGreaterThanOrEqual(4_000 * 2);
    expect(d.rows[0]?.bytes).toBeGreaterThan(4_000 * (16 + 24));
    // Plain objects own nothing: no row is named after them.
    expect([...b.keys()].some((k) => k.startsWith('Object.'))).toBe(false);
    // Every byte once: by owner and by kind add up to the same heap (the buffer's 64 KiB store, outside the V8 heap,
    // only when asked for).
    const sum = (m: Map<string, Kind>) => [...m.values()].reduce((t, k) => t + k.bytes, 0);
    const withExternal = heapByOwner(large, { external: true });
    expect(sum(withExternal)).toBe(sum(heapByKind(large)));
    expect(sum(withExternal) - sum(b)).toBeGreaterThanOrEqual(65_536);
    expect(withExternal.get('Holder.buffer')?.bytes).toBeGreaterThanOrEqual(65_536);
  });
});
