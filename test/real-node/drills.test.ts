// The fault drills (drills.ts) on a five-node local network of real AvalancheGo validators,
// through the exporter, a real Prometheus with the shipped rules and a real Alertmanager with
// the shipped configuration: each drill must page as docs/detection.md says ("Real AvalancheGo"),
// within its target, and leave nothing behind. AVALANCHEGO_DRILLS=killed,frozen runs some;
// AVALANCHEGO_DRILLS=0 none. AVALANCHEGO_DRILLS_RUN=<file> writes the run (see below).
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRILL_NAMES, explain, judge, jsonLine, runDrills, type DrillName, type DrillRun } from './drills.js';
import { defined } from '../helpers/assert.js';

function wantedDrills(): DrillName[] {
  const only = process.env.AVALANCHEGO_DRILLS;
  if (only === undefined || only === '' || only === '1') return [...DRILL_NAMES];
  if (only === '0') return [];
  const names = only.split(',').map((n) => n.trim());
  const unknown = names.filter((n) => !(DRILL_NAMES as readonly string[]).includes(n));
  if (unknown.length) throw new Error(`AVALANCHEGO_DRILLS names ${unknown.join(', ')}; the drills: ${DRILL_NAMES.join(', ')}`);
  return DRILL_NAMES.filter((n) => names.includes(n));
}

const drills = wantedDrills();

describe.skipIf(drills.length === 0)('fault drills on the real local network', () => {
  let run: DrillRun | undefined;
  beforeAll(async () => {
    const startedAt = new Date().toISOString();
    run = await runDrills({ drills });
    for (const d of run.drills) process.stderr.write(`[drills] ${JSON.stringify(jsonLine(d, run.speedup))}\n`);
    // AVALANCHEGO_DRILLS_RUN=<file>: the run, for `node scripts/detection.mjs --real --from-json=<file>` to write
    // docs/detection.md's "Real AvalancheGo" from (the same drills as `npm run detection:real`, at its speed-up).
    const out = process.env.AVALANCHEGO_DRILLS_RUN;
    if (out)
      writeFileSync(
        out,
        JSON.stringify({ startedAt, run }, (_k, v: unknown) => (v instanceof Set ? [...(v as Set<unknown>)] : v)),
      );
  });
  afterAll(() => {
    // Nothing a drill made is left: no tmpfs mounted by the disk drill.
    expect(readFileSync('/proc/mounts', 'utf8')).not.toContain('avalanchego-drill');
  });

  it.each(drills)('%s pages as expected, within its target', (name) => {
    const r = defined(run, 'the drills run');
    const d = defined(
      r.drills.find((x) => x.name === name),
      `the result of ${name}`,
    );
    const verdict = judge(d, r.speedup);
    const course = verdict.ok ? [] : explain(r, d, verdict.why);
    for (const line of course) process.stderr.write(`[drills] ${line}\n`);
    // The course in the failure's own message too: CI keeps the end of its output, where the failures are.
    expect({ drill: name, ...verdict }, course.slice(0, 80).join('\n')).toEqual({ drill: name, ok: true, why: '' });
  });
});
