// A reload leaves nothing of what it removed, and nothing the nodes churned stays once they are back: after
// targets removed, added and renamed, a TLS setting rotated, a node ID changed, a chain added and a debug probe of
// a target that went, the config and the nodes return to where they were, and every keyed count the exporter keeps
// (GET /-/debug/state) and the series it serves come back to their baseline exactly (bench/soak.mjs, in small).
// In-process, on loopback: a simulator with a port per node (each node its own origin, as in a real fleet).
import { describe, expect, it } from 'vitest';
import { L1_CHAIN, L1_SUBNET_ID, startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { parseConfigText } from '../../src/sources/registry.js';
import type { DebugState } from '../../src/server/debug-state.js';
import { defined } from '../helpers/assert.js';
import { waitFor } from '../helpers/fake-node.js';
import { closeAfterEach, startTestExporter, type TestExporter } from '../helpers/exporter.js';

let exporter: TestExporter | undefined;
let sim: RunningSimulator | undefined;
closeAfterEach(
  () => [exporter, sim],
  () => (exporter = sim = undefined),
);

const INTERVAL = 1000;
const SLOW = 2000;
/** A round of polls: every source of every target polled once (the exporter sweeps after each). */
const ROUND = SLOW;

/** The node the TLS target asks (plain HTTP: its handshakes fail): a node no other target has. */
const TLS_NODE = 7;

/** Targets: name → simulator node index; the TLS target's rotation. */
function configText(s: RunningSimulator, targets: ReadonlyArray<[string, number]>, rotation: number): string {
  const url = (i: number) => defined(s.nodes[i], `node ${i}`).baseUrl;
  return `
defaults:
  interval: ${INTERVAL}ms
  timeout: 800ms
  index: { endpoints: [C/block] }
  info: { interval: ${SLOW}ms }
  platform: { interval: ${SLOW}ms, subnets: [${L1_SUBNET_ID}] }
  evm: { chains: [C, ${L1_CHAIN.chainId}] }
  proposervm: { interval: ${SLOW}ms, chains: [${L1_CHAIN.chainId}] }
  admin: { enabled: true, interval: ${SLOW}ms }
  chain_info: { interval: ${SLOW}ms }
targets:
${targets.map(([name, i]) => `  - { name: ${name}, url: '${url(i)}' }\n`).join('')}  - { name: tls, url: '${url(TLS_NODE).replace('http:', 'https:')}', tls: { server_name: rotation-${rotation}.example } }
`;
}

/** The counts that must be back exactly, less what the poll error counters hold (counters of kept targets stay). */
async function exact(ex: TestExporter): Promise<Record<string, number>> {
  const res = await fetch(`${ex.url}/-/debug/state`);
  const d = (await res.json()) as DebugState;
  const text = await ex.metrics();
  const nodeLines = text.split('\n').filter((l) => /^[a-z_]+\{node="/.test(l));
  const errors = nodeLines.filter((l) => l.startsWith('avalanchego_exporter_poll_errors_total{'));
  const pairs = new Set(errors.map((l) => /source="[^"]*",reason="[^"]*"/.exec(l)?.[0]));
  return {
    series: nodeLines.length - errors.length,
    targets: d.state.targets,
    sources: d.state.nodes.sources,
    lineBlocks: d.state.nodes.lineBlocks,
    remembered: d.state.nodes.remembered,
    preparedCalls: d.state.nodes.preparedCalls,
    requestBodies: d.state.requestBodies,
    labelSets: d.state.labelTable.sets - pairs.size,
    agents: d.state.dispatchers.agents,
    origins: d.state.dispatchers.origins,
    orphanedLoops: d.state.timetable.orphaned,
    debugTraces: d.server.debugTraces.entries,
  };
}

describe('after churn, the original config and nodes again', () => {
  it('every keyed count and the series return to their baseline exactly', async () => {
    const s = (sim = await startSimulator({ nodes: 8, portPerNode: true, trackL1: true, timeScale: 60, checkFrequencyMs: 100 }));
    const original: Array<[string, number]> = [0, 1, 2, 3, 4].map((i) => [`n${i}`, i]);
    let text = configText(s, original, 0);
    const ex = (exporter = await startTestExporter(text, {
      level: 'warn',
      exporter: { debugState: true, loadConfig: () => parseConfigText(text, 'test.yaml', {}) },
    }));
    // The baseline: two readings a round apart that agree, every source of every node polled.
    let baseline: Record<string, number> = {};
    await waitFor(
      async () => {
        const first = await exact(ex);
        await new Promise((r) => setTimeout(r, ROUND));
        baseline = await exact(ex);
        return baseline.lineBlocks === baseline.sources && JSON.stringify(first) === JSON.stringify(baseline);
      },
      'a steady baseline',
      60_000,
    );
    expect(baseline).toMatchObject({ targets: 6, agents: 2, origins: 6, orphanedLoops: 0, debugTraces: 0 });

    // Churn: n3 and n4 removed, n5 and n6 added, n2 renamed, the TLS target's certificate rotated (twice), a debug
    // probe of n3 before it goes, n1's node ID changed, a chain added on n0, n2's L1 validation removed.
    expect((await fetch(`${ex.url}/probe?target=n3&debug=true`)).status).toBe(200);
    s.setScenario('node-1', 'node-id-changed');
    s.setScenario('node-0', 'chain-added');
    s.setScenario('node-2', 'l1-validator-removed');
    for (const [targets, rotation] of [
      [
        [
          ['n0', 0],
          ['n1', 1],
          ['n2-renamed', 2],
          ['n5', 5],
          ['n6', 6],
        ],
        1,
      ],
      [
        [
          ['n0', 0],
          ['n1', 1],
          ['n2-renamed', 2],
          ['n6', 6],
        ],
        2,
      ],
    ] as Array<[Array<[string, number]>, number]>) {
      text = configText(s, targets, rotation);
      await ex.reload();
      await new Promise((r) => setTimeout(r, 2 * ROUND));
    }
    const churned = await exact(ex);
    expect(churned.labelSets).toBeGreaterThan(defined(baseline.labelSets, 'label sets'));

    // Back: the original targets, every node healthy. Within a few sweeps every count is at its baseline.
    for (const n of ['node-0', 'node-1', 'node-2']) s.setScenario(n, 'healthy');
    text = configText(s, original, 0);
    await ex.reload();
    let now: Record<string, number> = {};
    try {
      await waitFor(
        async () => {
          now = await exact(ex);
          return JSON.stringify(now) === JSON.stringify(baseline);
        },
        'every count back at its baseline',
        10 * ROUND + 10_000,
      );
    } catch {
      // The counts that did not come back, in the failure.
      expect(now).toEqual(baseline);
    }
  }, 150_000);
});
