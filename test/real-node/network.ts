// A five-node AvalancheGo local network on 127.0.0.1: the local genesis validators staker1..5
// (keys from the pinned module's staking/local/), sybil protection on, so that every node is a
// real primary-network validator with an uptime, an end time, a BLS signer and connected peers.
import { log } from './build.js';
import { httpRequest, rpcCall } from './http.js';
import { signal, startRealNode, type Bootstrapper, type RealNode, type StartOptions } from './node.js';
import { waitFor } from './wait.js';

export interface LocalNetwork {
  /**
   * staker1..5 in order; nodes[0] is staker1. A staker started again (startStaker) replaces its
   * entry; a stopped one keeps it until then (its `pid` is gone).
   */
  nodes: RealNode[];
  /** A sixth node with an ephemeral key, in the network but in no validator set. */
  nonValidator: RealNode;
  /** Seconds from the first spawn until every node was ready. */
  startSeconds: number;
  /** The current node of genesis staker `n` (1..5). */
  staker(n: number): RealNode;
  /**
   * Stops staker `n`: SIGTERM and wait (`term`, the default), or SIGKILL (`kill`), as a crashed
   * validator. Its data directory goes with it (the network runs on in-memory databases).
   */
  stopStaker(n: number, how?: 'term' | 'kill'): Promise<void>;
  /**
   * Starts staker `n` again on its ports, with the flags it had plus `extraFlags` (a flag given
   * again replaces the old one), bootstrapping from the other live stakers, and waits until its
   * P, X and C chains have bootstrapped. A running staker is stopped first (a restart).
   */
  startStaker(n: number, extraFlags?: string[]): Promise<RealNode>;
  /** Stops every node by PID (in parallel); idempotent. */
  stop(): Promise<void>;
}

export const LOCAL_NETWORK_SIZE = 5;

/**
 * Flags that keep five nodes light on a 2-core machine: an in-memory database (nothing on
 * disk, nothing to compact; the network lives only as long as the test), file logs at warn
 * (the node's own output, at info, still goes to node-output.log), and the index and admin
 * APIs only on staker1, the node the tests ask.
 */
const LIGHT_FLAGS = ['--db-type=memdb', '--log-level=warn'];
/**
 * Peers report their view of a validator's uptime in their pings (info.uptime is built from
 * those reports); every 2 s instead of the default 22.5 s, so the network's view is complete
 * within seconds.
 */
const FAST_UPTIME_FLAGS = ['--network-ping-frequency=2s'];
const NOT_QUERIED_FLAGS = ['--index-enabled=false', '--api-admin-enabled=false'];

/**
 * How a node of the local network starts: genesis validator staker<N> (undefined: a node with an
 * ephemeral key), with the light flags and `extraFlags`; the fault drills restart nodes with it.
 */
export function localNodeOptions(staker: number | undefined, extraFlags: string[] = []): StartOptions {
  return {
    profile: staker === undefined ? 'local-non-validator' : 'local-validator',
    ...(staker === undefined ? {} : { staker }),
    extraFlags: [...LIGHT_FLAGS, ...FAST_UPTIME_FLAGS, ...(staker === 1 ? [] : NOT_QUERIED_FLAGS), ...extraFlags],
    waitUntil: 'answering',
  };
}

/**
 * Starts staker1, then staker2..5 and a non-validator bootstrapping from staker1 (they find each
 * other through staker1's peer list), and waits until every node reports ready: the primary
 * network has bootstrapped with 100 % of the stake connected.
 */
export async function startLocalNetwork(
  options: Pick<StartOptions, 'moduleDir' | 'extraFlags'> & { readinessTimeoutMs?: number } = {},
): Promise<LocalNetwork> {
  const started = Date.now();
  const all: RealNode[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(all.map((n) => n.stop()));
  };
  const common = (staker: number | undefined): StartOptions => ({
    ...localNodeOptions(staker, options.extraFlags),
    ...(options.moduleDir ? { moduleDir: options.moduleDir } : {}),
  });
  try {
    const first = await startRealNode(common(1));
    all.push(first);
    const bootstrap: Bootstrapper[] = [{ ip: `127.0.0.1:${first.stakingPort}`, nodeId: first.nodeId }];
    const rest = await Promise.allSettled([2, 3, 4, 5, undefined].map((staker) => startRealNode({ ...common(staker), bootstrap })));
    for (const r of rest) if (r.status === 'fulfilled') all.push(r.value);
    const failed = rest.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    await waitFor(
      async () => {
        const ready = await Promise.all(
          all.map(async (n) => (await httpRequest(n.url, { method: 'GET', path: '/ext/health/readiness' }).catch(() => undefined))?.status === 200),
        );
        return ready.every(Boolean);
      },
      {
        timeoutMs: options.readinessTimeoutMs ?? 300_000,
        intervalMs: 500,
        what: `readiness of all ${LOCAL_NETWORK_SIZE} local-network nodes`,
      },
    );
  } catch (err) {
    const tails = await Promise.all(all.map(async (n) => `--- ${n.nodeId} (${n.url}) ---\n${await n.logTail(15)}`));
    await stop();
    throw new Error(`${(err as Error).message}\n${tails.join('\n')}`, { cause: err });
  }
  const nonValidator = all.find((n) => n.profile === 'local-non-validator');
  if (!nonValidator) throw new Error('the non-validator did not start');
  const nodes = all.filter((n) => n !== nonValidator).sort((a, b) => stakerOf(a) - stakerOf(b));
  const startSeconds = Math.round((Date.now() - started) / 100) / 10;
  log(`local network of ${nodes.length} validators and a non-validator ready in ${startSeconds}s: ${all.map((n) => n.url).join(' ')}`);

  const stopped = new Set<RealNode>();
  const staker = (n: number): RealNode => {
    const node = nodes[n - 1];
    if (!node) throw new Error(`staker${n}: the local network has stakers 1..${LOCAL_NETWORK_SIZE}`);
    return node;
  };
  const stopStaker = async (n: number, how: 'term' | 'kill' = 'term'): Promise<void> => {
    const node = staker(n);
    if (how === 'kill') signal(node.pid, 'SIGKILL');
    await node.stop();
    stopped.add(node);
  };
  const startStaker = async (n: number, extraFlags: string[] = []): Promise<RealNode> => {
    const old = staker(n);
    if (!stopped.has(old)) await stopStaker(n);
    const from = nodes.filter((x) => x !== old && !stopped.has(x));
    if (from.length === 0) throw new Error(`staker${n}: no live staker to bootstrap from`);
    const node = await startRealNode({
      ...old.options,
      extraFlags: mergeFlags(old.options.extraFlags ?? [], extraFlags),
      bootstrap: from.map((x) => ({ ip: `127.0.0.1:${x.stakingPort}`, nodeId: x.nodeId })),
    });
    all.push(node);
    nodes[n - 1] = node;
    await waitPrimaryBootstrapped(node);
    return node;
  };
  return { nodes, nonValidator, startSeconds, staker, stopStaker, startStaker, stop };
}

/** `base` with `extra` appended; a flag of `extra` replaces the same flag (`--name=`) in `base`. */
export function mergeFlags(base: readonly string[], extra: readonly string[]): string[] {
  const name = (flag: string): string => flag.split('=')[0] ?? flag;
  const replaced = new Set(extra.map(name));
  return [...base.filter((f) => !replaced.has(name(f))), ...extra];
}

/**
 * Waits until the node's primary network chains (P, X, C) have bootstrapped. Not readiness: a
 * node that tracks an L1 is not ready until the L1's chain has bootstrapped too, which needs
 * that chain's validators (each started in turn, when stakers are restarted one by one).
 */
export async function waitPrimaryBootstrapped(node: RealNode, timeoutMs = 120_000): Promise<void> {
  await waitFor(
    async () => {
      for (const chain of ['P', 'X', 'C']) {
        const r = await rpcCall<{ isBootstrapped: boolean }>(node.url, '/ext/info', 'info.isBootstrapped', { chain }).catch(() => undefined);
        if (!r?.isBootstrapped) return false;
      }
      return true;
    },
    { timeoutMs, intervalMs: 250, what: `the P, X and C chains of ${node.url} to bootstrap` },
  );
}

/** The staker number from the node's flags (`.../staking/local/staker<N>.crt`). */
export function stakerOf(node: RealNode): number {
  const flag = node.flags.find((f) => f.startsWith('--staking-tls-cert-file='));
  const match = flag ? /staker(\d)\.crt$/.exec(flag) : null;
  if (!match?.[1]) throw new Error(`node ${node.url} is not a local genesis staker`);
  return Number(match[1]);
}
