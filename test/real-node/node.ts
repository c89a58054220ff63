// Starts and stops AvalancheGo nodes on 127.0.0.1 (profiles: a ready single node, a genesis
// validator that never bootstraps, and one genesis validator of a five-node network; see
// network.ts), always by PID.
import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/net.js';
import { TOOLS_MODULE_DIR, ensureAvalancheGo, log } from './build.js';
import { httpRequest } from './http.js';
import { waitFor } from './wait.js';

export interface RealNode {
  /** Base URL of the node's HTTP API, e.g. `http://127.0.0.1:41234`. */
  url: string;
  pid: number;
  /** The pinned AvalancheGo version, e.g. `v1.14.2`. */
  version: string;
  profile: NodeProfile;
  /** The `NodeID-…` the node reports in its `node-id` header. */
  nodeId: string;
  /** The flags the node was started with (recorded next to the fixtures). */
  flags: string[];
  dataDir: string;
  logFile: string;
  /** The staking (peer-to-peer) port on 127.0.0.1. */
  stakingPort: number;
  /** The options it was started with, its ports included: what a restart as the same node reuses. */
  options: StartOptions & { ports: { http: number; staking: number } };
  /** Last lines of the node's output, for failure messages. */
  logTail(lines?: number): Promise<string>;
  /** SIGTERM, then SIGKILL after a deadline; removes the data directory. Idempotent. */
  stop(): Promise<void>;
}

/**
 * - `single-node`: a one-node network that is ready, healthy and accepts C-Chain transactions.
 * - `bootstrapping-validator`: the local genesis validator staker1 alone, with sybil protection on.
 *   The other four genesis validators never connect (20% of the stake, 80% needed), so the node
 *   never bootstraps: readiness 503, chains `consensus: {}`, chain, `bootstrapped` and `network`
 *   checks failing. A real unhealthy node, for the failure paths.
 * - `local-validator`: genesis validator staker<N> (StartOptions.staker) of the five-node local
 *   network started by network.ts, sybil protection on, bootstrapping from the nodes started
 *   before it (StartOptions.bootstrap).
 * - `local-non-validator`: a node of that network with an ephemeral key (a node ID no validator
 *   has), sybil protection on: what a validator looks like after its node ID changed.
 */
export type NodeProfile = 'single-node' | 'bootstrapping-validator' | 'local-validator' | 'local-non-validator';

/** A node to bootstrap from: its staking address and node ID. */
export interface Bootstrapper {
  ip: string;
  nodeId: string;
}

export interface StartOptions {
  profile?: NodeProfile;
  /** The Go module pinning the release to run (default tools/avalanchego; see legacyModuleDir). */
  moduleDir?: string;
  /** How long to wait for the node to be ready (or, bootstrapping, for its checks to have run). */
  readinessTimeoutMs?: number;
  /** Extra flags appended after the defaults. */
  extraFlags?: string[];
  /**
   * Called on every readiness poll once the HTTP server answers (before the node is ready), to
   * observe the startup states: checks `not yet run`, chains bootstrapping.
   */
  onStartupPoll?: (url: string) => Promise<void>;
  /** `local-validator`: which genesis staker (1..5) the node runs as. */
  staker?: number;
  /** `local-*`: the nodes to bootstrap from (none for the network's first node). */
  bootstrap?: Bootstrapper[];
  /**
   * `ready` (default for single-node): wait for readiness 200; `answering`: return as soon as the
   * HTTP server answers (a validator of a network whose other nodes are not up yet).
   */
  waitUntil?: 'ready' | 'answering';
  /**
   * The HTTP and staking ports (default: free ones): a node restarted on its ports keeps its URL
   * and its peers' address for it (the fault drills, drills.ts).
   */
  ports?: { http: number; staking: number };
  /** The data directory (default a new one under the system's temporary directory); removed by stop(). */
  dataDir?: string;
}

/** Health checks refresh at this period; tests wait on it, so keep it short. */
export const HEALTH_CHECK_FREQUENCY = '2s';

/** A TCP port on 127.0.0.1 for a node: see test/helpers/net.ts. */
export { freePort };

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
export function nodeFlags(dataDir: string, httpPort: number, stakingPort: number, profile: NodeProfile = 'single-node', staker = 1): string[] {
  const fdLimit = hardFileLimit();
  const ephemeral = ['--staking-ephemeral-cert-enabled=true', '--staking-ephemeral-signer-enabled=true'];
  const identity =
    profile === 'single-node'
      ? ['--sybil-protection-enabled=false', ...ephemeral]
      : profile === 'local-non-validator'
        ? ephemeral
        : stakerIdentityFlags(staker);
  return [
    ...(fdLimit !== undefined && fdLimit < DEFAULT_FD_LIMIT ? [`--fd-limit=${fdLimit}`] : []),
    '--network-id=local',
    ...identity,
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

/** The TLS certificate, key and BLS signer key of local genesis validator staker<N> (1..5). */
function stakerIdentityFlags(staker: number): string[] {
  if (!Number.isInteger(staker) || staker < 1 || staker > 5) {
    throw new Error(`staker ${staker}: the local network has genesis stakers 1..5`);
  }
  const dir = localStakingKeysDir();
  return [
    `--staking-tls-cert-file=${join(dir, `staker${staker}.crt`)}`,
    `--staking-tls-key-file=${join(dir, `staker${staker}.key`)}`,
    `--staking-signer-key-file=${join(dir, `signer${staker}.key`)}`,
  ];
}

/** `--bootstrap-ips`/`--bootstrap-ids` for a node of the local network (none for its first node). */
function bootstrapFlags(bootstrap: Bootstrapper[] | undefined): string[] {
  if (!bootstrap || bootstrap.length === 0) return [];
  return [`--bootstrap-ips=${bootstrap.map((b) => b.ip).join(',')}`, `--bootstrap-ids=${bootstrap.map((b) => b.nodeId).join(',')}`];
}

let stakingKeysDir: string | undefined;

/**
 * `staking/local/` of the pinned AvalancheGo module in the Go module cache: the published test
 * keys of the local network's five genesis validators (not copied into this repository).
 */
export function localStakingKeysDir(): string {
  if (stakingKeysDir) return stakingKeysDir;
  // stdout and stderr are null when the command could not be started (ENOENT), whatever Node's types say.
  const out: SpawnSyncReturns<string | null> = spawnSync('go', ['list', '-m', '-f', '{{.Dir}}', 'github.com/ava-labs/avalanchego'], {
    cwd: TOOLS_MODULE_DIR,
    encoding: 'utf8',
  });
  const dir = out.stdout?.trim();
  if (out.status !== 0 || !dir) {
    throw new Error(`go list -m github.com/ava-labs/avalanchego failed in ${TOOLS_MODULE_DIR}: ${out.stderr ?? out.error}`);
  }
  stakingKeysDir = join(dir, 'staking', 'local');
  if (!existsSync(join(stakingKeysDir, 'staker1.crt'))) throw new Error(`no staker1.crt in ${stakingKeysDir}`);
  return stakingKeysDir;
}

/** The hard RLIMIT_NOFILE of this process (undefined when unlimited or unknown). */
function hardFileLimit(): number | undefined {
  const out: SpawnSyncReturns<string | null> = spawnSync('sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8' });
  const n = Number.parseInt(out.stdout?.trim() ?? '', 10);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * `flags` with `--plugin-dir` pointing at a folder of the node's own whose plugins are scripts that run the real ones
 * with TMPDIR set to `tmp`: AvalancheGo starts a plugin with an environment of its own (the engine's address, and of
 * its own only GRPC_* and GODEBUG: vms/rpcchainvm/runtime/subprocess/runtime.go), so the node's TMPDIR never reaches it.
 */
async function withPluginTmp(flags: string[], dataDir: string, tmp: string): Promise<string[]> {
  const at = flags.findIndex((f) => f.startsWith('--plugin-dir='));
  if (at < 0) return flags;
  const shared = (flags[at] ?? '').slice('--plugin-dir='.length);
  const own = join(dataDir, 'plugins');
  await mkdir(own, { recursive: true });
  const quote = (path: string) => `'${path.replaceAll("'", "'\\''")}'`;
  for (const name of await readdir(shared)) {
    await writeFile(join(own, name), `#!/bin/sh\nTMPDIR=${quote(tmp)} exec ${quote(join(shared, name))} "$@"\n`, { mode: 0o755 });
  }
  return flags.map((f, i) => (i === at ? `--plugin-dir=${own}` : f));
}

/** Live nodes, killed if the test process exits without stopping them. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) if (child.pid !== undefined) signal(child.pid, 'SIGKILL');
});

/**
 * Starts a node; retried with new ports (up to 3 times) when one of the two ports picked was
 * taken by someone else between freePort() and the node's bind.
 */
export async function startRealNode(options: StartOptions = {}): Promise<RealNode> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (err) {
      if (attempt >= 3 || !/address already in use/.test((err as Error).message)) throw err;
      log(`a port was taken before the node could bind it (attempt ${attempt}): retrying with new ports`);
    }
  }
}

async function startOnce(options: StartOptions): Promise<RealNode> {
  const { binary, version } = await ensureAvalancheGo(options.moduleDir);
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'avalanchego-real-node-')));
  await mkdir(dataDir, { recursive: true });
  const logFile = join(dataDir, 'node-output.log');
  const [httpPort, stakingPort] = options.ports ? [options.ports.http, options.ports.staking] : [await freePort(), await freePort()];
  const profile = options.profile ?? 'single-node';
  const flags = [
    ...nodeFlags(dataDir, httpPort, stakingPort, profile, options.staker),
    ...bootstrapFlags(options.bootstrap),
    ...(options.extraFlags ?? []),
  ];
  const url = `http://127.0.0.1:${httpPort}`;
  const waitUntil = options.waitUntil ?? (profile === 'single-node' ? 'ready' : 'answering');

  log(`starting AvalancheGo ${version}: ${binary} ${flags.join(' ')}`);
  const output = createWriteStream(logFile);
  // The node's temporary files (coreth's and subnet-evm's keystore folders, which they leave behind) in its data
  // folder, removed with it, not in the machine's /tmp.
  const nodeTmp = join(dataDir, 'tmp');
  await mkdir(nodeTmp, { recursive: true });
  const spawnFlags = await withPluginTmp(flags, dataDir, nodeTmp);
  const child = spawn(binary, spawnFlags, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TMPDIR: nodeTmp } });
  child.stdout.pipe(output, { end: false });
  child.stderr.pipe(output, { end: false });
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
        signal(pid, 'SIGTERM');
        const gone = await Promise.race([exited.then(() => true), delay(30_000).then(() => false)]);
        if (!gone) {
          log(`node pid ${pid} still running after 30s: SIGKILL`);
          signal(pid, 'SIGKILL');
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
        if (profile.startsWith('local-') && waitUntil === 'answering') {
          const res = await httpRequest(url, { method: 'GET', path: '/ext/health/liveness' }).catch(() => undefined);
          nodeId = res?.headers['node-id'] ?? '';
          return res !== undefined && nodeId !== '';
        }
        if (profile === 'bootstrapping-validator') {
          // Never ready: wait until every check, the chains' included, has run at least once.
          const res = await httpRequest(url, { method: 'GET', path: '/ext/health' }).catch(() => undefined);
          if (!res) return false;
          nodeId = res.headers['node-id'] ?? '';
          const checks = (JSON.parse(res.body) as { checks: Record<string, { error?: string }> }).checks;
          return ['C', 'P', 'X'].every((c) => c in checks) && Object.values(checks).every((c) => c.error !== 'not yet run');
        }
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
        what:
          profile === 'bootstrapping-validator'
            ? `every health check of ${url} to have run`
            : waitUntil === 'ready'
              ? `readiness of ${url}`
              : `${url} to answer`,
      },
    );
    const state = profile === 'bootstrapping-validator' || waitUntil === 'answering' ? 'answering' : 'ready';
    log(`node ${nodeId} (${profile}${options.staker ? ` staker${options.staker}` : ''}) ${state} at ${url} (pid ${pid})`);
    const started = { ...options, ports: { http: httpPort, staking: stakingPort } };
    return { url, pid, version, profile, nodeId, flags, dataDir, logFile, logTail, stop, stakingPort, options: started };
  } catch (err) {
    const tail = await logTail(60);
    await stop();
    throw new Error(`${(err as Error).message}\n--- last lines of ${logFile} ---\n${tail}`, { cause: err });
  }
}

/** The node flags without the per-run directory, ports and module cache path (for recordings). */
export function portableFlags(node: RealNode): string[] {
  return node.flags.map((flag) =>
    flag
      .replace(node.dataDir, '<tmp>')
      .replace(/=.*\/staking\/local\//, '=<avalanchego module dir>/staking/local/')
      .replace(/^--(http|staking)-port=\d+$/, '--$1-port=<free port>')
      .replace(/^--bootstrap-ips=.*$/, '--bootstrap-ips=127.0.0.1:<staker1 staking port>')
      .replace(/^--fd-limit=\d+$/, '--fd-limit=<hard limit when below 32768>'),
  );
}

/** Signals a process that may have exited meanwhile (ESRCH is not an error here). */
export function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
