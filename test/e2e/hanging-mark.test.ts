// Which abort marks a node as hanging (rpc/client.ts): only its own deadline. A
// request cut on the wire because the exporter itself was saturated (its event
// loop blocked past the poll's wait) leaves the node answering; marked hanging, it
// would be held to the hanging share for the exporter's own load.
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dispatchers, NodeClient, RequestBodies } from '../../src/rpc/client.js';
import { PollDeadline } from '../../src/rpc/deadline.js';
import { classifyError } from '../../src/rpc/errors.js';
import { Limiter } from '../../src/rpc/limiter.js';
import { parseConfigText } from '../../src/config/load.js';
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
  dispatchers.setLayout([target.url]);
});

afterAll(async () => {
  await dispatchers?.close();
  await slow?.close();
});

/** Sends health.health under a fresh deadline (100 ms on the wire, 200 ms of waiting); `block` ms of blocked loop once sent. */
async function cutOnTheWire(block: number): Promise<{ client: NodeClient; deadline: PollDeadline; err: unknown }> {
  const node = defined(slow, 'the slow node');
  const client = new NodeClient(defined(target, 'the target'), defined(dispatchers, 'the dispatchers'), new Limiter(4), new RequestBodies());
  const deadline = new PollDeadline(100, 200);
  const before = node.requests.length;
  const reply = client.rpc('/ext/health', 'health.health', {}, deadline.signal, deadline).catch((e: unknown) => e);
  if (block > 0) {
    await waitFor(() => node.requests.length > before, 'the request at the node', 2000);
    // The exporter's event loop held past the poll's wait and timeout (a long scrape, a saturated process).
    const end = performance.now() + block;
    while (performance.now() < end);
  }
  const err = await reply;
  deadline.clear();
  return { client, deadline, err };
}

describe('a node is marked hanging by its own deadline only', () => {
  it('cut by its deadline on the wire: the node hangs, and the poll fails with reason timeout', async () => {
    const { client, deadline, err } = await cutOnTheWire(0);
    expect(deadline.saturated).toBe(false);
    expect(classifyError(err, { url: 'http://n', timeoutMs: 100 }).reason).toBe('timeout');
    expect(client.hanging).toBe(true);
  });

  it('cut as the exporter saturated (its loop blocked past wait and timeout): the node is not marked hanging', async () => {
    const { client, deadline, err } = await cutOnTheWire(400);
    expect(err).toBeInstanceOf(Error);
    expect(deadline.saturated).toBe(true);
    expect(client.hanging).toBe(false);
  });

  it('stopped with a request on the wire: not marked hanging either', async () => {
    const node = defined(slow, 'the slow node');
    const client = new NodeClient(defined(target, 'the target'), defined(dispatchers, 'the dispatchers'), new Limiter(4), new RequestBodies());
    const stop = new AbortController();
    const deadline = new PollDeadline(1000, 2000, stop.signal);
    const before = node.requests.length;
    const reply = client.rpc('/ext/health', 'health.health', {}, deadline.signal, deadline).catch((e: unknown) => e);
    await waitFor(() => node.requests.length > before, 'the request at the node', 2000);
    stop.abort();
    expect(await reply).toBeInstanceOf(Error);
    deadline.clear();
    expect(client.hanging).toBe(false);
  });
});
