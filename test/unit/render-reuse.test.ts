// A source's lines are rewritten into the block of its last poll when they fit (LinesBuilder.build(reuse)):
// the bytes served are those of a fresh block, and a scrape under way copies each family whole.
import { describe, expect, it } from 'vitest';
import { LabelTable, LinesBuilder, type LineBlock } from '../../src/metrics/render.js';
import { renderChunks, renderNodes } from '../../src/metrics/scrape.js';

/** One exporter's label table: a node's blocks are built with one (as NodeState does). */
const TABLE = new LabelTable();

function poll(node: string, height: number, checks: number, reuse?: LineBlock): LineBlock {
  const b = new LinesBuilder(node, undefined, TABLE);
  b.add('avalanchego_up', 1);
  for (let i = 0; i < checks; i++) b.add('avalanchego_health_check_passing', 1, { check: `check-${i}` });
  b.add('avalanchego_chain_last_accepted_height', height, { chain: 'C' });
  return b.build(reuse);
}

describe('line blocks reused by the next poll', () => {
  it('writes into the last block when the lines fit, and serves the same bytes as a fresh block', () => {
    const first = poll('a', 1000, 5);
    const again = poll('a', 1001, 5, first);
    expect(again).toBe(first);
    expect(renderNodes([[again]]).equals(renderNodes([[poll('a', 1001, 5)]]))).toBe(true);
    // Fewer lines: still the same block, and nothing of the longer text is left over.
    const fewer = poll('a', 7, 1, again);
    expect(fewer).toBe(first);
    expect(renderNodes([[fewer]]).toString()).toBe(renderNodes([[poll('a', 7, 1)]]).toString());
    expect(renderNodes([[fewer]]).toString()).not.toContain('check-4');
  });

  it('allocates a larger block when the lines outgrow it, with slack for small growth', () => {
    const small = poll('a', 1, 1);
    const bigger = poll('a', 1, 40, small);
    expect(bigger).not.toBe(small);
    expect(renderNodes([[bigger]]).equals(renderNodes([[poll('a', 1, 40)]]))).toBe(true);
    // One more digit in the height fits in the slack.
    expect(poll('a', 10, 40, bigger)).toBe(bigger);
  });

  it('a scrape under way copies each family whole when a poll rewrites a block between chunks', () => {
    const blocks = ['a', 'b', 'c'].map((n) => poll(n, 100, 10));
    const nodes = blocks.map((b) => [b]);
    const chunks: Buffer[] = [];
    let rewritten = false;
    for (const chunk of renderChunks(nodes, 64)) {
      chunks.push(Buffer.from(chunk));
      if (!rewritten) {
        // Node b's next poll ends after the first chunk: every family of b is now from that poll.
        const block = blocks[1];
        if (!block) throw new Error('no block for node b');
        expect(poll('b', 200, 10, block)).toBe(block);
        rewritten = true;
      }
    }
    const lines = Buffer.concat(chunks).toString().split('\n');
    expect(lines.filter((l) => l.startsWith('avalanchego_chain_last_accepted_height{node="b"'))).toEqual([
      'avalanchego_chain_last_accepted_height{node="b",chain="C"} 200',
    ]);
    // Every series of every node is there once: nothing lost, nothing torn.
    for (const n of ['a', 'b', 'c']) {
      expect(lines.filter((l) => l.startsWith(`avalanchego_health_check_passing{node="${n}"`))).toHaveLength(10);
      expect(lines.filter((l) => l.startsWith(`avalanchego_up{node="${n}"}`))).toEqual([`avalanchego_up{node="${n}"} 1`]);
    }
  });
});

/** A small deterministic generator (mulberry32), so a failure is reproducible. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('a block updated in place by polls with the same series', () => {
  // Values whose texts change length (0 ↔ 1764031156.123457 ↔ 1e-7 …) and the special ones.
  const values = [0, 1, 7, 12345, 1764031156.123457, 1764031156.5, 0.000012345, 1e-7, -3.5, 2 ** 53, NaN, Infinity, -Infinity, 0.1];
  function fresh(node: string, sample: (b: LinesBuilder) => void): string {
    const b = new LinesBuilder(node, undefined, TABLE);
    sample(b);
    return renderNodes([[b.build()]]).toString();
  }

  it('serves, after every poll, exactly the bytes of a block built afresh from that poll', () => {
    const next = random(42);
    const pick = (): number => values[Math.floor(next() * values.length)] ?? 0;
    let block: LineBlock | undefined;
    let sameBlockPolls = 0;
    for (let poll = 0; poll < 1000; poll++) {
      // Mostly the same series with new values; now and then a series more or less (a new layout).
      const checks = poll % 50 < 45 ? 6 : 7;
      const vs = Array.from({ length: checks * 3 + 2 }, pick);
      const sample = (b: LinesBuilder): void => {
        b.add('avalanchego_up', vs[0]);
        for (let i = 0; i < checks; i++) {
          const labels = { check: `check-${i}` };
          b.add('avalanchego_health_check_passing', vs[1 + i * 3], labels);
          b.add('avalanchego_health_check_duration_seconds', vs[2 + i * 3], labels);
          b.add('avalanchego_health_check_timestamp_seconds', vs[3 + i * 3], labels);
        }
        b.add('avalanchego_network_connected_peers', vs.at(-1));
      };
      const b = new LinesBuilder('node "ü"', undefined, TABLE);
      sample(b);
      const built = b.build(block);
      if (built === block) sameBlockPolls++;
      block = built;
      expect(renderNodes([[block]]).toString()).toBe(fresh('node "ü"', sample));
    }
    // The blocks were reused, not rebuilt every time (the slack absorbs most growth).
    expect(sameBlockPolls).toBeGreaterThan(750);
  });

  it('a value that no longer fits the buffer moves the lines to a larger block', () => {
    const sample = (v: number) => (b: LinesBuilder) => {
      for (let i = 0; i < 3; i++) b.add('avalanchego_health_check_passing', v, { check: `c${i}` });
    };
    const first = new LinesBuilder('n', undefined, TABLE);
    sample(0)(first);
    const small = first.build();
    const b = new LinesBuilder('n', undefined, TABLE);
    sample(-1.2345678901234e-300)(b);
    const big = b.build(small);
    expect(big).not.toBe(small);
    expect(renderNodes([[big]]).toString()).toBe(fresh('n', sample(-1.2345678901234e-300)));
    // The old block is left as it was, for a scrape that still holds it.
    expect(renderNodes([[small]]).toString()).toBe(fresh('n', sample(0)));
  });

  it('a label cut by the limits, or a changed label set, rebuilds the lines', () => {
    const long = 'x'.repeat(50);
    const sample = (check: string, v: number) => (b: LinesBuilder) => {
      b.add('avalanchego_health_check_passing', v, { check });
      b.add('avalanchego_health_check_passing', v, { check: `${check}-2` });
    };
    const limits = { maxSeries: 100, maxLabelLength: 10 };
    let block: LineBlock | undefined;
    for (const [check, v] of [
      [long, 1],
      [long, 0],
      ['short', 0],
      ['other', 12],
    ] as const) {
      const b = new LinesBuilder('n', limits, TABLE);
      sample(check, v)(b);
      block = b.build(block);
      const f = new LinesBuilder('n', limits);
      sample(check, v)(f);
      expect(renderNodes([[block]]).toString()).toBe(renderNodes([[f.build()]]).toString());
    }
    // The two cut labels are the same text: the second is dropped, as before.
    const b = new LinesBuilder('n', limits, TABLE);
    sample(long, 1)(b);
    expect(b.dropped).toBe(1);
  });
});

describe('label tables', () => {
  it("a block built with another exporter's label table is rebuilt, never updated with ids that mean other labels", () => {
    const mine = new LabelTable();
    const theirs = new LabelTable();
    // The same ids (1, 2) name different label sets in the two tables.
    const lines = (table: LabelTable, checks: string[], reuse?: LineBlock) => {
      const b = new LinesBuilder('n', undefined, table);
      for (const check of checks) b.add('avalanchego_health_check_passing', 1, { check });
      return b.build(reuse);
    };
    const block = lines(mine, ['a', 'b']);
    const next = lines(theirs, ['x', 'y'], block);
    expect(renderNodes([[next]]).toString()).toContain('check="x"');
    expect(renderNodes([[next]]).toString()).not.toContain('check="a"');
  });
});
