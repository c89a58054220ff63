// Writes docs/detection.md: every simulator scenario run against a real Prometheus (the
// shipped rules) and a real Alertmanager (the shipped configuration) in compressed time,
// with what fired, what Alertmanager held back and what it sent; then a healthy fleet with
// blips for a compressed hour. Needs `npm run build` and the Debian packages prometheus and
// prometheus-alertmanager. Takes about 17 minutes (at --speedup=10).
//
//   node scripts/detection.mjs [--speedup=10] [--out=docs/detection.md] [--only=down,stalled-chain] [--json=raw.json]
//
// The harness is test/rules/detection-harness.ts (shared with test/rules/detection.test.ts),
// loaded through Vite's module loader (vitest/node), as vitest loads it for the tests.
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createViteServer } from 'vitest/node';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    speedup: { type: 'string', default: '10' }, out: { type: 'string', default: 'docs/detection.md' }, only: { type: 'string' },
    json: { type: 'string' },
  },
});
const speedup = Number(values.speedup);

const vite = await createViteServer({
  root: ROOT, configFile: false, logLevel: 'error', appType: 'custom',
  server: { middlewareMode: true, hmr: false, ws: false }, optimizeDeps: { noDiscovery: true, include: [] },
});
let harness, plans;
try {
  harness = await vite.ssrLoadModule('/test/rules/detection-harness.ts');
  plans = await vite.ssrLoadModule('/test/rules/detection-plans.ts');
} finally {
  await vite.close();
}

const log = (line) => process.stderr.write(`[detection] ${line}\n`);
const only = values.only?.split(',');
const faults = plans.FAULTS.filter((f) => !only || only.includes(f.scenario));
const started = new Date();

log(`fault run: ${faults.length} scenarios`);
const faultRun = await harness.runDetection({ speedup, nodes: plans.faultFleet(faults), durationSeconds: plans.faultRunSeconds(faults), log });
log('blips run: a healthy fleet for a compressed hour');
const blipRun = only ? undefined : await harness.runDetection({ speedup, nodes: plans.blipFleet(), durationSeconds: plans.BLIP_RUN_SECONDS, seed: 'avalanchego-detection-blips', log });

const md = plans.renderReport({ faultRun, blipRun, faults, harness, started, command: `node scripts/detection.mjs --speedup=${speedup}` });
writeFileSync(resolve(ROOT, values.out), md);
if (values.json) {
  const replacer = (_k, v) => (v instanceof Set ? [...v] : v);
  writeFileSync(resolve(ROOT, values.json), JSON.stringify({ faultRun, blipRun }, replacer, 1));
}
log(`wrote ${values.out}`);
