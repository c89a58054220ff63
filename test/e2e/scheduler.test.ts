// The scheduler's promises: a node's polls never overlap, the global cap on
// requests in flight holds, first polls spread over the interval, stop waits.
import { describe, expect, it } from 'vitest';
import { startFakeNode, waitFor, type FakeNode } from '../helpers/fake-node.js';
import { closeAfterEach, sample, startTestExporter, waitForPolls, type TestExporter } from '../helpers/exporter.js';
import { spreadFraction } from '../../src/scheduler/scheduler.js';
import { defined } from '../helpers/assert.js';
import { get } from '../helpers/https.js';

let node: FakeNode | undefined;
let exporter: TestExporter | undefined;
closeAfterEach(
  () => [exporter, node],
  () => (exporter = node = undefined),
);

const targets = (n: number, url: string, prefix = 'n') =>
  Array.from({ length: n }, (_, i) => `  - name: ${prefix}${i}\n    url: ${url}/${prefix}${i}\n`).join('');

function healthRoutes(n: number, delayMs: number, prefix = 'n') {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`/${prefix}${i}/ext/health`, { fixture: 'health/healthy-v1.14.2.json', delayMs }]));
}

/** One request slot, held 2.5 s of every 3 s by "hog" (its node answers after 10 s); "waiter" polls every second. */
async function startHogAndWaiter(): Promise<FakeNode> {
  const fake = await startFakeNode({
    '/hog/ext/health': { fixture: 'health/healthy-v1.14.2.json', delayMs: 10_000 },
    '/waiter/ext/health': { fixture: 'health/healthy-v1.14.2.json' },
  });
  node = fake;
  exporter = await startTestExporter(`
scheduler: { max_concurrent_requests: 1 }
defaults: { index: { endpoints: [] }, info: { enabled: false }, platform: { enabled: false }, chain_info: { enabled: false }, evm: { enabled: false }, proposervm: { enabled: false } }
targets:
  - { name: hog, url: '${fake.url}/hog', interval: 3s, timeout: 2500ms }
  - { name: waiter, url: '${fake.url}/waiter', interval: 1s, timeout: 300ms }`);
  return fake;
}

describe('scheduler', () => {
  it('two exporters in one process share no state: each has its own poll timetable, request bodies and labels', async () => {
    node = await startFakeNode({
      '/a/ext/index/C/block': { fixture: 'index/getLastAccepted-C-block.json' },
      '/b/ext/health': { fixture: 'health/healthy-v1.14.2.json' },
    });
    const other = await startTestExporter(`
defaults: { interval: 200ms, timeout: 150ms, health: { enabled: false }, index: { endpoints: [C/block] }, info: { enabled: false }, platform: { enabled: false }, chain_info: { enabled: false } }
targets:
  - { name: a, url: '${node.url}/a' }`);
    try {
      await waitForPolls(other, 1);
      exporter = await startTestExporter(`
defaults: { interval: 200ms, timeout: 150ms, index: { endpoints: [] }, info: { enabled: false }, platform: { enabled: false }, chain_info: { enabled: false } }
targets:
  - { name: b, url: '${node.url}/b' }`);
      await waitForPolls(exporter, 1);
      // Request ids are numbered per exporter: the second exporter's first request body is its own (id 1).
      const first = node.requests.find((r) => r.path === '/b/ext/health');
      expect(JSON.parse(first?.body ?? '{}')).toMatchObject({ id: 1, method: 'health.health' });
      // Closing one exporter takes its polls off its own timetable only: the other keeps its cadence.
      await other.close();
      const polls = exporter.scheduler.summaries()[0]?.polls ?? 0;
      await waitForPolls(exporter, polls + 3);
      expect(sample(await exporter.metrics(), 'avalanchego_up{node="b"}')).toBe(1);
    } finally {
      await other.close();
    }
  });

  it('caps requests in flight across all nodes at scheduler.max_concurrent_requests', async () => {
    // 12 requests of 60 ms through 3 slots take 240 ms even when all are due at
    // once: well within the timeout, which counts the wait for a slot. (A request
    // that timed out leaves the exporter's count at once but the node's a little
    // later, so a timeout would let the node see one more.)
    node = await startFakeNode(healthRoutes(12, 60));
    exporter = await startTestExporter(`
scheduler: { max_concurrent_requests: 3 }
defaults: { interval: 1s, timeout: 900ms, index: { endpoints: [] }, info: { enabled: false }, platform: { enabled: false }, chain_info: { enabled: false } }
targets:
${targets(12, node.url)}`);
    await waitForPolls(exporter, 2, 15_000);
    expect(node.maxInFlight).toBeLessThanOrEqual(3);
    expect(node.maxInFlight).toBeGreaterThanOrEqual(2);
    const text = await exporter.metrics();
    expect(text).toMatch(/^avalanchego_exporter_requests_in_flight \d+$/m);
    expect(text).not.toContain('reason="timeout"');
  });

  it('never overlaps two polls of one node, even when a poll takes most of the interval', async () => {
    node = await startFakeNode(healthRoutes(1, 250));
    exporter = await startTestExporter(`
defaults: { interval: 300ms, timeout: 280ms, index: { endpoints: [] }, info: { enabled: false }, platform: { enabled: false }, chain_info: { enabled: false }, evm: { enabled: false } }
targets:
${targets(1, node.url)}`);
    await waitForPolls(exporter, 4, 15_000);
    expect(node.maxInFlight).toBe(1);
    // One interval after the previous start, not one interval after its end.
    const starts = node.requests.map((r) => r.at);
    const gaps = starts.slice(1).map((t, i) => t - (starts[i] ?? t));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(250);
  });

  it("the exporter's wait is not the node's time: a poll waiting for a request slot is answered once one frees, no timeout", async () => {
    // One slot. "hog" takes it first and holds it for its 1 s timeout (its node
    // answers after 3 s); "waiter" is due ~50 ms later with a 300 ms timeout:
    // it waits for the slot (the exporter's time), then its node answers at once.
    expect(spreadFraction('hog')).toBeLessThan(spreadFraction('waiter'));
    expect((spreadFraction('waiter') - spreadFraction('hog')) * 3000).toBeLessThan(500);
    node = await startFakeNode({
      '/hog/ext/health': { fixture: 'health/healthy-v1.14.2.json', delayMs: 3000 },
      '/waiter/ext/health': { fixture: 'health/healthy-v1.14.2.json' },
    });
    exporter = await startTestExporter(`
scheduler: { max_concurrent_requests: 1 }
defaults: { interval: 3s, index: { endpoints: [] }, info: { enabled: false }, platform: { enabled: false }, chain_info: { enabled: false }, evm: { enabled: false }, proposervm: { enabled: false } }
targets:
  - { name: hog, url: '${node.url}/hog', timeout: 1s }
  - { name: waiter, url: '${node.url}/waiter', timeout: 300ms }`);
    await waitForPolls(exporter, 1, 15_000);
    const failed = exporter.logs.filter((l) => l.msg === 'poll failed');
    expect(failed.map((l) => [l.node, l.reason])).toEqual([['hog', 'timeout']]);
    expect(String(failed[0]?.error)).toMatch(/^no answer from .*\/hog\/ext\/health within 1000 ms/);
    expect(node.requests.map((r) => r.path)).toEqual(['/hog/ext/health', '/waiter/ext/health']);
    const text = await exporter.metrics();
    expect(sample(text, 'avalanchego_up{node="waiter"}')).toBe(1);
    expect(sample(text, 'avalanchego_exporter_polls_skipped_total{reason="saturated"}')).toBe(0);
  });

  it('a poll that cannot send within its interval is skipped as saturated: counted, never a timeout of the node, up unchanged', async () => {
    // "waiter" polls every second: some of its polls cannot start in time.
    await startHogAndWaiter();
    const running = defined(exporter, 'the exporter');
    const text = await waitFor(
      async () => {
        const t = await running.metrics();
        return (
          (sample(t, 'avalanchego_exporter_polls_skipped_total{reason="saturated"}') ?? 0) > 0 &&
          sample(t, 'avalanchego_up{node="waiter"}') === 1 &&
          t
        );
      },
      'a skipped poll and an answered one',
      20_000,
    );
    expect(text).not.toMatch(/avalanchego_exporter_poll_errors_total\{node="waiter"[^}]*\} [1-9]/);
    expect(sample(text, 'avalanchego_up{node="hog"}')).not.toBe(1);
    expect(running.logs.filter((l) => l.msg === 'poll failed' && l.node === 'waiter')).toEqual([]);
  });

  it('a debug poll that cannot send within its interval says the exporter is saturated, not that the node timed out', async () => {
    // The debug poll of "waiter" (interval 1 s) waits for the slot while the hog holds it.
    const fake = await startHogAndWaiter();
    const url = defined(exporter, 'the exporter').url;
    const text = await waitFor(
      async () => {
        await waitFor(() => fake.inFlight > 0, 'the hog holding the slot');
        const r = await get(`${url}/probe?target=waiter&debug=true`, { timeoutMs: 10_000 });
        return /poll SKIPPED/.test(r.body) && r.body;
      },
      'a debug poll of the waiter while the slot is held',
      20_000,
    );
    expect(text).toMatch(
      /\[health\] poll SKIPPED after \d+ ms: the exporter is saturated, no request slot came free within the poll's interval \(1000 ms\)/,
    );
    expect(text).not.toMatch(/\[health\] poll FAILED/);
  });

  it.each([
    // Accepts and never answers: the poll waited its whole interval and said SKIPPED, the exporter saturated.
    ['hangs', 60_000],
    // Answers after 1.5 s: the poll said "poll succeeded in 1500 ms" while every scheduled poll failed it as timeout.
    ['answers after its timeout', 1_500],
  ])('a debug poll of a node that %s runs the scheduled poll: the same deadline, and reason timeout', async (_what, delayMs) => {
    node = await startFakeNode({ '/ext/health': { fixture: 'health/healthy-v1.14.2.json', delayMs } });
    exporter = await startTestExporter(`
defaults: { interval: 4s, timeout: 500ms, index: { endpoints: [] }, info: { enabled: false }, platform: { enabled: false }, chain_info: { enabled: false }, evm: { enabled: false }, proposervm: { enabled: false } }
targets:
  - { name: n, url: '${node.url}' }`);
    const running = exporter;
    const started = Date.now();
    const r = await get(`${running.url}/probe?target=n&debug=true`, { timeoutMs: 10_000 });
    expect(r.status).toBe(200);
    expect(r.body).toMatch(
      /\[health\] poll FAILED after \d+ ms, reason=timeout: no answer from http:\/\/127\.0\.0\.1:\d+\/ext\/health within 500 ms/,
    );
    expect(r.body).not.toMatch(/poll SKIPPED|poll succeeded/);
    // Ended at the node's deadline, not after the interval or the answer.
    expect(Date.now() - started).toBeLessThan(delayMs > 4_000 ? 3_000 : 1_400);
    // The scheduled polls say the same.
    await waitFor(() => running.logs.find((l) => l.msg === 'poll failed' && l.node === 'n'), 'a scheduled poll failed', 10_000);
    expect(running.logs.filter((l) => l.msg === 'poll failed' && l.node === 'n').map((l) => l.reason)).toContain('timeout');
  });

  it('a saturated queue is not joined: polls are skipped before they wait, so the queue stays short and every node is polled', async () => {
    // One request slot, answers in 200 ms: 5 requests a second. 40 nodes every 2 s ask 20: a quarter fits.
    node = await startFakeNode(healthRoutes(40, 200));
    exporter = await startTestExporter(`
scheduler: { max_concurrent_requests: 1 }
defaults: { interval: 2s, timeout: 1500ms, index: { endpoints: [] }, info: { enabled: false }, platform: { enabled: false }, chain_info: { enabled: false }, evm: { enabled: false }, proposervm: { enabled: false } }
targets:
${targets(40, node.url)}`);
    const running = defined(exporter, 'the exporter');
    const queued: number[] = [];
    // Every node polled once (the skipped ones go first at their next poll), the queue sampled all along.
    await waitFor(
      async () => {
        const t = await running.metrics();
        queued.push(sample(t, 'avalanchego_exporter_requests_queued') ?? -1);
        return Array.from({ length: 40 }, (_, i) => sample(t, `avalanchego_up{node="n${i}"}`)).every((up) => up === 1) && t;
      },
      'every node polled and up',
      40_000,
    );
    const text = await running.metrics();
    expect(sample(text, 'avalanchego_exporter_polls_skipped_total{reason="saturated"}')).toBeGreaterThan(0);
    // Joining anyway, each poll would wait its whole interval (the queue held nearly every node's request, 30 and
    // more, and most were cut at the end of their wait); skipped before they join, it holds about half an interval.
    expect(Math.max(...queued)).toBeLessThanOrEqual(15);
    expect(queued.length).toBeGreaterThan(5);
    expect(text).not.toMatch(/avalanchego_exporter_poll_errors_total\{[^}]*\} [1-9]/);
  }, 60_000);

  it('spreads first polls over the interval (stable per name)', () => {
    const fractions = Array.from({ length: 1000 }, (_, i) => spreadFraction(`validator-${i}`));
    expect(Math.min(...fractions)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...fractions)).toBeLessThan(1);
    // Roughly uniform: every tenth of the interval gets some.
    const buckets = new Array(10).fill(0);
    for (const f of fractions) buckets[Math.floor(f * 10)]++;
    for (const b of buckets) expect(b).toBeGreaterThan(50);
    expect(spreadFraction('validator-1')).toBe(spreadFraction('validator-1'));
  });

  it('stop ends a poll under way (aborted, not waited out), then no request follows', async () => {
    node = await startFakeNode({ ...healthRoutes(1, 150), ...healthRoutes(1, 0, 'control') });
    exporter = await startTestExporter(`
defaults: { interval: 200ms, timeout: 190ms, index: { endpoints: [] }, info: { enabled: false }, platform: { enabled: false }, chain_info: { enabled: false } }
targets:
${targets(1, node.url)}`);
    await waitForPolls(exporter, 1);
    const fake = node;
    await waitFor(() => fake.inFlight > 0, 'a poll under way');
    await exporter.scheduler.stop();
    // The request was cut with the poll: the node sees its connection close.
    await waitFor(() => fake.inFlight === 0, 'the cut request closed at the node', 2_000);
    const stoppedCount = node.requests.filter((r) => r.path === '/n0/ext/health').length;
    // A control exporter on the same interval: once it has polled twice more, the
    // stopped one has had two chances to poll too.
    const control = await startTestExporter(`
defaults: { interval: 200ms, timeout: 190ms, index: { endpoints: [] }, info: { enabled: false }, platform: { enabled: false }, chain_info: { enabled: false } }
targets:
${targets(1, node.url, 'control')}`);
    try {
      await waitForPolls(control, 3);
    } finally {
      await control.close();
    }
    expect(node.requests.filter((r) => r.path === '/n0/ext/health').length).toBe(stoppedCount);
  });
});
