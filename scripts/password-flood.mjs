#!/usr/bin/env node
// Measures what a flood of wrong passwords from one address does to the
// exporter (built in dist/, run as its own process): how many password checks
// it answers a second and with what, how long a user whose password is not
// cached yet waits to get in from another address, and how long the
// exporter's event loop stalls (nodejs_eventloop_lag_* from its /metrics,
// scraped with a cached password) before and during the flood.
//
//   npm run build && node scripts/password-flood.mjs [--cost=10] [--flood=40] [--seconds=20] [--users=8]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import bcrypt from 'bcryptjs';
import { startSimulator } from '../dist/simulator/index.js';

const { values } = parseArgs({
  options: {
    cost: { type: 'string', default: '10' },
    flood: { type: 'string', default: '40' },
    seconds: { type: 'string', default: '20' },
    users: { type: 'string', default: '8' },
  },
});
const cost = Number(values.cost);
const floodConnections = Number(values.flood);
const floodSeconds = Number(values.seconds);
const userCount = Number(values.users);

/**
 * @typedef {{ status: number | string, body: string }} Answer
 * @typedef {{ ms: number, status: number | string, lagP99: number, lagMax: number, skipped: number, errors: number }} Scrape
 */

/**
 * @param {string} url
 * @param {{ auth?: string, localAddress?: string, timeoutMs?: number }} [options]
 * @returns {Promise<Answer>}
 */
function get(url, { auth, localAddress, timeoutMs = 60_000 } = {}) {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, auth, localAddress, timeout: timeoutMs }, (res) => {
      res.resume();
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (/** @type {string} */ c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${String(timeoutMs)} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** @returns {Promise<number>} */
async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * @param {string} text
 * @param {string} name
 * @returns {number | undefined}
 */
const sampleOf = (text, name) => {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
};
/**
 * @param {number[]} xs
 * @param {number} p
 */
const pct = (xs, p) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
/** @param {number} x */
const ms = (x) => `${String(Math.round(x))} ms`;

const dir = mkdtempSync(join(tmpdir(), 'password-flood-'));
const sim = await startSimulator({ nodes: 10, validator: false });
const users = ['admin', 'mallory', ...Array.from({ length: userCount }, (_, i) => `user${i}`)];
writeFileSync(
  join(dir, 'web.yml'),
  `basic_auth_users:\n${users.map((u) => `  ${u}: ${bcrypt.hashSync(`${u}-pw`, cost).replace(/^\$2b\$/, '$2y$')}\n`).join('')}`,
);
writeFileSync(
  join(dir, 'config.yaml'),
  `defaults:\n  interval: 1s\n  timeout: 800ms\ntargets:\n${sim.nodes.map((n) => `  - name: ${n.name}\n    url: ${n.baseUrl}\n`).join('')}`,
);
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
const child = spawn(
  process.execPath,
  [
    'dist/main.js',
    `--config.file=${join(dir, 'config.yaml')}`,
    `--web.config.file=${join(dir, 'web.yml')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--log.level=warn',
  ],
  { stdio: ['ignore', 'ignore', 'inherit'] },
);

/**
 * One scrape with the cached admin password: its latency and the exporter's event-loop lag since the last scrape.
 * @returns {Promise<Scrape>}
 */
async function scrape() {
  const start = performance.now();
  const r = await get(`${url}/metrics`, { auth: 'admin:admin-pw' });
  return {
    ms: performance.now() - start,
    status: r.status,
    lagP99: (sampleOf(r.body, 'nodejs_eventloop_lag_p99_seconds') ?? NaN) * 1000,
    lagMax: (sampleOf(r.body, 'nodejs_eventloop_lag_max_seconds') ?? NaN) * 1000,
    skipped: sampleOf(r.body, 'avalanchego_exporter_polls_skipped_total{reason="saturated"}') ?? 0,
    errors: r.body
      .split('\n')
      .filter((l) => l.startsWith('avalanchego_exporter_poll_errors_total{'))
      .reduce((a, l) => a + Number(l.slice(l.lastIndexOf(' ') + 1)), 0),
  };
}

/**
 * Scrapes once a second until the returned stop() and gives the scrapes.
 * @returns {() => Promise<Scrape[]>}
 */
function monitor() {
  /** @type {Scrape[]} */
  const samples = [];
  const stop = new AbortController();
  const done = (async () => {
    while (!stop.signal.aborted) {
      samples.push(await scrape());
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  })();
  return async () => {
    stop.abort();
    await done;
    return samples;
  };
}

/**
 * @param {string} label
 * @param {Scrape[]} samples
 */
const summary = (label, samples) =>
  `${label}: ${samples.length} scrapes, scrape latency p50 ${ms(
    pct(
      samples.map((s) => s.ms),
      50,
    ),
  )} max ${ms(Math.max(...samples.map((s) => s.ms)))}; ` +
  `event-loop lag p99 (worst scrape) ${ms(Math.max(...samples.map((s) => s.lagP99)))}, max ${ms(Math.max(...samples.map((s) => s.lagMax)))}`;

try {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await get(`${url}/-/healthy`).catch(() => undefined);
    if (r?.status === 200) break;
    if (Date.now() > deadline) throw new Error('the exporter did not answer /-/healthy within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  console.log(`bcrypt cost ${cost} (bcryptjs hashSync here: ${ms(timeIt(() => bcrypt.compareSync('x', bcrypt.hashSync('y', cost))))} a compare)`);
  await scrape(); // caches admin's password
  const stopQuiet = monitor();
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const quiet = await stopQuiet();
  console.log(summary('before the flood', quiet));

  /** @type {Map<number | string, number>} */
  const statuses = new Map();
  let stop = false;
  const floodStart = performance.now();
  const flood = Array.from({ length: floodConnections }, async () => {
    while (!stop) {
      const r = await get(`${url}/metrics`, { auth: 'mallory:wrong', localAddress: '127.0.0.2' }).catch((/** @type {unknown} */ err) => ({
        status: err instanceof Error ? err.message : String(err),
      }));
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    }
  });
  const stopBusy = monitor();
  await new Promise((resolve) => setTimeout(resolve, 2000));
  /** @type {Array<{ ms: number, status: number | string }>} */
  const logins = [];
  for (let i = 0; i < userCount && performance.now() - floodStart < floodSeconds * 1000; i++) {
    const start = performance.now();
    const r = await get(`${url}/metrics`, { auth: `user${String(i)}:user${String(i)}-pw` }).catch((/** @type {unknown} */ err) => ({
      status: err instanceof Error ? err.message : String(err),
    }));
    logins.push({ ms: performance.now() - start, status: r.status });
  }
  const left = floodSeconds * 1000 - (performance.now() - floodStart);
  if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
  stop = true;
  const busy = await stopBusy();
  const floodMs = performance.now() - floodStart;
  await Promise.all(flood);
  const total = [...statuses.values()].reduce((a, b) => a + b, 0);
  console.log(
    `flood: ${floodConnections} connections from 127.0.0.2 for ${(floodMs / 1000).toFixed(1)} s: ${total} answers, ${(total / (floodMs / 1000)).toFixed(1)}/s; ` +
      [...statuses].map(([s, n]) => `${s}: ${n}`).join(', '),
  );
  console.log(
    `new users from 127.0.0.1 during the flood: ${logins.map((l) => `${l.status} in ${ms(l.ms)}`).join(', ')}; ` +
      `p50 ${ms(
        pct(
          logins.map((l) => l.ms),
          50,
        ),
      )}, max ${ms(Math.max(...logins.map((l) => l.ms)))}`,
  );
  console.log(summary('during the flood', busy));
  const last = busy.at(-1);
  const first = quiet[0];
  if (last && first)
    console.log(
      `polls skipped (saturated) ${String(last.skipped - first.skipped)}, poll errors ${String(last.errors - first.errors)} (since before the flood)`,
    );
} finally {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
}

/** @param {() => void} f */
function timeIt(f) {
  const start = performance.now();
  f();
  return (performance.now() - start) / 2;
}
