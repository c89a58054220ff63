// Fleet benchmark: a simulated fleet of N nodes (one process) and the exporter
// polling all of them (another process), on loopback. Prints figures; asserts
// nothing. Usage: npm run bench -- [--nodes=10000] [--interval=15s] [--duration=60]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '10000' },
    interval: { type: 'string', default: '15s' },
    timeout: { type: 'string', default: '5s' },
    duration: { type: 'string', default: '60' },
    scrapes: { type: 'string', default: '10' },
    endpoints: { type: 'string', default: 'C/block,P/block,X/block,X/tx' },
  },
});
const nodes = Number(values.nodes);
const durationS = Number(values.duration);
const endpoints = values.endpoints ? values.endpoints.split(',') : [];

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const children = [];
function start(args, name) {
  const child = spawn(process.execPath, ['--max-old-space-size=8192', 'dist/main.js', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => (err = (err + d).slice(-4000)));
  child.on('exit', (code, signal) => {
    if (!stopping) console.error(`${name} exited early (${code ?? signal}):\n${err}`);
  });
  children.push(child);
  return child;
}
let stopping = false;
async function stopAll() {
  stopping = true;
  await Promise.all(
    children.map(
      (c) =>
        new Promise((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          const t = setTimeout(() => c.kill('SIGKILL'), 15_000);
          c.once('exit', () => {
            clearTimeout(t);
            resolve();
          });
          c.kill('SIGTERM');
        }),
    ),
  );
}

async function waitFor(probe, what, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v;
    } catch {}
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const sum = (text, name) => {
  let total = 0;
  for (const line of text.split('\n')) if (line.startsWith(name)) total += Number(line.slice(line.lastIndexOf(' ') + 1));
  return total;
};
const value = (text, name) => {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.slice(name.length + 1)) : NaN;
};
const pct = (arr, p) => [...arr].sort((a, b) => a - b)[Math.min(arr.length - 1, Math.floor((p / 100) * arr.length))];
const ms = (x) => `${x.toFixed(1)} ms`;

const dir = mkdtempSync(join(tmpdir(), 'avaxexp-bench-'));
try {
  const simPort = await freePort();
  const expPort = await freePort();
  const sim = `http://127.0.0.1:${simPort}`;
  const exp = `http://127.0.0.1:${expPort}`;
  console.log(`fleet benchmark: ${nodes} nodes, interval ${values.interval}, timeout ${values.timeout}, index endpoints [${endpoints.join(', ')}], ${durationS}s of steady state`);

  let t0 = performance.now();
  start(['simulate', `--web.listen-address=127.0.0.1:${simPort}`, `--nodes=${nodes}`, '--scenario=healthy'], 'simulator');
  await waitFor(async () => (await fetch(`${sim}/sim/nodes`)).ok, 'simulator', 120_000);
  console.log(`simulator up in ${ms(performance.now() - t0)}`);

  const lines = ['defaults:', `  interval: ${values.interval}`, `  timeout: ${values.timeout}`, `  index: { endpoints: [${endpoints.join(', ')}] }`, 'targets:'];
  for (let i = 0; i < nodes; i++) lines.push(`  - name: node-${i}`, `    url: ${nodes === 1 ? sim : `${sim}/node-${i}`}`);
  const configFile = join(dir, 'config.yaml');
  writeFileSync(configFile, `${lines.join('\n')}\n`);

  t0 = performance.now();
  start([`--config.file=${configFile}`, `--web.listen-address=127.0.0.1:${expPort}`, '--log.level=warn'], 'exporter');
  await waitFor(async () => (await fetch(`${exp}/-/healthy`)).ok, 'exporter', 120_000);
  const startupMs = performance.now() - t0;
  await waitFor(async () => (await fetch(`${exp}/-/ready`)).ok, 'first poll of every node', 600_000);
  const firstRoundMs = performance.now() - t0;
  console.log(`exporter: listening after ${ms(startupMs)}, every node polled once after ${ms(firstRoundMs)}`);

  const before = await (await fetch(`${exp}/metrics`)).text();
  const tBefore = performance.now();
  await new Promise((r) => setTimeout(r, durationS * 1000));
  const scrapeMs = [];
  let size = 0;
  let after = '';
  for (let i = 0; i < Number(values.scrapes); i++) {
    const s = performance.now();
    after = await (await fetch(`${exp}/metrics`)).text();
    scrapeMs.push(performance.now() - s);
    size = after.length;
  }
  const elapsedS = (performance.now() - tBefore) / 1000;
  const probeMs = [];
  for (let i = 0; i < 50; i++) {
    const s = performance.now();
    await (await fetch(`${exp}/probe?target=node-${(i * 7919) % nodes}`)).text();
    probeMs.push(performance.now() - s);
  }

  const successes = (text, source) => text.split('\n').filter((l) => l.startsWith(`avalanchego_exporter_poll_success{`) && l.includes(`source="${source}"`) && l.endsWith(' 1')).length;
  const errors = sum(after, 'avalanchego_exporter_poll_errors_total') - sum(before, 'avalanchego_exporter_poll_errors_total');
  const cpu = value(after, 'process_cpu_seconds_total') - value(before, 'process_cpu_seconds_total');
  const rss = value(after, 'process_resident_memory_bytes');
  const series = after.split('\n').filter((l) => l && !l.startsWith('#')).length;
  const intervalS = Number(values.interval.replace(/s$/, ''));
  const expectedRequests = (nodes * (1 + endpoints.length)) / intervalS;

  console.log('');
  console.log(`steady state over ${elapsedS.toFixed(1)} s:`);
  console.log(`  nodes with a successful health poll: ${successes(after, 'health')} / ${nodes}; index: ${successes(after, 'index')} / ${nodes}`);
  const byReason = (text) => {
    const m = new Map();
    for (const line of text.split('\n')) {
      const r = /^avalanchego_exporter_poll_errors_total\{.*reason="([^"]+)"\} (\d+)$/.exec(line);
      if (r) m.set(r[1], (m.get(r[1]) ?? 0) + Number(r[2]));
    }
    return m;
  };
  const reasonsBefore = byReason(before);
  const reasons = [...byReason(after)].map(([r, n]) => `${r} ${n - (reasonsBefore.get(r) ?? 0)}`).join(', ');
  console.log(`  poll errors during the window: ${errors}${reasons ? ` (${reasons})` : ''}`);
  console.log(`  requests to nodes: ${expectedRequests.toFixed(0)}/s scheduled (${nodes} × ${1 + endpoints.length} every ${values.interval})`);
  console.log(`  exporter CPU: ${((cpu / elapsedS) * 100).toFixed(1)} % of one core; RSS ${(rss / 2 ** 20).toFixed(0)} MiB`);
  console.log(`  /metrics: ${series} samples, ${(size / 2 ** 20).toFixed(1)} MiB; scrape p50 ${ms(pct(scrapeMs, 50))}, p95 ${ms(pct(scrapeMs, 95))}, max ${ms(Math.max(...scrapeMs))} (${scrapeMs.length} scrapes)`);
  console.log(`  /probe (one node): p50 ${ms(pct(probeMs, 50))}, p95 ${ms(pct(probeMs, 95))}`);
} finally {
  await stopAll();
  rmSync(dir, { recursive: true, force: true });
}
