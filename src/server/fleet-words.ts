// What the fleet page (`/`) says about a node in one line, in an operator's words: its poll
// failures summarised once (not one undici message per source), and its validator state with
// what puts the reward or the stake at risk. Pure: from the node's summary and the fleet.
import type { NodeSummary } from '../scheduler/fleet.js';
import type { Code, FailureFacts } from '../rpc/errors.js';
import { PRIMARY_NETWORK_ID } from '../config/schema.js';
import { stakeExpiry } from '../metrics/stake-expiry.js';
import { UPTIME_REQUIREMENT } from '../sources/platform.js';
import { humanDuration, nodeState } from './html.js';

/** A poll failure in an operator's words, from its facts (reason, phase, code, status: rpc/errors.ts classifyError), never its message. */
export function failureWords(f: FailureFacts): string {
  switch (f.reason) {
    case 'connect':
      return CONNECT_WORDS[f.code] ?? 'cannot connect to the node';
    case 'timeout':
      return f.phase === 'slot' ? 'the exporter had no request slot free (its limit, not the node)' : 'no answer within the timeout';
    case 'tls':
      return 'TLS handshake failed (certificate or protocol)';
    case 'host_rejected':
      return 'the node rejects this host name (its --http-allowed-hosts)';
    case 'http_status':
      if (f.code === 'not_base_url') return "HTTP 404: the target's url is not the node's base URL?";
      return f.status !== undefined ? `HTTP ${f.status} from the node or its proxy` : 'an HTTP error from the node or its proxy';
    case 'rpc_error':
      return 'the node answered with an error';
    case 'invalid_response':
      return 'an answer that is not what the API returns';
    default:
      return 'an error in the exporter (see its log)';
  }
}

/** The words of each way a connection fails (rpc/errors.ts decides which it was). */
const CONNECT_WORDS: Partial<Record<Code, string>> = {
  refused: "connection refused (nothing listens at the node's address and port)",
  unresolved: "the node's host name does not resolve",
  unreachable: "no route to the node's host",
  out_of_sockets: 'the exporter is out of sockets (its limit, not the node)',
  closed: 'connection closed by the node',
};

/** One line per kind of failure: "connection closed by the node, all 5 sources" or "no answer within the timeout (info, platform)". */
export function failureSummary(n: Pick<NodeSummary, 'failures' | 'sourceCount'>): string[] {
  const byWords = new Map<string, string[]>();
  for (const f of n.failures) {
    const words = failureWords(f);
    byWords.set(words, [...(byWords.get(words) ?? []), f.source]);
  }
  return [...byWords].map(([words, sources]) =>
    sources.length === n.sourceCount && sources.length > 1 ? `${words}, all ${sources.length} sources` : `${words} (${sources.join(', ')})`,
  );
}

export type Risk = 'bad' | 'warn';

export interface ValidatorView {
  /** Short facts, each with its tone, for the validator column. */
  facts: Array<{ text: string; tone?: Risk | 'ok' | 'dim' }>;
  /** The worst risk among the facts; undefined when nothing is at risk. */
  risk?: Risk;
}

const DAY = 86_400;
/** An L1 balance running out within these: warn, then bad. */
const WARN_WITHIN = 7 * DAY;
const BAD_WITHIN = DAY;

function within(seconds: number): Risk | undefined {
  return seconds < BAD_WITHIN ? 'bad' : seconds < WARN_WITHIN ? 'warn' : undefined;
}

/** A stake's tone: the stake-expiry alert's own decision (metrics/stake-expiry.ts), a page for critical, a ticket for warning. */
const STAKE_TONE = { critical: 'bad', warning: 'warn' } as const;

/** The newest version number among the nodes listed (the fleet of this page). */
export function fleetVersion(nodes: NodeSummary[]): { number: number; text: string } | undefined {
  let best: { number: number; text: string } | undefined;
  for (const n of nodes) {
    const v = n.validator?.version;
    if (v?.number !== undefined && (best === undefined || v.number > best.number)) best = { number: v.number, text: v.text };
  }
  return best;
}

/** "primary network", "subnet 2v3qLBtR…": a set's name for the validator column. */
function setName(subnet: string): string {
  return subnet === PRIMARY_NETWORK_ID ? 'primary network' : `subnet ${subnet.slice(0, 8)}…`;
}

/** The validator column: uptime against its requirement, the stake's end or auto-renew, L1 runway, version against the fleet. */
export function validatorView(n: NodeSummary, fleet: { number: number; text: string } | undefined, nowSeconds: number): ValidatorView {
  const v = n.validator;
  const facts: ValidatorView['facts'] = [];
  if (!v) return { facts };
  if (v.uptimeRatio !== undefined) {
    // Until the platform source says (a validation started after Helicon needs 90 %), the 80 % of before.
    const requirement = v.uptimeRequirement ?? UPTIME_REQUIREMENT.beforeHelicon;
    const below = v.uptimeRatio < requirement;
    const close = !below && v.uptimeRatio < requirement + 0.05;
    facts.push({
      text: `uptime ${(v.uptimeRatio * 100).toFixed(1)} % ${below ? '<' : '≥'} ${Math.round(requirement * 100)} %${below ? ': no reward' : ''}`,
      tone: below ? 'bad' : close ? 'warn' : 'ok',
    });
  }
  if (v.stake?.autoRenew) facts.push({ text: 'stake auto-renews', tone: 'ok' });
  else if (v.stake?.endSeconds !== undefined) {
    const left = v.stake.endSeconds - nowSeconds;
    const expiring = stakeExpiry({ ...v.stake, endSeconds: v.stake.endSeconds }, nowSeconds);
    facts.push(
      left <= 0
        ? { text: 'stake ended', tone: 'bad' }
        : { text: `stake ends in ${humanDuration(left)}`, tone: expiring ? STAKE_TONE[expiring.severity] : 'dim' },
    );
  }
  for (const l1 of v.l1 ?? []) {
    if (l1.balanceNavax === 0) facts.push({ text: 'L1 validator inactive (balance 0)', tone: 'bad' });
    else if (l1.runwaySeconds !== undefined) {
      const risk = within(l1.runwaySeconds);
      facts.push({ text: `L1 balance lasts ${humanDuration(l1.runwaySeconds)}`, tone: risk ?? 'dim' });
    }
  }
  // Decided once, before the pages (sources/section.ts validatorFacts), as AvalancheGoNoLongerValidator decides it.
  const lost = v.noLonger ?? [];
  if (lost.length > 0) {
    // A fault: it validated and stopped, so it earns no reward (its stake is still locked under the old node ID).
    const changed = n.nodeId !== undefined && lost.some((l) => l.nodeId !== '' && l.nodeId !== n.nodeId);
    facts.unshift({
      text: `no longer a validator (${lost.map((l) => setName(l.subnet)).join(', ')})${changed ? ': its node ID changed' : ''}`,
      tone: 'bad',
    });
  } else if ((v.notValidator || v.inNoSet) && !v.stake && !v.l1?.length) facts.push({ text: 'not a validator', tone: 'dim' });
  if (v.version) {
    const why: string[] = [];
    if (fleet !== undefined && v.version.number !== undefined && v.version.number < fleet.number) why.push(`fleet runs ${fleet.text}`);
    if (v.peersNewerRatio !== undefined && v.peersNewerRatio >= 0.5) why.push(`${Math.round(v.peersNewerRatio * 100)} % of peers newer`);
    facts.push({ text: `v${v.version.text}${why.length ? ` behind: ${why.join(', ')}` : ''}`, tone: why.length ? 'warn' : 'dim' });
  }
  const risk: Risk | undefined = facts.some((f) => f.tone === 'bad') ? 'bad' : facts.some((f) => f.tone === 'warn') ? 'warn' : undefined;
  return { facts, ...(risk ? { risk } : {}) };
}

/** The node's state as the pages show it: its status, and for a healthy node whose validator is at risk, that risk. */
export function rowState(n: NodeSummary, view: ValidatorView): { rank: number; text: string; cls: string } {
  const s = nodeState(n);
  if (n.status !== 'healthy' || !view.risk) return s;
  // At risk of losing a reward or the stake: below the faults, above the nodes that are merely fine.
  return view.risk === 'bad' ? { rank: 1.5, text: 'at risk', cls: 'bad' } : { rank: 3.5, text: 'at risk', cls: 'warn' };
}
