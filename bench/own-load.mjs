// Issue 21's scenarios at full size: the exporter's own load must not show as
// a node's fault. Each run starts the simulator and the exporter as separate
// processes (loopback), applies one load, and prints one JSON line: false
// timeouts (poll errors of nodes that answer), the least `avalanchego_up`
// count seen, /metrics p95, and requests a second to a node under the debug
// hammer. Asserts nothing; run it under `flock /tmp/heavy.lock`.
//
//   node bench/own-load.mjs --case=storm --scrapers=20     1,000 nodes (5 s / 2 s), scrapers back to back for 15 s
//   node bench/own-load.mjs --case=hang                    1,000 hanging nodes + 1 healthy (2 s / 1.5 s), 35 s
//                          --origins=4                     the hanging nodes spread over 4 origins (one simulator each), not one
//   node bench/own-load.mjs --case=debug                   /probe?debug=true back to back for 10 s (node polled every 15 s)
//   node bench/own-load.mjs --case=gateway                 60 nodes behind one origin answering in 400 ms (1 s timeout, shipped sources)
//   --exporter=DIR   the build to run (DIR/dist/main.js; default: this checkout), e.g. a worktree of an older commit
//   --sources=shipped  storm and hang with the info and platform sources on, as shipped (default: health + index
//                      only); Helicon's evm and proposervm stay off in a build that has them, so that two builds
//                      of different ages do the same work
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { Procs, freePort, percentile, sleep, sumSamples, waitFor } from './lib.mjs';

const { values: opts } = parseArgs({
  options: {
    case: { type: 'string', default: 'storm' },
    scrapers: { type: 'string', default: '20' },
    nodes: { type: 'string' },
    exporter: { type: 'string', default: '.' },
    sources: { type: 'string', default: 'anchors' },
    origins: { type: 'string', default: '1' },
  },
});
const procs = new Procs();
const agent = new Agent({ connections: 512 });
const dir = mkdtempSync(join(tmpdir(), 'own-load-'));
const main = join(opts.exporter, 'dist', 'main.js');
const SLOW_SOURCES =
  opts.sources === 'shipped' ? '' : '  info: { enabled: false }\n  platform: { enabled: false }\n  chain_info: { enabled: false }\n';
// The Helicon sources off too, in a build that has them (an older build refuses the keys).
const OFF = readFileSync(join(opts.exporter, 'dist', 'config', 'schema.js'), 'utf8').includes('proposervm')
  ? '  evm: { enabled: false }\n  proposervm: { enabled: false }\n'
  : '';

/** @param {string} url */
async function get(url) {
  const r = await request(url, { dispatcher: agent, headersTimeout: 120_000, bodyTimeout: 120_000 });
  return { status: r.statusCode, body: await r.body.text() };
}

/** @param {string} name @param {string[]} args */
async function simulator(name, args) {
  const port = await freePort();
  const p = procs.start(name, process.execPath, [join('.', 'dist', 'main.js'), 'simulate', `--web.listen-address=127.0.0.1:${port}`, ...args]);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await get(`${url}/sim/scenarios`)).status === 200, name, 120_000, p);
  return url;
}

/** @param {string} defaults @param {Array<[string, string]>} targets */
async function exporter(defaults, targets) {
  const file = join(dir, 'exporter.yaml');
  writeFileSync(file, `defaults:\n${defaults}targets:\n${targets.map(([n, u]) => `  - name: ${n}\n    url: ${u}\n`).join('')}`);
  const port = await freePort();
  const p = procs.start('exporter', process.execPath, [main, `--config.file=${file}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=error']);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await get(`${url}/-/healthy`)).status === 200, 'exporter', 120_000, p);
  return url;
}

/** Poll errors (all reasons) of the nodes `which` accepts, and their up count. @param {string} text @param {(n: string) => boolean} which */
function state(text, which) {
  let errors = 0;
  let up = 0;
  /** @type {Record<string, number>} */
  const reasons = {};
  for (const line of text.split('\n')) {
    const node = /node="([^"]*)"/.exec(line)?.[1];
    if (node === undefined || !which(node)) continue;
    if (line.startsWith('avalanchego_exporter_poll_errors_total{')) {
      const value = Number(line.slice(line.lastIndexOf(' ') + 1));
      errors += value;
      const key = `${/source="([^"]*)"/.exec(line)?.[1] ?? '?'}/${/reason="([^"]*)"/.exec(line)?.[1] ?? '?'}`;
      if (value > 0) reasons[key] = (reasons[key] ?? 0) + value;
    } else if (line.startsWith('avalanchego_up{')) up += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return { errors, reasons, up, skipped: sumSamples(text, 'avalanchego_exporter_polls_skipped_total') ?? null };
}

/**
 * Back-to-back GETs of `path` by `clients` for `seconds`: latencies (ms) of the 200s, and other statuses.
 * @param {string} url @param {string} path @param {number} clients @param {number} seconds
 */
async function hammer(url, path, clients, seconds) {
  const until = performance.now() + seconds * 1000;
  /** @type {number[]} */
  const ms = [];
  let other = 0;
  await Promise.all(
    Array.from({ length: clients }, async (/** @type {unknown} */ _) => {
      while (performance.now() < until) {
        const s = performance.now();
        const r = await get(`${url}${path}`).catch(() => ({ status: 0 }));
        if (r.status === 200) ms.push(performance.now() - s);
        else other++;
      }
    }),
  );
  return { ms, other };
}

const out = { case: opts.case, exporter: opts.exporter, sources: opts.sources };
try {
  if (opts.case === 'storm') {
    const n = Number(opts.nodes ?? 1000);
    const sim = await simulator('simulator', [`--nodes=${n}`, '--scenario=healthy']);
    const url = await exporter(
      '  interval: 5s\n  timeout: 2s\n' + SLOW_SOURCES + OFF,
      Array.from({ length: n }, (_, i) => [`node-${i}`, `${sim}/node-${i}`]),
    );
    await waitFor(async () => (await get(`${url}/-/ready`)).status === 200, 'first polls', 120_000);
    await sleep(10_000);
    const before = state((await get(`${url}/metrics`)).body, () => true);
    const h = await hammer(url, '/metrics', Number(opts.scrapers), 15);
    const after = state((await get(`${url}/metrics`)).body, () => true);
    Object.assign(out, {
      nodes: n,
      scrapers: Number(opts.scrapers),
      scrapes: h.ms.length,
      refused: h.other,
      metrics_p95_ms: +percentile(h.ms, 95).toFixed(1),
      false_errors: after.errors - before.errors,
      up_after: after.up,
      skipped: after.skipped,
    });
  } else if (opts.case === 'hang') {
    const n = Number(opts.nodes ?? 1000);
    const origins = Number(opts.origins);
    /** @type {Array<[string, string]>} */
    const hanging = [];
    for (let o = 0; o < origins; o++) {
      const size = Math.floor(n / origins) + (o < n % origins ? 1 : 0);
      const sim = await simulator(`hanging-${o}`, [`--nodes=${size}`, '--scenario=down', '--down-mode=hang']);
      for (let i = 0; i < size; i++) hanging.push([`hang-${o}-${i}`, size === 1 ? sim : `${sim}/node-${i}`]);
    }
    const ok = await simulator('healthy', ['--nodes=1', '--scenario=healthy']);
    // One simulated node is served at the root (the simulator prefixes /node-<i> only for two or more).
    const url = await exporter('  interval: 2s\n  timeout: 1500ms\n' + SLOW_SOURCES + OFF, [['healthy', ok], ...hanging]);
    // Watched for 35 s from the start: when the healthy node is first shown and whether it stays up, when every
    // hanging node is shown down, and the skips in the last 10 s (the exporter's saturation, not the nodes' hanging).
    const started = performance.now();
    /** @type {number | null} */
    let firstShownS = null;
    /** @type {number | null} */
    let allDownS = null;
    let downSeen = 0;
    let samples = 0;
    let skippedAt25 = 0;
    let last = '';
    while (performance.now() - started < 35_000) {
      last = (await get(`${url}/metrics`)).body;
      const at = (performance.now() - started) / 1000;
      samples++;
      if (firstShownS === null && last.includes('avalanchego_up{node="healthy"}')) firstShownS = at;
      if (firstShownS !== null && !last.includes('avalanchego_up{node="healthy"} 1')) downSeen++;
      const down = last.split('\n').filter((l) => l.startsWith('avalanchego_up{node="hang-') && l.endsWith(' 0')).length;
      if (allDownS === null && down === n) allDownS = at;
      if (at < 25) skippedAt25 = sumSamples(last, 'avalanchego_exporter_polls_skipped_total') ?? 0;
      await sleep(500);
    }
    const s = state(last, (name) => name === 'healthy');
    const h = state(last, (name) => name !== 'healthy');
    const timedOut = new Set(
      last
        .split('\n')
        .filter((l) => l.startsWith('avalanchego_exporter_poll_errors_total{') && l.includes('reason="timeout"') && !l.endsWith(' 0'))
        .map((l) => /node="([^"]*)"/.exec(l)?.[1]),
    );
    timedOut.delete('healthy');
    Object.assign(out, {
      hanging: n,
      origins,
      hanging_down: last.split('\n').filter((l) => l.startsWith('avalanchego_up{node="hang-') && l.endsWith(' 0')).length,
      hanging_all_down_s: allDownS === null ? null : +allDownS.toFixed(1),
      hanging_with_timeouts: timedOut.size,
      hanging_error_reasons: [...new Set(Object.keys(h.reasons).map((k) => k.split('/')[1]))],
      healthy_first_shown_s: firstShownS === null ? null : +firstShownS.toFixed(1),
      healthy_errors: s.errors,
      healthy_error_reasons: s.reasons,
      healthy_down_samples: downSeen,
      samples,
      skipped: s.skipped,
      skipped_last_10s: (s.skipped ?? 0) - skippedAt25,
    });
  } else if (opts.case === 'debug') {
    // A node that counts the requests it gets (health answers from the fixture; the other APIs 404).
    const body = readFileSync('test/fixtures/health/healthy-v1.14.2.json');
    let requests = 0;
    const node = createServer((req, res) => {
      requests++;
      req.resume();
      req.on('end', () => {
        if (req.url === '/ext/health') res.writeHead(200, { 'content-type': 'application/json' }).end(body);
        else res.writeHead(404).end();
      });
    });
    await new Promise((resolve) => node.listen(0, '127.0.0.1', () => resolve(undefined)));
    const port = /** @type {import('node:net').AddressInfo} */ (node.address()).port;
    try {
      const url = await exporter('  interval: 15s\n  timeout: 5s\n', [['ok', `http://127.0.0.1:${port}`]]);
      await waitFor(async () => (await get(`${url}/-/ready`)).status === 200, 'first poll', 60_000);
      const before = requests;
      const s = performance.now();
      const h = await hammer(url, '/probe?target=ok&debug=true', 8, 10);
      const seconds = (performance.now() - s) / 1000;
      Object.assign(out, {
        answers: h.ms.length,
        refused: h.other,
        node_requests: requests - before,
        node_requests_per_s: +((requests - before) / seconds).toFixed(1),
        seconds: +seconds.toFixed(1),
      });
    } finally {
      node.closeAllConnections();
      node.close();
    }
  } else if (opts.case === 'gateway') {
    const sim = await simulator('gateway', ['--nodes=60', '--scenario=slow', '--slow-response=400ms']);
    const url = await exporter(
      '  interval: 15s\n  timeout: 1s\n',
      Array.from({ length: 60 }, (_, i) => [`node-${i}`, `${sim}/node-${i}`]),
    );
    await sleep(75_000);
    const s = state((await get(`${url}/metrics`)).body, () => true);
    Object.assign(out, { nodes: 60, false_errors: s.errors, up: s.up, skipped: s.skipped });
  } else throw new Error(`unknown --case=${opts.case}`);
} finally {
  await procs.stopAll();
  await agent.close().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
}
console.log(JSON.stringify(out));
