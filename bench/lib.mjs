// Helpers of the fleet benchmark: child processes stopped by PID, CPU and RSS
// read from /proc, waiting with deadlines, Prometheus text parsing; for the soak, descriptors and sockets
// from /proc, a line fit and duration flags.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export { sleep };

export const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/**
 * Builds dist/ when a file under src/ is newer than dist/main.js (the benchmarks run the built exporter).
 * @param {(message: string) => void} log
 */
export function ensureBuilt(log) {
  /**
   * The newest modification time under a directory.
   * @param {string} d
   * @returns {number}
   */
  const newest = (d) => {
    let t = 0;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
    }
    return t;
  };
  let built = 0;
  try {
    built = statSync('dist/main.js').mtimeMs;
  } catch {
    // not built
  }
  if (newest('src') > built) {
    log('building dist/ (a source file is newer) …');
    const r = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error('npm run build failed');
  }
}

/**
 * An ephemeral loopback port (closed again before it is handed out).
 * @returns {Promise<number>}
 */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      if (address === null || typeof address === 'string') {
        s.close(() => reject(new Error(`a TCP listener has no port: ${String(address)}`)));
        return;
      }
      s.close(() => resolve(address.port));
    });
  });
}

/**
 * A process of the run.
 * @typedef {object} Proc
 * @property {string} name what it is, in messages
 * @property {import('node:child_process').ChildProcessByStdio<null, import('node:stream').Readable, import('node:stream').Readable>} child
 * @property {number} pid
 * @property {string} tail the last 4,000 characters of its stdout and stderr
 * @property {boolean} stopping whether its exit is expected (not reported as early)
 */

/** The processes a run starts: each kept with the tail of its output, stopped by PID. */
export class Procs {
  /** @type {Proc[]} */
  list = [];

  /**
   * Starts `cmd` with stdout and stderr kept in the tail; throws when it could not be started.
   * @param {string} name
   * @param {string} cmd
   * @param {readonly string[]} args
   * @param {Omit<import('node:child_process').SpawnOptions, 'stdio'>} [options]
   * @returns {Proc}
   */
  start(name, cmd, args, options = {}) {
    const child = spawn(cmd, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid === undefined) throw new Error(`${name}: ${cmd} could not be started`);
    /** @type {Proc} */
    const p = { name, child, pid: child.pid, tail: '', stopping: false };
    /** @param {Buffer} b */
    const keep = (b) => (p.tail = (p.tail + b.toString()).slice(-4000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('exit', (code, signal) => {
      if (!p.stopping) console.error(`${name} (pid ${child.pid}) exited early (${code ?? signal}):\n${p.tail.split('\n').slice(-8).join('\n')}`);
    });
    this.list.push(p);
    return p;
  }

  /**
   * Runs a process to its end (bounded by `timeoutMs`); resolves with its stdout.
   * @param {string} name
   * @param {string} cmd
   * @param {readonly string[]} args
   * @param {number} timeoutMs
   * @returns {Promise<string>}
   */
  async run(name, cmd, args, timeoutMs) {
    const p = this.start(name, cmd, args);
    p.stopping = true;
    let out = '';
    p.child.stdout.on('data', (/** @type {Buffer} */ d) => (out += d.toString()));
    const timer = setTimeout(() => process.kill(p.pid, 'SIGKILL'), timeoutMs);
    /** @type {number | NodeJS.Signals | null} */
    const code = await new Promise((resolve) => p.child.once('exit', (c, sig) => resolve(c ?? sig)));
    clearTimeout(timer);
    this.list = this.list.filter((q) => q !== p);
    if (code !== 0) throw new Error(`${name} exited with ${String(code)}:\n${p.tail}`);
    return out;
  }

  /**
   * SIGTERM, then SIGKILL after `killAfterMs`; resolves when the process has exited.
   * @param {Proc} p
   * @param {number} [killAfterMs]
   */
  async stop(p, killAfterMs = 15_000) {
    p.stopping = true;
    const { child, pid } = p;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(pid, 'SIGTERM');
    const timer = setTimeout(() => {
      if (child.exitCode === null && child.signalCode === null) process.kill(pid, 'SIGKILL');
    }, killAfterMs);
    await exited;
    clearTimeout(timer);
    this.list = this.list.filter((q) => q !== p);
  }

  async stopAll() {
    for (const p of [...this.list].reverse()) await this.stop(p);
  }
}

/**
 * CPU seconds (user + system) a process has used, from /proc/<pid>/stat.
 * @param {number} pid
 */
export function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/**
 * Resident set size in bytes, from /proc/<pid>/status.
 * @param {number} pid
 */
export function rssBytes(pid) {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

/**
 * Polls `probe` until it returns a truthy value; throws after `timeoutMs`, or when `proc` has exited.
 * @template T
 * @param {() => Promise<T>} probe
 * @param {string} what what is waited for, in the error
 * @param {number} timeoutMs
 * @param {Proc} [proc]
 * @returns {Promise<T>}
 */
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

/**
 * The nearest-rank `p`th percentile of `values`; NaN when there are none.
 * @param {readonly number[]} values
 * @param {number} p 0 to 100
 * @returns {number}
 */
export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

/** @param {readonly number[]} values */
export const median = (values) => percentile(values, 50);

/**
 * Sums `name_bucket` samples over every label set but `le`: Map(le → cumulative count).
 * @param {string} text Prometheus text
 * @param {string} name the histogram
 * @returns {Map<number, number> | undefined} undefined when the text has no bucket of it
 */
export function histogramBuckets(text, name) {
  /** @type {Map<number, number>} */
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

/**
 * Counts per bucket between two readings of histogramBuckets.
 * @param {ReadonlyMap<number, number>} after
 * @param {ReadonlyMap<number, number> | undefined} before
 * @returns {Map<number, number>}
 */
export function bucketDelta(after, before) {
  /** @type {Map<number, number>} */
  const d = new Map();
  for (const [le, n] of after) d.set(le, n - (before?.get(le) ?? 0));
  return d;
}

/**
 * histogram_quantile as Prometheus computes it (linear inside the bucket).
 * @param {number} q 0 to 1
 * @param {ReadonlyMap<number, number>} buckets upper bound → cumulative count
 */
export function histogramQuantile(q, buckets) {
  const byBound = [...buckets].sort(([a], [b]) => a - b);
  const total = buckets.get(Infinity) ?? 0;
  if (total === 0) return NaN;
  const rank = q * total;
  let prevBound = 0;
  let prevCount = 0;
  for (const [b, count] of byBound) {
    if (count >= rank) {
      if (b === Infinity) return prevBound;
      return prevBound + ((b - prevBound) * (rank - prevCount)) / Math.max(1, count - prevCount);
    }
    prevBound = b;
    prevCount = count;
  }
  return prevBound;
}

/**
 * Sum of every sample of a family (any labels) in Prometheus text.
 * @param {string} text
 * @param {string} name
 * @returns {number | undefined} undefined when the text has no sample of it
 */
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

/**
 * Samples of a family by the value of one label.
 * @param {string} text
 * @param {string} name
 * @param {string} label
 * @returns {Map<string, number>}
 */
export function samplesByLabel(text, name, label) {
  /** @type {Map<string, number>} */
  const out = new Map();
  const re = new RegExp(`${label}="([^"]*)"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const v = re.exec(line)?.[1];
    if (v !== undefined) out.set(v, (out.get(v) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return out;
}

/**
 * The number fields of a JSON object printed by a tool (floor.mjs, wrk's paced.lua).
 * @param {string} line the JSON text
 * @param {string} what the tool, in errors
 * @returns {(key: string) => number} the field `key`; throws when it is not a number
 */
export function jsonNumbers(line, what) {
  /** @type {unknown} */
  const v = JSON.parse(line);
  if (typeof v !== 'object' || v === null) throw new Error(`${what} printed no JSON object: ${line}`);
  return (key) => {
    /** @type {unknown} */
    const x = Reflect.get(v, key);
    if (typeof x !== 'number') throw new Error(`${what} printed no number ${key}: ${line}`);
    return x;
  };
}

/**
 * The process's descriptors in one pass, each classed: TCP sockets to one of `remotePorts` (`remote`), TCP sockets on
 * one of `localPorts` (`local`: its listening socket and the connections it accepted), and the rest (`other`, by
 * kind: `pipe`, `anon_inode:[eventpoll]`, `file`, `socket` for one that is not a TCP socket of those ports or was
 * closed between the listing and the read of the connection table).
 * @param {number} pid
 * @param {ReadonlySet<number>} remotePorts
 * @param {ReadonlySet<number>} localPorts
 */
export function fdsByKind(pid, remotePorts, localPorts) {
  /** @type {Map<string, string>} inode → 'remote' | 'local' */
  const tcp = new Map();
  /** @type {string[]} */
  const links = [];
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      links.push(readlinkSync(`/proc/${pid}/fd/${fd}`));
    } catch {
      // closed between the listing and the read
    }
  }
  for (const table of ['tcp', 'tcp6']) {
    let text;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      const [local, remote, inode] = [f[1], f[2], f[9]];
      if (local === undefined || remote === undefined || inode === undefined) continue;
      const port = (/** @type {string} */ end) => parseInt(end.slice(end.lastIndexOf(':') + 1), 16);
      if (remotePorts.has(port(remote))) tcp.set(inode, 'remote');
      else if (localPorts.has(port(local))) tcp.set(inode, 'local');
    }
  }
  let remote = 0;
  let local = 0;
  /** @type {Record<string, number>} */
  const other = {};
  for (const link of links) {
    const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
    const side = inode === undefined ? undefined : tcp.get(inode);
    if (side === 'remote') remote++;
    else if (side === 'local') local++;
    else {
      const kind = inode !== undefined ? 'socket' : link.startsWith('pipe:') ? 'pipe' : link.startsWith('anon_inode:') ? link : 'file';
      other[kind] = (other[kind] ?? 0) + 1;
    }
  }
  return { total: links.length, remote, local, other: Object.values(other).reduce((a, b) => a + b, 0), otherKinds: other };
}

/**
 * Least-squares line through points: its slope and the slope's standard error, its value at the points' mean x, and
 * the residuals' standard deviation.
 * @param {ReadonlyArray<readonly [number, number]>} points [x, y]
 * @returns {{ slope: number, slopeStd: number, mean: number, residualStd: number, n: number }}
 */
export function linearFit(points) {
  return fitGiven(points.map(([x, y]) => [x, y]));
}

/**
 * Least squares of y on x and on what else each point was taken with (its covariates): the slope in x with the
 * covariates held constant, and its standard error. A soak's sample taken while more nodes are flipped holds more; with
 * the state a covariate, the slope is what grows with time alone. No covariate: the plain line (linearFit).
 * @param {ReadonlyArray<readonly number[]>} points [x, y, ...covariates], the same number of covariates in each
 * @returns {{ slope: number, slopeStd: number, mean: number, residualStd: number, n: number }}
 */
export function fitGiven(points) {
  const n = points.length;
  const my = points.reduce((a, p) => a + (p[1] ?? 0), 0) / Math.max(1, n);
  // A covariate with the same value at every point tells nothing and would make the equations singular: left out
  // (a soak's backlog when no sample had one).
  const varies = (points[0] ?? []).map((_, j) => j >= 2 && points.some((p) => p[j] !== points[0]?.[j]));
  const rows = points.map((p) => [1, p[0] ?? 0, ...p.filter((_, j) => varies[j])]);
  const k = rows[0]?.length ?? 2;
  if (n < k) return { slope: NaN, slopeStd: NaN, mean: n === 0 ? NaN : my, residualStd: NaN, n };
  // The normal equations (XᵀX)β = Xᵀy, centred (each column less its mean) for a well-conditioned solve; inverted
  // by Gauss–Jordan with partial pivoting (k is 2 or 3).
  const means = Array.from({ length: k }, (_, j) => (j === 0 ? 0 : rows.reduce((a, r) => a + (r[j] ?? 0), 0) / n));
  const X = rows.map((r) => r.map((v, j) => (j === 0 ? 1 : v - (means[j] ?? 0))));
  const y = points.map((p) => (p[1] ?? 0) - my);
  const m = Array.from({ length: k }, (_, a) => [
    ...Array.from({ length: k }, (_, b) => X.reduce((s, r) => s + (r[a] ?? 0) * (r[b] ?? 0), 0)),
    ...Array.from({ length: k }, (_, b) => (a === b ? 1 : 0)),
  ]);
  for (let c = 0; c < k; c++) {
    let p = c;
    for (let r = c + 1; r < k; r++) if (Math.abs(m[r]?.[c] ?? 0) > Math.abs(m[p]?.[c] ?? 0)) p = r;
    [m[c], m[p]] = [/** @type {number[]} */ (m[p]), /** @type {number[]} */ (m[c])];
    const row = /** @type {number[]} */ (m[c]);
    const pivot = row[c] ?? 0;
    if (Math.abs(pivot) < 1e-12) return { slope: NaN, slopeStd: NaN, mean: my, residualStd: NaN, n };
    for (let j = 0; j < 2 * k; j++) row[j] = (row[j] ?? 0) / pivot;
    for (let r = 0; r < k; r++) {
      const other = /** @type {number[]} */ (m[r]);
      if (r === c) continue;
      const w = other[c] ?? 0;
      for (let j = 0; j < 2 * k; j++) other[j] = (other[j] ?? 0) - w * (row[j] ?? 0);
    }
  }
  const inv = m.map((r) => r.slice(k));
  const xty = Array.from({ length: k }, (_, a) => X.reduce((s, r, i) => s + (r[a] ?? 0) * (y[i] ?? 0), 0));
  const beta = inv.map((r) => r.reduce((s, v, j) => s + v * (xty[j] ?? 0), 0));
  let ss = 0;
  for (let i = 0; i < n; i++) ss += ((y[i] ?? 0) - (X[i] ?? []).reduce((s, v, j) => s + v * (beta[j] ?? 0), 0)) ** 2;
  // n = k: a line through its points, no spread to tell.
  const residualStd = n > k ? Math.sqrt(ss / (n - k)) : NaN;
  return { slope: beta[1] ?? NaN, slopeStd: residualStd * Math.sqrt(inv[1]?.[1] ?? NaN), mean: my, residualStd, n };
}

/**
 * A duration flag: `90s`, `2m`, `1.5m`, `500ms`, or a bare number of `unit`.
 * @param {string} text
 * @param {string} flag the flag's name, in errors
 * @param {'s' | 'm'} unit what a bare number means
 * @returns {number} milliseconds
 */
export function parseDuration(text, flag, unit) {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw new Error(`--${flag}=${text} is not a duration (e.g. 90s, 2m, 500ms)`);
  const scale = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  return Number(m[1]) * scale[/** @type {'ms' | 's' | 'm' | 'h'} */ (m[2] ?? unit)];
}
