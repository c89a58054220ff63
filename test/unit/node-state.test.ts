// What a node serves and remembers, through the sources' own hooks: the status
// decided once by the health source (and since when), the summary parts and the
// page sections, and the ring of recent polls.
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { SOURCES, parseConfigText } from '../../src/sources/registry.js';
import { info } from '../../src/sources/info.js';
import type { PollContext } from '../../src/sources/source.js';
import { renderNodes } from '../../src/metrics/scrape.js';
import { PollError } from '../../src/rpc/errors.js';
import { NodeState, RECENT_POLLS } from '../../src/scheduler/node-state.js';
import { health, healthStatus, parseHealth } from '../../src/sources/health.js';
import { indexApi } from '../../src/sources/index-api.js';
import { nodeState } from '../../src/server/html.js';
import { defined } from '../helpers/assert.js';

function fixture(name: string): unknown {
  return (JSON.parse(readFileSync(new URL(`../fixtures/health/${name}`, import.meta.url), 'utf8')) as { result: unknown }).result;
}

function makeState(clock: { t: number }): NodeState {
  const config = parseConfigText('targets:\n  - name: n1\n    url: http://127.0.0.1:9650\n', 'test.yaml', {});
  const target = defined(config.targets[0], 'the target');
  return new NodeState(target, [health, indexApi], { now: () => clock.t }, pino({ level: 'silent' }));
}

describe('node state', () => {
  it('keeps the status the health source decides, and since when it holds', () => {
    const clock = { t: 1_000_000 };
    const state = makeState(clock);
    const h = defined(
      state.sources.find((s) => s.source === health),
      'the health source',
    );
    expect(state.summary().status).toBeUndefined();
    expect(nodeState(state.summary()).text).toBe('waiting for first poll');

    state.settle(h, undefined, new PollError('connect', 'cannot reach it'), 0.01);
    expect(state.summary()).toMatchObject({ status: 'down', stateSinceSeconds: 1000 });
    expect(nodeState(state.summary()).rank).toBe(0);

    clock.t += 5000;
    const healthy = parseHealth(fixture('healthy-v1.14.2.json'));
    expect(healthStatus(healthy)).toBe('healthy');
    state.settle(h, healthy, undefined, 0.01);
    clock.t += 5000;
    state.settle(h, parseHealth(fixture('healthy-v1.14.2.json')), undefined, 0.01);
    // Healthy since the first healthy answer, not the last.
    expect(state.summary()).toMatchObject({ status: 'healthy', stateSinceSeconds: 1005 });
    expect(state.summary().heights.map((x) => x.chain)).toEqual(expect.arrayContaining(['C', 'P', 'X']));
  });

  it("builds the node page from the sources' sections, and keeps the last polls in a ring", () => {
    const clock = { t: 1_000_000 };
    const state = makeState(clock);
    const h = defined(
      state.sources.find((s) => s.source === health),
      'the health source',
    );
    const titles = () => state.detail().sections.map((s) => `${s.title}: ${s.rows.length}`);
    expect(titles()).toEqual(['Health checks: 0', 'Chains: 0', 'Index endpoints: 0']);
    for (let i = 0; i < RECENT_POLLS + 2; i++) state.settle(h, parseHealth(fixture('healthy-v1.14.2.json')), undefined, 0.01);
    const detail = state.detail();
    expect(detail.sections[0]?.rows.length).toBeGreaterThan(3);
    expect(detail.sections[0]?.rows[0]?.values[0]).toEqual({ flag: true });
    expect(detail.sources.find((s) => s.name === 'health')?.recent).toHaveLength(RECENT_POLLS);
    expect(detail.sources.find((s) => s.name === 'health')?.polls).toBe(RECENT_POLLS + 2);
  });
});

describe('a source reads another through `uses` (the node gives it; no source imports another)', () => {
  const NODE_ID = 'NodeID-FQWBUVv46nR5YiaYabXhHvBQDpBVjRCEd';
  const infoBody = (file: string) => readFileSync(new URL(`../fixtures/info/${file}`, import.meta.url), 'utf8');
  const stateWith = (yaml: string) => {
    const config = parseConfigText(`targets:\n  - name: n1\n    url: http://127.0.0.1:9650\n${yaml}`, 'test.yaml', {});
    return new NodeState(defined(config.targets[0], 'the target'), SOURCES, { now: () => 1_000_000 }, pino({ level: 'silent' }));
  };
  /** A poll's context whose requests are answered from the info fixtures (the network edge), each recorded. */
  const pollOf = (state: NodeState) => {
    const asked: string[] = [];
    const ctx: PollContext = {
      target: state.target,
      signal: new AbortController().signal,
      node: state,
      now: () => 1_000_000,
      stream: (path) => Promise.reject(new Error(`no GET of ${path} in this test`)),
      rpc: (path, method) => {
        asked.push(method);
        const file = method === 'info.getNodeID' ? 'getNodeID-v1.14.2.json' : 'upgrades-mainnet-v1.15.0.json';
        return Promise.resolve({ url: `http://127.0.0.1:9650${path}`, status: 200, headers: {}, body: infoBody(file), method, id: 1 });
      },
    };
    return { ctx, asked };
  };
  const lines = (state: NodeState) =>
    renderNodes([state.nodeLines])
      .toString()
      .split('\n')
      .filter((l) => l.startsWith('avalanchego_node_info'));

  it("the info source's facts come from its last poll, with no request of the using poll", async () => {
    const state = stateWith('');
    const infoState = defined(
      state.sources.find((s) => s.source === info),
      'the info source',
    );
    state.settle(infoState, { methods: { 'info.upgrades': 'ok' }, nodeId: NODE_ID, heliconSeconds: 1_800_000_000 }, undefined, 0.01);
    const { ctx, asked } = pollOf(state);
    expect(await state.use('info', ctx)).toEqual({ nodeId: NODE_ID, heliconSeconds: 1_800_000_000 });
    expect(asked).toEqual([]);
  });

  it('with the info source off, its own code asks the node for them, under the using poll', async () => {
    const state = stateWith('    info: { enabled: false }\n');
    expect(state.runs('info')).toBe(false);
    const { ctx, asked } = pollOf(state);
    const identity = await state.use('info', ctx);
    expect(identity.nodeId).toBe(NODE_ID);
    expect(identity.heliconSeconds).toBeTypeOf('number');
    expect(asked).toEqual(['info.getNodeID', 'info.upgrades']);
  });

  it('health serves avalanchego_node_info only where the info source does not run for the node (a fact of the config, not of the data)', () => {
    const healthy = () => ({ ...parseHealth(fixture('healthy-v1.14.2.json')), nodeId: NODE_ID });
    for (const [yaml, served] of [
      ['', false],
      ['    info: { enabled: false }\n', true],
    ] as const) {
      const state = stateWith(yaml);
      const h = defined(
        state.sources.find((s) => s.source === health),
        'the health source',
      );
      state.settle(h, healthy(), undefined, 0.01);
      expect(lines(state), yaml || 'info on').toEqual(served ? [`avalanchego_node_info{node="n1",node_id="${NODE_ID}"} 1`] : []);
    }
  });

  it('a source that offers nothing cannot be used', async () => {
    const state = stateWith('');
    const { ctx } = pollOf(state);
    await expect(state.use('index' as 'info', ctx)).rejects.toThrow('no source named index offers facts');
  });
});
