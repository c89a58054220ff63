// Starts and stops a single-node AvalancheGo local network on 127.0.0.1.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureAvalancheGo, log } from './build.js';
import { httpRequest } from './http.js';
import { waitFor } from './wait.js';

export interface RealNode {
  /** Base URL of the node's HTTP API, e.g. `http://127.0.0.1:41234`. */
  url: string;
  pid: number;
  /** The pinned AvalancheGo version, e.g. `v1.14.2`. */
  version: string;
  /** The `NodeID-…` the node reports in its `node-id` header. */
  nodeId: string;
  /** The flags the node was started with (recorded next to the fixtures). */
  flags: string[];
  dataDir: string;
  logFile: string;
  /** Last lines of the node's output, for failure messages. */
  logTail(lines?: number): Promise<string>;
  /** SIGTERM, then SIGKILL after a deadline; removes the data directory. Idempotent. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** How long to wait for `/ext/health/readiness` to answer 200. */
  readinessTimeoutMs?: number;
  /** Extra flags appended after the defaults. */
  extraFlags?: string[];
  /**
   * Called on every readiness poll once the HTTP server answers (before the node is ready), to
   * observe the startup states: checks `not yet run`, chains bootstrapping.
   */
  onStartupPoll?: (url: string) => Promise<void>;
}

/** Health checks refresh at this period; tests wait on it, so keep it short. */
export const HEALTH_CHECK_FREQUENCY = '2s';

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('no port assigned'));
      });
    });
  });
}

/**
 * The flags for a one-node local network:
 * - `--network-id=local --sybil-protection-enabled=false`: the node counts itself as the whole
 *   primary-network validator set, needs no bootstrappers (the local network has none) and accepts
 *   blocks alone. With sybil protection off the `network` check's thresholds are not enforced.
 * - ephemeral TLS certificate and BLS signer: no key files; a new NodeID per run.
 * - `--public-ip=127.0.0.1`: no public-IP resolution or NAT traversal attempts.
 * - `--fd-limit`: the node raises its soft limit to 32768 by default and exits with
 *   `error fd-limit: (32768) greater than max: (N)` when the hard limit is lower (as in containers).
 */
export function nodeFlags(dataDir: string, httpPort: number, stakingPort: number): string[] {
  const fdLimit = hardFileLimit();
  return [
    ...(fdLimit !== undefined && fdLimit < DEFAULT_FD_LIMIT ? [`--fd-limit=${fdLimit}`] : []),
    '--network-id=local',
    '--sybil-protection-enabled=false',
    '--staking-ephemeral-cert-enabled=true',
    '--staking-ephemeral-signer-enabled=true',
    `--data-dir=${dataDir}`,
    '--http-host=127.0.0.1',
    `--http-port=${httpPort}`,
    `--staking-host=127.0.0.1`,
    `--staking-port=${stakingPort}`,
    '--public-ip=127.0.0.1',
    '--index-enabled=true',
    '--api-admin-enabled=true',
    `--health-check-frequency=${HEALTH_CHECK_FREQUENCY}`,
    '--log-level=info',
    '--log-display-level=info',
  ];
}

const DEFAULT_FD_LIMIT = 32768;

/** The hard RLIMIT_NOFILE of this process (undefined when unlimited or unknown). */
function hardFileLimit(): number | undefined {
  const out = spawnSync('sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8' });
  const n = Number.parseInt(out.stdout?.trim() ?? '', 10);
  return Number.isFinite(n) ? n : undefined;
}

/** Live nodes, killed if the test process exits without stopping them. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
});

export async function startRealNode(options: StartOptions = {}): Promise<RealNode> {
  const { binary, version } = await ensureAvalancheGo();
  const dataDir = await mkdtemp(join(tmpdir(), 'avalanchego-real-node-'));
  const logFile = join(dataDir, 'node-output.log');
  const [httpPort, stakingPort] = [await freePort(), await freePort()];
  const flags = [...nodeFlags(dataDir, httpPort, stakingPort), ...(options.extraFlags ?? [])];
  const url = `http://127.0.0.1:${httpPort}`;

  log(`starting AvalancheGo ${version}: ${binary} ${flags.join(' ')}`);
  const output = createWriteStream(logFile);
  const child = spawn(binary, flags, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.pipe(output, { end: false });
  child.stderr?.pipe(output, { end: false });
  if (child.pid === undefined) {
    await new Promise((resolve) => child.once('error', resolve));
    throw new Error(`could not start ${binary}`);
  }
  const pid = child.pid;
  running.add(child);

  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      running.delete(child);
      resolve();
    });
  });

  const logTail = async (lines = 40): Promise<string> => {
    const text = await readFile(logFile, 'utf8').catch(() => '');
    return text.split('\n').slice(-lines).join('\n');
  };

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      if (!exit) {
        log(`stopping node pid ${pid} (SIGTERM)`);
        process.kill(pid, 'SIGTERM');
        const gone = await Promise.race([exited.then(() => true), delay(30_000).then(() => false)]);
        if (!gone) {
          log(`node pid ${pid} still running after 30s: SIGKILL`);
          process.kill(pid, 'SIGKILL');
          await exited;
        }
      }
      output.end();
      await rm(dataDir, { recursive: true, force: true });
      log(`node pid ${pid} stopped (${exit?.signal ?? `code ${exit?.code}`}); removed ${dataDir}`);
    })();
    return stopped;
  };

  try {
    let nodeId = '';
    await waitFor(
      async () => {
        if (exit) throw new Error(`node exited early (code ${exit.code}, signal ${exit.signal})`);
        const res = await httpRequest(url, { method: 'GET', path: '/ext/health/readiness' }).catch(() => undefined);
        if (res?.status === 200) {
          nodeId = res.headers['node-id'] ?? '';
          return true;
        }
        if (res && options.onStartupPoll) await options.onStartupPoll(url);
        return false;
      },
      {
        timeoutMs: options.readinessTimeoutMs ?? 180_000,
        intervalMs: options.onStartupPoll ? 20 : 250,
        what: `readiness of ${url}`,
      },
    );
    log(`node ${nodeId} ready at ${url} (pid ${pid})`);
    return { url, pid, version, nodeId, flags, dataDir, logFile, logTail, stop };
  } catch (err) {
    const tail = await logTail(60);
    await stop();
    throw new Error(`${(err as Error).message}\n--- last lines of ${logFile} ---\n${tail}`);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
