// What a node serves and remembers, through the sources' own hooks: the status
// decided once by the health source (and since when), the summary parts and the
// page sections, and the ring of recent polls.
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/sources/registry.js';
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
