// The label table holds the label sets served now, not every set ever seen: a set no poll has used for a whole
// epoch goes at the next sweep (node IDs, chain and check names churn over months), and a block that still holds
// the id of a swept set is rebuilt, never updated under other labels.
import { describe, expect, it } from 'vitest';
import { LabelTable, LinesBuilder, MAX_LABEL_ID, MAX_LABEL_SETS, type LineBlock } from '../../src/metrics/render.js';
import { renderNodes } from '../../src/metrics/scrape.js';

/** One poll of a node: its info series (node ID and version as labels) and its checks. */
function poll(table: LabelTable, nodeId: string, checks: readonly string[], reuse?: LineBlock): LineBlock {
  const b = new LinesBuilder('n', undefined, table);
  b.add('avalanchego_node_info', 1, { node_id: nodeId, version: '1.14.2', network_id: '1' });
  for (const check of checks) b.add('avalanchego_health_check_passing', 1, { check });
  return b.build(reuse);
}

const text = (block: LineBlock) => renderNodes([[block]]).toString();

describe('LabelTable.sweep', () => {
  it('drops a set at the second sweep it was not used before, keeps the sets in use, and returns to its size exactly', () => {
    const table = new LabelTable();
    let block = poll(table, 'NodeID-A', ['C', 'P', 'X']);
    const baseline = table.size;
    expect(baseline.sets).toBe(4);

    // The node's ID changes, a chain is added: two sets the table has not seen.
    block = poll(table, 'NodeID-B', ['C', 'P', 'X', '2pv2rkqz'], block);
    expect(table.size.sets).toBe(6);
    // Back as it was; the sets of B are still held until no poll has used them for a whole epoch.
    block = poll(table, 'NodeID-A', ['C', 'P', 'X'], block);
    expect(table.sweep()).toBe(0);
    block = poll(table, 'NodeID-A', ['C', 'P', 'X'], block);
    expect(table.sweep()).toBe(2);
    expect(table.size).toEqual(baseline);
    // The sets in use were never dropped: the block is still updated in place.
    expect(poll(table, 'NodeID-A', ['C', 'P', 'X'], block)).toBe(block);
  });

  it('a thousand node IDs later, the table holds what is served now', () => {
    const table = new LabelTable();
    let block = poll(table, 'NodeID-0', ['C']);
    const baseline = table.size;
    for (let i = 1; i <= 1000; i++) {
      block = poll(table, `NodeID-${i}`, ['C', `chain-${i}`], block);
      if (i % 10 === 0) table.sweep();
    }
    block = poll(table, 'NodeID-0', ['C'], block);
    table.sweep();
    block = poll(table, 'NodeID-0', ['C'], block);
    table.sweep();
    expect(table.size).toEqual(baseline);
    expect(text(block)).toBe(text(poll(new LabelTable(), 'NodeID-0', ['C'])));
  });

  it("a block holding a swept set's id is rebuilt with the right labels, never updated under another set's text", () => {
    const table = new LabelTable();
    // A node whose polls are skipped (the exporter saturated) keeps its block while the sweeps drop its sets.
    const stale = poll(table, 'NodeID-A', ['C', 'P']);
    table.sweep();
    table.sweep();
    expect(table.size.sets).toBe(0);
    // Other nodes' sets are given ids meanwhile: none is an id the stale block holds.
    const other = poll(table, 'NodeID-Z', ['X', 'Y']);
    expect(text(other)).toContain('check="X"');
    const next = poll(table, 'NodeID-A', ['C', 'P'], stale);
    expect(text(next)).toBe(text(poll(new LabelTable(), 'NodeID-A', ['C', 'P'])));
  });

  it('when nearly every id has been given, a sweep starts a new generation; blocks of the old one are rebuilt', () => {
    // A table that has given ids up to near the last a series key can hold (about 33 million sets).
    const table = new LabelTable(MAX_LABEL_ID - 2);
    const block = poll(table, 'NodeID-A', ['C']);
    // Past the last id a set is not cached (its text built at each poll), and the lines stay right.
    const full = poll(table, 'NodeID-A', ['C', 'P', 'X', 'Y'], block);
    expect(text(full)).toBe(text(poll(new LabelTable(), 'NodeID-A', ['C', 'P', 'X', 'Y'])));
    const generation = table.generation;
    table.sweep();
    expect(table.generation).toBe(generation + 1);
    expect(table.size.sets).toBe(0);
    // Ids start again at 1: the old block's keys mean other sets now; it is rebuilt, not updated.
    const other = poll(table, 'NodeID-Q', ['Q1', 'Q2', 'Q3', 'Q4']);
    expect(text(other)).toContain('check="Q1"');
    const next = poll(table, 'NodeID-A', ['C', 'P', 'X', 'Y'], full);
    expect(text(next)).toBe(text(poll(new LabelTable(), 'NodeID-A', ['C', 'P', 'X', 'Y'])));
    expect(table.size.sets).toBe(10);
  });

  it(`holds at most MAX_LABEL_SETS (${MAX_LABEL_SETS}) sets at once: past it a set's text is built at each poll`, () => {
    const table = new LabelTable();
    const b = new LinesBuilder('n', undefined, table);
    for (let i = 0; i < MAX_LABEL_SETS + 500; i++) b.add('avalanchego_health_check_passing', 1, { check: `c${i}` });
    const block = b.build();
    expect(table.size.sets).toBe(MAX_LABEL_SETS);
    const lines = text(block).split('\n');
    expect(lines).toContain(`avalanchego_health_check_passing{node="n",check="c${MAX_LABEL_SETS + 499}"} 1`);
  });
});
