// The v1.15.0 (Helicon) scenarios of the simulator: the release profile's answers
// (heliconTime, ACPs, chain checks without avgAcceptanceTime, info.uptime's
// start-time error) and each scenario's development in the info, P-Chain, C-Chain
// and ProposerVM answers. Time runs 60 times faster than real time; every wait has
// a deadline.
import { describe, expect, it } from 'vitest';
import { L1_CHAIN, MAINNET_HELICON, MAINNET_HELICON_S } from '../../src/simulator/index.js';
import { defined } from '../helpers/assert.js';
import { http, report, result, rpc, serviceError, simulator, waitFor } from './helpers.js';

const FAST = { timeScale: 60, checkFrequencyMs: 40 };
const info = (base: string) => `${base}/ext/info`;
const pchain = (base: string) => `${base}/ext/bc/P`;
const ownEntry = async (base: string, nodeId: string) =>
  defined(
    (
      (await result(pchain(base), 'platform.getCurrentValidators', { nodeIDs: [nodeId] })) as unknown as {
        validators: Array<Record<string, unknown>>;
      }
    ).validators[0],
    'the own entry',
  );
const blockNumber = async (url: string) => {
  const r = JSON.parse((await rpc(url, 'eth_blockNumber', [])).body) as { result: string };
  return Number.parseInt(r.result.slice(2), 16);
};
const epoch = async (base: string, chain: string) =>
  result<{ number: string; startTime: string; pChainHeight: string }>(`${base}/ext/bc/${chain}/proposervm`, 'proposervm.getCurrentEpoch');
/** A check's last accepted height, or undefined before the check has run. */
const maybeHeight = async (base: string, check: string) => {
  const c = report((await http(`${base}/ext/health`)).body).checks[check] as
    { message?: { engine?: { consensus?: { lastAcceptedHeight: number } } } } | undefined;
  return c?.message?.engine?.consensus?.lastAcceptedHeight;
};
const height = async (base: string, check: string): Promise<number> => {
  const h = await maybeHeight(base, check);
  if (h === undefined) throw new Error(`the ${check} check has no height yet`);
  return h;
};

describe('the v1.15.0 release profile', () => {
  it('schedules Helicon, lists its ACPs, drops avgAcceptanceTime, answers eth_blockNumber and getCurrentEpoch', async () => {
    const sim = await simulator({ ...FAST, scenario: 'c-chain-flapping', validator: true });
    const base = sim.url;
    expect(((await result(info(base), 'info.getNodeVersion')) as { version: string }).version).toBe('avalanchego/1.15.0');
    expect(((await result(info(base), 'info.upgrades')) as { heliconTime: string }).heliconTime).toBe(MAINNET_HELICON);
    expect(Object.keys((await result<{ acps: object }>(info(base), 'info.acps')).acps)).toEqual([
      '194',
      '224',
      '236',
      '247',
      '267',
      '273',
      '283',
      '285',
    ]);
    const checks = report((await http(`${base}/ext/health`)).body).checks;
    const consensus = (checks.P as unknown as { message: { engine: { consensus: Record<string, unknown> } } }).message.engine.consensus;
    expect(consensus).not.toHaveProperty('avgAcceptanceTime');
    expect(consensus).toHaveProperty('lastAcceptedHeight');
    expect((checks.futureupgrade as { message: { localUpgradeTime: string } }).message.localUpgradeTime).toBe(MAINNET_HELICON);
    // Before Helicon's backlog, executed = accepted (give or take the check's cache).
    expect(Math.abs((await blockNumber(`${base}/ext/bc/C/rpc`)) - (await height(base, 'C')))).toBeLessThan(40);
    const e = await epoch(base, 'C');
    expect(Object.keys(e)).toEqual(['number', 'startTime', 'pChainHeight']);
    expect(Number(e.pChainHeight)).toBeLessThanOrEqual(await height(base, 'P'));
    // go-ethereum's server refuses object params.
    expect((await rpc(`${base}/ext/bc/C/rpc`, 'eth_blockNumber', {})).body).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"non-array args"}}\n',
    );
  });
});

describe('helicon-uptime', () => {
  it('a validation started after Helicon falls to 86 %: below its 90 % requirement, so most stake would not reward it', async () => {
    const sim = await simulator({ ...FAST, validator: true, timings: { uptimeDropSeconds: 30 } });
    const base = sim.url;
    const nodeId = defined(sim.nodes[0], 'node-0').nodeId;
    sim.setScenario('node-0', 'helicon-uptime');
    expect(Number((await ownEntry(base, nodeId)).startTime)).toBeGreaterThanOrEqual(MAINNET_HELICON_S);
    const u = await waitFor(
      () => result<{ rewardingStakePercentage: string; weightedAveragePercentage: string }>(info(base), 'info.uptime'),
      (r) => Number(r.weightedAveragePercentage) === 86,
      5_000,
      'the 86 % floor',
    );
    // Peers' views spread ±10 points: at 90 % only (86 + 10 - 90) / 20 = 30 % of stake rewards it (at 80 % it would be 80 %).
    expect(Number(u.rewardingStakePercentage)).toBe(30);
  });
});

describe('auto-renewed and auto-renew-exiting', () => {
  it('auto-renewed: the entry carries the ACP-236 config and its cycle renews at its end; exiting: nextPeriod "0" and the node leaves', async () => {
    const sim = await simulator({
      ...FAST,
      nodes: 2,
      validator: true,
      timings: { autoRenewCycleEndSeconds: 2, nextPeriodSeconds: 3, stakeExpirySeconds: 2 },
    });
    const [a, b] = [defined(sim.nodes[0], 'node-0'), defined(sim.nodes[1], 'node-1')];
    sim.setScenario(a.name, 'auto-renewed');
    sim.setScenario(b.name, 'auto-renew-exiting');
    const first = await ownEntry(a.baseUrl, a.nodeId);
    expect((await ownEntry(b.baseUrl, b.nodeId)).nextPeriod).toBe('0');
    expect(first).toMatchObject({ nextPeriod: '3', autoCompoundRewardShares: '500000', validatorAuthority: { threshold: '1' } });
    // The inlined config sits between signer and the delegators, as Go's encoder writes the struct.
    const keys = Object.keys(first);
    expect(keys.indexOf('validatorAuthority')).toBe(keys.indexOf('signer') + 1);
    expect(keys.indexOf('delegatorCount')).toBe(keys.indexOf('autoCompoundRewardShares') + 1);
    const renewed = await waitFor(
      () => ownEntry(a.baseUrl, a.nodeId),
      (e) => Number(e.startTime) >= Number(first.endTime),
      6_000,
      'the next cycle',
    );
    expect(renewed.txID).toBe(first.txID);
    expect(Number(renewed.endTime) - Number(renewed.startTime)).toBe(3);
    await waitFor(
      async () =>
        ((await result(pchain(b.baseUrl), 'platform.getCurrentValidators', { nodeIDs: [b.nodeId] })) as { validators: unknown[] }).validators,
      (v) => v.length === 0,
      6_000,
      'the exiting validator to leave',
    );
    expect((await rpc(info(b.baseUrl), 'info.uptime')).body).toBe(serviceError("couldn't get node uptime: node is not a validator"));
  });
});

describe('auto-renewed-at-risk', () => {
  it('an auto-renewed validation after Helicon, its cycle ending within a day, falls to 86 %: below the 90 % that keeps it in the set', async () => {
    const sim = await simulator({
      ...FAST,
      validator: true,
      timings: { uptimeDropSeconds: 30, stakeExpirySeconds: 1_800, nextPeriodSeconds: 10_800 },
    });
    const base = sim.url;
    const nodeId = defined(sim.nodes[0], 'node-0').nodeId;
    const wallS = Date.now() / 1000;
    sim.setScenario('node-0', 'auto-renewed-at-risk');
    const entry = await ownEntry(base, nodeId);
    expect(entry).toMatchObject({ nextPeriod: '10800', autoCompoundRewardShares: '500000' });
    expect(Number(entry.startTime)).toBeGreaterThanOrEqual(MAINNET_HELICON_S);
    // Ends 30 wall-clock minutes from the switch: within every expiry window, and it renews.
    expect(Number(entry.endTime) - wallS).toBeGreaterThan(1_790);
    expect(Number(entry.endTime) - wallS).toBeLessThan(1_810);
    const u = await waitFor(
      () => result<{ rewardingStakePercentage: string; weightedAveragePercentage: string }>(info(base), 'info.uptime'),
      (r) => Number(r.weightedAveragePercentage) === 86,
      5_000,
      'the 86 % floor',
    );
    expect(Number(u.rewardingStakePercentage)).toBe(30);
    // Switching away is a re-stake: a fixed-term stake, no auto-renew config.
    sim.setScenario('node-0', 'healthy');
    expect(await ownEntry(base, nodeId)).not.toHaveProperty('nextPeriod');
  });
});

describe('c-chain-execution-lag', () => {
  it('eth_blockNumber falls further and further behind the accepted height', async () => {
    const sim = await simulator({ ...FAST, scenario: 'c-chain-execution-lag', timings: { executionLagBlocksPerSecond: 1 } });
    const base = sim.url;
    const gap = async () => (await height(base, 'C')) - (await blockNumber(`${base}/ext/bc/C/rpc`));
    const early = await gap();
    await waitFor(gap, (g) => g > early + 60, 5_000, 'a growing backlog');
  });
});

describe('l1-proposer-view-frozen', () => {
  it("the L1's epoch keeps its P-Chain height and the L1 its height while the P-Chain moves on", async () => {
    const sim = await simulator({ ...FAST, trackL1: true });
    const base = sim.url;
    const l1 = L1_CHAIN.chainId;
    sim.setScenario('node-0', 'l1-proposer-view-frozen');
    // The L1 check reports its height once it has run (before that it is "not yet run").
    await waitFor(
      async () => (await maybeHeight(base, l1)) ?? -1,
      (h) => h >= 0,
      20_000,
      "the L1 check's first height",
    );
    const frozen = await epoch(base, l1);
    const l1Height = await height(base, l1);
    const p = await height(base, 'P');
    await waitFor(
      () => height(base, 'P'),
      (h) => h > p + 30,
      20_000,
      'the P-Chain to move on',
    );
    expect(await epoch(base, l1)).toEqual(frozen);
    expect(await height(base, l1)).toBe(l1Height);
    // The C-Chain's epochs still follow the P-Chain.
    await waitFor(
      async () => Number((await epoch(base, 'C')).pChainHeight),
      (h) => h > Number(frozen.pChainHeight),
      20_000,
      "the C-Chain's next epoch",
    );
  });
});

describe('c-chain-flapping', () => {
  it('the C check fails "block processing too long" for a minute every 8 minutes, and passes between', async () => {
    // From the start: switching a v1.14.2 node to it is a restart (another release), whose checks have not run yet.
    const sim = await simulator({ ...FAST, scenario: 'c-chain-flapping', timings: { flapPeriodSeconds: 240, flapFailSeconds: 60 } });
    const base = sim.url;
    const cError = async () => (report((await http(`${base}/ext/health`)).body).checks.C as { error?: string }).error;
    const failing = await waitFor(cError, (e) => e !== undefined && e !== 'not yet run', 5_000, 'the C check to fail');
    expect(failing).toMatch(/^block processing too long: \d+(\.\d+)?s > 30s$/);
    await waitFor(cError, (e) => e === undefined, 5_000, 'the C check to pass again');
    await waitFor(cError, (e) => e !== undefined, 6_000, 'the next failure');
  });
});
