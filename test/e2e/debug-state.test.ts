// GET /-/debug/state (--web.enable-debug-state): off by default; when on, a full
// collection, then the heap used after it, the process's handles and timers, and
// the exporter's keyed state by kind. The exporter runs in-process: the collection
// it asks for is this process's, so garbage the test makes shows it ran.
import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import type { DebugState } from '../../src/server/debug-state.js';
import { DEBUG_FLOOR_MS, MAX_DEBUG_POLLS, MAX_DEBUG_TRACE_CHARS, MAX_DEBUG_TRACES } from '../../src/server/app.js';
import { startFakeNode, waitFor, type FakeNode } from '../helpers/fake-node.js';
import { closeAfterEach, startTestExporter, waitForPolls, type TestExporter } from '../helpers/exporter.js';

let exporter: TestExporter | undefined;
let sim: RunningSimulator | undefined;
let node: FakeNode | undefined;
closeAfterEach(
  () => [exporter, sim, node],
  () => (exporter = sim = node = undefined),
);

const config = (s: RunningSimulator) => `
defaults: { interval: 1s, timeout: 800ms, info: { interval: 2s }, platform: { interval: 2s }, chain_info: { interval: 2s }, admin: { enabled: true, interval: 2s }, proposervm: { enabled: false } }
targets:
${s.nodes.map((n, i) => `  - { name: n${i}, url: ${n.baseUrl} }\n`).join('')}`;

async function debugState(ex: TestExporter): Promise<DebugState> {
  const res = await fetch(`${ex.url}/-/debug/state`);
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return (await res.json()) as DebugState;
}

describe('GET /-/debug/state', () => {
  it('is not served by default', async () => {
    sim = await startSimulator({ nodes: 1 });
    exporter = await startTestExporter(config(sim));
    const res = await fetch(`${exporter.url}/-/debug/state`);
    expect(res.status).toBe(404);
  });

  it('collects first, then reports the heap used after it, handles and timers, and the keyed state by kind', async () => {
    sim = await startSimulator({ nodes: 3, timeScale: 60, checkFrequencyMs: 200 });
    exporter = await startTestExporter(config(sim), { exporter: { debugState: true } });
    await waitForPolls(exporter, 2, 15_000);

    // Garbage only a full collection frees, unreachable once the function returns.
    const withGarbage = (() => {
      const garbage = Array.from({ length: 200 }, () => Array.from({ length: 20_000 }, (_, i) => i));
      return garbage.length > 0 ? getHeapStatistics().used_heap_size : 0;
    })();
    const state = await debugState(exporter);
    expect(state.heapUsedAfterGcBytes).toBeGreaterThan(0);
    expect(withGarbage - state.heapUsedAfterGcBytes).toBeGreaterThan(20 * 1024 * 1024);
    expect(state.gcMs).toBeGreaterThan(0);
    // The compiled code is part of the heap, and there is some by now.
    expect(state.codeAfterGcBytes).toBeGreaterThan(0);
    expect(state.codeAfterGcBytes).toBeLessThan(state.heapUsedAfterGcBytes);
    // The exporter's own functions have run: their bytecode is in the old space, part of the heap.
    expect(state.bytecodeAfterGcBytes).toBeGreaterThan(0);
    expect(state.bytecodeAfterGcBytes).toBeLessThan(state.spacesAfterGcBytes['old_space'] ?? 0);
    const spaces = Object.values(state.spacesAfterGcBytes).reduce((a, b) => a + b, 0);
    // The spaces add up to the heap (read one after the other, a few objects apart).
    expect(Math.abs(spaces - state.heapUsedAfterGcBytes)).toBeLessThan(state.heapUsedAfterGcBytes / 100);

    expect(state.resources.timers).toBeGreaterThanOrEqual(1);
    expect(state.resources.handles).toBeGreaterThanOrEqual(1);
    expect(state.state.targets).toBe(3);
    // health, index, info, platform, evm, admin and chain_info for each of the three nodes.
    expect(state.state.nodes.sources).toBe(21);
    // Each source loop is on the timetable while it waits for its next poll, and off it while a poll runs; the
    // Scheduler's sweep is one entry more.
    expect(state.state.timetable.entries).toBeLessThanOrEqual(21 + 1);
    expect(state.state.timetable.orphaned).toBe(0);
    expect(state.state.nodes.lineBlocks).toBe(21);
    expect(state.state.labelTable.sets).toBeGreaterThan(10);
    expect(state.state.labelTable.textBytes).toBeGreaterThan(state.state.labelTable.sets * 4);
    expect(state.state.nodes.preparedCalls).toBeGreaterThan(3 * 10);
    expect(state.state.requestBodies).toBeGreaterThan(10);
    // node-0 validates the primary network (every third node does): its answered uptime and its validator set are
    // remembered (until 7 days after it leaves).
    expect(state.state.nodes.remembered).toBe(2);
    expect(state.state.dispatchers).toMatchObject({ agents: 1, origins: 1 });
    expect(state.server.debugTraces).toEqual({ entries: 0, bytes: 0 });

    // A debug probe's trace is kept for its floor, and counted.
    expect((await fetch(`${exporter.url}/probe?target=n1&debug=true`)).status).toBe(200);
    const after = await debugState(exporter);
    expect(after.server.debugTraces.entries).toBe(1);
    expect(after.server.debugTraces.bytes).toBeGreaterThan(1000);
  }, 30_000);

  it(`keeps at most ${MAX_DEBUG_TRACES} debug traces, each for its floor and at most ${MAX_DEBUG_TRACE_CHARS} characters: past the count a probe of another target is refused (429)`, async () => {
    node = await startFakeNode({ '/ext/health': { fixture: 'health/healthy-v1.14.2.json' } });
    const url = node.url;
    // One target with 600 EVM chains: its trace (a request and an answer a chain) is longer than the cut.
    const chains = Array.from({ length: 600 }, (_, i) => `c${i}`).join(', ');
    const targets = Array.from({ length: MAX_DEBUG_TRACES + 1 }, (_, i) => `  - { name: t${i}, url: '${url}' }\n`).join('');
    exporter = await startTestExporter(
      `defaults: { interval: 60s, timeout: 1s, index: { endpoints: [] }, info: { enabled: false }, platform: { enabled: false }, evm: { enabled: false }, proposervm: { enabled: false } }
targets:
${targets}  - { name: long, url: '${url}', evm: { enabled: true, chains: [${chains}] } }
`,
      { level: 'warn', exporter: { debugState: true } },
    );
    const ex = exporter;
    const probe = (name: string) => fetch(`${ex.url}/probe?target=${name}&debug=true`);
    const long = await probe('long');
    expect(long.status).toBe(200);
    expect(await long.text()).toContain(`… (the trace is cut at ${MAX_DEBUG_TRACE_CHARS} characters)`);
    let state = await debugState(ex);
    expect(state.server.debugTraces.entries).toBe(1);
    expect(state.server.debugTraces.bytes).toBe(2 * MAX_DEBUG_TRACE_CHARS);
    // Fill past the count: the traces of `long` and t0 … t62 are kept; t63 and t64 are refused until a floor passes.
    // MAX_DEBUG_POLLS at a time, so that the whole fill takes well under the floor (DEBUG_FLOOR_MS) on a busy machine.
    const started = performance.now();
    for (let i = 0; i < MAX_DEBUG_TRACES - 1; i += MAX_DEBUG_POLLS) {
      const batch = Array.from({ length: Math.min(MAX_DEBUG_POLLS, MAX_DEBUG_TRACES - 1 - i) }, (_, k) => probe(`t${i + k}`));
      for (const r of await Promise.all(batch)) expect(r.status).toBe(200);
    }
    expect(performance.now() - started, 'the fill within the floor').toBeLessThan(DEBUG_FLOOR_MS);
    state = await debugState(ex);
    expect(state.server.debugTraces.entries).toBe(MAX_DEBUG_TRACES);
    const refused = await probe(`t${MAX_DEBUG_TRACES - 1}`);
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain(`${MAX_DEBUG_TRACES} targets within`);
    // A target whose trace is kept still gets it (no new poll of its node).
    expect((await probe('t0')).status).toBe(200);
    // Once their floor has passed (DEBUG_FLOOR_MS, shorter than the interval) the traces go, and another target is
    // polled.
    await waitFor(async () => (await debugState(ex)).server.debugTraces.entries === 0, 'every kept trace gone after its floor', 3 * DEBUG_FLOOR_MS);
    expect((await probe(`t${MAX_DEBUG_TRACES}`)).status).toBe(200);
  }, 30_000);
});
