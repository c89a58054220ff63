// The simulator's /ext/metrics: a realistic body (hundreds of KiB, thousands of series) in the shape of
// each release, its poll counters moving with the scenario, 404 with the metrics API off, and the
// c-chain-executor-dead scenario's C check. Time runs 60 times faster than real time; waits have deadlines.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseSimulateArgs } from '../../src/simulator/cli.js';
import { parseMetricsFiller } from '../../src/simulator/metrics.js';
import { L1_CHAIN, type ScenarioName } from '../../src/simulator/index.js';
import { parseNodeMetrics } from '../../src/sources/node-metrics.js';
import { defined } from '../helpers/assert.js';
import { http, report, rpc, simulator, waitFor } from './helpers.js';

const FAST = { timeScale: 60, checkFrequencyMs: 40 };
const metrics = async (base: string) => http(`${base}/ext/metrics`, { headers: { accept: 'text/plain;version=0.0.4' } });
const seriesLines = (body: string) => body.split('\n').filter((l) => l !== '' && !l.startsWith('#'));

describe("the simulator's /ext/metrics", () => {
  it.for<[ScenarioName, string, RegExp, RegExp | undefined]>([
    ['old-version-v1.7', 'v1.7: the chain in the name', /^avalanche_C_polls_successful \S+$/m, /^avalanche_C_vm_eth_chain_block_bad_count 0$/m],
    ['old-version', 'v1.10: the chain in the name', /^avalanche_P_polls_failed \S+$/m, /^avalanche_C_vm_eth_chain_block_bad_count 0$/m],
    [
      'version-behind',
      'v1.13: the chain in a label',
      /^avalanche_snowman_polls_successful\{chain="X"\} \S+$/m,
      /^avalanche_evm_eth_chain_block_bad_count\{chain="C"\} 0$/m,
    ],
    [
      'healthy',
      'v1.14: the chain in a label',
      /^avalanche_snowman_polls_failed\{chain="C"\} \S+$/m,
      /^avalanche_evm_eth_chain_block_bad_count\{chain="C"\} 0$/m,
    ],
    // v1.15.0 after Helicon: the C-Chain's VM behind transitionvm; no go-ethereum bad-block counter for it.
    ['helicon-uptime', 'v1.15: the C-Chain under transition', /^avalanche_evm_transition_sae_last_executed_height\{chain="C"\} \S+$/m, undefined],
  ])('%s (%s): realistic size, the release’s names', async ([scenario, , polls, bad]) => {
    const sim = await simulator({ scenario, trackL1: true });
    const r = await metrics(defined(sim.nodes[0], 'node-0').baseUrl);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    // A real node's body: hundreds of KiB, thousands of series (v1.7's fewer: no L1, fewer VM series).
    expect(r.body.length).toBeGreaterThan(scenario === 'old-version-v1.7' ? 150 * 1024 : 200 * 1024);
    expect(seriesLines(r.body).length).toBeGreaterThan(1_500);
    expect(r.body).toMatch(polls);
    if (bad) expect(r.body).toMatch(bad);
    else expect(r.body).not.toMatch(/^avalanche_evm_(transition_)?eth_chain_block_bad_count\{chain="C"\}/m);
    // Every TYPE line names a family once; every series line is `name[{labels}] value`.
    const types = r.body.split('\n').filter((l) => l.startsWith('# TYPE '));
    expect(new Set(types).size).toBe(types.length);
    for (const l of seriesLines(r.body)) expect(l).toMatch(/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[^}]*\})? \S+$/);
    const chains = parseNodeMetrics(r.body);
    expect(chains.map((c) => c.chain).sort()).toEqual(scenario === 'old-version-v1.7' ? ['C', 'P', 'X'] : [L1_CHAIN.alias, 'C', 'P', 'X'].sort());
  });

  it('the poll counters rise; a node losing its peers fails a growing share, then stops polling', async () => {
    const sim = await simulator({ ...FAST, timings: { peersDropSeconds: 1_200 } });
    const base = defined(sim.nodes[0], 'node-0').baseUrl;
    const c = async () =>
      defined(
        parseNodeMetrics((await metrics(base)).body).find((x) => x.chain === 'C'),
        'C',
      );
    const first = await c();
    const later = await waitFor(c, (x) => (x.pollsSuccessful ?? 0) > (first.pollsSuccessful ?? 0), 5_000, 'successful polls to rise');
    expect(later.pollsFailed).toBeGreaterThanOrEqual(first.pollsFailed ?? 0);
    sim.setScenario('node-0', 'peers-dropping');
    const start = await c();
    // Each scenario second a further 1/1200 of the stake is gone, and that share of the polls fails.
    const mid = await waitFor(c, (x) => (x.pollsFailed ?? 0) - (start.pollsFailed ?? 0) > 200, 10_000, 'failed polls to rise');
    const failed = (mid.pollsFailed ?? 0) - (start.pollsFailed ?? 0);
    const ok = (mid.pollsSuccessful ?? 0) - (start.pollsSuccessful ?? 0);
    expect(failed / (failed + ok)).toBeGreaterThan(0.01);
    // Below 75 % connected stake (AlphaConfidence/K) the node sends no polls: the counters stand still.
    sim.setScenario('node-0', 'healthy');
    const stopped = await simulator({ ...FAST, scenario: 'peers-dropping', timings: { peersDropSeconds: 6 } });
    const stoppedBase = defined(stopped.nodes[0], 'node-0').baseUrl;
    const cOf = async () =>
      defined(
        parseNodeMetrics((await metrics(stoppedBase)).body).find((x) => x.chain === 'C'),
        'C',
      );
    // Still for 120 ms of the wall clock is 7 scenario seconds, 7 bodies (a body is cached for one scenario second).
    // The clock runs from the simulator's start: a first read can come before the stake falls below 75 %.
    let since = await cOf();
    let sinceMs = Date.now();
    await waitFor(
      cOf,
      (x) => {
        if (x.pollsSuccessful !== since.pollsSuccessful || x.pollsFailed !== since.pollsFailed) {
          since = x;
          sinceMs = Date.now();
          return false;
        }
        return Date.now() - sinceMs >= 120;
      },
      10_000,
      'the counters to stand still for 120 ms (7 scenario seconds)',
    );
    expect((await cOf()).pollsSuccessful).toBe(since.pollsSuccessful);
  });

  it('the metrics API off (--api-metrics-enabled=false): 404, as gorilla/mux answers', async () => {
    const sim = await simulator({ metrics: false });
    const r = await metrics(defined(sim.nodes[0], 'node-0').baseUrl);
    expect(r.status).toBe(404);
    expect(r.body).toBe('404 page not found\n');
  });
});

describe('--metrics-filler: a real node’s families in the body, for a real node’s size', () => {
  const recorded = gunzipSync(readFileSync('test/fixtures/node-metrics/v1.14.2/local-network-full.prom.gz')).toString('utf8');

  it('cuts a real v1.14.2 body into whole families, leaving out the ones the scenario moves', () => {
    const filler = parseMetricsFiller(recorded, 'local-network-full.prom');
    const names = filler.families.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain('avalanche_subnetevm_vm_eth_chain_block_inserts');
    // Polls and bad blocks come from the scenario only, on every release's names.
    expect(names.filter((n) => /_polls_(successful|failed)$|_eth_chain_block_bad_count$/.test(n))).toEqual([]);
    // A histogram's _bucket, _sum and _count lines stay with their family.
    const hist = defined(
      filler.families.find((f) => /^# TYPE \S+ histogram$/m.test(f.text)),
      'a histogram family',
    );
    expect(hist.text).toMatch(/_bucket\{/);
    expect(hist.text).toMatch(/_count( |\{)/);
    expect(filler.series).toBeGreaterThan(3_000);
    expect(filler.bytes).toBeGreaterThan(400 * 1024);
  });

  it('refuses what is not the text format, saying where', () => {
    expect(() => parseMetricsFiller('<html>\n<body>502</body>', 'bad.prom')).toThrow(/^bad\.prom:1: not a line of the Prometheus text format/);
    expect(() => parseMetricsFiller('# just a comment\n', 'empty.prom')).toThrow(/empty\.prom: no metric family/);
    expect(() => parseSimulateArgs(['--metrics-filler=/nonexistent/x.prom'])).toThrow(/--metrics-filler: cannot read \/nonexistent\/x\.prom/);
  });

  it("a v1.14 node's body grows to a real node's size; the polls still move with the scenario; older releases keep their own names", async () => {
    const { options } = parseSimulateArgs(['--metrics-filler=test/fixtures/node-metrics/v1.14.2/local-network-full.prom.gz']);
    const sim = await simulator({
      ...FAST,
      metricsFiller: defined(options.metricsFiller, 'the filler'),
      scenario: (i) => (i === 0 ? 'healthy' : 'old-version'),
      nodes: 2,
    });
    const body = (await metrics(defined(sim.nodes[0], 'node-0').baseUrl)).body;
    expect(body.length).toBeGreaterThan(450 * 1024);
    expect(seriesLines(body).length).toBeGreaterThan(3_000);
    const types = body.split('\n').filter((l) => l.startsWith('# TYPE '));
    expect(new Set(types).size).toBe(types.length);
    // The recorded body's own counters (the node that was recorded) are not what the exporter reads.
    const c = defined(
      parseNodeMetrics(body).find((x) => x.chain === 'C'),
      'C',
    );
    await waitFor(
      async () =>
        defined(
          parseNodeMetrics((await metrics(defined(sim.nodes[0], 'node-0').baseUrl)).body).find((x) => x.chain === 'C'),
          'C',
        ),
      (x) => (x.pollsSuccessful ?? 0) > (c.pollsSuccessful ?? 0),
      5_000,
      'successful polls to rise',
    );
    // v1.10 (the chain in the name): no v1.14 family is added to it.
    const old = (await metrics(defined(sim.nodes[1], 'node-1').baseUrl)).body;
    expect(old).not.toMatch(/^avalanche_snowman_/m);
    expect(old.length).toBeLessThan(300 * 1024);
  });
});

describe('c-chain-executor-dead (v1.15.1)', () => {
  it("the C check fails with the SAE executor's error at once, the executed height stops, the node says 1.15.1", async () => {
    const sim = await simulator(FAST);
    const base = defined(sim.nodes[0], 'node-0').baseUrl;
    sim.setScenario('node-0', 'c-chain-executor-dead');
    const check = await waitFor(
      async () => report((await http(`${base}/ext/health`)).body).checks.C,
      // After the restart into v1.15.1 the check is `not yet run` until its first run.
      (x) => typeof x.error === 'string' && x.error !== 'not yet run',
      5_000,
      'the C check to fail',
    );
    const m = /saexec\.Executor unhealthy due to block (\d+) \((0x[0-9a-f]{64})\): /.exec(defined(check.error, 'the error'));
    expect(m, check.error).not.toBeNull();
    const block = Number(defined(m?.[1], 'the block'));
    const executed = async () =>
      Number.parseInt((JSON.parse((await rpc(`${base}/ext/bc/C/rpc`, 'eth_blockNumber', [])).body) as { result: string }).result.slice(2), 16);
    expect(await executed()).toBe(block - 1);
    const version = JSON.parse((await rpc(`${base}/ext/info`, 'info.getNodeVersion')).body) as { result: { version: string } };
    expect(version.result.version).toBe('avalanchego/1.15.1');
  });
});
