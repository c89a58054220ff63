// A real L1 chain on the five-node local network: the L1 that l1.ts converts runs its Subnet-EVM
// chain (the plugin built by build.ts) on the validators that track it. A node runs a subnet's
// chains only if it was started with `--track-subnets` naming it, and the subnet's ID is known
// only once the P-Chain has accepted its CreateSubnetTx: so the validators are restarted one at a
// time with the flag (each re-bootstraps its in-memory primary network from the others in a few
// seconds), and the L1's chain then bootstraps from them.
//
// Consensus on the L1 samples its validator set by weight (snowman's k = 20 votes a poll, a poll
// succeeds with alpha = 15 of them, beta = 20 successful polls in a row finalize a block). An
// inactive validator's weight stays in that set under the empty node ID (platformvm state:
// "inactive ACP-77 validator weights"), which never answers: inactive weight counts as offline
// weight. So the L1 halts once the offline and inactive weight takes the expected votes below
// alpha (more than 1 − 15/20 = 25 % of the weight), and local-network.test.ts shows both sides of it.
import { ensureSubnetEvm, log, type SubnetEvmPlugin } from './build.js';
import type { Hash } from 'viem';
import { blockNumber, receiptBlock, type EvmChain } from './chain.js';
import { rpcCall } from './http.js';
import type { L1Setup } from './l1.js';
import type { LocalNetwork } from './network.js';
import type { RealNode } from './node.js';
import { waitFor } from './wait.js';
import { errorText } from '../helpers/assert.js';

/**
 * The local network's L1: its validators and their weights. staker1 is the validator the tests
 * ask; staker2's balance runs out seconds after the conversion (inactive: its weight stays in the
 * set and never votes); staker3 holds half the weight, so that stopping it alone halts the L1
 * while the primary network (five equal validators) keeps 80 % of its stake; stopping staker4 or
 * staker5 leaves 110 of 610 (18 %) silent with staker2's 10, under the 25 % at which polls stop
 * succeeding. The fault drills can take the same set.
 */
export const LOCAL_L1_VALIDATORS: ReadonlyArray<{ staker: number; weight: bigint }> = [
  { staker: 1, weight: 100n },
  { staker: 2, weight: 10n },
  { staker: 3, weight: 300n },
  { staker: 4, weight: 100n },
  { staker: 5, weight: 100n },
];

/** The flags a node needs to run the chains of `subnetId` with the Subnet-EVM plugin. */
export function trackingFlags(plugin: Pick<SubnetEvmPlugin, 'pluginDir'>, subnetId: string): string[] {
  return [`--plugin-dir=${plugin.pluginDir}`, `--track-subnets=${subnetId}`];
}

export interface RunningL1 {
  setup: L1Setup;
  plugin: SubnetEvmPlugin;
  /** The stakers (1..5) that track the L1 and run its chain. */
  trackers: number[];
  /** Seconds to restart the trackers and bootstrap the chain on all of them. */
  startSeconds: number;
  /** The chain as served by `node`. */
  evm(node: RealNode): EvmChain;
}

/**
 * Restarts `trackers` (staker numbers) one after the other with the tracking flags, then waits
 * until every one of them has bootstrapped the L1's chain and its health check passes.
 */
export async function runL1Chain(network: LocalNetwork, setup: L1Setup, trackers: number[]): Promise<RunningL1> {
  const plugin = await ensureSubnetEvm();
  const started = Date.now();
  for (const n of trackers) {
    const t = Date.now();
    await network.startStaker(n, trackingFlags(plugin, setup.subnetId));
    log(`staker${n} restarted tracking ${setup.subnetId} in ${Math.round((Date.now() - t) / 100) / 10}s`);
  }
  await Promise.all(trackers.map((n) => waitChainRunning(network.staker(n), setup.chainId)));
  const startSeconds = Math.round((Date.now() - started) / 100) / 10;
  log(`L1 chain ${setup.chainId} (${setup.chainName}) running on staker${trackers.join(', staker')} ${startSeconds}s after the first restart`);
  return {
    setup,
    plugin,
    trackers,
    startSeconds,
    evm: (node) => ({ nodeUrl: node.url, chain: setup.chainId, evmChainId: setup.evmChainId }),
  };
}

interface ChainCheck {
  message?: { engine?: { consensus?: { lastAcceptedHeight?: number; processingBlocks?: number } } };
  error?: string;
}

/** The node's health check of the chain (`checks.<chain ID>`): there is no alias for an L1's chain. */
export async function chainCheck(node: RealNode, chainId: string): Promise<ChainCheck | undefined> {
  const report = await rpcCall<{ checks: Record<string, ChainCheck> }>(node.url, '/ext/health', 'health.health');
  return report.checks[chainId];
}

/** Waits until `node` has bootstrapped the chain, its health check passes and its RPC answers. */
export async function waitChainRunning(node: RealNode, chainId: string, timeoutMs = 120_000): Promise<void> {
  await waitFor(
    async () => {
      // `there is no chain with alias/ID …` until the node has created the chain (after the
      // primary network has bootstrapped): not yet, as `false` is.
      const bootstrapped = await rpcCall<{ isBootstrapped: boolean }>(node.url, '/ext/info', 'info.isBootstrapped', { chain: chainId }).catch(
        () => undefined,
      );
      if (!bootstrapped?.isBootstrapped) return false;
      const check = await chainCheck(node, chainId);
      if (!check || check.error !== undefined) return false;
      return (await blockNumber({ nodeUrl: node.url, chain: chainId }).catch(() => undefined)) !== undefined;
    },
    { timeoutMs, intervalMs: 500, what: `the L1 chain ${chainId} to run on ${node.url}` },
  ).catch(async (err: unknown) => {
    throw new Error(`${errorText(err)}\n--- last lines of ${node.logFile} ---\n${await node.logTail(40)}`, { cause: err });
  });
}

/** The L1's weight and the share of it that does not vote: the inactive validators', and `stopped`'s. */
export function offlineShare(setup: L1Setup, inactive: readonly string[], stopped: readonly string[]): number {
  const total = setup.validators.reduce((t, v) => t + v.weight, 0n);
  const offline = setup.validators.filter((v) => inactive.includes(v.nodeId) || stopped.includes(v.nodeId)).reduce((t, v) => t + v.weight, 0n);
  return Number(offline) / Number(total);
}

export interface Standstill {
  /** The chain's last accepted height, the whole time. */
  height: number;
  /** Seconds watched. */
  seconds: number;
  /** The most processing blocks the node's health check reported meanwhile: built, never finalized. */
  processing: number;
  /** The node's health check of the chain at the end. */
  check: ChainCheck | undefined;
}

/**
 * Watches `chain` on its node for at least `windowMs` and until `control` (work that must go on
 * meanwhile, e.g. the C-Chain accepting transfers) has finished: fails at once if the chain
 * accepts a block or `pending` (a transaction submitted to it) gets a receipt.
 */
export async function watchStandstill(
  node: RealNode,
  chain: EvmChain,
  pending: Hash,
  windowMs: number,
  control: () => Promise<unknown>,
): Promise<Standstill> {
  const started = Date.now();
  const height = await blockNumber(chain);
  let processing = 0;
  let controlDone = false;
  let controlError: unknown;
  const controlRun = control().then(
    () => {
      controlDone = true;
    },
    (err: unknown) => {
      controlError = err;
    },
  );
  await waitFor(
    async () => {
      const now = await blockNumber(chain);
      if (now !== height)
        throw new Error(`the chain accepted block ${now} (it was at ${height}) ${(Date.now() - started) / 1000}s into the standstill`);
      const receipt = await receiptBlock(chain, pending);
      if (receipt !== undefined) throw new Error(`${pending} was accepted in block ${receipt} during the standstill`);
      processing = Math.max(processing, (await chainCheck(node, chain.chain))?.message?.engine?.consensus?.processingBlocks ?? 0);
      if (controlError !== undefined) throw new Error(`the control work failed during the standstill: ${errorText(controlError)}`);
      return controlDone && Date.now() - started >= windowMs;
    },
    { timeoutMs: windowMs + 120_000, intervalMs: 500, what: `a standstill of ${windowMs / 1000}s on ${chain.chain}, and the control work` },
  );
  await controlRun;
  return { height, seconds: Math.round((Date.now() - started) / 100) / 10, processing, check: await chainCheck(node, chain.chain) };
}
