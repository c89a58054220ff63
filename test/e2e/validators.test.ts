// The info and platform sources end to end: the exporter polls simulated
// validators and non-validators (test/simulator) on loopback and serves their
// series; scenario switches show up in /metrics. Waits have deadlines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { L1_SUBNET_ID, PRIMARY_NETWORK_ID, startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { defined } from '../helpers/assert.js';
import { waitFor } from '../helpers/fake-node.js';
import { sample, startTestExporter, type TestExporter } from '../helpers/exporter.js';

// Set by beforeAll; undefined when it failed part-way (afterAll closes what was started).
let simulator: RunningSimulator | undefined;
let testExporter: TestExporter | undefined;
const sim = (): RunningSimulator => defined(simulator, 'the simulator');
const exporter = (): TestExporter => defined(testExporter, 'the exporter');

/** node-0 validates the primary network and the L1; node-1 only tracks the L1; node-2 runs v1.10.19; node-3 bootstraps. */
const SCENARIOS = ['healthy', 'healthy', 'old-version', 'bootstrapping'] as const;

beforeAll(async () => {
  simulator = await startSimulator({
    nodes: SCENARIOS.length,
    scenario: (i) => defined(SCENARIOS[i], `the scenario of node ${i}`),
    timeScale: 60,
    checkFrequencyMs: 200,
    trackL1: (i) => i < 2,
    l1Validator: (i) => i === 0,
    validator: (i) => i !== 1,
    timings: { l1DrainSeconds: 30 },
  });
  testExporter = await startTestExporter(`
defaults:
  interval: 2s
  timeout: 1500ms
  index: { endpoints: [] }
  info: { interval: 2s }
  platform: { interval: 2s, subnets: [${L1_SUBNET_ID}] }
targets:
${simulator.nodes.map((n, i) => `  - name: n${i}\n    url: ${n.baseUrl}\n`).join('')}`);
  await waitFor(
    async () => {
      const text = await exporter().metrics();
      return [0, 1, 2, 3].every(
        (i) =>
          sample(text, `avalanchego_exporter_poll_success{node="n${i}",source="platform"}`) === 1 &&
          sample(text, `avalanchego_exporter_poll_success{node="n${i}",source="info"}`) === 1,
      );
    },
    'an info and a platform poll of every node',
    20_000,
  );
}, 30_000);

afterAll(async () => {
  await testExporter?.close();
  await simulator?.close();
});

const primary = (node: string) => `{node="${node}",subnet="${PRIMARY_NETWORK_ID}"}`;
const l1 = (node: string) => `{node="${node}",subnet="${L1_SUBNET_ID}"}`;

describe('info and platform sources against the simulator', () => {
  it('a primary-network and L1 validator: identity, uptime, stake, balance, fee price', async () => {
    const text = await exporter().metrics();
    const id = defined(sim().nodes[0], 'node-0').nodeId;
    expect(sample(text, `avalanchego_node_info{node="n0",node_id="${id}",version="1.14.2",network_id="1"}`)).toBe(1);
    // One node_info series per node: health leaves it to the info source.
    expect(text.match(/^avalanchego_node_info\{node="n0",/gm)).toHaveLength(1);
    expect(sample(text, 'avalanchego_node_version_number{node="n0"}')).toBe(1014002);
    expect(sample(text, 'avalanchego_uptime_rewarding_stake_ratio{node="n0"}')).toBe(1);
    expect(sample(text, 'avalanchego_uptime_weighted_average_ratio{node="n0"}')).toBeGreaterThan(0.99);
    expect(sample(text, `avalanchego_validator${primary('n0')}`)).toBe(1);
    expect(sample(text, `avalanchego_validator_end_timestamp_seconds${primary('n0')}`)).toBeGreaterThan(Date.now() / 1000 + 30 * 86_400);
    expect(sample(text, `avalanchego_validator_weight${primary('n0')}`)).toBeGreaterThan(2_000e9);
    expect(sample(text, 'avalanchego_validator_potential_reward_navax{node="n0"}')).toBeGreaterThan(0);
    expect(sample(text, `avalanchego_validator_registered_key_match${primary('n0')}`)).toBe(1);
    expect(sample(text, `avalanchego_validator${l1('n0')}`)).toBe(1);
    expect(sample(text, `avalanchego_validator_registered_key_match${l1('n0')}`)).toBe(1);
    expect(sample(text, `avalanchego_l1_validator_active${l1('n0')}`)).toBe(1);
    const price = defined(sample(text, 'avalanchego_validator_fee_price_navax_per_second{node="n0"}'), 'the fee price of n0');
    expect(price).toBe(512);
    // 45 days of fees: well above the 30-day ticket.
    expect(defined(sample(text, `avalanchego_l1_validator_balance_navax${l1('n0')}`), 'the L1 balance of n0') / price).toBeGreaterThan(30 * 86_400);
    // Peers: bounded per minor version, most on 1.14; none newer than 1.14.2.
    expect(sample(text, 'avalanchego_network_peers_by_version{node="n0",version="1.14"}')).toBeGreaterThan(1000);
    expect(sample(text, 'avalanchego_network_peers_newer_version_ratio{node="n0"}')).toBe(0);
    expect(text).not.toContain('avalanchego_next_upgrade_timestamp_seconds{node="n0"}');
    expect(sample(text, 'avalanchego_exporter_poll_success{node="n0",source="info"}')).toBe(1);
    expect(sample(text, 'avalanchego_exporter_poll_success{node="n0",source="platform"}')).toBe(1);
  });

  it('a non-validator: validator 0 on both subnets, info.uptime not_validator, and no poll failure', async () => {
    const text = await exporter().metrics();
    expect(sample(text, `avalanchego_validator${primary('n1')}`)).toBe(0);
    expect(sample(text, `avalanchego_validator${l1('n1')}`)).toBe(0);
    expect(text).not.toContain('avalanchego_uptime_weighted_average_ratio{node="n1"}');
    expect(sample(text, 'avalanchego_info_method_state{node="n1",method="info.uptime",state="not_validator"}')).toBe(1);
    expect(sample(text, 'avalanchego_exporter_poll_success{node="n1",source="info"}')).toBe(1);
    // The state is an answer: never counted as an RPC or response error (a timeout under load may be).
    expect(text).not.toMatch(
      /avalanchego_exporter_poll_errors_total\{node="n1",source="(info|platform)",reason="(rpc_error|invalid_response|http_status)"/,
    );
  });

  it('v1.10.19: the methods it lacks are states (unsupported), its validator entry is served', async () => {
    const text = await exporter().metrics();
    expect(sample(text, 'avalanchego_info_method_state{node="n2",method="info.upgrades",state="unsupported"}')).toBe(1);
    expect(sample(text, 'avalanchego_platform_method_state{node="n2",method="platform.getValidatorFeeState",state="unsupported"}')).toBe(1);
    expect(sample(text, 'avalanchego_node_version_number{node="n2"}')).toBe(1010019);
    expect(sample(text, `avalanchego_validator${primary('n2')}`)).toBe(1);
    // Most of its peers run a newer release.
    expect(sample(text, 'avalanchego_exporter_poll_success{node="n2",source="platform"}')).toBe(1);
  });

  it('a bootstrapping node: the P-Chain state not_bootstrapped, no validator series, the poll succeeds', async () => {
    const text = await exporter().metrics();
    expect(sample(text, 'avalanchego_platform_method_state{node="n3",method="platform.getCurrentValidators",state="not_bootstrapped"}')).toBe(1);
    expect(text).not.toContain('avalanchego_validator{node="n3"');
    expect(sample(text, 'avalanchego_exporter_poll_success{node="n3",source="platform"}')).toBe(1);
  });

  it('scenario switches reach the series: the L1 balance drains to inactive, a changed node ID is no validator; recovery', async () => {
    sim().setScenario('node-0', 'l1-balance-draining');
    await waitFor(
      async () => sample(await exporter().metrics(), `avalanchego_l1_validator_active${l1('n0')}`) === 0,
      'the L1 validator to go inactive',
      15_000,
    );
    expect(sample(await exporter().metrics(), `avalanchego_l1_validator_balance_navax${l1('n0')}`)).toBe(0);
    sim().setScenario('node-0', 'node-id-changed');
    const changed = defined(sim().nodes[0], 'node-0').nodeId;
    await waitFor(
      async () => sample(await exporter().metrics(), `avalanchego_validator${primary('n0')}`) === 0,
      'the new node ID to be no validator',
      15_000,
    );
    const text = await exporter().metrics();
    expect(text).toContain(`avalanchego_node_info{node="n0",node_id="${changed}",version="1.14.2",network_id="1"} 1`);
    expect(sample(text, 'avalanchego_info_method_state{node="n0",method="info.uptime",state="not_validator"}')).toBe(1);
    sim().setScenario('node-0', 'healthy');
    await waitFor(async () => sample(await exporter().metrics(), `avalanchego_validator${primary('n0')}`) === 1, 'a validator again', 15_000);
    await waitFor(
      async () => sample(await exporter().metrics(), `avalanchego_l1_validator_active${l1('n0')}`) === 1,
      'the topped-up L1 validator',
      15_000,
    );
  });
});
