// The fleet overview on `/`: every node this replica polls, worst first, with since when
// it is in its state, its heights and lag to the fleet per primary chain, the failing
// checks with the node's own error text, and its last poll. Built from the last snapshots:
// no I/O.
import type { NodeSummary } from '../scheduler/fleet.js';
import { truncate } from '../util/text.js';
import { failureSummary, fleetVersion, rowState, validatorView, type ValidatorView } from './fleet-words.js';
import { ago, esc, humanDuration, nodeHref, num, page } from './html.js';
import { l1Href } from './l1-page.js';

const MAX_ROWS = 500;
/** Failing checks listed per node on the overview (the node page lists all). */
const MAX_CHECKS = 4;
/** A check's error text on the overview; the node page shows up to 2,000 characters. */
const MAX_ERROR_CHARS = 240;
const CHAINS = ['C', 'P', 'X'] as const;
export const REFRESH_SECONDS = 10;

export interface LandingInfo {
  version: string;
  configOrigin: string;
  shard?: { index: number; count: number };
  nowSeconds: number;
  /** Auto-refresh (off with ?refresh=off, to read a long error text in peace). */
  refresh: boolean;
  /** Where the metrics are served (--web.telemetry-path). */
  metricsPath?: string;
  /** The L1s of `l1s:`, each linked to its page. */
  l1s?: ReadonlyArray<{ readonly subnet: string; readonly name?: string }>;
}

/** The highest height per primary chain among the nodes listed (the "fleet" of this page). */
function fleetMax(nodes: NodeSummary[]): Map<string, number> {
  const max = new Map<string, number>();
  for (const n of nodes) for (const h of n.heights) if (h.height > (max.get(h.chain) ?? -1)) max.set(h.chain, h.height);
  return max;
}

function heightCell(n: NodeSummary, chain: string, max: Map<string, number>): string {
  const h = n.heights.find((x) => x.chain === chain)?.height;
  if (h === undefined) return '<td class="n dim"></td>';
  const lag = (max.get(chain) ?? h) - h;
  // Nodes are polled at different moments, so a few blocks of lag are normal.
  const cls = lag >= 500 ? 'bad' : lag >= 50 ? 'warn' : 'dim';
  return `<td class="n" data-chain="${esc(chain)}">${num(h)}${lag > 0 ? ` <span class="${cls}" title="behind the highest ${esc(chain)} height listed here">−${num(lag)}</span>` : ''}</td>`;
}

function failingCell(n: NodeSummary): string {
  if (n.failing.length === 0) return '<td></td>';
  const items = n.failing
    .slice(0, MAX_CHECKS)
    .map((c) => `<div><b>${esc(c.name)}</b>${c.error ? `: <span class="err">${esc(truncate(c.error, MAX_ERROR_CHARS))}</span>` : ''}</div>`)
    .join('');
  const more = n.failing.length > MAX_CHECKS ? `<div class="dim">… and ${n.failing.length - MAX_CHECKS} more</div>` : '';
  return `<td class="checks">${items}${more}</td>`;
}

/** The validator column's cell. */
function validatorCell(view: ValidatorView): string {
  if (view.facts.length === 0) return '<td class="v dim">–</td>';
  return `<td class="v">${view.facts.map((f) => `<div${f.tone ? ` class="${f.tone}"` : ''}>${esc(f.text)}</div>`).join('')}</td>`;
}

/** The poll failures in an operator's words, once per kind; the node page has each source's message. */
function errorCell(n: NodeSummary): string {
  const lines = failureSummary(n);
  if (lines.length === 0) return '<td></td>';
  return `<td>${lines.map((l) => `<div class="bad">${esc(l)}</div>`).join('')}<div class="dim"><a href="${esc(nodeHref(n.name))}">details</a></div></td>`;
}

export function landingPage(nodes: NodeSummary[], info: LandingInfo): string {
  const fleet = fleetVersion(nodes);
  const rows = nodes
    .map((n) => {
      const view = validatorView(n, fleet, info.nowSeconds);
      return { n, view, s: rowState(n, view) };
    })
    .sort((a, b) => a.s.rank - b.s.rank || (a.n.stateSinceSeconds ?? 0) - (b.n.stateSinceSeconds ?? 0) || a.n.name.localeCompare(b.n.name));
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.s.text, (counts.get(r.s.text) ?? 0) + 1);
  const summary = [...counts].map(([k, v]) => `${v} ${esc(k)}`).join(', ') || 'no targets';
  const max = fleetMax(nodes);
  const body = rows
    .slice(0, MAX_ROWS)
    .map(({ n, s, view }) => {
      const since =
        n.stateSinceSeconds !== undefined ? ` <span class="dim">for ${esc(humanDuration(info.nowSeconds - n.stateSinceSeconds))}</span>` : '';
      return (
        `<tr><td class="name"><a href="${esc(nodeHref(n.name))}">${esc(n.name)}</a></td>` +
        `<td class="state ${s.cls}">${esc(s.text)}${since}</td>` +
        validatorCell(view) +
        CHAINS.map((c) => heightCell(n, c, max)).join('') +
        failingCell(n) +
        errorCell(n) +
        `<td class="when">${ago(n.lastPollSeconds, info.nowSeconds)}</td></tr>`
      );
    })
    .join('\n');
  const more = rows.length > MAX_ROWS ? `<p>… and ${rows.length - MAX_ROWS} more (the worst states are listed first).</p>` : '';
  const shard =
    info.shard && info.shard.count > 1 ? ` · shard ${info.shard.index} of ${info.shard.count}: the nodes below are the ones this replica owns` : '';
  const refresh = info.refresh
    ? `refreshes every ${REFRESH_SECONDS}s · <a href="?refresh=off">stop refreshing</a>`
    : '<a href="./">refresh automatically</a>';
  const metricsPath = info.metricsPath ?? '/metrics';
  return page(
    'AvalancheGo Exporter',
    `<h1>Nodes: ${summary}</h1>
<p class="dim intro">Worst first; a validator at risk above a healthy node. Heights: last accepted, −N behind the highest listed. ${refresh}</p>
<table class="fleet"><thead><tr><th>node</th><th>state</th><th>validator</th>${CHAINS.map((c) => `<th>${c} height</th>`).join('')}<th>failing checks (the node's error text)</th><th>polls failing</th><th>last poll</th></tr></thead>
<tbody>
${body}
</tbody></table>${more}
<h2>AvalancheGo Exporter</h2>
<p>Version ${esc(info.version)} · configuration: ${esc(info.configOrigin)}${shard}</p>
<ul><li><a href="${esc(metricsPath.slice(1))}">${esc(metricsPath)}</a>: every node's series and the exporter's own</li>
<li><code>/probe?target=&lt;name&gt;</code>: one node's series (multi-target scraping); add <code>&amp;debug=true</code> for a traced fresh poll</li>
${(info.l1s ?? []).map((l) => `<li><a href="${esc(l1Href(l.subnet))}">/l1/${esc(l.name ?? l.subnet)}</a>: every validator of the L1, seen from each of its vantages</li>`).join('')}
<li><a href="config">/config</a>: the loaded configuration, secrets redacted</li>
<li><a href="-/healthy">/-/healthy</a> · <a href="-/ready">/-/ready</a> · <code>POST /-/reload</code> (with --web.enable-lifecycle)</li></ul>`,
    { ...(info.refresh ? { refreshSeconds: REFRESH_SECONDS } : {}), metricsPath },
  );
}
