// Which abort marks a node as hanging (rpc/admission.ts): only its own deadline. A
// request cut on the wire because the exporter itself was saturated (its event
// loop blocked past the poll's wait) leaves the node answering; marked hanging, it
// would be held to the hanging share for the exporter's own load.
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admission, type NodeAdmission } from '../../src/rpc/admission.js';
import { NodeClient, RequestBodies } from '../../src/rpc/client.js';
import { PollDeadline } from '../../src/rpc/deadline.js';
import { classifyError } from '../../src/rpc/errors.js';
import { Dispatchers } from '../../src/rpc/sockets.js';
import { parseConfigText } from '../../src/sources/registry.js';
import type { TargetConfig } from '../../src/config/schema.js';
import { defined } from '../helpers/assert.js';
import { startFakeNode, waitFor, type FakeNode } from '../helpers/fake-node.js';

let slow: FakeNode | undefined;
let dispatchers: Dispatchers | undefined;
let target: TargetConfig | undefined;

beforeAll(async () => {
  // Answers after 3 s: every request below is cut on the wire.
  slow = await startFakeNode({ '/ext/health': { fixture: 'health/healthy-v1.14.2.json', delayMs: 3000 } });
  const config = parseConfigText(`targets:\n  - { name: slow, url: '${slow.url}' }\n`, 'test.yaml', {});
  target = defined(config.targets[0], 'target slow');
  dispatchers = new Dispatchers();
});

/** A node's client and admission, under an admission of its own (`slots` requests in flight) with `urls` as its layout. */
function nodeClient(dispatchers: Dispatchers, slots: number, urls: string[], maxPerOrigin?: number): { client: NodeClient; door: NodeAdmission } {
  const t = defined(target, 'the target');
  const admission = new Admission(slots, dispatchers.maxConnections);
  admission.setLayout(urls, slots, maxPerOrigin);
  dispatchers.sizePoolsBy(admission);
  const door = admission.node(t.url);
  return { client: new NodeClient(t, dispatchers, door, new RequestBodies()), door };
}

afterAll(async () => {
  await dispatchers?.close();
  await slow?.close();
});

/** Sends health.health under a fresh deadline (100 ms on the wire, 200 ms of waiting); `block` ms of blocked loop once sent. */
async function cutOnTheWire(block: number): Promise<{ door: NodeAdmission; deadline: PollDeadline; err: unknown }> {
  const node = defined(slow, 'the slow node');
  const { client, door } = nodeClient(defined(dispatchers, 'the dispatchers'), 4, [defined(target, 'the target').url]);
  const deadline = new PollDeadline(100, 200, undefined, door);
  const before = node.requests.length;
  const reply = client.rpc('/ext/health', 'health.health', {}, deadline).catch((e: unknown) => e);
  if (block > 0) {
    await waitFor(() => node.requests.length > before, 'the request at the node', 2000);
    // The exporter's event loop held past the poll's wait and timeout (a long scrape, a saturated process).
    const end = performance.now() + block;
    while (performance.now() < end);
  }
  const err = await reply;
  deadline.clear();
  return { door, deadline, err };
}

describe('a node is marked hanging by its own deadline only', () => {
  it('cut by its deadline on the wire: the node hangs, and the poll fails with reason timeout', async () => {
    const { door, deadline, err } = await cutOnTheWire(0);
    expect(deadline.saturated).toBe(false);
    expect(classifyError(err, { url: 'http://n', timeoutMs: 100 }).reason).toBe('timeout');
    expect(door.hanging).toBe(true);
  });

  it('cut as the exporter saturated (its loop blocked past wait and timeout): the node is not marked hanging', async () => {
    const { door, deadline, err } = await cutOnTheWire(400);
    expect(err).toBeInstanceOf(Error);
    expect(deadline.saturated).toBe(true);
    expect(door.hanging).toBe(false);
  });

  it('stopped with a request on the wire: not marked hanging either', async () => {
    const node = defined(slow, 'the slow node');
    const { client, door } = nodeClient(defined(dispatchers, 'the dispatchers'), 4, [defined(target, 'the target').url]);
    const stop = new AbortController();
    const deadline = new PollDeadline(1000, 2000, stop.signal, door);
    const before = node.requests.length;
    const reply = client.rpc('/ext/health', 'health.health', {}, deadline).catch((e: unknown) => e);
    await waitFor(() => node.requests.length > before, 'the request at the node', 2000);
    stop.abort();
    expect(await reply).toBeInstanceOf(Error);
    deadline.clear();
    expect(door.hanging).toBe(false);
  });
});

describe("a node alone on its origin: waiting behind its own unanswered requests is the node's time", () => {
  /** Three requests at once under their own deadlines (300 ms on the wire, 100 ms of waiting): the origin has two connections. */
  async function threeAtOnce(
    dispatchers: Dispatchers,
    urls: string[],
    maxPerOrigin?: number,
  ): Promise<{ deadlines: PollDeadline[]; errs: unknown[]; queuedBacklog: number[] }> {
    const node = defined(slow, 'the slow node');
    const { client, door } = nodeClient(dispatchers, 16, urls, maxPerOrigin);
    const deadlines = [0, 1, 2].map(() => new PollDeadline(300, 100, undefined, door));
    const before = node.requests.length;
    const replies = deadlines.map((d) => client.rpc('/ext/health', 'health.health', {}, d).catch((e: unknown) => e));
    await waitFor(() => node.requests.length >= before + 2, 'two requests at the node', 2000);
    // The third waits for a connection: the backlog a poll of this node would see (a quarter of a 1 s interval).
    const queuedBacklog = [door.backlogMs(performance.now() + 1000, 250)];
    const errs = await Promise.all(replies);
    for (const d of deadlines) d.clear();
    return { deadlines, errs, queuedBacklog };
  }

  it('the request queued behind two hanging ones fails with reason timeout at its deadline, not as the exporter saturated', async () => {
    const alone = new Dispatchers();
    try {
      const started = performance.now();
      const { deadlines, errs, queuedBacklog } = await threeAtOnce(alone, [defined(target, 'the target').url]);
      // The third waited past the poll's 100 ms of waiting: still the node's time, cut at its 300 ms.
      expect(performance.now() - started).toBeGreaterThanOrEqual(300);
      expect(deadlines.map((d) => d.saturated)).toEqual([false, false, false]);
      const errors = errs.map((e) => classifyError(e, { url: 'http://n', timeoutMs: 300 }));
      expect(errors.map((e) => e.reason)).toEqual(['timeout', 'timeout', 'timeout']);
      expect(errors[2]?.message).toMatch(
        /^no answer from http:\/\/127\.0\.0\.1:\d+\/ext\/health within 300 ms: the node had not answered the requests ahead of this one/,
      );
      // Its own queue is no saturation of the exporter: its polls are not skipped for it.
      expect(queuedBacklog).toEqual([0]);
    } finally {
      await alone.close();
    }
  });

  it("on an origin other nodes share, the same wait is the exporter's: skipped as saturated once the poll's wait is gone", async () => {
    const url = defined(target, 'the target').url;
    const shared = new Dispatchers();
    try {
      // Two targets on the origin (four connections): one of them polled here, with a per-origin cap of two.
      const { deadlines, errs, queuedBacklog } = await threeAtOnce(shared, [url, `${url}/other`], 2);
      expect(deadlines.map((d) => d.saturated)).toEqual([false, false, true]);
      expect(classifyError(errs[0], { url: 'http://n', timeoutMs: 300 }).reason).toBe('timeout');
      expect(queuedBacklog[0]).toBeGreaterThan(250);
    } finally {
      await shared.close();
    }
  });
});
