// The node_metrics source on the /ext/metrics bodies recorded from real nodes of each release the
// real-node suite builds (test/fixtures/node-metrics/, RECORD=node-metrics): the stable series come out
// of every release's names (chain in the name on v1.10, in a label later), with the live values recorded.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { NodeMetricsParser, parseNodeMetrics, type ChainMetrics } from '../../src/sources/node-metrics.js';

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

  it('the whole v1.14.2 body (4,000 series of 1,380 families) gives what its kept families alone give, in chunks of any size', () => {
    // The parser passes over the lines of families it leaves out by a few bytes of their names: nothing kept is missed.
    const whole = gunzipSync(readFileSync(new URL('../fixtures/node-metrics/v1.14.2/local-network-full.prom.gz', import.meta.url)));
    const kept = parseNodeMetrics(body('v1.14.2', 'local-network'));
    expect(kept.length).toBeGreaterThanOrEqual(4);
    const sorted = (chains: ChainMetrics[]) => [...chains].sort((a, b) => a.chain.localeCompare(b.chain));
    expect(sorted(parseNodeMetrics(whole))).toEqual(sorted(kept));
    for (const size of [1, 7, 100, 4096, 65536]) {
      const parser = new NodeMetricsParser();
      for (let i = 0; i < whole.length; i += size) parser.write(whole.subarray(i, i + size));
      expect(sorted(parser.end()), `chunks of ${size} bytes`).toEqual(sorted(kept));
    }
  });

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
