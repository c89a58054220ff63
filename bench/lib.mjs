// Helpers of the fleet benchmark: child processes stopped by PID, CPU and RSS
// read from /proc, waiting with deadlines, Prometheus text parsing.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export { sleep };

export const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** An ephemeral loopback port (closed again before it is handed out). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** The processes a run starts: each kept with the tail of its output, stopped by PID. */
export class Procs {
  list = [];

  start(name, cmd, args, options = {}) {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    const p = { name, child, tail: '', stopping: false };
    const keep = (b) => (p.tail = (p.tail + b).slice(-4000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('exit', (code, signal) => {
      if (!p.stopping) console.error(`${name} (pid ${child.pid}) exited early (${code ?? signal}):\n${p.tail.split('\n').slice(-8).join('\n')}`);
    });
    this.list.push(p);
    return p;
  }

  /** Runs a process to its end (bounded by `timeoutMs`); resolves with its stdout. */
  async run(name, cmd, args, timeoutMs) {
    const p = this.start(name, cmd, args);
    p.stopping = true;
    let out = '';
    p.child.stdout.on('data', (d) => (out += d));
    const timer = setTimeout(() => process.kill(p.child.pid, 'SIGKILL'), timeoutMs);
    const code = await new Promise((resolve) => p.child.once('exit', (c, sig) => resolve(c ?? sig)));
    clearTimeout(timer);
    this.list = this.list.filter((q) => q !== p);
    if (code !== 0) throw new Error(`${name} exited with ${code}:\n${p.tail}`);
    return out;
  }

  /** SIGTERM, then SIGKILL after `killAfterMs`; resolves when the process has exited. */
  async stop(p, killAfterMs = 15_000) {
    p.stopping = true;
    const { child } = p;
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(child.pid, 'SIGTERM');
    const timer = setTimeout(() => {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid, 'SIGKILL');
    }, killAfterMs);
    await exited;
    clearTimeout(timer);
    this.list = this.list.filter((q) => q !== p);
  }

  async stopAll() {
    for (const p of [...this.list].reverse()) await this.stop(p);
  }
}

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat. */
export function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** Resident set size in bytes, from /proc/<pid>/status. */
export function rssBytes(pid) {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

/** Polls `probe` until it returns a truthy value; throws after `timeoutMs`. */
export async function waitFor(probe, what, timeoutMs, proc) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc && (proc.child.exitCode !== null || proc.child.signalCode !== null)) {
      throw new Error(`${proc.name} exited while waiting for ${what}:\n${proc.tail}`);
    }
    try {
      const v = await probe();
      if (v) return v;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export const median = (values) => percentile(values, 50);

/** Sums `name_bucket` samples over every label set but `le`: Map(le → cumulative count). */
export function histogramBuckets(text, name) {
  const buckets = new Map();
  const prefix = `${name}_bucket{`;
  for (const line of text.split('\n')) {
    if (!line.startsWith(prefix)) continue;
    const le = /le="([^"]+)"/.exec(line)?.[1];
    if (le === undefined) continue;
    const bound = le === '+Inf' ? Infinity : Number(le);
    buckets.set(bound, (buckets.get(bound) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return buckets.size > 0 ? buckets : undefined;
}

/** Counts per bucket between two readings of histogramBuckets. */
export function bucketDelta(after, before) {
  const d = new Map();
  for (const [le, n] of after) d.set(le, n - (before?.get(le) ?? 0));
  return d;
}

/** histogram_quantile as Prometheus computes it (linear inside the bucket). */
export function histogramQuantile(q, buckets) {
  const bounds = [...buckets.keys()].sort((a, b) => a - b);
  const total = buckets.get(Infinity) ?? 0;
  if (total === 0) return NaN;
  const rank = q * total;
  let prevBound = 0;
  let prevCount = 0;
  for (const b of bounds) {
    const count = buckets.get(b);
    if (count >= rank) {
      if (b === Infinity) return prevBound;
      return prevBound + ((b - prevBound) * (rank - prevCount)) / Math.max(1, count - prevCount);
    }
    prevBound = b;
    prevCount = count;
  }
  return prevBound;
}

/** Sum of every sample of a family (any labels) in Prometheus text. */
export function sumSamples(text, name) {
  let total = 0;
  let found = false;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) {
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
      found = true;
    }
  }
  return found ? total : undefined;
}

/** Samples of a family by the value of one label. */
export function samplesByLabel(text, name, label) {
  const out = new Map();
  const re = new RegExp(`${label}="([^"]*)"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const v = re.exec(line)?.[1];
    if (v !== undefined) out.set(v, (out.get(v) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return out;
}
