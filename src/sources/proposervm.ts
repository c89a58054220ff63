// The proposervm source: each configured chain's current ProposerVM epoch,
// from proposervm.getCurrentEpoch on {url}/ext/bc/<chain>/proposervm (every
// ProposerVM-wrapped chain: the C-Chain, an L1; v1.14+). The epoch's
// `pChainHeight` is the P-Chain height the chain takes its validator set from:
// one that falls further and further behind platform.getHeight while the
// chain's height is flat is a frozen L1 (builders-hub #4534). A release
// without the method answers `method not found`, one without the service (or a
// node that does not run the chain) HTTP 404, and a chain that bootstraps HTTP 503:
// states, not failures, logged once.
import type { Logger } from 'pino';
import { z } from 'zod';
import { chainList, configSection, sourceKeys } from '../config/source-section.js';
import type { RpcReply } from '../rpc/client.js';
import { InvalidResponseError } from '../rpc/errors.js';
import type { LinesBuilder } from '../metrics/render.js';
import type { PageSection } from './section.js';
import type { Source, StateWatcher } from './source.js';
import { askAll, chainStateWatcher, decodeMethod, firstIssue, uint, unixSeconds } from './wire.js';

export const PROPOSERVM_METHOD = 'proposervm.getCurrentEpoch';

export interface Epoch {
  number: number;
  startSeconds: number;
  pChainHeight: number;
}

export type ProposerChainSnapshot =
  | { chain: string; state: 'ok'; epoch: Epoch }
  | { chain: string; state: 'unsupported' }
  /** HTTP 404: no ProposerVM API for the chain on this node (a release before it, or a chain the node does not run). */
  | { chain: string; state: 'unavailable' }
  /** HTTP 503 `chain is not done bootstrapping`: the chain bootstraps (wire.ts chainNotBootstrapped). */
  | { chain: string; state: 'not_bootstrapped' }
  | { chain: string; state: 'failed'; error: unknown };

export interface ProposerVmSnapshot {
  chains: ProposerChainSnapshot[];
}

export const proposervmPath = (chain: string): string => `/ext/bc/${chain}/proposervm`;

/** Off when `enabled` is false or `chains` is empty (the default). */
export const proposervmConfig = configSection('proposervm', {
  description: 'The proposervm source (proposervm.getCurrentEpoch on {url}/ext/bc/<chain>/proposervm).',
  keys: sourceKeys(
    {
      enabled: "Poll each listed chain's ProposerVM epoch (proposervm.getCurrentEpoch): the P-Chain height the chain's validator set is taken from.",
      interval: 'the ProposerVM epochs are polled',
    },
    {
      chains: chainList(
        '[2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5]',
        "Chains (usually L1 chains) whose ProposerVM epoch is polled, by blockchain ID or alias; use the name its health check has (the blockchain ID for an L1, C for the C-Chain) so the rules can compare it with the chain's height. [] (the default) turns the source off.",
      ),
    },
  ),
  defaults: { enabled: true, interval: '1m', chains: [] },
  enabled: (settings) => settings.enabled && settings.chains.length > 0,
});

export const proposervm: Source<ProposerVmSnapshot, unknown, typeof proposervmConfig> = {
  name: 'proposervm',
  config: proposervmConfig,
  async poll(ctx) {
    const chains = await askAll(
      proposervmConfig.of(ctx.target).chains,
      async (chain): Promise<ProposerChainSnapshot> => parseEpochReply(chain, await ctx.rpc(proposervmPath(chain), PROPOSERVM_METHOD, {})),
      (error, chain): ProposerChainSnapshot => ({ chain, state: 'failed', error }),
    );
    return { chains };
  },
  failure: (snapshot) => snapshot.chains.find((c) => c.state === 'failed')?.error,
  samples: addProposerLines,
  watch: watchProposer,
  sections: proposerSections,
};

/** Pure: the node page's ProposerVM section: each chain's epoch and the P-Chain height its validator set comes from. */
export function proposerSections(s: ProposerVmSnapshot | undefined): PageSection[] {
  return [
    {
      title: 'ProposerVM epochs (proposervm.getCurrentEpoch)',
      columns: ['chain', 'epoch', 'started', 'P-Chain height of its validator set'],
      rows: (s?.chains ?? []).map((c) => {
        switch (c.state) {
          case 'ok':
            return { label: c.chain, values: [{ number: c.epoch.number }, { time: c.epoch.startSeconds }, { number: c.epoch.pChainHeight }] };
          case 'unsupported':
            return { label: c.chain, values: [{ text: "the node's release has no proposervm.getCurrentEpoch", tone: 'dim' as const }] };
          case 'not_bootstrapped':
            return { label: c.chain, values: [{ text: 'bootstrapping (its API answers HTTP 503 until the chain is done)', tone: 'dim' as const }] };
          case 'unavailable':
            return {
              label: c.chain,
              values: [{ text: 'HTTP 404: the node does not run this chain, or its release has no ProposerVM API', tone: 'dim' as const }],
            };
          case 'failed':
            return { label: c.chain, values: [{ error: c.error instanceof Error ? c.error.message : String(c.error) }] };
        }
      }),
      empty: 'The proposervm source has not answered yet, or is off for this node.',
    },
  ];
}

const epochSchema = z.object({ number: uint, startTime: unixSeconds, pChainHeight: uint });

/** Pure: one chain's answer → its epoch, or `unsupported` for a release without the method. */
export function parseEpochReply(chain: string, reply: RpcReply): ProposerChainSnapshot {
  const outcome = decodeMethod(reply, ['not_served', 'not_bootstrapped', 'unsupported']);
  switch (outcome.state) {
    case 'not_served':
      return { chain, state: 'unavailable' };
    case 'not_bootstrapped':
    case 'unsupported':
      return { chain, state: outcome.state };
    case 'ok':
      return { chain, state: 'ok', epoch: parseEpoch(chain, outcome.result) };
  }
}

/** Pure: the `result` of proposervm.getCurrentEpoch (`{"number","startTime","pChainHeight"}`, vms/proposervm/service.go GetEpochResponse). */
export function parseEpoch(chain: string, result: unknown): Epoch {
  const r = epochSchema.safeParse(result);
  if (!r.success) throw new InvalidResponseError(`${PROPOSERVM_METHOD} on ${chain} returned no epoch: ${firstIssue(r.error)}`);
  return { number: r.data.number, startSeconds: r.data.startTime, pChainHeight: r.data.pChainHeight };
}

function addProposerLines(b: LinesBuilder, s: ProposerVmSnapshot | undefined): void {
  if (!s) return;
  for (const c of s.chains) {
    if (c.state !== 'ok') continue;
    b.add('avalanchego_proposervm_epoch_pchain_height', c.epoch.pChainHeight, { chain: c.chain });
    b.add('avalanchego_proposervm_epoch_number', c.epoch.number, { chain: c.chain });
  }
}

/** A chain whose node lacks the method, or whose request fails, is logged once per change. */
function watchProposer(log: Logger): StateWatcher<ProposerVmSnapshot> {
  return chainStateWatcher<ProposerChainSnapshot>((c, before) => {
    if (c.state === 'unsupported') log.info({ chain: c.chain }, `the node's version lacks ${PROPOSERVM_METHOD}: no epoch series for the chain`);
    else if (c.state === 'unavailable') {
      log.info(
        { chain: c.chain },
        `${proposervmPath(c.chain)} answers HTTP 404: the node's release has no ProposerVM API (before v1.14) or it does not run this chain; check proposervm.chains`,
      );
    } else if (c.state === 'not_bootstrapped') {
      log.info({ chain: c.chain }, `${proposervmPath(c.chain)} answers HTTP 503: the chain is bootstrapping, no epoch series until it is done`);
    } else if (c.state === 'failed') log.warn({ chain: c.chain, err: c.error }, `${PROPOSERVM_METHOD} fails on ${proposervmPath(c.chain)}`);
    else if (before !== undefined) log.info({ chain: c.chain }, `${PROPOSERVM_METHOD} answers again`);
  });
}
