// The exporter's own load is never a node's fault, at a size that fits CI
// (issue 21's full sizes are measured by hand, see the issue's note): a scrape
// storm and a fleet of hanging nodes must cause no false timeouts and never
// show a healthy node down. Bounded in time; asserts counts, not speed.
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { startTestExporter, waitForPolls, sample, type TestExporter } from '../helpers/exporter.js';
import { startFakeNode, waitFor, type FakeNode } from '../helpers/fake-node.js';
import { get } from '../helpers/https.js';

let exporter: TestExporter | undefined;
let sim: RunningSimulator | undefined;
let node: FakeNode | undefined;
afterEach(async () => {
  await exporter?.close();
  await sim?.close();
  await node?.close();
  exporter = sim = node = undefined;
});

/** Poll errors of the nodes named, by series (non-zero only). */
function errorsOf(metrics: string, nodes: (name: string) => boolean): string[] {
  return metrics
    .split('\n')
    .filter((l) => l.startsWith('avalanchego_exporter_poll_errors_total{') && !l.endsWith(' 0'))
    .filter((l) => nodes(/node="([^"]*)"/.exec(l)?.[1] ?? ''));
}

describe("the exporter's own load is never a node's fault", () => {
  it('scrape storm: 300 nodes polled every 2 s while 20 clients scrape /metrics back to back for 8 s: no false timeouts, every node up', async () => {
    sim = await startSimulator({ nodes: 300, validator: false });
    const targets = sim.nodes.map((n) => `  - name: ${n.name}\n    url: ${n.baseUrl}\n`).join('');
    exporter = await startTestExporter(
      `defaults:\n  interval: 2s\n  timeout: 1s\n  index: { endpoints: [] }\n  info: { enabled: false }\n  platform: { enabled: false }\n  chain_info: { enabled: false }\n  evm: { enabled: false }\n  proposervm: { enabled: false }\ntargets:\n${targets}`,
      { level: 'info' },
    );
    await waitForPolls(exporter, 1, 30_000);
    const url = exporter.url;
    const until = Date.now() + 8_000;
    let scrapes = 0;
    let refused = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (Date.now() < until) {
          const r = await get(`${url}/metrics`, { timeoutMs: 20_000 });
          if (r.status === 200) scrapes++;
          else if (r.status === 503) refused++;
          else throw new Error(`/metrics answered ${r.status}`);
        }
      }),
    );
    expect(scrapes).toBeGreaterThan(20);
    expect(refused).toBe(0);
    const metrics = await exporter.metrics();
    expect(errorsOf(metrics, () => true)).toEqual([]);
    for (const n of sim.nodes) expect(sample(metrics, `avalanchego_up{node="${n.name}"}`), n.name).toBe(1);
    expect(exporter.logs.filter((l) => l.msg === 'poll failed')).toEqual([]);
  });

  it('hanging fleet: 200 nodes that accept and never answer beside one healthy node (interval 2 s, timeout 1.5 s, 64 request slots): the healthy node never times out and stays up', async () => {
    sim = await startSimulator({ nodes: 200, scenario: 'down', timings: { downMode: 'hang' }, validator: false });
    node = await startFakeNode({ '/ext/health': { fixture: 'health/healthy-v1.14.2.json' } });
    const targets = sim.nodes.map((n) => `  - name: ${n.name}\n    url: ${n.baseUrl}\n`).join('');
    exporter = await startTestExporter(
      `scheduler: { max_concurrent_requests: 64 }\ndefaults:\n  interval: 2s\n  timeout: 1500ms\n  index: { endpoints: [] }\n  info: { enabled: false }\n  platform: { enabled: false }\n  chain_info: { enabled: false }\n  evm: { enabled: false }\n  proposervm: { enabled: false }\ntargets:\n  - name: healthy\n    url: ${node.url}\n${targets}`,
      { level: 'info' },
    );
    // The healthy node's first poll; then watch it for 12 s while the hanging nodes hold what they may.
    const running = exporter;
    await waitFor(() => running.scheduler.summaries().find((s) => s.name === 'healthy')?.polls, 'the healthy node polled', 30_000);
    const until = Date.now() + 12_000;
    const seen: number[] = [];
    while (Date.now() < until) {
      seen.push(sample(await exporter.metrics(), 'avalanchego_up{node="healthy"}') ?? -1);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(seen.filter((up) => up !== 1)).toEqual([]);
    const metrics = await exporter.metrics();
    expect(errorsOf(metrics, (name) => name === 'healthy')).toEqual([]);
    // Polled all along (six polls in 12 s; one may be skipped while the process is saturated).
    expect(node.requests.length).toBeGreaterThanOrEqual(5);
    // The hanging nodes time out (their own fault) or are skipped (the exporter's load); none shows up.
    for (const n of sim.nodes) expect(sample(metrics, `avalanchego_up{node="${n.name}"}`), n.name).not.toBe(1);
    expect(errorsOf(metrics, (name) => name !== 'healthy').length).toBeGreaterThan(0);
  }, 90_000);

  it('hanging gateway: 100 nodes behind one origin that accepts and never answers, with the info and platform sources on (their polls wait up to 30 s and 1 min for a slot), beside one healthy node: the healthy node is polled and shown up at once', async () => {
    // The hanging origin gets 16 connections and the process 32 request slots. Requests queued for the origin's
    // sockets must not hold the process's slots; else the slow sources' waiters hold all 32 and the healthy node,
    // on its own origin, is never polled (measured at full size: shown only after 215 s).
    sim = await startSimulator({ nodes: 100, scenario: 'down', timings: { downMode: 'hang' }, validator: false });
    node = await startFakeNode({ '/ext/health': { fixture: 'health/healthy-v1.14.2.json' } });
    const targets = sim.nodes.map((n) => `  - name: ${n.name}\n    url: ${n.baseUrl}\n`).join('');
    exporter = await startTestExporter(
      `scheduler: { max_concurrent_requests: 32, max_connections_per_origin: 16 }\ndefaults:\n  interval: 2s\n  timeout: 1500ms\n  index: { endpoints: [] }\n  evm: { enabled: false }\n  proposervm: { enabled: false }\ntargets:\n${targets}  - name: healthy\n    url: ${node.url}\n    info: { enabled: false }\n    platform: { enabled: false }\n    chain_info: { enabled: false }\n`,
      { level: 'info' },
    );
    const running = exporter;
    // The hanging nodes' first polls are under way (their slow sources' requests queued) before the healthy node's.
    await waitFor(() => (running.scheduler.requestsInFlight >= 16 ? true : undefined), 'the hanging origin holds its connections', 20_000);
    await waitFor(
      async () => (sample(await running.metrics(), 'avalanchego_up{node="healthy"}') === 1 ? true : undefined),
      'the healthy node shown up',
      15_000,
    );
    // And it stays polled: health polls every 2 s keep coming while the gateway hangs.
    const before = node.requests.length;
    await waitFor(() => (node && node.requests.length >= before + 3 ? true : undefined), 'three more polls of the healthy node', 15_000);
    expect(errorsOf(await exporter.metrics(), (name) => name === 'healthy')).toEqual([]);
  }, 90_000);
});
