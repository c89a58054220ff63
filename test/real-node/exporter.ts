// Runs the built exporter (dist/main.js) as a child process and reads its /metrics.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, log } from './build.js';
import { httpRequest } from './http.js';
import { freePort, signal } from './node.js';
import { waitFor } from './wait.js';

export const EXPORTER_MAIN = join(REPO_ROOT, 'dist', 'main.js');

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text format (enough of it for assertions: no exemplars). */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/.exec(line);
    if (!match) throw new Error(`unparseable metrics line: ${line}`);
    const labels: Record<string, string> = {};
    const labelText = match[2] ?? '';
    for (const m of labelText.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[m[1] as string] = (m[2] as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    const raw = match[3] as string;
    const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw);
    samples.push({ name: match[1] as string, labels, value });
  }
  return samples;
}

export function select(samples: Sample[], name: string, labels: Record<string, string> = {}): Sample[] {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

export interface RunningExporter {
  url: string;
  pid: number;
  metrics(): Promise<Sample[]>;
  output(): string;
  stop(): Promise<void>;
}

export async function startExporter(config: string): Promise<RunningExporter> {
  if (!existsSync(EXPORTER_MAIN)) throw new Error(`${EXPORTER_MAIN} is missing: run npm run build`);
  const dir = await mkdtemp(join(tmpdir(), 'avalanchego-exporter-real-'));
  const configFile = join(dir, 'config.yaml');
  await writeFile(configFile, config);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const args = [EXPORTER_MAIN, `--config.file=${configFile}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=debug'];
  log(`starting exporter: node ${args.join(' ')}`);
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  if (child.pid === undefined) throw new Error('could not start the exporter');
  const pid = child.pid;
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  process.once('exit', () => {
    if (!exited) signal(pid, 'SIGKILL');
  });

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (!exited) {
        signal(pid, 'SIGTERM');
        const gone = await Promise.race([exit.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 10_000).unref())]);
        if (!gone) {
          signal(pid, 'SIGKILL');
          await exit;
        }
      }
      await rm(dir, { recursive: true, force: true });
    })();
    return stopping;
  };

  const metrics = async (): Promise<Sample[]> => {
    const res = await httpRequest(url, { method: 'GET', path: '/metrics' });
    if (res.status !== 200) throw new Error(`/metrics: HTTP ${res.status}: ${res.body}`);
    return parseMetrics(res.body);
  };

  try {
    await waitFor(
      async () => {
        if (exited) throw new Error(`exporter exited early:\n${output}`);
        return (await httpRequest(url, { method: 'GET', path: '/metrics' }).catch(() => undefined))?.status === 200;
      },
      { timeoutMs: 20_000, intervalMs: 100, what: `exporter /metrics at ${url}` },
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, pid, metrics, output: () => output, stop };
}
