// The whole pipeline: fixture answers served on loopback → exporter polls →
// /metrics, compared with a checked-in golden file; promtool lints the output.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeNode } from '../helpers/fake-node.js';
import { promtoolFindings } from '../helpers/promtool.js';
import { prometheusGenerations } from '../helpers/monitoring.js';
import { defined } from '../helpers/assert.js';
import { IN_CI } from '../rules/lib.js';
import { nodeSeries, sample, startTestExporter, waitForPolls, type TestExporter } from '../helpers/exporter.js';

const GOLDEN = 'test/golden/metrics.prom';
const FIXED_NOW_MS = 1_795_184_110_000;

let exporter: TestExporter;
/** What beforeAll started, stopped last-started first (also when beforeAll failed midway). */
const started: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  const healthy = await startFakeNode({
    '/ext/health': { fixture: 'health/healthy-v1.14.2.json', headers: { 'node-id': 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg' } },
    '/ext/index/C/block': { fixture: 'index/getLastAccepted-C-block.json' },
    '/ext/index/P/block': { fixture: 'index/getLastAccepted-P-block.json' },
    '/ext/index/X/block': { fixture: 'index/empty-index.json' },
    // Executed = accepted (51234567, the C check's lastAcceptedHeight): a node before Helicon.
    '/ext/bc/C/rpc': { fixture: 'evm/eth_blockNumber-C.json' },
  });
  started.push(healthy);
  // Indexing off on this one: every index path is 404.
  const degraded = await startFakeNode({
    '/ext/health': { fixture: 'health/degraded-v1.14.2.json' },
    '/ext/bc/C/rpc': { fixture: 'evm/eth_blockNumber-C.json' },
  });
  started.push(degraded);
  exporter = await startTestExporter(
    `
defaults:
  interval: 1s
  timeout: 500ms
  index:
    endpoints: [C/block, P/block, X/block]
  # The health, index and evm pipeline (the info, platform and chain_info sources have their own tests).
  info:
    enabled: false
  platform:
    enabled: false
  chain_info:
    enabled: false
targets:
  - name: healthy-node
    url: ${healthy.url}
  - name: degraded-node
    url: ${degraded.url}
`,
    { clock: { now: () => FIXED_NOW_MS } },
  );
  started.push(exporter);
  await waitForPolls(exporter);
});

afterAll(async () => {
  for (const s of started.reverse()) await s.close();
});

/** Node series with the poll durations (wall-clock) zeroed. */
function normalized(text: string): string {
  return text.replace(/^(avalanchego_exporter_poll_duration_seconds\{[^}]*\}) .*$/gm, '$1 0');
}

describe('golden /metrics', () => {
  it('matches test/golden/metrics.prom', () => {
    const nodes = normalized(nodeSeries(exporter.scheduler));
    if (process.env.UPDATE_GOLDEN === '1') writeFileSync(GOLDEN, nodes);
    expect(existsSync(GOLDEN), `${GOLDEN} is missing: run UPDATE_GOLDEN=1 npx vitest run test/e2e/golden.test.ts and review it`).toBe(true);
    expect(nodes).toBe(readFileSync(GOLDEN, 'utf8'));
  });

  it('serves the node series, the exporter series and the process metrics on /metrics', async () => {
    const text = await exporter.metrics();
    expect(text).toContain(nodeSeries(exporter.scheduler).split('\n')[0]);
    expect(sample(text, 'avalanchego_exporter_targets')).toBe(2);
    expect(text).toMatch(/^avalanchego_exporter_build_info\{version="[^"]+",revision="[^"]+",nodejs_version="v\d+/m);
    expect(text).toContain('process_cpu_seconds_total');
    expect(text).not.toMatch(/^nodejs_active_handles_total/m);
  });

  it('/probe serves one node only', async () => {
    const text = await exporter.metrics('/probe?target=degraded-node');
    expect(sample(text, 'avalanchego_up{node="degraded-node"}')).toBe(1);
    expect(text).not.toContain('healthy-node');
    expect(text).not.toContain('process_cpu');
  });

  // Both promtool generations, no finding accepted (issue 24: the shard gauge is
  // avalanchego_exporter_shards, not a `_count` name that promtool reserves for histograms).
  describe.each(prometheusGenerations().map((g) => [g.label, g] as const))('promtool check metrics (%s)', (_label, g) => {
    it('is installed (required under CI=true)', (ctx) => {
      if (!g.promtool.path && !IN_CI) ctx.skip(g.promtool.missing);
      expect(g.promtool.missing).toBe('');
    });

    it.skipIf(!g.promtool.path)('has no finding on /metrics', async () => {
      expect(promtoolFindings(defined(g.promtool.path, 'promtool'), await exporter.metrics())).toEqual([]);
    });

    it.skipIf(!g.promtool.path)('finds a gauge named like a summary part (the check can fail)', () => {
      const findings = promtoolFindings(defined(g.promtool.path, 'promtool'), '# HELP x_count A gauge.\n# TYPE x_count gauge\nx_count 1\n');
      expect(findings.join('\n')).toContain('x_count non-histogram and non-summary metrics should not have "_count" suffix');
    });
  });
});
