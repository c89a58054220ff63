// Render benchmark: the cost of a scrape's rendering, apart from the network.
// Builds N nodes' sample lines from a fixture (as a poll does), then renders
// them as /metrics does. Usage: node bench/render.mjs [--nodes=10000]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { health, parseHealth } from '../dist/sources/health.js';
import { indexApi } from '../dist/sources/index-api.js';
import { addPollStats } from '../dist/metrics/samples.js';
import { LinesBuilder } from '../dist/metrics/render.js';
import { renderNodes } from '../dist/metrics/scrape.js';

const { values } = parseArgs({ options: { nodes: { type: 'string', default: '10000' }, rounds: { type: 'string', default: '5' } } });
const n = Number(values.nodes);
const fixtureUrl = new URL('../test/fixtures/health/healthy-v1.14.2.json', import.meta.url);
/** @type {unknown} */
const fixture = JSON.parse(readFileSync(fixtureUrl, 'utf8'));
if (typeof fixture !== 'object' || fixture === null || !('result' in fixture)) throw new Error(`${fixtureUrl.pathname}: no JSON-RPC result`);
const snapshot = parseHealth(fixture.result, 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg');
const index = {
  endpoints: ['C/block', 'P/block', 'X/block', 'X/tx'].map((endpoint) => ({
    endpoint,
    state: 'ok',
    lastIndex: 51234566,
    timestampSeconds: 1795184101.9876542,
  })),
};
const stats = { success: true, durationSeconds: 0.012345, lastSuccessSeconds: 1795184110.123, errors: new Map() };

let t = performance.now();
const nodes = [];
// As the poller does: each source's lines when its poll ends, the node's lines are the list of them.
/**
 * @template S
 * @param {string} name the node
 * @param {{ name: string, samples(b: LinesBuilder, value: S): void }} source
 * @param {S} value the source's snapshot
 */
const sourceLines = (name, source, value) => {
  const b = new LinesBuilder(name);
  source.samples(b, value);
  addPollStats(b, source.name, stats);
  return b.build();
};
for (let i = 0; i < n; i++) {
  const name = `node-${i}`;
  nodes.push([sourceLines(name, health, snapshot), sourceLines(name, indexApi, index)]);
}
const buildMs = performance.now() - t;
const times = [];
let size = 0;
for (let r = 0; r < Number(values.rounds); r++) {
  t = performance.now();
  size = renderNodes(nodes).length;
  times.push(performance.now() - t);
}
times.sort((a, b) => a - b);
const [fastest, slowest, median] = [times[0], times.at(-1), times[Math.floor(times.length / 2)]];
if (fastest === undefined || slowest === undefined || median === undefined) throw new Error('--rounds must be at least 1');
console.log(`render benchmark: ${n} nodes`);
console.log(`  sample lines built in ${buildMs.toFixed(0)} ms (${((buildMs * 1000) / n).toFixed(0)} µs a node, done once per poll)`);
console.log(
  `  /metrics body ${(size / 2 ** 20).toFixed(1)} MiB rendered in ${fastest.toFixed(0)}–${slowest.toFixed(0)} ms (median ${median.toFixed(0)} ms over ${times.length} rounds)`,
);
