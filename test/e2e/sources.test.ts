// The Source contract end to end: a source written against src/sources/source.ts
// and given to the scheduler is polled on its own interval, reads the node's
// other sources' snapshots, and gets its poll metrics and logs like the built-in ones.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import { Dispatchers } from '../../src/rpc/sockets.js';
import { rpcResult } from '../../src/rpc/jsonrpc.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { health } from '../../src/sources/health.js';
import { indexApi } from '../../src/sources/index-api.js';
import { SOURCES } from '../../src/sources/registry.js';
import type { Source } from '../../src/sources/source.js';
import { startFakeNode, waitFor, type FakeNode } from '../helpers/fake-node.js';
import { nodeSeries, sample } from '../helpers/exporter.js';

const NODE_ID = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';

interface VersionSnapshot {
  version: string;
  /** The node ID the health source had when this poll ran. */
  nodeIdSeen?: string;
}

/** A source as a new module would write it: info.getNodeVersion on /ext/info every 100 ms. */
const version: Source<VersionSnapshot> = {
  name: 'version',
  enabled: () => true,
  intervalMs: () => 100,
  async poll(ctx) {
    const result = rpcResult(await ctx.rpc('/ext/info', 'info.getNodeVersion', {})) as { version: string };
    const nodeIdSeen = ctx.node.latest(health)?.nodeId;
    return { version: result.version, ...(nodeIdSeen ? { nodeIdSeen } : {}) };
  },
  samples() {},
  watch(log) {
    let last: string | undefined;
    return {
      observe(snapshot) {
        if (snapshot && snapshot.version !== last) log.info({ version: snapshot.version }, 'node version');
        last = snapshot?.version ?? last;
      },
    };
  },
};

let node: FakeNode | undefined;
let scheduler: Scheduler | undefined;
let dispatchers: Dispatchers | undefined;
afterEach(async () => {
  await scheduler?.stop();
  await dispatchers?.close();
  await node?.close();
  scheduler = dispatchers = node = undefined;
});

/** Polls of the scheduler's only target. */
const polls = (s: Scheduler) => s.summaries()[0]?.polls ?? 0;

function memoryLogger() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const logs = () =>
    lines
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { logger: pino({ level: 'debug' }, sink), logs };
}

describe('the Source contract', () => {
  it('registry: every source has a unique lowercase name; health comes first (its series lead the output)', () => {
    const names = SOURCES.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9_]*$/);
    expect(SOURCES[0]).toBe(health);
    expect(SOURCES).toContain(indexApi);
  });

  it('a new source runs on its own interval, reads the health snapshot, and gets poll metrics and logs', async () => {
    const fake = await startFakeNode({
      '/ext/health': { fixture: 'health/healthy-v1.14.2.json', headers: { 'node-id': NODE_ID } },
      '/ext/info': { body: '{"jsonrpc":"2.0","result":{"version":"avalanchego/1.14.2"},"id":1}\n' },
    });
    node = fake;
    const { logger, logs } = memoryLogger();
    dispatchers = new Dispatchers();
    const config = parseConfigText(
      `defaults: { interval: 2s, timeout: 1s, index: { endpoints: [] }, info: { enabled: false }, platform: { enabled: false } }\ntargets:\n  - name: n\n    url: ${node.url}\n`,
      'test.yaml',
      {},
    );
    const seen: Array<string | undefined> = [];
    const recording: Source<VersionSnapshot> = {
      ...version,
      async poll(ctx) {
        const snapshot = await version.poll(ctx);
        seen.push(snapshot.nodeIdSeen);
        return snapshot;
      },
    };
    scheduler = new Scheduler({ dispatchers, logger, sources: [health, recording] }, config);
    await scheduler.start();
    // The version source polls every 100 ms, health every 2 s: after one health
    // poll, later version polls see the node ID it read from the header.
    const requestsTo = (path: string) => fake.requests.filter((r) => r.path === path).length;
    await waitFor(() => seen.includes(NODE_ID) && requestsTo('/ext/info') >= 5, 'version polls seeing the node ID', 15_000);
    expect(requestsTo('/ext/health')).toBeLessThan(requestsTo('/ext/info'));

    const text = nodeSeries(scheduler);
    expect(sample(text, 'avalanchego_exporter_poll_success{node="n",source="version"}')).toBe(1);
    expect(sample(text, 'avalanchego_up{node="n"}')).toBe(1);
    // Poll metrics of each family in the order of the sources list.
    const successLines = text.split('\n').filter((l) => l.startsWith('avalanchego_exporter_poll_success{'));
    expect(successLines).toEqual([
      'avalanchego_exporter_poll_success{node="n",source="health"} 1',
      'avalanchego_exporter_poll_success{node="n",source="version"} 1',
    ]);
    // State changes only: the version is logged once, by the source's child logger.
    expect(logs().filter((l) => l.msg === 'node version')).toEqual([
      expect.objectContaining({ node: 'n', source: 'version', version: 'avalanchego/1.14.2' }),
    ]);
  });

  it('a source that is not enabled for a target is not polled and has no series', async () => {
    node = await startFakeNode({ '/ext/health': { fixture: 'health/healthy-v1.14.2.json' } });
    const { logger } = memoryLogger();
    dispatchers = new Dispatchers();
    const config = parseConfigText(
      `defaults: { interval: 200ms, timeout: 100ms, info: { enabled: false }, platform: { enabled: false } }\ntargets:\n  - name: n\n    url: ${node.url}\n`,
      'test.yaml',
      {},
    );
    const s = new Scheduler({ dispatchers, logger, sources: [health, { ...version, enabled: () => false }] }, config);
    scheduler = s;
    await s.start();
    await waitFor(() => polls(s) >= 2, 'two health polls');
    expect(node.requests.every((r) => r.path === '/ext/health')).toBe(true);
    expect(nodeSeries(scheduler)).not.toContain('source="version"');
  });

  it('the scheduler polls nothing before start()', async () => {
    node = await startFakeNode({ '/ext/health': { fixture: 'health/healthy-v1.14.2.json' } });
    const { logger } = memoryLogger();
    dispatchers = new Dispatchers();
    const config = parseConfigText(
      `defaults: { interval: 100ms, timeout: 50ms, info: { enabled: false }, platform: { enabled: false } }\ntargets:\n  - name: n\n    url: ${node.url}\n`,
      'test.yaml',
      {},
    );
    const s = new Scheduler({ dispatchers, logger }, config);
    scheduler = s;
    // A control scheduler that is started: once it has polled twice, the other had the time to.
    const control = new Scheduler({ dispatchers, logger }, config);
    await control.start();
    try {
      await waitFor(() => polls(control) >= 2, 'two polls of the started scheduler');
    } finally {
      await control.stop();
    }
    const polled = node.requests.length;
    expect(scheduler.summaries()).toEqual([]);
    expect(nodeSeries(scheduler).length).toBe(0);
    await scheduler.start();
    await waitFor(() => polls(s) >= 1, 'a poll after start()');
    expect(node.requests.length).toBeGreaterThan(polled);
  });
});
