// How many targets change owner when the shard count changes (rendezvous hashing,
// src/shard.ts), measured over a fleet of sequential names. Prints a Markdown table:
//   npm run build && node bench/shard-moves.mjs [--targets=30000] [--max=16]
import { parseArgs } from 'node:util';
import { shardOf } from '../dist/shard.js';

const { values } = parseArgs({ options: { targets: { type: 'string', default: '30000' }, max: { type: 'string', default: '16' } } });
const targets = Number(values.targets);
const max = Number(values.max);
const names = Array.from({ length: targets }, (_, i) => `node-${i}`);

console.log(`${targets} targets named node-0 … node-${targets - 1}\n`);
console.log('| shards N → N+1 | targets moved | share moved | ideal 1/(N+1) | largest shard after / even share |');
console.log('|---|---|---|---|---|');
let before = names.map((n) => shardOf(n, 1));
for (let n = 1; n < max; n++) {
  const after = names.map((name) => shardOf(name, n + 1));
  let moved = 0;
  const sizes = Array.from({ length: n + 1 }, () => 0);
  for (const [i, shard] of after.entries()) {
    if (shard !== before[i]) moved++;
    sizes[shard] = (sizes[shard] ?? 0) + 1;
  }
  const largest = Math.max(...sizes) / (targets / (n + 1));
  console.log(
    `| ${n} → ${n + 1} | ${moved} | ${((moved / targets) * 100).toFixed(1)} % | ${((1 / (n + 1)) * 100).toFixed(1)} % | ${largest.toFixed(3)} |`,
  );
  before = after;
}
