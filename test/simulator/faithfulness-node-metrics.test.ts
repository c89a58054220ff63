// The simulator's /ext/metrics of AvalancheGo v1.15.0 checked against the v1.15.0 source, not a guess: the
// Snowman poll counters' names and the `snowman` namespace with its `chain` label (snow/consensus/snowman/
// metrics.go, chains/manager.go), the post-transition VM registered under `transition`
// (vms/transitionvm/vm.go), and every `avalanche_evm_transition_<part>_<name>` family naming a metric its part
// registers (vms/saevm: sae/vm.go and cchain/vm.go make the `sae` and `cchain` registries; saexec/metrics.go,
// sae/metrics.go and cchain/metrics.go name their metrics), with no go-ethereum bad-block counter (the v1.15.0
// SAE VM registers none, so the exporter's avalanchego_chain_bad_blocks_total is absent for the C-Chain).
// Without the source every row is skipped with the reason (under CI=true they fail).
import { beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { parseNodeMetrics } from '../../src/sources/node-metrics.js';
import { defined } from '../helpers/assert.js';
import { goSourceFiles } from './go-source.js';
import { http, simulator } from './helpers.js';

const VERSION = 'v1.15.0';
const FILES = [
  'snow/consensus/snowman/metrics.go',
  'chains/manager.go',
  'vms/transitionvm/vm.go',
  'vms/saevm/sae/vm.go',
  'vms/saevm/sae/metrics.go',
  'vms/saevm/saexec/metrics.go',
  'vms/saevm/cchain/vm.go',
  'vms/saevm/cchain/metrics.go',
  'vms/saevm/network/network.go',
] as const;
type SourceFile = (typeof FILES)[number];
const TEST_FILE = 'test/simulator/faithfulness-node-metrics.test.ts';
const IN_CI = process.env.CI === 'true';

let source: Map<SourceFile, string> | undefined;
let skipReason = '';
beforeAll(() => {
  const got = goSourceFiles(VERSION, FILES, `avalanchego-metrics-source-${VERSION}`, TEST_FILE);
  if ('reason' in got) skipReason = got.reason;
  else source = got.files;
}, 320_000);

function need(ctx: TestContext): Map<SourceFile, string> {
  if (source) return source;
  if (!IN_CI) ctx.skip(skipReason);
  throw new Error(`${skipReason} (required under CI=true)`);
}
const text = (files: Map<SourceFile, string>, f: SourceFile) => defined(files.get(f), f);
/** The `Name: "…"` of the prometheus opts in a Go file. */
const names = (go: string) => new Set([...go.matchAll(/Name:\s*"([a-z_]+)"/g)].map((m) => defined(m[1], 'a name')));

describe(`the simulator's v1.15.0 /ext/metrics against the ${VERSION} source`, () => {
  it('the source is available (required under CI=true)', (ctx) => {
    if (!source && !IN_CI) ctx.skip(skipReason);
    expect(source, skipReason).toBeDefined();
  });

  it('the poll counters: snowman namespace, chain label, polls_successful and polls_failed', async (ctx) => {
    const files = need(ctx);
    for (const n of ['polls_successful', 'polls_failed']) expect(names(text(files, 'snow/consensus/snowman/metrics.go')).has(n)).toBe(true);
    const manager = text(files, 'chains/manager.go');
    expect(manager).toMatch(/ChainLabel\s*=\s*"chain"/);
    expect(manager).toMatch(/snowmanNamespace\s*=\s*constants\.PlatformName \+ metric\.NamespaceSeparator \+ "snowman"/);
    const sim = await simulator({ scenario: 'helicon-uptime' });
    const body = (await http(`${defined(sim.nodes[0], 'node-0').baseUrl}/ext/metrics`)).body;
    expect(body).toMatch(/^avalanche_snowman_polls_successful\{chain="C"\} /m);
    expect(body).toMatch(/^avalanche_snowman_polls_failed\{chain="C"\} /m);
  });

  it('the C-Chain after the switch: transition/<part>/<name> of the SAE VM, and no bad-block counter', async (ctx) => {
    const files = need(ctx);
    expect(text(files, 'vms/transitionvm/vm.go')).toContain('preChainCtx.Metrics.Register("transition", vm.postChainCtx.Metrics)');
    const parts: Record<string, Set<string>> = {
      sae: new Set([...names(text(files, 'vms/saevm/sae/metrics.go')), ...names(text(files, 'vms/saevm/saexec/metrics.go'))]),
      cchain: names(text(files, 'vms/saevm/cchain/metrics.go')),
    };
    expect(text(files, 'vms/saevm/sae/vm.go')).toContain('apimetrics.MakeAndRegister(snowCtx.Metrics, "sae")');
    expect(text(files, 'vms/saevm/cchain/vm.go')).toContain('apimetrics.MakeAndRegister(snowCtx.Metrics, "cchain")');
    expect(text(files, 'vms/saevm/network/network.go')).toContain('metrics.MakeAndRegister(snowCtx.Metrics, "p2p")');
    const sim = await simulator({ scenario: 'helicon-uptime' });
    const body = (await http(`${defined(sim.nodes[0], 'node-0').baseUrl}/ext/metrics`)).body;
    const families = [...body.matchAll(/^# TYPE avalanche_evm_transition_([a-z0-9]+)_(\w+) /gm)].map(
      (m) => [defined(m[1], 'part'), defined(m[2], 'name')] as const,
    );
    expect(families.length).toBeGreaterThan(10);
    const unknown = families.filter(([part, name]) => part !== 'p2p' && !parts[part]?.has(name)).map(([p, n]) => `${p}_${n}`);
    expect(unknown).toEqual([]);
    // No go-ethereum series for the C-Chain at all: SAE registers no `eth` gatherer in v1.15.0.
    expect(body).not.toMatch(/^avalanche_evm_(transition_)?eth_/m);
    expect(
      defined(
        parseNodeMetrics(body).find((c) => c.chain === 'C'),
        'C',
      ).badBlocks,
    ).toBeUndefined();
  });
});
