// Fleet benchmark. Starts a simulated fleet in several simulator processes and,
// in one run, measures the two anchors and the exporter against them:
//   - the raw undici floor (bench/floor.mjs): keep-alive POST of health.health + JSON.parse;
//   - prometheus-blackbox-exporter probing GET /ext/health (skipped, with the reason, when missing);
//   - the exporter at each fleet size: CPU per request and per poll, RSS per node,
//     poll-start delay with and without /metrics scrapes, /metrics time and CPU,
//     /probe latency at a fixed rate (wrk, skipped when missing), with two floors for it at
//     the same rate: a fixed body of one node's /probe served by the undici floor while it
//     polls at the exporter's rate (one event loop), and by a process that only serves, while
//     the exporter polls (what the machine allows any server).
// Prints figures and, as its last line, one JSON object. Asserts nothing.
// Every process runs on loopback and is stopped by PID.
//
//   npm run bench                      1,000, 10,000 and 30,000 nodes at a 15 s interval (~8 min)
//   npm run bench -- --quick           1,000 nodes at a 5 s interval (< 60 s)
//   npm run bench -- --sizes=10000 --cpu-prof=10000   write a CPU profile of the exporter to bench/profiles/
//   npm run bench -- --no-node-metrics  without the node_metrics row (bench/node-metrics.mjs, ~2 min)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import {
  Procs,
  ensureBuilt,
  bucketDelta,
  cpuSeconds,
  freePort,
  histogramBuckets,
  histogramQuantile,
  jsonNumbers,
  median,
  rssBytes,
  sleep,
  sumSamples,
  waitFor,
} from './lib.mjs';

const { values: opts } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    sizes: { type: 'string' },
    interval: { type: 'string' },
    window: { type: 'string' },
    simulators: { type: 'string', default: '4' },
    'probe-rate': { type: 'string', default: '1000' },
    'probe-connections': { type: 'string', default: '100' },
    'blackbox-rate': { type: 'string', default: '200' },
    'cpu-prof': { type: 'string' },
    // The node_metrics row (bench/node-metrics.mjs); --no-node-metrics leaves it out.
    'no-node-metrics': { type: 'boolean', default: false },
  },
});
const QUICK = opts.quick;
const SIZES = (opts.sizes ?? (QUICK ? '1000' : '1000,10000,30000')).split(',').map(Number);
const INTERVAL_S = Number((opts.interval ?? (QUICK ? '5s' : '15s')).replace(/s$/, ''));
const WINDOW_S = Number(opts.window ?? (QUICK ? 6 : 20));
const ANCHOR_S = QUICK ? 5 : 10;
const PROBE_S = QUICK ? 5 : 10;
const SIMS = Number(opts.simulators);
const ENDPOINTS = ['C/block', 'P/block', 'X/block', 'X/tx'];
const REQUESTS_PER_POLL = 1 + ENDPOINTS.length;
const DELAY_METRIC = 'avalanchego_exporter_poll_start_delay_seconds';
const SKIPPED_METRIC = 'avalanchego_exporter_polls_skipped_total';
const NODE = process.execPath;
// The sources of the issue's anchors only (health + index, five requests a poll): the other sources
// (info, platform, Helicon's evm and proposervm, on by default since issue 20, and chain_info, on by
// default since issue 30) are off, when this build has them, so that builds of different ages measure
// the same work and an A/B pair compares. A build has a source when it has its module (its config
// section lives there, not in config/schema.js).
function extraDefaults() {
  return [
    ['info', 'info'],
    ['platform', 'platform'],
    ['evm', 'evm'],
    ['proposervm', 'proposervm'],
    ['chain-info', 'chain_info'],
  ]
    .filter(([module]) => existsSync(`dist/sources/${module}.js`))
    .map(([, key]) => `  ${key}: { enabled: false }`);
}

/**
 * What the raw undici floor measured (bench/floor.mjs).
 * @typedef {object} Floor
 * @property {number} requests
 * @property {number} errors
 * @property {number} elapsed seconds
 * @property {number} cpuSeconds
 * @property {number} cpuPerRequest seconds
 */

/**
 * wrk at a fixed rate (bench/paced.lua's summary).
 * @typedef {object} Wrk
 * @property {number} requests
 * @property {number} rate requests a second
 * @property {number} p50ms
 * @property {number} p99ms
 * @property {number} maxms
 * @property {number} socket_errors
 * @property {number} non_2xx
 */

/**
 * The blackbox exporter's figures, or why it was skipped.
 * @typedef {{ skipped: string } | { probes: number, rate: number, cpuSeconds: number, cpuPerProbe: number, p50ms: number, p99ms: number, rss: number }} Blackbox
 */

/**
 * /probe at a fixed rate, or why it was skipped.
 * @typedef {{ skipped: string } | { rate: number, p50ms: number, p99ms: number, maxms: number, errors: number }} Probe
 */

/**
 * /probe and its two floors at the same rate: one node's body served by the undici floor while it
 * polls at the exporter's rate (`loop`), and by a process that only serves while the exporter polls (`machine`).
 * @typedef {{ exporter: Probe, loop: Probe, machine: Probe }} Probes
 */

/**
 * Poll-start delay quantiles over a window.
 * @typedef {{ p50: number, p99: number, polls: number | undefined }} Delay
 */

/**
 * The exporter's figures at one fleet size (measureSize).
 * @typedef {object} ExporterFigures
 * @property {number} nodes
 * @property {number} listen_s
 * @property {number} first_round_s NaN when some nodes were not polled yet at the deadline
 * @property {number} first_round_pending nodes not polled yet when the first-round deadline passed (0: all were)
 * @property {number} skipped_share polls skipped as saturated, of those started in window A
 * @property {number} cpu_core_fraction
 * @property {number} requests_per_s
 * @property {boolean} requests_counted
 * @property {number} polls_a
 * @property {number} cpu_per_request_s
 * @property {number} rss_bytes
 * @property {Delay} delay
 * @property {number} metrics_bytes
 * @property {number} samples
 * @property {Delay} delay_scraped
 * @property {number} scrapes
 * @property {number} scrape_p50_s
 * @property {number} scrape_max_s
 * @property {number} scrape_cpu_s
 * @property {number} peak_rss_scraped_bytes
 * @property {number} poll_errors
 * @property {number} up
 * @property {{ bytes: number, seconds: number, cpu_s: number } | undefined} gzip
 * @property {Probes} probe
 * @property {number} probe_bytes one node's /probe body
 */

/**
 * The figures at one fleet size: the exporter's, and the floor's at the same request rate.
 * @typedef {ExporterFigures & { floor_cpu_per_request_s: number, floor_mix_cpu_per_request_s: number | undefined, rss_per_node_bytes: number }} SizeResult
 */

const started = performance.now();
const procs = new Procs();
const dir = mkdtempSync(join(tmpdir(), 'avaxexp-bench-'));
const newAgent = () => new Agent({ keepAliveTimeout: 10_000, connections: 16 });
let agent = newAgent();

/** Drops our keep-alive connections to a server about to stop (they would hold its stop back). */
async function dropConnections() {
  await agent.destroy().catch(() => {});
  agent = newAgent();
}
const log = (s = '') => console.log(s);
/** @param {number} s seconds */
const us = (s) => `${(s * 1e6).toFixed(0)} µs`;
/** @param {number} x */
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');
/** @param {number} x */
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
/** @param {number} x */
const f3 = (x) => (Number.isFinite(x) ? x.toFixed(3) : 'n/a');
/** @param {string} cmd */
const have = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

let interrupted = false;
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    if (interrupted) return;
    interrupted = true;
    console.error(`\n${sig}: stopping the benchmark's processes`);
    void procs.stopAll().finally(() => process.exit(130));
  });
}

/** Builds dist/ when a source file is newer than it (so `npm run bench` measures the tree as it is). */
/**
 * @param {string} url
 * @param {Record<string, string>} [headers]
 */
async function get(url, headers = {}) {
  const res = await request(url, { dispatcher: agent, headers });
  const body = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers, body };
}

/**
 * The exporter's own series without paying for the fleet's: reads /metrics
 * until the poll-start histogram has gone by, then drops the connection. When
 * the exporter renders its own series after the fleet's (or has no histogram),
 * this reads the whole body.
 * @param {string} exp the exporter's base URL
 */
async function readSelf(exp) {
  const res = await request(`${exp}/metrics`, { dispatcher: agent });
  /** @type {Buffer[]} */
  const chunks = [];
  // Only the last bytes are searched (a chunk may end mid-line).
  let tail = '';
  let seenCount = false;
  for await (const chunk of res.body) {
    if (!Buffer.isBuffer(chunk)) throw new Error(`${exp}/metrics: the body gave a ${typeof chunk}, not bytes`);
    chunks.push(chunk);
    tail = (tail + chunk.toString('latin1')).slice(-(chunk.length + 512));
    if (!seenCount && tail.includes(`${DELAY_METRIC}_count`)) seenCount = true;
    if (seenCount) {
      const lastCount = tail.lastIndexOf(`${DELAY_METRIC}_count`);
      const eol = lastCount >= 0 ? tail.indexOf('\n', lastCount) : 0;
      if (eol >= 0 && eol + 1 < tail.length && !tail.startsWith(DELAY_METRIC, eol + 1)) {
        res.body.destroy();
        break;
      }
    }
  }
  return Buffer.concat(chunks).toString();
}

/**
 * The exporter's CLI (dist/main.js) in a child process.
 * @param {string} name
 * @param {readonly string[]} args
 * @param {readonly string[]} [nodeFlags] Node.js's own flags
 */
function startNode(name, args, nodeFlags = []) {
  return procs.start(name, NODE, [...nodeFlags, 'dist/main.js', ...args]);
}

// ---------------------------------------------------------------------------
ensureBuilt(log);
const t0 = performance.now();
const maxNodes = Math.max(...SIZES);
log(
  `fleet benchmark${QUICK ? ' (--quick)' : ''}: sizes ${SIZES.join(', ')}; poll interval ${INTERVAL_S}s, timeout 5s, health + index [${ENDPOINTS.join(', ')}] (${REQUESTS_PER_POLL} requests a poll); ${SIMS} simulator processes`,
);
log(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node.js ${process.version}; load average at start ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
log('figures from one run are comparable with each other (ratios to the floor measured in the same run); the machine may be shared.');
/** @type {{ sizes: Map<number, SizeResult>, loadavg_start: number, blackbox?: Blackbox }} */
const results = { sizes: new Map(), loadavg_start: loadavg()[0] ?? NaN };

try {
  // --- the fleet -------------------------------------------------------------
  /** @type {string[]} */
  const simUrls = [];
  /** @type {import('./lib.mjs').Proc[]} */
  const simProcs = [];
  for (let s = 0; s < SIMS; s++) {
    const port = await freePort();
    const nodes = Math.ceil(maxNodes / SIMS);
    simProcs[s] = startNode(
      `simulator-${s}`,
      ['simulate', `--web.listen-address=127.0.0.1:${port}`, `--nodes=${nodes}`, '--scenario=healthy'],
      ['--max-old-space-size=4096'],
    );
    simUrls.push(`http://127.0.0.1:${port}`);
  }
  await Promise.all(
    simUrls.map((u, s) => waitFor(async () => (await get(`${u}/sim/scenarios`)).status === 200, `simulator ${u}`, 120_000, simProcs[s])),
  );
  // Node i of the exporter's config is node i / SIMS of simulator i % SIMS: every size spreads over every process.
  /** @param {number} i */
  const baseUrl = (i) => `${simUrls[i % SIMS]}/node-${Math.floor(i / SIMS)}`;
  log(`simulators: ${SIMS} × ${Math.ceil(maxNodes / SIMS)} nodes up in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  // --- anchor 1: the raw undici floor ------------------------------------------
  /**
   * @param {number} n nodes
   * @param {number} rate requests a second
   * @param {boolean} mix the poll's mix of requests (not health.health only)
   * @returns {Promise<Floor>}
   */
  async function floor(n, rate, mix) {
    const file = urlsFile(n);
    const out = await procs.run(
      'floor',
      NODE,
      ['bench/floor.mjs', `--urls=${file}`, `--rate=${rate}`, `--duration=${ANCHOR_S}`, ...(mix ? ['--mix'] : [])],
      (ANCHOR_S + 30) * 1000,
    );
    const line = out.trim().split('\n').at(-1) ?? '';
    const num = jsonNumbers(line, 'bench/floor.mjs');
    const r = { requests: num('requests'), errors: num('errors'), elapsed: num('elapsed'), cpuSeconds: num('cpuSeconds') };
    return { ...r, cpuPerRequest: r.cpuSeconds / r.requests };
  }

  /** @type {Set<number>} the sizes whose URL file is written */
  const urlFiles = new Set();
  /**
   * The first `n` nodes' URLs in a file, for bench/floor.mjs (written once a size).
   * @param {number} n
   */
  function urlsFile(n) {
    const file = join(dir, `urls-${n}.json`);
    if (!urlFiles.has(n)) {
      writeFileSync(file, JSON.stringify(Array.from({ length: n }, (_, i) => baseUrl(i))));
      urlFiles.add(n);
    }
    return file;
  }

  /**
   * A /probe floor: wrk at the probe rate against a fixed body of `bytes`, served by
   * bench/floor.mjs while it polls `n` nodes' mix at `rate` requests a second (0: it only serves).
   * @param {number} n
   * @param {number} rate
   * @param {number} bytes
   * @returns {Promise<Probe>}
   */
  async function probeFloor(n, rate, bytes) {
    // --quick must stay under a minute: it measures the one-loop floor (about 9 s), not the machine's.
    if (QUICK && rate === 0) return { skipped: 'not in --quick (the full run measures it)' };
    if (!have('wrk')) return { skipped: 'wrk is not installed (Debian package wrk)' };
    const port = await freePort();
    const p = procs.start('probe floor', NODE, [
      'bench/floor.mjs',
      `--urls=${urlsFile(n)}`,
      `--rate=${rate}`,
      '--mix',
      `--serve=${port}`,
      `--serve-bytes=${bytes}`,
      '--warmup=0',
      `--duration=${PROBE_S + 60}`,
    ]);
    const base = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await get(`${base}/`)).status === 200, 'the probe floor serving', 30_000, p);
    // Its polls reach their rate (and their sockets) before the probes start.
    if (rate > 0) await sleep(QUICK ? 1500 : 3000);
    const w = await wrk(base, '/probe?target=node-{i}', n, Number(opts['probe-rate']), Number(opts['probe-connections']), PROBE_S);
    await dropConnections();
    await procs.stop(p);
    return { rate: w.rate, p50ms: w.p50ms, p99ms: w.p99ms, maxms: w.maxms, errors: w.socket_errors + w.non_2xx };
  }

  // --- anchor 2: prometheus-blackbox-exporter ----------------------------------
  /** @returns {Promise<Blackbox>} */
  async function blackbox() {
    if (!have('prometheus-blackbox-exporter'))
      return { skipped: 'prometheus-blackbox-exporter is not installed (Debian package prometheus-blackbox-exporter)' };
    if (!have('wrk')) return { skipped: 'wrk is not installed (Debian package wrk): it drives the probes' };
    const port = await freePort();
    const config = join(dir, 'blackbox.yml');
    writeFileSync(
      config,
      'modules:\n  http_get:\n    prober: http\n    timeout: 5s\n    http:\n      method: GET\n      preferred_ip_protocol: ip4\n',
    );
    const p = procs.start('blackbox', 'prometheus-blackbox-exporter', [
      `--config.file=${config}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ]);
    const bb = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await get(`${bb}/-/healthy`)).status === 200, 'blackbox exporter', 30_000, p);
    const one = await get(`${bb}/probe?module=http_get&target=${simUrls[0]}/node-0/ext/health`);
    if (!/^probe_success 1$/m.test(one.body.toString())) {
      await procs.stop(p);
      return { skipped: `blackbox probe of /ext/health failed:\n${one.body.toString().slice(0, 500)}` };
    }
    const rate = Number(opts['blackbox-rate']);
    const conns = 20;
    const nodesOnSim0 = Math.ceil(maxNodes / SIMS);
    const c0 = cpuSeconds(p.pid);
    const w = await wrk(bb, `/probe?module=http_get&target=${simUrls[0]}/node-{i}/ext/health`, nodesOnSim0, rate, conns, ANCHOR_S);
    const cpu = cpuSeconds(p.pid) - c0;
    const rss = rssBytes(p.pid);
    await procs.stop(p);
    return { probes: w.requests, rate: w.rate, cpuSeconds: cpu, cpuPerProbe: cpu / w.requests, p50ms: w.p50ms, p99ms: w.p99ms, rss };
  }

  /**
   * wrk at a fixed rate: `connections` connections, each waiting connections/rate between requests.
   * @param {string} base the server's URL
   * @param {string} template the path, {i} replaced by 0 … count - 1 in turn
   * @param {number} count
   * @param {number} rate requests a second
   * @param {number} connections
   * @param {number} seconds
   * @returns {Promise<Wrk>}
   */
  async function wrk(base, template, count, rate, connections, seconds) {
    const delayMs = Math.max(1, Math.round((connections * 1000) / rate));
    const args = [
      '-t2',
      `-c${connections}`,
      `-d${seconds}s`,
      '--timeout',
      '5s',
      '-s',
      'bench/paced.lua',
      base,
      '--',
      String(delayMs),
      template,
      String(count),
    ];
    const out = await procs.run('wrk', 'wrk', args, (seconds + 30) * 1000);
    const line = out
      .trim()
      .split('\n')
      .reverse()
      .find((l) => l.startsWith('{'));
    if (!line) throw new Error(`wrk printed no summary:\n${out}`);
    const num = jsonNumbers(line, 'wrk');
    const r = { requests: num('requests'), socket_errors: num('socket_errors'), non_2xx: num('non_2xx') };
    return {
      ...r,
      rate: r.requests / (num('duration_us') / 1e6),
      p50ms: num('p50_us') / 1000,
      p99ms: num('p99_us') / 1000,
      maxms: num('max_us') / 1000,
    };
  }

  // --- the exporter -------------------------------------------------------------
  /**
   * An exporter polling the first `n` nodes, once it has polled each of them.
   * @param {number} n
   * @param {number} intervalS the poll interval, seconds
   * @param {readonly string[]} [nodeFlags] Node.js's own flags
   */
  async function startExporter(n, intervalS, nodeFlags = []) {
    const lines = [
      'defaults:',
      `  interval: ${intervalS * 1000}ms`,
      `  timeout: ${Math.min(5000, intervalS * 500)}ms`,
      `  index: { endpoints: [${ENDPOINTS.join(', ')}] }`,
      ...extraDefaults(),
      'targets:',
    ];
    for (let i = 0; i < n; i++) lines.push(`  - name: node-${i}`, `    url: ${baseUrl(i)}`);
    const file = join(dir, `exporter-${n}.yaml`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const port = await freePort();
    const exp = `http://127.0.0.1:${port}`;
    const s = performance.now();
    const p = startNode(`exporter-${n}`, [`--config.file=${file}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], nodeFlags);
    await waitFor(async () => (await get(`${exp}/-/healthy`)).status === 200, `exporter with ${n} nodes listening`, 120_000, p);
    const listenS = (performance.now() - s) / 1000;
    // A saturated exporter skips polls (its own load, never a node's fault), so a first round may take several
    // intervals; past the deadline the size is measured as it is, with the nodes not yet polled reported.
    const readyBy = performance.now() + (intervalS * 4 + 60) * 1000;
    /** @type {number} nodes whose first poll has not ended when the deadline passed */
    let pending = 0;
    await waitFor(
      async () => {
        const r = await get(`${exp}/-/ready`);
        if (r.status === 200) return true;
        if (performance.now() < readyBy) return false;
        pending = Number(/first poll of (\d+)/.exec(r.body.toString())?.[1] ?? NaN);
        return true;
      },
      `first poll of ${n} nodes`,
      (intervalS * 4 + 120) * 1000,
      p,
    );
    return { p, exp, listenS, readyS: pending ? NaN : (performance.now() - s) / 1000, pending };
  }

  /**
   * Requests made between two readings of the exporter's own series: the
   * scheduled rate, scaled by the polls that actually started (the poll-start
   * histogram's count) when the build has it, so an exporter that falls behind
   * is not credited with requests it did not make.
   * @param {string} before the exporter's own series at the start
   * @param {string} after and at the end
   * @param {number} seconds between the readings
   * @param {number} n nodes
   */
  function requestsBetween(before, after, seconds, n) {
    const scheduled = (n * REQUESTS_PER_POLL * seconds) / INTERVAL_S;
    const b = sumSamples(before, `${DELAY_METRIC}_count`);
    const a = sumSamples(after, `${DELAY_METRIC}_count`);
    if (a === undefined) return { requests: scheduled, counted: false, skipped: 0 };
    // Polls skipped as saturated started (they are in the histogram) and sent nothing.
    const skipped = (sumSamples(after, SKIPPED_METRIC) ?? 0) - (sumSamples(before, SKIPPED_METRIC) ?? 0);
    const started = a - (b ?? 0);
    // Health and index polls run at the same interval here: two polls a node an interval.
    const expectedPolls = (n * 2 * seconds) / INTERVAL_S;
    return { requests: scheduled * ((started - skipped) / expectedPolls), counted: true, skipped: started > 0 ? skipped / started : 0 };
  }

  /**
   * @param {string} before the exporter's own series at the start of a window
   * @param {string} after and at its end
   * @returns {Delay}
   */
  const delayQuantiles = (before, after) => {
    const b = histogramBuckets(before, DELAY_METRIC);
    const a = histogramBuckets(after, DELAY_METRIC);
    if (!a) return { p50: NaN, p99: NaN, polls: 0 };
    const d = bucketDelta(a, b);
    return { p50: histogramQuantile(0.5, d), p99: histogramQuantile(0.99, d), polls: d.get(Infinity) };
  };

  /** @param {string} text the exporter's /metrics */
  const pollState = (text) => ({
    errors: sumSamples(text, 'avalanchego_exporter_poll_errors_total') ?? 0,
    up: text.split('\n').filter((l) => l.startsWith('avalanchego_up{') && l.endsWith(' 1')).length,
  });

  /**
   * The exporter's figures with `n` nodes (the floor's figures are added by the caller).
   * @param {number} n
   * @returns {Promise<ExporterFigures>}
   */
  async function measureSize(n) {
    const prof = opts['cpu-prof'] && Number(opts['cpu-prof']) === n ? ['--cpu-prof', `--cpu-prof-dir=${join(process.cwd(), 'bench/profiles')}`] : [];
    if (prof.length) mkdirSync('bench/profiles', { recursive: true });
    const { p, exp, listenS, readyS, pending } = await startExporter(n, INTERVAL_S, prof);
    const { pid } = p;

    // Window A: polling only (no scrape of the fleet's series).
    let before = await readSelf(exp);
    let c = cpuSeconds(pid);
    let t = performance.now();
    /** @type {number[]} */
    const rss = [];
    while (performance.now() - t < WINDOW_S * 1000) {
      rss.push(rssBytes(pid));
      await sleep(500);
    }
    let after = await readSelf(exp);
    let seconds = (performance.now() - t) / 1000;
    const cpuA = cpuSeconds(pid) - c;
    const reqA = requestsBetween(before, after, seconds, n);
    const cpuCoreFraction = cpuA / seconds;
    const requestsPerS = reqA.requests / seconds;
    const cpuPerRequest = cpuA / reqA.requests;
    const delay = delayQuantiles(before, after);

    // One full scrape: poll errors so far, and the size of /metrics.
    const first = await get(`${exp}/metrics`);
    const text0 = first.body.toString();
    const state0 = pollState(text0);

    // Window B: the same, with /metrics scraped back to back.
    before = await readSelf(exp);
    c = cpuSeconds(pid);
    t = performance.now();
    /** @type {number[]} */
    const scrapes = [];
    let last = text0;
    let peakRss = 0;
    while (performance.now() - t < WINDOW_S * 1000) {
      const s = performance.now();
      const res = await get(`${exp}/metrics`);
      scrapes.push((performance.now() - s) / 1000);
      last = res.body.toString();
      peakRss = Math.max(peakRss, rssBytes(pid));
    }
    after = await readSelf(exp);
    seconds = (performance.now() - t) / 1000;
    const cpuB = cpuSeconds(pid) - c;
    const reqB = requestsBetween(before, after, seconds, n);
    const delayScraped = delayQuantiles(before, after);
    const state1 = pollState(last);

    // gzip, when the exporter offers it.
    c = cpuSeconds(pid);
    t = performance.now();
    const gz = await get(`${exp}/metrics`, { 'accept-encoding': 'gzip' });
    const gzip =
      gz.headers['content-encoding'] === 'gzip'
        ? { bytes: gz.body.length, seconds: (performance.now() - t) / 1000, cpu_s: cpuSeconds(pid) - c }
        : undefined;

    // /probe at a fixed rate while polling.
    /** @type {Probe} */
    let probe;
    let probeBytes = 8192;
    if (have('wrk')) {
      probeBytes = (await get(`${exp}/probe?target=node-0`)).body.length;
      const w = await wrk(exp, '/probe?target=node-{i}', n, Number(opts['probe-rate']), Number(opts['probe-connections']), PROBE_S);
      probe = { rate: w.rate, p50ms: w.p50ms, p99ms: w.p99ms, maxms: w.maxms, errors: w.socket_errors + w.non_2xx };
    } else probe = { skipped: 'wrk is not installed (Debian package wrk)' };
    // The machine's floor: the same body from a process that only serves, while the exporter polls.
    const machine = await probeFloor(n, 0, probeBytes);

    // Our keep-alive connections would hold the exporter's stop (and its CPU profile) back.
    await dropConnections();
    await procs.stop(p, prof.length ? 120_000 : 15_000);
    return {
      nodes: n,
      listen_s: listenS,
      first_round_s: readyS,
      first_round_pending: pending,
      skipped_share: reqA.skipped,
      cpu_core_fraction: cpuCoreFraction,
      requests_per_s: requestsPerS,
      requests_counted: reqA.counted,
      polls_a: reqA.requests / REQUESTS_PER_POLL,
      cpu_per_request_s: cpuPerRequest,
      rss_bytes: median(rss),
      delay,
      metrics_bytes: first.body.length,
      samples: text0.split('\n').filter((l) => l && !l.startsWith('#')).length,
      delay_scraped: delayScraped,
      scrapes: scrapes.length,
      scrape_p50_s: median(scrapes),
      scrape_max_s: Math.max(...scrapes),
      // A scrape's CPU: window B's CPU beyond polling's (polling's cost per request from window A).
      scrape_cpu_s: (cpuB - reqB.requests * cpuPerRequest) / scrapes.length,
      peak_rss_scraped_bytes: peakRss,
      poll_errors: state1.errors - state0.errors,
      up: state1.up,
      gzip,
      probe: { exporter: probe, loop: { skipped: 'measured by the caller' }, machine },
      probe_bytes: probeBytes,
    };
  }

  // Anchors first, then the exporter at each size; the floor at each size's request rate.
  const bb = await blackbox();
  results.blackbox = bb;
  log('');
  if ('skipped' in bb) log(`blackbox exporter: skipped: ${bb.skipped}`);
  else
    log(
      `blackbox exporter (GET /ext/health, one new connection a probe): ${bb.probes} probes at ${bb.rate.toFixed(0)}/s, ${us(bb.cpuPerProbe)} CPU a probe, probe p50 ${f1(bb.p50ms)} ms p99 ${f1(bb.p99ms)} ms`,
    );

  // RSS of a one-node exporter: the base that RSS per node is counted from.
  const rssOneNodeBytes = await (async () => {
    const { p } = await startExporter(1, 1);
    await sleep(2000);
    /** @type {number[]} */
    const samples = [];
    for (let i = 0; i < 5; i++) {
      samples.push(rssBytes(p.pid));
      await sleep(200);
    }
    const rss = median(samples);
    await procs.stop(p);
    log(`exporter with 1 node: RSS ${(rss / 2 ** 20).toFixed(1)} MiB`);
    return rss;
  })();

  for (const n of SIZES) {
    const rate = (n * REQUESTS_PER_POLL) / INTERVAL_S;
    const fl = await floor(n, (n / INTERVAL_S) * REQUESTS_PER_POLL, false);
    const mix = QUICK ? undefined : await floor(n, rate, true);
    log('');
    log(`--- ${n.toLocaleString('en')} nodes (${rate.toFixed(0)} requests/s) ---`);
    log(
      `floor, health.health + JSON.parse at ${(fl.requests / fl.elapsed).toFixed(0)}/s: ${us(fl.cpuPerRequest)} CPU a request (${fl.errors} errors)`,
    );
    if (mix)
      log(
        `floor, the poll's mix (1 health + ${ENDPOINTS.length} index) at ${(mix.requests / mix.elapsed).toFixed(0)}/s: ${us(mix.cpuPerRequest)} CPU a request (${mix.errors} errors)`,
      );
    const exporter = await measureSize(n);
    // The one-loop floor of /probe: the undici floor polling the exporter's mix at its rate, serving one node's body.
    exporter.probe.loop = await probeFloor(n, rate, exporter.probe_bytes);
    /** @type {SizeResult} */
    const r = {
      ...exporter,
      floor_cpu_per_request_s: fl.cpuPerRequest,
      floor_mix_cpu_per_request_s: mix?.cpuPerRequest,
      rss_per_node_bytes: (exporter.rss_bytes - rssOneNodeBytes) / n,
    };
    results.sizes.set(n, r);
    const perPoll = r.cpu_per_request_s * REQUESTS_PER_POLL;
    log(
      `exporter: listening after ${f1(r.listen_s)} s, ${r.first_round_pending ? `${r.first_round_pending} nodes not yet polled at the deadline` : `every node polled once after ${f1(r.first_round_s)} s`}; ${r.up} / ${n} up; ${r.poll_errors} poll errors while scraped${r.skipped_share > 0 ? `; ${f1(r.skipped_share * 100)} % of polls skipped as saturated (the exporter's own load)` : ''}`,
    );
    log(
      `  CPU: ${f1(r.cpu_core_fraction * 100)} % of a core for ${r.requests_per_s.toFixed(0)} requests/s${r.requests_counted ? '' : ' (scheduled rate: no poll counter in this build)'}`,
    );
    log(
      `  CPU a request ${us(r.cpu_per_request_s)} = ${f2(r.cpu_per_request_s / fl.cpuPerRequest)} × floor${mix ? ` (${f2(r.cpu_per_request_s / mix.cpuPerRequest)} × the mix floor)` : ''}; a poll ${us(perPoll)}${'skipped' in bb ? '' : ` = ${f2(perPoll / bb.cpuPerProbe)} × a blackbox probe`}`,
    );
    log(`  nodes a core can poll at ${INTERVAL_S}s: ${Math.round(INTERVAL_S / perPoll).toLocaleString('en')} (from CPU a poll)`);
    log(
      `  RSS ${(r.rss_bytes / 2 ** 20).toFixed(0)} MiB → ${(r.rss_per_node_bytes / 1024).toFixed(1)} KiB a node; peak while scraped ${(r.peak_rss_scraped_bytes / 2 ** 20).toFixed(0)} MiB`,
    );
    log(
      `  poll-start delay p50 / p99: ${f3(r.delay.p50)} / ${f3(r.delay.p99)} s (${r.delay.polls ?? 0} polls); with /metrics scraped back to back: ${f3(r.delay_scraped.p50)} / ${f3(r.delay_scraped.p99)} s`,
    );
    log(
      `  /metrics: ${r.samples.toLocaleString('en')} samples, ${(r.metrics_bytes / 2 ** 20).toFixed(1)} MiB; ${r.scrapes} scrapes, p50 ${f3(r.scrape_p50_s)} s, max ${f3(r.scrape_max_s)} s, ${f3(r.scrape_cpu_s)} s CPU a scrape${r.gzip ? `; gzip ${(r.gzip.bytes / 2 ** 20).toFixed(1)} MiB in ${f3(r.gzip.seconds)} s` : '; no gzip'}`,
    );
    /** @type {[string, Probe][]} */
    const probes = [
      ['/probe', r.probe.exporter],
      [`  floor, one loop (${r.probe_bytes} bytes served by the undici floor polling at ${rate.toFixed(0)}/s)`, r.probe.loop],
      ['  floor, the machine (the same body from a process that only serves, the exporter polling)', r.probe.machine],
    ];
    for (const [what, probe] of probes) {
      if ('skipped' in probe) log(`  ${what}: skipped: ${probe.skipped}`);
      else
        log(
          `  ${what} at ${probe.rate.toFixed(0)}/s over ${opts['probe-connections']} connections: p50 ${f2(probe.p50ms)} ms, p99 ${f2(probe.p99ms)} ms, max ${f1(probe.maxms)} ms (${probe.errors} errors)`,
        );
    }
    if (!('skipped' in r.probe.exporter) && !('skipped' in r.probe.loop))
      log(`  probe_p99_over_floor: ${f2(r.probe.exporter.p99ms / r.probe.loop.p99ms)} (/probe p99 over the one-loop floor's)`);
  }
} finally {
  await procs.stopAll();
  await agent.close().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
}

// --- the node_metrics source (issue 31), its own simulator and exporter, after the fleet is stopped: CPU a poll
// against the floor of the same run (fetching the same /ext/metrics bodies at the same rate, split into lines).
/** @type {Record<string, number> | { skipped: string }} */
let nodeMetrics;
if (!opts['no-node-metrics']) {
  log('');
  log('node_metrics source: 200 nodes, each body the simulator’s realistic /ext/metrics');
  try {
    const out = await procs.run(
      'node-metrics',
      NODE,
      ['bench/node-metrics.mjs', '--nodes=100', '--interval=2', `--window=${QUICK ? 8 : 20}`, `--warmup=${QUICK ? 4 : 6}`],
      600_000,
    );
    const line = out.trim().split('\n').pop() ?? '';
    const num = jsonNumbers(line, 'bench/node-metrics.mjs');
    nodeMetrics = Object.fromEntries(
      [
        'cpu_per_poll_us',
        'floor_cpu_per_fetch_us',
        'cpu_per_poll_over_floor',
        'rss_kib_per_node',
        'body_kib',
        'body_series',
        'polls',
        'poll_errors',
      ].map((k) => [k, num(k)]),
    );
    log(
      `  a poll ${nodeMetrics.cpu_per_poll_us} µs CPU = ${nodeMetrics.cpu_per_poll_over_floor} × floor (${nodeMetrics.floor_cpu_per_fetch_us} µs to fetch and split a ${nodeMetrics.body_kib} KiB body of ${nodeMetrics.body_series} series); ${nodeMetrics.rss_kib_per_node} KiB RSS a node; ${nodeMetrics.poll_errors} poll errors`,
    );
  } catch (err) {
    nodeMetrics = { skipped: String(err).slice(0, 500) };
    log(`  skipped: ${nodeMetrics.skipped}`);
  } finally {
    await procs.stopAll();
  }
} else nodeMetrics = { skipped: '--no-node-metrics' };

const loadavgEnd = loadavg()[0] ?? NaN;
const seconds = (performance.now() - t0) / 1000;
/** @param {number} n */
const sizeResult = (n) => {
  const r = results.sizes.get(n);
  if (r === undefined) throw new Error(`no figures for ${n} nodes`);
  return r;
};
const mainSize = SIZES.includes(10000) ? 10000 : SIZES[0];
if (mainSize === undefined) throw new Error('--sizes lists no fleet size');
const main = sizeResult(mainSize);
const bbProbe = 'skipped' in results.blackbox ? undefined : results.blackbox.cpuPerProbe;
/** @param {Probe} probe */
const probeFigures = (probe) => ('skipped' in probe ? undefined : probe);
const mainProbe = probeFigures(main.probe.exporter);
const loopProbe = probeFigures(main.probe.loop);
const machineProbe = probeFigures(main.probe.machine);
const summary = {
  nodes: main.nodes,
  interval_s: INTERVAL_S,
  cpu_per_request_us: +(main.cpu_per_request_s * 1e6).toFixed(1),
  floor_cpu_per_request_us: +(main.floor_cpu_per_request_s * 1e6).toFixed(1),
  cpu_per_request_over_floor: +(main.cpu_per_request_s / main.floor_cpu_per_request_s).toFixed(3),
  cpu_per_poll_over_blackbox_probe: bbProbe ? +((main.cpu_per_request_s * REQUESTS_PER_POLL) / bbProbe).toFixed(3) : null,
  rss_kib_per_node: Object.fromEntries(SIZES.map((n) => [n, +(sizeResult(n).rss_per_node_bytes / 1024).toFixed(1)])),
  poll_start_delay_p50_seconds: Number.isFinite(main.delay.p50) ? +main.delay.p50.toFixed(4) : null,
  poll_start_delay_p99_seconds: Number.isFinite(main.delay.p99) ? +main.delay.p99.toFixed(4) : null,
  poll_start_delay_p99_seconds_scraped: Number.isFinite(main.delay_scraped.p99) ? +main.delay_scraped.p99.toFixed(4) : null,
  metrics_scrape_seconds: +main.scrape_p50_s.toFixed(4),
  metrics_scrape_cpu_seconds: +main.scrape_cpu_s.toFixed(4),
  probe_p50_ms: mainProbe?.p50ms ?? null,
  probe_p99_ms: mainProbe?.p99ms ?? null,
  probe_rate: mainProbe?.rate ? Math.round(mainProbe.rate) : null,
  probe_floor_one_loop_p99_ms: loopProbe?.p99ms ?? null,
  // /probe p99 against the one-loop floor at the same rate (in --quick too): what the exporter adds to serving one body.
  probe_p99_over_floor: mainProbe?.p99ms && loopProbe?.p99ms ? +(mainProbe.p99ms / loopProbe.p99ms).toFixed(2) : null,
  probe_floor_machine_p99_ms: machineProbe?.p99ms ?? null,
  node_metrics: nodeMetrics,
  loadavg: [+results.loadavg_start.toFixed(2), +loadavgEnd.toFixed(2)],
  seconds: +seconds.toFixed(1),
  ...(SIZES.length > 1
    ? {
        by_size: Object.fromEntries(
          SIZES.map((n) => {
            const r = sizeResult(n);
            return [
              n,
              {
                cpu_per_request_over_floor: +(r.cpu_per_request_s / r.floor_cpu_per_request_s).toFixed(3),
                poll_start_delay_p99_seconds: Number.isFinite(r.delay.p99) ? +r.delay.p99.toFixed(4) : null,
                poll_start_delay_p99_seconds_scraped: Number.isFinite(r.delay_scraped.p99) ? +r.delay_scraped.p99.toFixed(4) : null,
                metrics_scrape_seconds: +r.scrape_p50_s.toFixed(3),
                metrics_scrape_cpu_seconds: +r.scrape_cpu_s.toFixed(3),
                probe_p99_ms: probeFigures(r.probe.exporter)?.p99ms ?? null,
                probe_floor_one_loop_p99_ms: probeFigures(r.probe.loop)?.p99ms ?? null,
                probe_floor_machine_p99_ms: probeFigures(r.probe.machine)?.p99ms ?? null,
              },
            ];
          }),
        ),
      }
    : {}),
};
log('');
log(
  `done in ${seconds.toFixed(1)} s (${((performance.now() - started) / 1000).toFixed(1)} s with the build check); load average at end ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
console.log(JSON.stringify(summary));
process.exit(0);
