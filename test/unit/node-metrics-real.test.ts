// The node_metrics source on the /ext/metrics bodies recorded from real nodes of each release the
// real-node suite builds (test/fixtures/node-metrics/, RECORD=node-metrics): the stable series come out
// of every release's names (chain in the name on v1.10, in a label later), with the live values recorded.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseNodeMetrics } from '../../src/sources/node-metrics.js';

const body = (release: string, profile: string) => readFileSync(new URL(`../fixtures/node-metrics/${release}/${profile}.prom`, import.meta.url));

describe('the stable series from real nodes of every release', () => {
  it.each(['v1.10.19', 'v1.11.13', 'v1.12.2', 'v1.13.5', 'v1.14.2'])(
    '%s: polls of C counted, of P served, and C has its bad-block counter',
    (release) => {
      // A single node polls C (its transactions) on every release; P counted 42 on v1.10 and 0 (served, not absent) later.
      const chains = new Map(parseNodeMetrics(body(release, 'single-node')).map((c) => [c.chain, c]));
      const c = chains.get('C');
      expect(c?.pollsSuccessful, `C's successful polls on ${release}`).toBeGreaterThan(0);
      expect(c?.pollsFailed, `C's failed polls on ${release}`).toBeGreaterThanOrEqual(0);
      expect(c?.badBlocks).toBe(0);
      expect(chains.get('P')?.pollsSuccessful, `P's successful polls on ${release}`).toBeGreaterThanOrEqual(0);
    },
  );

  it("v1.14.2 L1 validator: the Subnet-EVM chain's bad blocks and polls under its blockchain ID", () => {
    const meta = JSON.parse(readFileSync(new URL('../fixtures/node-metrics/v1.14.2/local-network.json', import.meta.url), 'utf8')) as Record<
      string,
      unknown
    >;
    const chains = parseNodeMetrics(body('v1.14.2', 'local-network'));
    const l1 = chains.filter((c) => !['C', 'P', 'X'].includes(c.chain));
    expect(l1.length, JSON.stringify(meta).slice(0, 300)).toBeGreaterThan(0);
    expect(l1.some((c) => c.badBlocks === 0)).toBe(true);
    expect(l1.some((c) => (c.pollsSuccessful ?? 0) > 0)).toBe(true);
  });
});
