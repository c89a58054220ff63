// A source's lines are rewritten into the block of its last poll when they fit (LinesBuilder.build(reuse)):
// the bytes served are those of a fresh block, and a scrape under way copies each family whole.
import { describe, expect, it } from 'vitest';
import { LinesBuilder, renderChunks, renderNodes, type LineBlock } from '../../src/metrics/render.js';

function poll(node: string, height: number, checks: number, reuse?: LineBlock): LineBlock {
  const b = new LinesBuilder(node);
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
