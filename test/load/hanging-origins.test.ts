// A node's own hanging requests never make its polls look like the exporter's
// saturation, and a target whose polls are skipped does not hold readiness back
// (issue 29), at sizes that fit CI; bench/own-load.mjs --case=hang --origins=4
// --sources=shipped runs the full size (1,000 hanging nodes). Each row: hanging
// nodes on one origin or several, with the shipped or the minimal sources, at a
// short or a long interval, beside nodes that answer.
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { startTestExporter, sample, type TestExporter } from '../helpers/exporter.js';
import { waitFor } from '../helpers/fake-node.js';
import { startGateway, type Gateway, type GatewayBehaviour } from '../helpers/gateway.js';
import { get } from '../helpers/https.js';

const started: Array<{ close(): Promise<void> }> = [];
let exporter: TestExporter | undefined;
afterEach(async () => {
  await exporter?.close();
  exporter = undefined;
  for (const s of started.splice(0)) await s.close();
});

async function simulator(...args: Parameters<typeof startSimulator>): Promise<RunningSimulator> {
  const sim = await startSimulator(...args);
  started.push(sim);
  return sim;
}

const MINIMAL =
  '  index: { endpoints: [] }\n  info: { enabled: false }\n  platform: { enabled: false }\n  chain_info: { enabled: false }\n  evm: { enabled: false }\n  proposervm: { enabled: false }\n';
const targetLines = (targets: Array<[string, string]>) => targets.map(([name, url]) => `  - { name: ${name}, url: '${url}' }\n`).join('');

/** The sources that failed with reason timeout for `node`. */
function timeouts(metrics: string, node: string): string[] {
  return metrics
    .split('\n')
    .filter((l) => l.startsWith(`avalanchego_exporter_poll_errors_total{node="${node}",`) && l.includes('reason="timeout"') && !l.endsWith(' 0'))
    .map((l) => /source="([^"]*)"/.exec(l)?.[1] ?? '?');
}

/** Poll errors of `node`, by series (non-zero only). */
function errorsOf(metrics: string, node: string): string[] {
  return metrics.split('\n').filter((l) => l.startsWith(`avalanchego_exporter_poll_errors_total{node="${node}",`) && !l.endsWith(' 0'));
}

/** Waits until every node in `names` is shown down with its health poll failed as `timeout`; returns the metrics. */
async function allDownWithTimeouts(running: TestExporter, names: string[], within: number): Promise<string> {
  return waitFor(
    async () => {
      const m = await running.metrics();
      return names.every((n) => sample(m, `avalanchego_up{node="${n}"}`) === 0 && timeouts(m, n).includes('health')) && m;
    },
    `${names.length} hanging node(s) shown down with reason timeout`,
    within,
  );
}

async function ready(running: TestExporter, within: number): Promise<void> {
  await waitFor(async () => (await get(`${running.url}/-/ready`)).status === 200, '/-/ready 200', within);
}

describe("hanging nodes fail as their own timeouts, never as the exporter's saturation", () => {
  it('one gateway origin with 35 nodes answering badly (endless bodies, gzip bombs, malformed JSON-RPC), 3 of them hanging (never answering, a byte every 150 ms, endless headers), interval 1 s, timeout 700 ms, shipped sources, beside 60 nodes on another origin', async () => {
    const nodes: Record<string, GatewayBehaviour> = { silent: 'silent', trickle: 'trickle', headers: 'headers' };
    for (let i = 0; i < 11; i++) nodes[`huge-${i}`] = 'huge';
    for (let i = 0; i < 11; i++) nodes[`bomb-${i}`] = 'bomb';
    for (let i = 0; i < 10; i++) nodes[`malformed-${i}`] = 'malformed';
    const gateway: Gateway = await startGateway(nodes);
    started.push(gateway);
    const sim = await simulator({ nodes: 60, validator: false });
    const targets: Array<[string, string]> = [
      ...Object.keys(nodes).map((n): [string, string] => [n, `${gateway.url}/${n}`]),
      ...sim.nodes.map((n): [string, string] => [n.name, n.baseUrl]),
    ];
    // The shipped sources, the slow ones every 5 s (their first polls, which readiness waits for, end within that).
    exporter = await startTestExporter(
      `defaults:\n  interval: 1s\n  timeout: 700ms\n  info: { interval: 5s }\n  platform: { interval: 5s }\n  proposervm: { interval: 5s }\n  chain_info: { interval: 5s }\ntargets:\n${targetLines(targets)}`,
      { level: 'info' },
    );
    const running = exporter;
    const hanging = ['silent', 'trickle', 'headers'];
    // Before: for 9 s and more, only "poll skipped ... (saturated)": no timeout, no avalanchego_up 0, no poll duration.
    const metrics = await allDownWithTimeouts(running, hanging, 30_000);
    for (const n of hanging) expect(sample(metrics, `avalanchego_exporter_poll_duration_seconds{node="${n}",source="health"}`), n).toBeGreaterThan(0);
    // And they go on failing as timeouts, poll after poll (every second).
    const before = Object.fromEntries(
      hanging.map((n) => [n, sample(metrics, `avalanchego_exporter_poll_errors_total{node="${n}",source="health",reason="timeout"}`) ?? 0]),
    );
    await waitFor(
      async () => {
        const m = await running.metrics();
        return hanging.every(
          (n) => (sample(m, `avalanchego_exporter_poll_errors_total{node="${n}",source="health",reason="timeout"}`) ?? 0) >= (before[n] ?? 0) + 2,
        );
      },
      'two more health timeouts of each hanging node',
      20_000,
    );
    // Before: /-/ready stayed 503, the hanging targets never having completed a first poll.
    await ready(running, 30_000);
  }, 120_000);

  it.each([
    // The second case, scaled: 1,000 nodes over several origins with 512 slots, here 200 with 100.
    {
      name: '200 hanging nodes over 4 origins, shipped sources, interval 2 s',
      origins: 4,
      hanging: 200,
      interval: '2s',
      timeout: '1500ms',
      sources: '',
      slots: 100,
    },
    {
      name: '10 hanging nodes each on its own origin, minimal sources, interval 10 s',
      origins: 10,
      hanging: 10,
      interval: '10s',
      timeout: '2s',
      sources: MINIMAL,
      slots: 512,
    },
  ])(
    '$name, beside one healthy node on its own origin: the healthy node is shown up and stays up, every hanging node fails with reason timeout',
    async (c) => {
      const hanging: Array<[string, string]> = [];
      if (c.origins === c.hanging) {
        const sim = await simulator({ nodes: c.hanging, scenario: 'down', timings: { downMode: 'hang' }, validator: false, portPerNode: true });
        for (const n of sim.nodes) hanging.push([`hang-${n.name}`, n.baseUrl]);
      } else {
        for (let o = 0; o < c.origins; o++) {
          const sim = await simulator({ nodes: c.hanging / c.origins, scenario: 'down', timings: { downMode: 'hang' }, validator: false });
          for (const n of sim.nodes) hanging.push([`hang-${o}-${n.name}`, n.baseUrl]);
        }
      }
      expect(new Set(hanging.map(([, url]) => new URL(url).origin)).size).toBe(c.origins);
      const healthy = await simulator({ nodes: 1, validator: false });
      exporter = await startTestExporter(
        `scheduler: { max_concurrent_requests: ${c.slots} }\ndefaults:\n  interval: ${c.interval}\n  timeout: ${c.timeout}\n${c.sources}targets:\n${targetLines([['healthy', healthy.nodes[0]?.baseUrl ?? ''], ...hanging])}`,
        { level: 'info' },
      );
      const running = exporter;
      // Before: after 35 s the healthy node had 4 timeouts and no avalanchego_up; the hanging ones were skipped as saturated.
      await waitFor(async () => sample(await running.metrics(), 'avalanchego_up{node="healthy"}') === 1, 'the healthy node shown up', 30_000);
      await allDownWithTimeouts(
        running,
        hanging.map(([n]) => n),
        60_000,
      );
      const seen: number[] = [];
      for (let i = 0; i < 8; i++) {
        seen.push(sample(await running.metrics(), 'avalanchego_up{node="healthy"}') ?? -1);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(seen.filter((up) => up !== 1)).toEqual([]);
      expect(errorsOf(await running.metrics(), 'healthy')).toEqual([]);
      await ready(running, 90_000);
    },
    240_000,
  );
});
