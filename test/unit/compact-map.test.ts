// A Map whose keys churn keeps its hash table at the churn's high-water mark (V8 reclaims deleted entries only when it
// rebuilds the table, and rebuilds it twice as large unless half of it is deleted); compactMap sizes it for what it
// holds. The label table's texts, its trie's levels, the scheduler's pollers and the admission's origins are such Maps
// (issue 35's soak).
import { describe, expect, it } from 'vitest';
import { fullCollection } from '../../src/server/debug-state.js';
import { compactMap } from '../../src/util/compact-map.js';
import { LabelTable } from '../../src/metrics/render.js';

const gc = fullCollection();

function heapAfterCollection(): number {
  gc();
  return process.memoryUsage().heapUsed;
}

describe('compactMap', () => {
  it('keeps the same Map with the same entries in the same order', () => {
    const map = new Map<string, number>(Array.from({ length: 1000 }, (_, i) => [`k${i}`, i]));
    for (let i = 0; i < 1000; i += 3) map.delete(`k${i}`);
    const before = [...map];
    const same = map;
    compactMap(map);
    expect(map).toBe(same);
    expect([...map]).toEqual(before);
    map.set('new', -1);
    expect([...map.keys()].at(-1)).toBe('new');
  });

  it('gives back the table a churned Map kept: a churn of 40 % on 100,000 entries doubles it; compacted, half of it is freed', () => {
    const map = new Map<number, number>();
    for (let i = 0; i < 100_000; i++) map.set(i, i);
    // Delete the oldest 40 % and insert as many: the holes and the entries fill the table, which V8 doubles.
    for (let i = 0; i < 40_000; i++) {
      map.delete(i);
      map.set(100_000 + i, i);
    }
    const churned = heapAfterCollection();
    compactMap(map);
    const compacted = heapAfterCollection();
    expect(map.size).toBe(100_000);
    // A table for 262,144 entries is about 7 MiB on 64 bits, one for 131,072 about 3.5 MiB.
    expect(churned - compacted).toBeGreaterThan(2 * 2 ** 20);
  });

  it("the label table's sweep compacts its texts: after a churn its heap is that of a table of the same sets made at once", () => {
    const labels = (i: number) => ({ node: `node-${i}`, chain: `chain-${i % 7}` });
    const fresh = (from: number) => {
      const t = new LabelTable();
      for (let i = from; i < from + 20_000; i++) t.id(labels(i), undefined);
      t.sweep();
      return t;
    };
    const base = heapAfterCollection();
    const once = fresh(50_000);
    const made = heapAfterCollection() - base;
    // Churn another table to the same 20,000 sets: each epoch replaces 4,000 of them.
    const churned = fresh(0);
    for (let epoch = 1; epoch <= 10; epoch++) {
      for (let i = epoch * 4_000; i < epoch * 4_000 + 20_000; i++) churned.id(labels(i), undefined);
      churned.sweep();
    }
    const both = heapAfterCollection() - base;
    expect(churned.size.sets).toBe(once.size.sets);
    // Within 5 % of the table made at once (without the compaction, its texts Map and the level of node names in its trie
    // keep tables sized for the churn's peak: 11 % more, 2026-11-27).
    expect(both - made).toBeLessThan(made * 1.05);
  });
});
