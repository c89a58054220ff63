// A fleet in one process: hundreds of nodes on one port under path
// prefixes, each with its own ID, zone, heights and scenario.

import { describe, expect, it } from 'vitest';
import { defined } from '../helpers/assert.js';
import { control, http, matching, post, report, result, rpc, simulator, waitFor } from './helpers.js';

/** Runs `fn` over `items` with at most `limit` in flight. */
async function pool<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  // One iterator shared by the workers: each takes the next item when it is free.
  const queue = items.entries();
  await Promise.all(
    Array.from({ length: limit }, async () => {
      for (const [i, item] of queue) out[i] = await fn(item);
    }),
  );
  return out;
}

describe('a fleet of 400 nodes on one port', () => {
  it('gives every node its own prefix, ID and state, and switches one without touching the others', async () => {
    const t0 = Date.now();
    const sim = await simulator({
      nodes: 400,
      checkFrequencyMs: 250,
      timeScale: 60,
      scenario: (i) => (i % 100 === 99 ? 'bootstrapping' : 'healthy'),
    });
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(sim.nodes).toHaveLength(400);
    expect(sim.nodes[17]).toEqual({ name: 'node-17', baseUrl: `${sim.url}/node-17`, nodeId: matching(/^NodeID-/) });
    expect(new Set(sim.nodes.map((n) => n.nodeId)).size).toBe(400);
    // The node API at the root is not served in a fleet: each node lives under its prefix.
    expect((await http(`${sim.url}/ext/health`)).status).toBe(404);
    expect((await http(`${sim.url}/node-400/ext/health`)).status).toBe(404);
    expect((await http(`${sim.url}/node-17`)).status).toBe(404);

    {
      const replies = await pool(sim.nodes.slice(), 32, async (n) => {
        const r = await http(`${n.baseUrl}/ext/health`);
        return { n, r };
      });
      for (const { n, r } of replies) {
        expect(r.headers['node-id']).toBe(n.nodeId);
        const index = Number(n.name.slice('node-'.length));
        expect(r.status, n.name).toBe(index % 100 === 99 ? 503 : 200);
        expect(report(r.body).checks.C.timestamp).toBeTypeOf('string');
      }
      // Zones differ across the fleet.
      const zones = new Set(
        replies.map(({ r }) => defined(/(Z|[+-]\d\d:\d\d)"/.exec(report(r.body).checks.bls.timestamp + '"'), 'a zone in the bls timestamp')[1]),
      );
      expect(zones.size).toBeGreaterThanOrEqual(4);
    }

    // Index and admin answer per node too.
    const node = (i: number) => defined(sim.nodes[i], `node-${i}`);
    const last = await result(`${node(250).baseUrl}/ext/index/C/block`, 'index.getLastAccepted');
    expect(last.timestamp).toMatch(/(Z|[+-]\d\d:\d\d)$/);
    expect((await rpc(`${node(251).baseUrl}/ext/admin`, 'admin.startCPUProfiler')).body).toBe('{"jsonrpc":"2.0","result":{},"id":1}\n');
    // Admin state is per node.
    expect((await rpc(`${node(252).baseUrl}/ext/admin`, 'admin.startCPUProfiler')).body).toBe('{"jsonrpc":"2.0","result":{},"id":1}\n');

    const set = await post(`${sim.url}/sim/nodes/node-17/scenario`, '{"scenario":"stalled-chain"}');
    expect(set.status).toBe(200);
    await waitFor(
      async () => (await http(`${node(17).baseUrl}/ext/health`)).status,
      (s) => s === 503,
      5_000,
      'node-17 to fail',
    );
    expect((await http(`${node(16).baseUrl}/ext/health`)).status).toBe(200);
    expect((await http(`${node(18).baseUrl}/ext/health`)).status).toBe(200);
    const listed = control((await http(`${sim.url}/sim/nodes`)).body, 'nodes').nodes;
    expect(listed).toHaveLength(400);
    expect(listed.filter((n) => n.scenario !== 'healthy').map((n) => n.name)).toEqual(['node-17', 'node-99', 'node-199', 'node-299', 'node-399']);

    // One call switches the whole fleet.
    const all = await post(`${sim.url}/sim/scenario`, '{"scenario":"healthy"}');
    expect(control(all.body, 'nodes').nodes).toHaveLength(400);
    expect(sim.scenarioOf('node-99')).toBe('healthy');
  });

  it('runs 3000 nodes cheaply and closes promptly', async () => {
    const before = process.memoryUsage().heapUsed;
    const t0 = Date.now();
    const sim = await simulator({ nodes: 3000, checkFrequencyMs: 1_000 });
    const started = Date.now() - t0;
    expect(started).toBeLessThan(10_000);
    const replies = await pool([0, 999, 1500, 2999], 4, (i) => http(`${defined(sim.nodes[i], `node-${i}`).baseUrl}/ext/health`));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    // Well under 100 kB of heap per node.
    expect((process.memoryUsage().heapUsed - before) / 3000).toBeLessThan(100_000);
    const t1 = Date.now();
    await sim.close();
    expect(Date.now() - t1).toBeLessThan(2_000);
  });

  it('can give each node its own port', async () => {
    const sim = await simulator({ nodes: 5, portPerNode: true, checkFrequencyMs: 3_600_000 });
    const ports = sim.nodes.map((n) => new URL(n.baseUrl).port);
    expect(new Set([...ports, new URL(sim.url).port]).size).toBe(6);
    for (const n of sim.nodes) {
      const r = await http(`${n.baseUrl}/ext/health`);
      expect([r.status, r.headers['node-id']]).toEqual([200, n.nodeId]);
    }
    // The control API is on the main port only.
    expect((await http(`${sim.url}/sim/nodes`)).status).toBe(200);
    expect((await http(`${sim.url}/ext/health`)).status).toBe(404);
    expect((await http(`${defined(sim.nodes[0], 'node-0').baseUrl}/sim/nodes`)).status).toBe(404);
  });
});

describe('options', () => {
  it('rejects bad options with clear errors', async () => {
    const { startSimulator } = await import('../../src/simulator/index.js');
    await expect(startSimulator({ nodes: 0 })).rejects.toThrow(/nodes must be an integer/);
    await expect(startSimulator({ timeScale: 0 })).rejects.toThrow(/time scale/);
    await expect(startSimulator({ checkFrequencyMs: 0 })).rejects.toThrow(/check frequency/);
    await expect(startSimulator({ checkFrequencyMs: 2 ** 31 })).rejects.toThrow(/check frequency/);
    await expect(startSimulator({ scenario: 'nope' as never })).rejects.toThrow(/unknown scenario "nope"/);
    await expect(startSimulator({ timings: { peersDropSeconds: -1 } })).rejects.toThrow(/peersDropSeconds/);
    await expect(startSimulator({ timings: { downMode: 'refused' } })).rejects.toThrow(/portPerNode/);
  });

  it('keeps a very slow time scale from overflowing the check timer', async () => {
    // An overflowing timer fires after 1 ms instead, and Node warns about it.
    const warnings: string[] = [];
    const onWarning = (w: Error) => void warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const sim = await simulator({ timeScale: 1e-9 });
      const r = await http(`${sim.url}/ext/health`);
      expect(r.status).toBe(200);
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('TimeoutOverflowWarning');
  });
});
