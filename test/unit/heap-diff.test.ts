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
}
interface Row {
  kind: string;
  countA: number;
  countB: number;
  count: number;
  bytes: number;
}
const { heapByKind, diffKinds } = tool as {
  heapByKind: (snapshot: unknown) => Map<string, Kind>;
  diffKinds: (a: Map<string, Kind>, b: Map<string, Kind>) => { totalA: number; totalB: number; rows: Row[] };
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

  it('says which field a snapshot lacks, instead of counting nothing', () => {
    const snapshot = { snapshot: { meta: { node_fields: ['type', 'name', 'id'], node_types: [['object']] } }, nodes: [0, 0, 1], strings: [''] };
    expect(() => heapByKind(snapshot)).toThrow(/no "self_size" field/);
  });
});
