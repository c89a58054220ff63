#!/usr/bin/env node
// Builds grafana/dashboards/*.json with Grafana's typed builders
// (@grafana/grafana-foundation-sdk): one module a dashboard in grafana/lib/ (fleet.mjs,
// node.mjs, validators.mjs), the panel kinds in lib/panels.mjs, and the datasource,
// selectors, variables and dashboard settings they share in lib/shared.mjs. The modules are
// type-checked against the SDK's types (tsc -p grafana/tsconfig.json, a test runs it).
//
//   node grafana/build.mjs          write the dashboards
//   node grafana/build.mjs --check  exit 1 when a committed dashboard differs (a test runs this)
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fleet } from './lib/fleet.mjs';
import { nodeDetail } from './lib/node.mjs';
import { validators } from './lib/validators.mjs';

const OUT = join(dirname(fileURLToPath(import.meta.url)), 'dashboards');

const outputs = {
  'avalanchego-fleet.json': fleet(),
  'avalanchego-node.json': nodeDetail(),
  'avalanchego-validators.json': validators(),
};

const check = process.argv.includes('--check');
const stale = [];
for (const [file, dash] of Object.entries(outputs)) {
  const text = JSON.stringify(dash, null, 2) + '\n';
  const path = join(OUT, file);
  if (check) {
    let current = '';
    try {
      current = readFileSync(path, 'utf8');
    } catch {
      /* missing counts as stale */
    }
    if (current !== text) stale.push(file);
  } else {
    writeFileSync(path, text);
  }
}
if (stale.length > 0) {
  console.error(`out of date: ${stale.join(', ')}; run: node grafana/build.mjs`);
  process.exit(1);
}
