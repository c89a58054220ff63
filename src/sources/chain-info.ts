// The chain_info source: the blockchain ID of each chain of the primary network the node runs (P, X, C: the
// chains its health checks and index endpoints name by alias), served as avalanchego_chain_info{chain, name,
// blockchain_id, subnet} 1: the join key between the exporter's series (`chain` = the alias) and what names a
// chain by its ID (an ICM relayer's `source_blockchain_id`).
//
// X and C are asked of the node's own alias table (info.getBlockchainID on {url}/ext/info; AvalancheGo names the
// genesis chains by their VM, node.go initChainAliases), so a local network's IDs are right too; the info API
// answers while the chains bootstrap. The P-Chain's ID is the same on every network (constants.PlatformChainID,
// the empty ID), served once the node has answered for another chain. On by default: two small requests a minute
// (an alias lookup the node answers from memory), on the info API the info source already reads. It does not make a
// round longer: a node's poll count (the least of its sources') and the sweep of what churns (once every source of
// every node has polled, scheduler.ts) already wait for the platform source's polls, on by default at the same 1m,
// and its poll ends within the target's timeout as theirs do (a node that hangs holds every source alike). Only a
// config that turns platform off and keeps this on gets 1m rounds where they were the info source's 30s (a sweep a
// minute, not every 30s). The L1 chains of `l1s:` get their avalanchego_chain_info
// from the L1 set (sources/l1-set.ts, `chain` the ID, `name` from l1s[].name or the P-Chain), so this source serves
// only the primary network's: one series a chain.
import type { Logger } from 'pino';
import { PRIMARY_NETWORK_ID } from '../config/schema.js';
import { configSection, sourceKeys } from '../config/source-section.js';
import type { RpcReply } from '../rpc/client.js';
import { InvalidResponseError } from '../rpc/errors.js';
import type { LinesBuilder } from '../metrics/render.js';
import { decodeCb58 } from '../config/cb58.js';
import type { PageSection } from './section.js';
import type { Source, StateWatcher } from './source.js';
import { askAll, chainStateWatcher, decodeMethod } from './wire.js';

export const CHAIN_INFO_PATH = '/ext/info';
export const CHAIN_INFO_METHOD = 'info.getBlockchainID';
/** The primary network's chains asked, by the aliases every other series of the exporter labels them with. */
export const ASKED_ALIASES = ['X', 'C'] as const;
/** constants.PlatformChainID: the empty ID, as the primary network's (PRIMARY_NETWORK_ID), on every network. */
export const P_CHAIN_ID = PRIMARY_NETWORK_ID;
const NOT_SERVED_TEXT = 'not served here (HTTP 404): the node (--api-info-enabled=false), or a proxy before it, does not serve the info API';

export type ChainIdSnapshot =
  | { chain: string; state: 'ok'; blockchainId: string }
  /** HTTP 404: the node (--api-info-enabled=false) or a proxy before it does not serve the info API: a state, not a failure. */
  | { chain: string; state: 'not_served' }
  | { chain: string; state: 'failed'; error: unknown };

export interface ChainInfoSnapshot {
  chains: ChainIdSnapshot[];
}

export const chainInfoConfig = configSection('chain_info', {
  description: 'The chain_info source (info.getBlockchainID of X and C on {url}/ext/info; the P-Chain ID is the same on every network).',
  keys: sourceKeys({
    enabled:
      'Ask the blockchain IDs of the X- and C-Chain (info.getBlockchainID) and serve avalanchego_chain_info of P, X and C, the join key for series that name a chain by its ID.',
    interval: 'the blockchain IDs are asked (they change only when the node restarts onto another network)',
  }),
  defaults: { enabled: true, interval: '1m' },
});

export const chainInfo: Source<ChainInfoSnapshot, unknown, typeof chainInfoConfig> = {
  name: 'chain_info',
  config: chainInfoConfig,
  async poll(ctx) {
    const asked = await askAll(
      ASKED_ALIASES,
      async (alias): Promise<ChainIdSnapshot> => parseChainIdReply(alias, await ctx.rpc(CHAIN_INFO_PATH, CHAIN_INFO_METHOD, { alias })),
      (error, alias): ChainIdSnapshot => ({ chain: alias, state: 'failed', error }),
    );
    // The P-Chain's ID needs no request: served once the node has told another chain's.
    const answered = asked.some((c) => c.state === 'ok');
    return { chains: [...(answered ? [{ chain: 'P', state: 'ok' as const, blockchainId: P_CHAIN_ID }] : []), ...asked] };
  },
  failure: (snapshot) => snapshot.chains.find((c) => c.state === 'failed')?.error,
  samples: addChainInfoLines,
  watch: watchChainInfo,
  sections: chainInfoSections,
};

/**
 * Pure: info.getBlockchainID's answer for `chain` → its ID (`{"blockchainID":"…"}`, CB58), or `not_served` (HTTP
 * 404). Throws (rpc/errors.ts types) for another HTTP error, a JSON-RPC error (`there is no ID with alias: …`) or
 * an answer that is not an ID.
 */
export function parseChainIdReply(chain: string, reply: RpcReply): ChainIdSnapshot {
  const outcome = decodeMethod(reply, ['not_served']);
  if (outcome.state !== 'ok') return { chain, state: outcome.state };
  const { result } = outcome;
  const id = typeof result === 'object' && result !== null ? (result as Record<string, unknown>).blockchainID : undefined;
  if (typeof id !== 'string' || !isBlockchainId(id))
    throw new InvalidResponseError(
      `${CHAIN_INFO_METHOD} returned ${typeof id === 'string' ? JSON.stringify(id.slice(0, 64)) : 'no blockchainID'}, not a CB58 blockchain ID`,
    );
  return { chain, state: 'ok', blockchainId: id };
}

/** CB58 of 32 bytes (a blockchain ID), length checked before it is decoded. */
function isBlockchainId(text: string): boolean {
  if (text.length > 64) return false;
  const decoded = decodeCb58(text);
  return 'bytes' in decoded && decoded.bytes.length === 32;
}

export function addChainInfoLines(b: LinesBuilder, s: ChainInfoSnapshot | undefined): void {
  if (!s) return;
  for (const c of s.chains) {
    // The alias is the name too: the P-Chain lists no name for itself, and `name` is on every chain_info series.
    if (c.state === 'ok')
      b.add('avalanchego_chain_info', 1, { chain: c.chain, name: c.chain, blockchain_id: c.blockchainId, subnet: PRIMARY_NETWORK_ID });
  }
}

/** Pure: the node page's section: each primary chain's blockchain ID, or why it is not known. */
export function chainInfoSections(s: ChainInfoSnapshot | undefined): PageSection[] {
  return [
    {
      title: 'Chains (info.getBlockchainID)',
      columns: ['chain', 'blockchain ID'],
      rows: (s?.chains ?? []).map((c) => {
        switch (c.state) {
          case 'ok':
            return { label: c.chain, values: [{ text: c.blockchainId }] };
          case 'not_served':
            return { label: c.chain, values: [{ text: NOT_SERVED_TEXT, tone: 'dim' as const }] };
          case 'failed':
            return { label: c.chain, values: [{ error: c.error instanceof Error ? c.error.message : String(c.error) }] };
        }
      }),
      empty: 'The chain_info source has not answered yet, or is off for this node.',
    },
  ];
}

/** A chain whose ID cannot be asked (or that is not served) is logged when that starts and when it answers again, not every poll. */
function watchChainInfo(log: Logger): StateWatcher<ChainInfoSnapshot> {
  return chainStateWatcher<ChainIdSnapshot>((c, before) => {
    if (c.state === 'not_served')
      log.info({ chain: c.chain }, `${CHAIN_INFO_PATH} is ${NOT_SERVED_TEXT}; chain_info: { enabled: false } stops asking`);
    else if (c.state === 'failed')
      log.warn({ chain: c.chain, err: c.error }, `${CHAIN_INFO_METHOD} fails for ${c.chain}: no avalanchego_chain_info for it`);
    else if (before !== undefined) log.info({ chain: c.chain }, `${CHAIN_INFO_METHOD} answers again`);
  });
}
