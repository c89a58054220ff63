// The node_metrics source (src/sources/node-metrics.ts) end to end: the exporter reads the simulator's
// realistic /ext/metrics of each release shape (off by default), serves the stable series under the same
// names on every release, a metrics API that is off is a state said once (not a failed poll), and a
// counter the node sets back at a restart is passed through.
import { describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator, type ScenarioName } from '../../src/simulator/index.js';
import { closeAfterEach, sample, startTestExporter, waitForPolls, type TestExporter } from '../helpers/exporter.js';
import { startFakeNode, waitFor, type FakeNode } from '../helpers/fake-node.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';
import { defined } from '../helpers/assert.js';

let exporter: TestExporter | undefined;
let sim: RunningSimulator | undefined;
let fake: FakeNode | undefined;
closeAfterEach(
  () => [exporter, sim, fake],
  () => (exporter = sim = fake = undefined),
);

const config = (url: string, nodeMetrics: string) =>
  `defaults:\n  interval: 1s\n  timeout: 500ms\n  index: { endpoints: [] }\n  info: { enabled: false }\n  platform: { enabled: false }\n  chain_info: { enabled: false }\n  evm: { enabled: false }\n  proposervm: { enabled: false }\n${nodeMetrics}targets:\n  - name: n\n    url: ${url}\n`;
const ON = '  node_metrics: { enabled: true, interval: 1s }\n';

describe('node_metrics source', () => {
  it('is off by default: /ext/metrics is never asked', async () => {
    fake = await startFakeNode({ '/ext/health': { fixture: 'health/healthy-v1.14.2.json' } });
    exporter = await startTestExporter(config(fake.url, ''));
    await waitForPolls(exporter);
    expect(fake.requests.some((r) => r.path === '/ext/metrics')).toBe(false);
    expect(await exporter.metrics()).not.toContain('avalanchego_consensus_polls_total{');
  });

  it.each<[ScenarioName, string]>([
    ['old-version', 'v1.10'],
    ['version-behind', 'v1.13'],
    ['healthy', 'v1.14'],
    ['helicon-uptime', 'v1.15'],
  ])('%s (%s): the same stable series', async (scenario) => {
    sim = await startSimulator({ scenario });
    exporter = await startTestExporter(config(defined(sim.nodes[0], 'node-0').baseUrl, ON));
    await waitForPolls(exporter);
    const text = await exporter.metrics();
    expect(sample(text, 'avalanchego_exporter_poll_success{node="n",source="node_metrics"}')).toBe(1);
    for (const chain of ['C', 'P', 'X'])
      for (const result of ['successful', 'failed'])
        expect(sample(text, `avalanchego_consensus_polls_total{node="n",chain="${chain}",result="${result}"}`)).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'avalanchego_consensus_polls_total{node="n",chain="C",result="successful"}')).toBeGreaterThan(1000);
    // Bad blocks: the C-Chain's coreth counter until v1.14; v1.15.0's SAE serves none (absent, never 0).
    expect(sample(text, 'avalanchego_chain_bad_blocks_total{node="n",chain="C"}')).toBe(scenario === 'helicon-uptime' ? undefined : 0);
    expect(text).not.toContain('avalanchego_chain_bad_blocks_total{node="n",chain="P"}');
    expect(promtoolCheckMetrics(text)).toEqual([]);
  });

  it('the metrics API off (HTTP 404): a state said once, the poll succeeds, no series', async () => {
    sim = await startSimulator({ metrics: false });
    exporter = await startTestExporter(config(defined(sim.nodes[0], 'node-0').baseUrl, ON));
    await waitForPolls(exporter, 3);
    const text = await exporter.metrics();
    expect(sample(text, 'avalanchego_exporter_poll_success{node="n",source="node_metrics"}')).toBe(1);
    expect(text).not.toContain('avalanchego_consensus_polls_total{');
    expect(exporter.logs.filter((l) => typeof l.msg === 'string' && l.msg.includes('/ext/metrics answers HTTP 404'))).toHaveLength(1);
    const page = await exporter.metrics('/node/n');
    expect(page).toContain('--api-metrics-enabled=false');
  });

  it('a node restart sets the counters back: passed through as the node counts', async () => {
    sim = await startSimulator({ scenario: 'healthy' });
    exporter = await startTestExporter(config(defined(sim.nodes[0], 'node-0').baseUrl, ON));
    const polls = async () =>
      sample(await defined(exporter, 'exporter').metrics(), 'avalanchego_consensus_polls_total{node="n",chain="C",result="successful"}');
    const before = await waitFor(polls, 'the first poll count');
    // A different binary: the node restarts, its counters from 0.
    sim.setScenario('node-0', 'helicon-uptime');
    const after = await waitFor(async () => {
      const v = await polls();
      return v !== undefined && v < before ? v : undefined;
    }, 'the count set back');
    expect(after).toBeLessThan(1000);
  });

  it('a body that is not the text format fails the poll (invalid_response), with the line', async () => {
    fake = await startFakeNode({
      '/ext/health': { fixture: 'health/healthy-v1.14.2.json' },
      '/ext/metrics': { body: 'avalanche_snowman_polls_failed{chain="C"} lots\n', contentType: 'text/plain' },
    });
    exporter = await startTestExporter(config(fake.url, ON));
    await waitForPolls(exporter);
    const text = await exporter.metrics();
    expect(sample(text, 'avalanchego_exporter_poll_success{node="n",source="node_metrics"}')).toBe(0);
    expect(sample(text, 'avalanchego_exporter_poll_errors_total{node="n",source="node_metrics",reason="invalid_response"}')).toBe(1);
    // Asked as a GET of the text format: no JSON-RPC body.
    const asked = defined(
      fake.requests.find((r) => r.path === '/ext/metrics'),
      'the request',
    );
    expect(asked.body).toBe('');
    expect(asked.headers.accept).toBe('text/plain;version=0.0.4');
  });
});
