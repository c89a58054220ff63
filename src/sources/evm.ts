// The evm source: each configured EVM chain's executed height, from
// eth_blockNumber on {url}/ext/bc/<chain>/rpc (go-ethereum's JSON-RPC server,
// not gorilla's: params must be an array). After Helicon the C-Chain accepts
// blocks before it executes them (ACP-194, SAE): health and the index report
// the accepted height, eth_blockNumber (`latest`) the executed one, and the
// gap between them is an execution backlog no health check showed in v1.15.0.
// Before Helicon the two agree. Chains are asked in parallel; a chain that
// fails keeps the others' heights. While a chain bootstraps its RPC answers
// HTTP 503 (`chain is not done bootstrapping`): a state of the node, shown as
// such, not a failed poll (no executed height until it is done). A node that
// does not serve the chain's RPC (a partial-sync L1 validator runs no C-Chain;
// a proxy may pass only health, info and index) answers HTTP 404, or a
// gateway's `chain not found`: "not served here", said once, not a failure.
import type { Logger } from 'pino';
import { chainList, configSection, sourceKeys } from '../config/source-section.js';
import type { RpcReply } from '../rpc/client.js';
import { InvalidResponseError } from '../rpc/errors.js';
import { rpcResult } from '../rpc/jsonrpc.js';
import type { LinesBuilder } from '../metrics/render.js';
import { jsonKind } from '../util/json-kind.js';
import type { PageSection } from './section.js';
import type { Source, StateWatcher } from './source.js';
import { askAll, chainStateWatcher, decodeMethod } from './wire.js';

export const EVM_METHOD = 'eth_blockNumber';
/** A block number is a uint64: anything longer than 16 hex digits is not one. */
const QUANTITY = /^0x(0|[1-9a-f][0-9a-f]{0,15})$/;

export type EvmChainSnapshot =
  | { chain: string; state: 'ok'; executedHeight: number }
  /** HTTP 503 `chain is not done bootstrapping`: the chain bootstraps (wire.ts chainNotBootstrapped). */
  | { chain: string; state: 'not_bootstrapped' }
  /** HTTP 404, or a JSON-RPC `chain not found`: the node (or the proxy before it) does not serve this chain's RPC. */
  | { chain: string; state: 'not_served' }
  | { chain: string; state: 'failed'; error: unknown };

export interface EvmSnapshot {
  chains: EvmChainSnapshot[];
}

export const evmPath = (chain: string): string => `/ext/bc/${chain}/rpc`;

const NOT_SERVED_TEXT = 'not served here (HTTP 404 or "chain not found"): the node, or a proxy before it, does not serve this chain\'s RPC';

/** A JSON-RPC error that says the chain is unknown where the request went (a gateway's answer for a chain it does not route). */
const chainNotFound = (message: string): 'not_served' | undefined => (/\bchain not found\b/i.test(message) ? 'not_served' : undefined);

/**
 * Off when `enabled` is false or `chains` is empty. Its interval is the target's unless set: the executed
 * height is compared with health's accepted height, polled at that cadence.
 */
export const evmConfig = configSection('evm', {
  description: 'The evm source (eth_blockNumber on {url}/ext/bc/<chain>/rpc).',
  keys: sourceKeys(
    {
      enabled:
        "Poll each EVM chain's executed height (eth_blockNumber). After Helicon the C-Chain accepts blocks before it executes them; the gap is an execution backlog.",
      interval: "the executed heights are polled (default: the target's interval, health's cadence)",
    },
    {
      chains: chainList(
        '[C]',
        "EVM chains whose executed height is polled, by alias or blockchain ID; use the name its health check has (C, or the L1 chain's blockchain ID) so the rules can compare it with the accepted height. [] turns the source off.",
      ),
    },
  ),
  defaults: { enabled: true, chains: ['C'] },
  enabled: (settings) => settings.enabled && settings.chains.length > 0,
});

export const evm: Source<EvmSnapshot, unknown, typeof evmConfig> = {
  name: 'evm',
  config: evmConfig,
  async poll(ctx) {
    const chains = await askAll(
      evmConfig.of(ctx.target).chains,
      async (chain): Promise<EvmChainSnapshot> => parseChainReply(chain, await ctx.rpc(evmPath(chain), EVM_METHOD, [])),
      (error, chain): EvmChainSnapshot => ({ chain, state: 'failed', error }),
    );
    return { chains };
  },
  failure: (snapshot) => snapshot.chains.find((c) => c.state === 'failed')?.error,
  samples: addEvmLines,
  watch: watchEvm,
  sections: evmSections,
};

/** Pure: the node page's EVM section: each chain's executed height (eth_blockNumber), or why not. */
export function evmSections(s: EvmSnapshot | undefined): PageSection[] {
  return [
    {
      title: 'EVM chains (eth_blockNumber)',
      columns: ['chain', 'executed height'],
      rows: (s?.chains ?? []).map((c) => {
        switch (c.state) {
          case 'ok':
            return { label: c.chain, values: [{ number: c.executedHeight }] };
          case 'not_bootstrapped':
            return { label: c.chain, values: [{ text: 'bootstrapping (its RPC answers HTTP 503 until the chain is done)', tone: 'dim' as const }] };
          case 'not_served':
            return { label: c.chain, values: [{ text: NOT_SERVED_TEXT, tone: 'dim' as const }] };
          case 'failed':
            return { label: c.chain, values: [{ error: c.error instanceof Error ? c.error.message : String(c.error) }] };
        }
      }),
      empty: 'The evm source has not answered yet, or is off for this node.',
    },
  ];
}

/**
 * Pure: one chain's answer → its executed height, `not_bootstrapped` while the chain bootstraps, or
 * `not_served` (HTTP 404, `chain not found`). Throws as parseBlockNumber.
 */
export function parseChainReply(chain: string, reply: RpcReply): EvmChainSnapshot {
  const outcome = decodeMethod(reply, ['not_served', 'not_bootstrapped'], chainNotFound);
  if (outcome.state !== 'ok') return { chain, state: outcome.state };
  return { chain, state: 'ok', executedHeight: blockNumber(outcome.result) };
}

/**
 * Pure: the answer of eth_blockNumber → the height. Throws (rpc/errors.ts types) for an HTTP error, a
 * JSON-RPC error or a result that is not a hex quantity.
 */
export function parseBlockNumber(reply: RpcReply): number {
  return blockNumber(rpcResult(reply));
}

/** The `result` of eth_blockNumber → the height; throws InvalidResponseError for what is not a hex quantity. */
function blockNumber(result: unknown): number {
  if (typeof result !== 'string' || !QUANTITY.test(result)) {
    const shown = typeof result === 'string' ? JSON.stringify(result.slice(0, 40)) : jsonKind(result);
    throw new InvalidResponseError(`${EVM_METHOD} returned ${shown}, not a hex block number such as "0x1b4"`);
  }
  const height = Number.parseInt(result.slice(2), 16);
  // Served as a float64: past 2^53 the value would be rounded, which no chain reaches.
  if (!Number.isSafeInteger(height)) throw new InvalidResponseError(`${EVM_METHOD} returned ${result}, beyond 2^53`);
  return height;
}

function addEvmLines(b: LinesBuilder, s: EvmSnapshot | undefined): void {
  if (!s) return;
  for (const c of s.chains) if (c.state === 'ok') b.add('avalanchego_chain_executed_height', c.executedHeight, { chain: c.chain });
}

/** A chain whose eth_blockNumber fails (or that bootstraps) is logged when that starts and when it answers again, not every poll. */
function watchEvm(log: Logger): StateWatcher<EvmSnapshot> {
  return chainStateWatcher<EvmChainSnapshot>((c, before) => {
    if (c.state === 'failed')
      log.warn({ chain: c.chain, err: c.error }, `${EVM_METHOD} fails on /ext/bc/${c.chain}/rpc: no executed height for the chain`);
    else if (c.state === 'not_bootstrapped')
      log.info({ chain: c.chain }, `/ext/bc/${c.chain}/rpc answers HTTP 503: the chain is bootstrapping, no executed height until it is done`);
    else if (c.state === 'not_served') {
      log.info(
        { chain: c.chain },
        `${evmPath(c.chain)} is not served here (HTTP 404 or "chain not found"): no executed height for the chain; list only served chains in evm.chains, or [] to turn the source off`,
      );
    } else if (before !== undefined) log.info({ chain: c.chain }, `${EVM_METHOD} answers again`);
  });
}
