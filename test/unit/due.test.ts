// The poll timetable (src/scheduler/due.ts): one timer for every source loop, armed for the earliest.
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { DueQueue, type Due } from '../../src/scheduler/due.js';
import { waitFor } from '../helpers/fake-node.js';

function item(name: number, fired: Array<{ name: number; at: number; due: number }>, onFire?: (self: Due) => void): Due {
  const self: Due = {
    due: 0,
    slot: -1,
    fire: () => {
      fired.push({ name, at: performance.now(), due: self.due });
      onFire?.(self);
    },
  };
  return self;
}

describe('the poll timetable', () => {
  it('fires every queued item once, in the order they are due, not before it is due', async () => {
    const q = new DueQueue(0);
    const fired: Array<{ name: number; at: number; due: number }> = [];
    const delays = Array.from({ length: 300 }, (_, i) => (i * 37) % 60);
    const items = delays.map((d, i) => {
      const it = item(i, fired);
      q.add(it, d);
      return it;
    });
    await waitFor(() => fired.length === items.length, 'every item fired', 5000);
    expect(new Set(fired.map((f) => f.name)).size).toBe(items.length);
    for (let i = 1; i < fired.length; i++) expect(fired[i]?.due).toBeGreaterThanOrEqual(fired[i - 1]?.due ?? 0);
    // The timer's resolution is 1 ms: an item may start up to 1 ms before its due time, never more.
    for (const f of fired) expect(f.at).toBeGreaterThanOrEqual(f.due - 1);
    expect(q.size).toBe(0);
    expect(items.every((i) => i.slot === -1)).toBe(true);
  });

  it('an item removed (or moved) before it is due does not fire then', async () => {
    const q = new DueQueue(0);
    const fired: Array<{ name: number; at: number; due: number }> = [];
    const items = Array.from({ length: 100 }, (_, i) => item(i, fired));
    items.forEach((it, i) => q.add(it, 5 + (i % 10)));
    for (let i = 0; i < 100; i += 2) q.remove(items[i] as Due);
    // Moved later than everything else: fires last.
    q.add(items[1] as Due, 80);
    await waitFor(() => fired.length === 50, 'the items left fired', 5000);
    expect(fired.map((f) => f.name).filter((n) => n % 2 === 0)).toEqual([]);
    expect(fired.at(-1)?.name).toBe(1);
    q.remove(items[3] as Due); // not queued any more: nothing happens
    expect(q.size).toBe(0);
  });

  it('an item queued again while the due ones fire waits for the next run (no busy loop)', async () => {
    const q = new DueQueue();
    const fired: Array<{ name: number; at: number; due: number }> = [];
    let runs = 0;
    const again = item(1, fired, (self) => {
      if (++runs < 5) q.add(self, 0);
    });
    q.add(again, 0);
    await waitFor(() => runs === 5, 'five runs of the item queued again at once', 5000);
    expect(fired).toHaveLength(5);
    expect(q.size).toBe(0);
  });

  it('runs at most once a spacing: items due in between fire together, none before it is due', async () => {
    const spacing = 20;
    const q = new DueQueue(spacing);
    const fired: Array<{ name: number; at: number; due: number }> = [];
    // Due 1 ms apart over 100 ms: without the spacing, about a hundred runs.
    const items = Array.from({ length: 100 }, (_, i) => {
      const it = item(i, fired);
      q.add(it, i);
      return it;
    });
    await waitFor(() => fired.length === items.length, 'every item fired', 5000);
    for (const f of fired) expect(f.at).toBeGreaterThanOrEqual(f.due - 1);
    // A run fires its items in one synchronous pass (microseconds apart): a new run starts where the time
    // between two fires jumps. Without the spacing, items 1 ms apart would all count as one run.
    const runs: number[] = [];
    for (let i = 0; i < fired.length; i++) {
      const at = fired[i]?.at ?? 0;
      if (i === 0 || at - (fired[i - 1]?.at ?? 0) > spacing / 2) runs.push(at);
    }
    // Node's timers count whole milliseconds of the loop's cached time: a run may start up to 2 ms early by performance.now().
    for (let i = 1; i < runs.length; i++) expect((runs[i] ?? 0) - (runs[i - 1] ?? 0)).toBeGreaterThanOrEqual(spacing - 2);
    expect(runs.length).toBeLessThanOrEqual(Math.ceil(100 / (spacing - 1)) + 1);
    expect(runs.length).toBeGreaterThan(1);
  });
});
