// The node_metrics source's cost (issue 31): the exporter reading every node's /ext/metrics (a real node's
// size: the simulator's v1.14 body, whose polls move, with the other families of a real v1.14.2 validator's
// recorded body, about 580 KiB and 4,600 series a node; --body=simulated: the simulator's own, about 150 KiB
// and 1,700 series) against its floor in the same run:
// a process that only fetches the same bodies at the same rate over keep-alive undici and splits each
// into lines as it streams (what any client pays to see every line; the exporter must also find its few
// families among them). Three phases on one simulator: the exporter with health only, the same with
// node_metrics on (the difference is the source's CPU and memory), and the floor. Prints figures and, as
// its last line, one JSON object. Asserts nothing; run under `flock /tmp/heavy.lock` (bench/run.mjs runs it
// as its node_metrics row).
//
//   node bench/node-metrics.mjs [--nodes=100] [--interval=2] [--window=20] [--body=real|simulated] [--exporter=DIR]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { Procs, cpuSeconds, freePort, jsonNumbers, rssBytes, sleep, sumSamples, waitFor } from './lib.mjs';

const { values: opts } = parseArgs({
  options: {
    // 100 real-size bodies every 2 s (29 MB a second) is what a 2-core machine fetches without timeouts.
    nodes: { type: 'string', default: '100' },
    interval: { type: 'string', default: '2' },
    window: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '6' },
    // real: the simulator's body with a real node's other families (--metrics-filler); simulated: its own alone.
    body: { type: 'string', default: 'real' },
    exporter: { type: 'string', default: '.' },
    // Internal: this file as the floor's process.
    floor: { type: 'string' },
    rate: { type: 'string' },
  },
});

const NL = 0x0a;
const REAL_BODY = fileURLToPath(new URL('../test/fixtures/node-metrics/v1.14.2/local-network-full.prom.gz', import.meta.url));
if (opts.body !== 'real' && opts.body !== 'simulated') throw new Error(`--body: ${JSON.stringify(opts.body)} is neither real nor simulated`);

if (opts.floor !== undefined) {
  // The floor: GET each node's /ext/metrics in turn at --rate a second, each body split into lines as its
  // chunks come (the last partial line of a chunk kept for the next), nothing else. Prints one JSON line.
  /** @type {unknown} */
  const list = JSON.parse(opts.floor);
  if (!Array.isArray(list) || !list.every((u) => typeof u === 'string')) throw new Error('--floor: expected a JSON array of node URLs');
  const urls = /** @type {string[]} */ (list);
  const rate = Number(opts.rate);
  const dispatcher = new Agent({ keepAliveTimeout: 60_000, connections: 8 });
  let measuring = false;
  let fetched = 0;
  let lines = 0;
  let errors = 0;
  /** @param {number} n */
  const one = async (n) => {
    try {
      const res = await request(`${urls[n % urls.length]}/ext/metrics`, { dispatcher, headers: { accept: 'text/plain;version=0.0.4' } });
      /** @type {Buffer | undefined} */
      let carry;
      let count = 0;
      for await (const /** @type {unknown} */ b of res.body) {
        if (!Buffer.isBuffer(b)) throw new Error('the body gave no bytes');
        let start = 0;
        if (carry !== undefined) {
          const nl = b.indexOf(NL);
          if (nl === -1) {
            carry = Buffer.concat([carry, b]);
            continue;
          }
          count++;
          carry = undefined;
          start = nl + 1;
        }
        for (let nl = b.indexOf(NL, start); nl !== -1; nl = b.indexOf(NL, start)) {
          count++;
          start = nl + 1;
        }
        if (start < b.length) carry = Buffer.from(b.subarray(start));
      }
      if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
      if (measuring) {
        fetched++;
        lines += count;
      }
    } catch {
      if (measuring) errors++;
    }
  };
  const warmupS = Number(opts.warmup);
  const windowS = Number(opts.window);
  const t0 = performance.now();
  let n = 0;
  let cpuStart = 0;
  let started = 0;
  const end = t0 + (warmupS + windowS) * 1000;
  while (performance.now() < end) {
    const now = performance.now();
    if (!measuring && now - t0 >= warmupS * 1000) {
      measuring = true;
      cpuStart = process.cpuUsage().user + process.cpuUsage().system;
      started = now;
    }
    const due = Math.floor(((now - t0) / 1000) * rate);
    while (n < due) void one(n++);
    await sleep(5);
  }
  const cpu = (process.cpuUsage().user + process.cpuUsage().system - cpuStart) / 1e6;
  const elapsed = (performance.now() - started) / 1000;
  console.log(JSON.stringify({ fetched, errors, lines, elapsed, cpuSeconds: cpu, cpuPerFetch: fetched > 0 ? cpu / fetched : NaN }));
  await dispatcher.close();
  process.exit(0);
}

const N = Number(opts.nodes);
const INTERVAL_S = Number(opts.interval);
const WINDOW_S = Number(opts.window);
const WARMUP_S = Number(opts.warmup);
const main = join(opts.exporter, 'dist', 'main.js');
const procs = new Procs();
const agent = new Agent({ keepAliveTimeout: 10_000 });
const dir = mkdtempSync(join(tmpdir(), 'avalanchego-bench-node-metrics-'));
const log = (/** @type {string} */ s) => console.error(s);

/** @param {string} url */
async function get(url) {
  const r = await request(url, { dispatcher: agent, headersTimeout: 120_000, bodyTimeout: 120_000 });
  return { status: r.statusCode, body: await r.body.text() };
}

/**
 * @param {string} nodeMetrics the node_metrics section, or '' for off
 * @param {string} sim the simulator's URL
 */
async function startExporter(nodeMetrics, sim) {
  const file = join(dir, 'exporter.yaml');
  const targets = Array.from({ length: N }, (_, i) => `  - name: node-${i}\n    url: ${sim}/node-${i}\n`).join('');
  writeFileSync(
    file,
    `defaults:\n  interval: ${INTERVAL_S}s\n  timeout: ${Math.min(5, INTERVAL_S / 2)}s\n  index: { endpoints: [] }\n  info: { enabled: false }\n  platform: { enabled: false }\n  chain_info: { enabled: false }\n  evm: { enabled: false }\n  proposervm: { enabled: false }\n${nodeMetrics}targets:\n${targets}`,
  );
  const port = await freePort();
  const p = procs.start('exporter', process.execPath, [main, `--config.file=${file}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=error']);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await get(`${url}/-/ready`)).status === 200, 'the exporter ready', 120_000, p);
  return { p, url };
}

/**
 * CPU, RSS and polls started of the exporter over the window, after the warm-up.
 * @param {{ p: import('./lib.mjs').Proc, url: string }} exp
 */
async function measure(exp) {
  await sleep(WARMUP_S * 1000);
  const before = (await get(`${exp.url}/metrics`)).body;
  const cpu0 = cpuSeconds(exp.p.pid);
  const t = performance.now();
  await sleep(WINDOW_S * 1000);
  const cpu = cpuSeconds(exp.p.pid) - cpu0;
  const elapsed = (performance.now() - t) / 1000;
  const after = (await get(`${exp.url}/metrics`)).body;
  // Polls started (every source's): the poll-start histogram's count; node_metrics' are phase B's less phase A's.
  const started = (/** @type {string} */ text) => sumSamples(text, 'avalanchego_exporter_poll_start_delay_seconds_count') ?? 0;
  const errors = (/** @type {string} */ text) =>
    sumSamples(
      text
        .split('\n')
        .filter((l) => l.includes('source="node_metrics"'))
        .join('\n'),
      'avalanchego_exporter_poll_errors_total',
    ) ?? 0;
  // The node_metrics poll errors by reason, over the window.
  const byReason = (/** @type {string} */ text) => {
    /** @type {Record<string, number>} */
    const out = {};
    for (const m of text.matchAll(/^avalanchego_exporter_poll_errors_total\{([^}]*)\} (\S+)$/gm)) {
      const labels = m[1] ?? '';
      if (!labels.includes('source="node_metrics"')) continue;
      const reason = /reason="([^"]*)"/.exec(labels)?.[1] ?? '?';
      out[reason] = (out[reason] ?? 0) + Number(m[2]);
    }
    return out;
  };
  const r0 = byReason(before);
  /** @type {Record<string, number>} */
  const reasons = {};
  for (const [k, v] of Object.entries(byReason(after))) if (v - (r0[k] ?? 0) > 0) reasons[k] = v - (r0[k] ?? 0);
  return { cpu, elapsed, rss: rssBytes(exp.p.pid), started: started(after) - started(before), errors: errors(after) - errors(before), reasons };
}

try {
  const port = await freePort();
  const sim = `http://127.0.0.1:${port}`;
  const simProc = procs.start('simulator', process.execPath, [
    main,
    'simulate',
    `--web.listen-address=127.0.0.1:${port}`,
    `--nodes=${N}`,
    '--scenario=healthy',
    // A real node's size: the simulator's own families (the polls move with the scenario) and the rest of a real
    // v1.14.2 validator's body as it was recorded (staker1 of the local network, also an L1 validator).
    ...(opts.body === 'real' ? [`--metrics-filler=${REAL_BODY}`] : []),
  ]);
  await waitFor(async () => (await get(`${sim}/sim/scenarios`)).status === 200, 'the simulator', 120_000, simProc);
  const body = (await get(`${sim}/node-0/ext/metrics`)).body;
  const series = body.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length;
  log(`node_metrics: ${N} nodes at ${INTERVAL_S}s; a body of ${(body.length / 1024).toFixed(0)} KiB, ${series.toLocaleString('en')} series`);

  const base = await startExporter('', sim);
  const a = await measure(base);
  await procs.stop(base.p);
  const on = await startExporter(`  node_metrics: { enabled: true, interval: ${INTERVAL_S}s }\n`, sim);
  const b = await measure(on);
  await procs.stop(on.p);

  const polls = b.started - a.started * (b.elapsed / a.elapsed);
  // The floor fetches at the rate the exporter's node_metrics polls ran.
  const rate = polls / b.elapsed;
  const floorOut = await procs.run(
    'floor',
    process.execPath,
    [
      'bench/node-metrics.mjs',
      `--floor=${JSON.stringify(Array.from({ length: N }, (_, i) => `${sim}/node-${i}`))}`,
      `--rate=${rate}`,
      `--warmup=${WARMUP_S}`,
      `--window=${WINDOW_S}`,
    ],
    (WARMUP_S + WINDOW_S + 60) * 1000,
  );
  const floorNumber = jsonNumbers(floorOut.trim().split('\n').pop() ?? '', 'the floor');
  const floor = { cpuPerFetch: floorNumber('cpuPerFetch'), fetched: floorNumber('fetched'), errors: floorNumber('errors') };

  const cpuPerPoll = polls > 0 ? (b.cpu / b.elapsed - a.cpu / a.elapsed) / rate : NaN;
  const result = {
    nodes: N,
    interval_s: INTERVAL_S,
    body_kib: +(body.length / 1024).toFixed(1),
    body_series: series,
    polls: Math.round(polls),
    poll_errors: b.errors,
    poll_error_reasons: b.reasons,
    cpu_per_poll_us: +(cpuPerPoll * 1e6).toFixed(1),
    floor_cpu_per_fetch_us: +(floor.cpuPerFetch * 1e6).toFixed(1),
    floor_fetches: floor.fetched,
    floor_errors: floor.errors,
    cpu_per_poll_over_floor: +(cpuPerPoll / floor.cpuPerFetch).toFixed(3),
    rss_kib_per_node: +((b.rss - a.rss) / N / 1024).toFixed(1),
    rss_mib_health_only: +(a.rss / 2 ** 20).toFixed(1),
    rss_mib_with_node_metrics: +(b.rss / 2 ** 20).toFixed(1),
  };
  log(
    `  exporter: ${result.cpu_per_poll_us} µs CPU a node_metrics poll (over health alone), ${Math.round(polls)} polls, ${b.errors} errors${
      b.errors
        ? ` (${Object.entries(b.reasons)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')})`
        : ''
    }; floor (fetch + split into lines): ${result.floor_cpu_per_fetch_us} µs a body → ${result.cpu_per_poll_over_floor} × floor`,
  );
  log(
    `  RSS: ${result.rss_mib_health_only} MiB health only, ${result.rss_mib_with_node_metrics} MiB with node_metrics → ${result.rss_kib_per_node} KiB a node`,
  );
  console.log(JSON.stringify(result));
} finally {
  await procs.stopAll();
  await agent.close().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
}
