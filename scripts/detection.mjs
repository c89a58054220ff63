// Writes docs/detection.md: every simulator scenario run against a real Prometheus (the
// shipped rules) and a real Alertmanager (the shipped configuration) in compressed time,
// with what fired, what Alertmanager held back and what it sent; then a healthy fleet with
// blips for a compressed hour. Then the same on VictoriaMetrics (its single-node server and vmalert
// with the same rules and Alertmanager): the report's section "VictoriaMetrics". Needs
// `npm run build`, Prometheus 3, the current Alertmanager and VictoriaMetrics (`. .ci/go-tools.sh
// && build_monitoring_stack && build_victoriametrics`, test/helpers/monitoring.ts). Takes about 17
// minutes an engine. --engine=prometheus or --engine=victoriametrics runs one, and keeps the
// other's part of the report.
//
// --only=a,b runs those scenarios (of FAULTS, test/rules/detection-plans.ts) and merges their rows
// into the report: a row is replaced, or added in FAULTS order for a scenario that has none yet; the
// other rows, the full run's figures and the blips are kept, and a note under each part's header
// names the rows run again and that run's own figures. --from-json=raw.json renders the report from
// the results a run wrote with --json, without running anything (with the same --only, if it had one).
//
//   node scripts/detection.mjs [--engine=both] [--speedup=20] [--batch=6] [--out=docs/detection.md] [--only=down,stalled-chain] [--json=raw.json] [--from-json=raw.json]
//
// With --real (`npm run detection:real`), the fault drills on real AvalancheGo instead
// (test/real-node/drills.ts; needs Go and root, run it under `flock /tmp/heavy.lock`; or --real --from-json=run.json,
// the run the real-node suite wrote with AVALANCHEGO_DRILLS_RUN=run.json): one JSON
// line a drill on stdout, and the section "Real AvalancheGo" of the report rewritten (only when
// every drill ran). --drills=killed,frozen runs some. The simulator's run keeps that section.
//
//   node scripts/detection.mjs --real [--drills=killed,frozen] [--speedup=20] [--out=docs/detection.md]
//
// The harness is test/rules/detection-harness.ts (shared with test/rules/detection.test.ts),
// loaded through Vite's module loader (vitest/node), as vitest loads it for the tests.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createViteServer } from 'vitest/node';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    speedup: { type: 'string', default: '20' },
    engine: { type: 'string', default: 'both' },
    batch: { type: 'string', default: '6' },
    out: { type: 'string', default: 'docs/detection.md' },
    only: { type: 'string' },
    json: { type: 'string' },
    'from-json': { type: 'string' },
    real: { type: 'boolean', default: false },
    drills: { type: 'string' },
  },
});
const speedup = Number(values.speedup);

const vite = await createViteServer({
  root: ROOT,
  configFile: false,
  logLevel: 'error',
  appType: 'custom',
  server: { middlewareMode: true, hmr: false, ws: false },
  optimizeDeps: { noDiscovery: true, include: [] },
});
/** @typedef {typeof import('../test/real-node/drills.js')} Drills */
/** @typedef {typeof import('../test/rules/detection-harness.js')} Harness */
/** @typedef {typeof import('../test/rules/detection-plans.js')} Plans */
/** @type {Harness} */
let harness;
/** @type {Plans} */
let plans;
/** @type {Drills | undefined} */
let drills;
try {
  // ssrLoadModule gives any module the type Record<string, any>: these are the types of the modules it loads.
  harness = /** @type {Harness} */ (await vite.ssrLoadModule('/test/rules/detection-harness.ts'));
  plans = /** @type {Plans} */ (await vite.ssrLoadModule('/test/rules/detection-plans.ts'));
  if (values.real) drills = /** @type {Drills} */ (await vite.ssrLoadModule('/test/real-node/drills.ts'));
} finally {
  await vite.close();
}
const out = resolve(ROOT, values.out);

/** @param {string} line */
const log = (line) => process.stderr.write(`[detection] ${line}\n`);
if (drills) {
  const names = values.drills?.split(',').map((n) => n.trim());
  const unknown = (names ?? []).filter((n) => !(/** @type {readonly string[]} */ (drills.DRILL_NAMES).includes(n)));
  if (unknown.length) throw new Error(`--drills names ${unknown.join(', ')}; the drills: ${drills.DRILL_NAMES.join(', ')}`);
  let started = new Date();
  /** @type {import('../test/real-node/drills.js').DrillRun} */
  let run;
  let command = 'npm run detection:real';
  if (values['from-json']) {
    // A run the real-node suite wrote (AVALANCHEGO_DRILLS_RUN=<file>: the same drills, at the same speed-up), its
    // Sets as arrays: the alert records' inhibitors are Sets again.
    /** @type {unknown} */
    const raw = JSON.parse(readFileSync(resolve(ROOT, values['from-json']), 'utf8'));
    const saved = /** @type {{ startedAt: string, run: import('../test/real-node/drills.js').DrillRun }} */ (raw);
    run = saved.run;
    for (const r of run.timeline.records) r.inhibitedBy = new Set(/** @type {Iterable<string>} */ (/** @type {unknown} */ (r.inhibitedBy)));
    started = new Date(saved.startedAt);
    command = 'AVALANCHEGO_DRILLS_RUN=run.json npm run test:real-node';
  } else {
    run = await drills.runDrills({
      speedup,
      drills: drills.DRILL_NAMES.filter((n) => !names || names.includes(n)),
      log: (line) => process.stderr.write(`[drills] ${line}\n`),
    });
  }
  for (const d of run.drills) process.stdout.write(`${JSON.stringify(drills.jsonLine(d, run.speedup))}\n`);
  if (values.json) {
    /**
     * @param {string} _k
     * @param {unknown} v
     */
    const sets = (_k, v) => (v instanceof Set ? [...v] : v);
    writeFileSync(resolve(ROOT, values.json), JSON.stringify(run, sets, 1));
  }
  const ranAll = drills.DRILL_NAMES.every((n) => run.drills.some((d) => d.name === n));
  if (names || !ranAll) {
    log(`${values.out} is left as it is (the section is written only when every drill ran)`);
  } else {
    const section = drills.renderSection(run, started, command);
    writeFileSync(out, drills.spliceSection(existsSync(out) ? readFileSync(out, 'utf8') : '', section));
    log(`wrote the section "Real AvalancheGo" of ${values.out}`);
  }
  process.exit(run.drills.every((d) => drills.judge(d, run.speedup).ok) ? 0 : 1);
}

const only = values.only?.split(',').map((n) => n.trim());
const notPlanned = (only ?? []).filter((n) => !plans.FAULTS.some((f) => f.scenario === n));
if (notPlanned.length)
  throw new Error(
    `--only names ${notPlanned.join(', ')}, which test/rules/detection-plans.ts FAULTS does not plan (add a scenario there first); planned: ${plans.FAULTS.map((f) => f.scenario).join(', ')}`,
  );
const faults = plans.FAULTS.filter((f) => !only || only.includes(f.scenario));
/** @type {import('../test/rules/detection-harness.js').Engine[]} */
const ENGINES = ['prometheus', 'victoriametrics'];
const engines = ENGINES.filter((e) => values.engine === 'both' || values.engine === e);
if (engines.length === 0) throw new Error(`--engine=${values.engine}: one of both, prometheus, victoriametrics`);

/**
 * The faults and the blips on one engine.
 * @param {import('../test/rules/detection-harness.js').Engine} engine
 */
async function runEngine(engine) {
  // The faults run in batches of a few nodes, each batch its own simulator, exporter, rule engine
  // and Alertmanager: a fleet of all of them at once overloads a small machine at this speed.
  /** @type {import('../test/rules/detection-plans.js').Fault[][]} */
  const batches = [];
  for (let i = 0; i < faults.length; i += Number(values.batch)) batches.push(faults.slice(i, i + Number(values.batch)));
  /** @type {import('../test/rules/detection-harness.js').RunResult[]} */
  const runs = [];
  for (const [i, batch] of batches.entries()) {
    log(`${engine}: fault batch ${i + 1}/${batches.length}: ${batch.map((f) => f.scenario).join(', ')}`);
    runs.push(await harness.runDetection({ speedup, engine, nodes: plans.faultFleet(batch), durationSeconds: plans.faultRunSeconds(batch), log }));
  }
  const [firstRun] = runs;
  if (firstRun === undefined) throw new Error(`no fault scenario to run${only ? ` (--only=${values.only})` : ''}`);
  /** @type {import('../test/rules/detection-harness.js').RunResult} */
  const faultRun = {
    ...firstRun,
    durationSeconds: Math.max(...runs.map((r) => r.durationSeconds)),
    // Each batch's spare healthy node last: the faults' nodes in FAULTS order.
    nodes: runs.flatMap((r) => r.nodes.slice(0, -1)),
    stats: {
      scrapes: runs.reduce((t, r) => t + r.stats.scrapes, 0),
      failedScrapes: runs.reduce((t, r) => t + r.stats.failedScrapes, 0),
      slowestScrapeSeconds: Math.max(...runs.map((r) => r.stats.slowestScrapeSeconds)),
      failedPolls: runs.reduce((t, r) => t + r.stats.failedPolls, 0),
      polls: runs.reduce((t, r) => t + (r.stats.polls ?? 0), 0),
      skippedPolls: runs.reduce((t, r) => t + (r.stats.skippedPolls ?? 0), 0),
      worstSkipRatio10m: Math.max(...runs.map((r) => r.stats.worstSkipRatio10m ?? 0)),
    },
  };
  if (!only) log(`${engine}: blips run: a healthy fleet for a compressed hour`);
  const blipRun = only
    ? undefined
    : await harness.runDetection({
        speedup,
        engine,
        nodes: plans.blipFleet(),
        durationSeconds: plans.BLIP_RUN_SECONDS,
        seed: 'avalanchego-detection-blips',
        log,
      });
  return { faultRun, blipRun };
}

/** @typedef {Partial<Record<import('../test/rules/detection-harness.js').Engine, Awaited<ReturnType<typeof runEngine>>>>} Results */
/** @type {Results} */
let results = {};
let started = new Date();
if (values['from-json']) {
  // A run's results as --json wrote them (Sets as arrays, which the report reads alike), and when it ran.
  const path = resolve(ROOT, values['from-json']);
  /** @type {unknown} */
  const raw = JSON.parse(readFileSync(path, 'utf8'));
  const saved = /** @type {Results} */ (raw);
  started = statSync(path).mtime;
  for (const engine of engines) {
    const r = saved[engine];
    if (!r) continue;
    // Its nodes of the faults asked (--only may name some of those it ran), in their order.
    const nodes = faults.map((f) => {
      const node = r.faultRun.nodes.find((n) => n.plan.label === f.scenario);
      if (!node)
        throw new Error(
          `${values['from-json']}: its ${engine} run has no node of ${f.scenario}: give an --only among ${r.faultRun.nodes.map((n) => n.plan.label).join(', ')}`,
        );
      return node;
    });
    results[engine] = { ...r, faultRun: { ...r.faultRun, nodes } };
  }
} else {
  for (const engine of engines) results[engine] = await runEngine(engine);
}
const command = `node scripts/detection.mjs --speedup=${speedup} --batch=${values.batch}${only ? ` --only=${only.join(',')}` : ''}`;

// The report: the Prometheus part, the VictoriaMetrics section, then the drills on real
// AvalancheGo (another run, --real). A part this run did not make is kept from the file as it is.
const previous = existsSync(out) ? readFileSync(out, 'utf8') : '';
/**
 * @param {string} start
 * @param {string} end
 */
const section = (start, end) => {
  const a = previous.indexOf(start);
  const b = previous.indexOf(end);
  return a >= 0 && b > a ? `${previous.slice(a, b)}${end}\n` : '';
};
const firstMarker = Math.min(
  ...[plans.VM_SECTION.start, '<!-- real-avalanchego:start -->'].map((m) => previous.indexOf(m)).filter((i) => i >= 0),
  previous.length,
);
// A run of a few scenarios is merged into the parts it ran (when the report has them).
const previousProm = previous.slice(0, firstMarker);
const previousVm = section(plans.VM_SECTION.start, plans.VM_SECTION.end);
const promPart = results.prometheus
  ? plans.renderReport({
      ...results.prometheus,
      faults,
      harness,
      started,
      command,
      ...(only && previousProm.trim() ? { previous: previousProm } : {}),
    })
  : previousProm;
const vmPart = results.victoriametrics
  ? plans.renderVmSection({
      ...results.victoriametrics,
      promRun: results.prometheus?.faultRun,
      faults,
      harness,
      started,
      command: engines.length === 1 ? `${command} --engine=victoriametrics` : command,
      ...(only && previousVm.trim() ? { previous: previousVm } : {}),
    })
  : previousVm;
const realPart = section('<!-- real-avalanchego:start -->', '<!-- real-avalanchego:end -->');
writeFileSync(
  out,
  [promPart, vmPart, realPart]
    .map((p) => p.trim())
    .filter(Boolean)
    .join('\n\n') + '\n',
);
if (values.json && !values['from-json']) {
  /**
   * @param {string} _k
   * @param {unknown} v
   */
  const replacer = (_k, v) => (v instanceof Set ? [...v] : v);
  writeFileSync(resolve(ROOT, values.json), JSON.stringify(results, replacer, 1));
}
log(`wrote ${values.out}`);
