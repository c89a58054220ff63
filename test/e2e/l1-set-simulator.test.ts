// The L1 set against the simulator on loopback: node-0 validates the L1, its balance draining; node-1 tracks it too, and
// node-2 is in l1-validator-stopped. The exporter finds the L1's chain and name with platform.getBlockchains, reads the
// set once and each vantage's view from the chain's validators API (subnet-evm's encoding), sees the drained validator
// go inactive in the set-wide series, and the stopped one disconnected from both vantages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { L1_CHAIN, L1_SUBNET_ID, otherL1Validators, startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { defined } from '../helpers/assert.js';
import { waitFor } from '../helpers/fake-node.js';
import { sample, startTestExporter, type TestExporter } from '../helpers/exporter.js';

const SEED = 'l1-set-simulator';
let simulator: RunningSimulator | undefined;
let exporter: TestExporter | undefined;

beforeAll(async () => {
  simulator = await startSimulator({
    nodes: 3,
    scenario: (i) => (i === 0 ? 'l1-balance-draining' : i === 2 ? 'l1-validator-stopped' : 'healthy'),
    timeScale: 60,
    checkFrequencyMs: 200,
    trackL1: (i) => i < 2,
    l1Validator: (i) => i === 0,
    seed: SEED,
    timings: { l1DrainSeconds: 60 },
  });
  exporter = await startTestExporter(`
defaults:
  interval: 2s
  timeout: 1500ms
  index: { endpoints: [] }
targets:
${simulator.nodes.map((n, i) => `  - name: n${i}\n    url: ${n.baseUrl}\n${i < 2 ? `    platform: { subnets: [${L1_SUBNET_ID}] }\n` : ''}`).join('')}l1s:
  - subnet: ${L1_SUBNET_ID}
    interval: 2s
`);
}, 30_000);

afterAll(async () => {
  await exporter?.close();
  await simulator?.close();
});

describe('the L1 set against the simulator', () => {
  it("reads the set once, each vantage's view, the chain's name; the drained validator goes inactive", async () => {
    const e = defined(exporter, 'the exporter');
    const own = defined(simulator?.nodes[0], 'node-0').nodeId;
    await waitFor(() => (e.scheduler.l1(L1_SUBNET_ID)?.polls ?? 0) >= 1, 'a poll of the L1', 20_000);
    const view = defined(e.scheduler.l1(L1_SUBNET_ID), 'the L1');
    expect(view.vantages).toEqual(['n0', 'n1']);
    expect(view.name).toBe('simulated-l1');
    expect(view.snapshot?.chain?.id).toBe(L1_CHAIN.chainId);
    expect(view.snapshot?.vantages.map((v) => v.error ?? v.state)).toEqual(['ok', 'ok']);
    // The fleet's one L1 validator and four of other operators, the same set from either vantage.
    expect(view.snapshot?.validators).toHaveLength(5);
    let text = await e.metrics();
    expect(
      sample(
        text,
        `avalanchego_chain_info{subnet="${L1_SUBNET_ID}",node="n0",chain="${L1_CHAIN.chainId}",name="simulated-l1",blockchain_id="${L1_CHAIN.chainId}"}`,
      ),
    ).toBe(1);
    // The join key: the node's health check names the L1 chain by its ID, as chain_info's `chain` does.
    expect(sample(text, `avalanchego_chain_connected_stake_ratio{node="n0",chain="${L1_CHAIN.chainId}"}`)).toBeGreaterThan(0);
    const validation = defined(
      view.snapshot?.validators.find((m) => m.nodeId === own),
      "node-0's validation",
    ).validationId;
    const series = (name: string, node?: string) =>
      `${name}{subnet="${L1_SUBNET_ID}",${node ? `node="${node}",` : ''}validation_id="${validation}",validator_node_id="${own}"}`;
    // Another operator's validator stopped (l1-validator-stopped): disconnected for both vantages, still active.
    const stopped = defined(
      view.snapshot?.validators.find((m) => m.nodeId === otherL1Validators(SEED, 0n)[0]?.nodeId),
      'the stopped validator',
    );
    for (const node of ['n0', 'n1']) {
      expect(
        sample(
          text,
          `avalanchego_l1_set_validator_connected{subnet="${L1_SUBNET_ID}",node="${node}",validation_id="${stopped.validationId}",validator_node_id="${stopped.nodeId}"}`,
        ),
      ).toBe(0);
    }
    expect(
      sample(
        text,
        `avalanchego_l1_set_validator_active{subnet="${L1_SUBNET_ID}",validation_id="${stopped.validationId}",validator_node_id="${stopped.nodeId}"}`,
      ),
    ).toBe(1);
    // The balance drains within 60 scenario seconds (1 s at 60×): inactive, runway 0, seen by every vantage's poll of the set.
    await waitFor(
      async () => {
        text = await e.metrics();
        return sample(text, series('avalanchego_l1_set_validator_active')) === 0;
      },
      'the drained validator inactive in the set-wide series',
      20_000,
    );
    expect(sample(text, series('avalanchego_l1_set_validator_runway_seconds'))).toBe(0);
    // Inactive reads not connected on a real node (its weight sits under the empty node ID): so here, on the next reads.
    await waitFor(
      async () => sample(await e.metrics(), series('avalanchego_l1_set_validator_connected', 'n1')) === 0,
      "the drained validator not connected on n1's view",
      20_000,
    );
  }, 60_000);

  it('reports what it keeps for the L1 in the debug state, and its poller is no orphaned loop on the timetable', async () => {
    const e = defined(exporter, 'the exporter');
    await waitFor(() => (e.scheduler.l1(L1_SUBNET_ID)?.polls ?? 0) >= 1, 'a poll of the L1', 20_000);
    const sizes = e.scheduler.stateSizes();
    // One L1, its two vantages' last chain-API states, the five validators of its set, and its lines.
    expect(sizes.l1s).toMatchObject({ sets: 1, vantageStates: 2, validators: 5 });
    expect(sizes.l1s.lineBytes).toBeGreaterThan(500);
    expect(sizes.timetable.orphaned).toBe(0);
  });
});
