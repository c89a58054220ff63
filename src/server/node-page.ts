// One node for a human, on /node/<name>: every check with its error text, contiguous
// failures and first failure; the chains; the index endpoints; each source's last polls
// with their duration and error; links to the raw /probe output and a traced fresh poll.
import type { NodeDetail } from '../scheduler/poller.js';
import { ago, esc, humanDuration, nodeState, num, page, truncate } from './html.js';

/** A check's error text on the node page. */
const MAX_ERROR_CHARS = 2000;

function yes(v: boolean | undefined, good = true): string {
  if (v === undefined) return '<span class="dim">–</span>';
  return v === good ? `<span class="ok">${v ? 'yes' : 'no'}</span>` : `<span class="bad">${v ? 'yes' : 'no'}</span>`;
}

function seconds(v: number | undefined): string {
  return v === undefined ? '<span class="dim">–</span>' : `${num(v, 3)} s`;
}

export function nodePage(d: NodeDetail, nowSeconds: number, metricsPath = '/metrics'): string {
  const n = d.summary;
  const s = nodeState(n);
  const probe = `../probe?target=${encodeURIComponent(n.name)}`;
  const since =
    n.stateSinceSeconds !== undefined
      ? ` for ${esc(humanDuration(nowSeconds - n.stateSinceSeconds))} (since ${ago(n.stateSinceSeconds, nowSeconds)})`
      : '';
  const checks = [...d.checks]
    .sort((a, b) => Number(a.passing) - Number(b.passing) || a.name.localeCompare(b.name))
    .map(
      (c) =>
        `<tr><td>${esc(c.name)}</td><td>${yes(c.passing)}</td><td class="n">${num(c.contiguousFailures)}</td>` +
        `<td>${c.firstFailureSeconds !== undefined ? ago(c.firstFailureSeconds, nowSeconds) : ''}</td><td>${ago(c.timestampSeconds, nowSeconds)}</td>` +
        `<td class="n">${seconds(c.durationSeconds)}</td><td>${c.error ? `<div class="err">${esc(truncate(c.error, MAX_ERROR_CHARS))}</div>` : ''}` +
        `${c.unparsed > 0 ? `<div class="warn">${c.unparsed} field(s) of the message could not be parsed</div>` : ''}</td></tr>`,
    )
    .join('\n');
  const chains = d.chains
    .map(
      (c) =>
        `<tr><td>${esc(c.chain)}</td><td>${yes(c.bootstrapping, false)}</td><td class="n">${num(c.lastAcceptedHeight)}</td>` +
        `<td class="n">${num(c.processingBlocks)}</td><td class="n">${seconds(c.longestProcessingBlockSeconds)}</td>` +
        `<td class="n">${seconds(c.avgAcceptanceTimeSeconds)}</td><td class="n">${c.connectedStakeRatio === undefined ? '–' : `${num(c.connectedStakeRatio * 100, 1)} %`}</td></tr>`,
    )
    .join('\n');
  const index = d.index
    .map((e) => {
      const detail =
        e.state === 'ok'
          ? `<td class="n">${num(e.lastIndex)}</td><td>${ago(e.timestampSeconds, nowSeconds)}</td>`
          : e.state === 'failed'
            ? `<td colspan="2"><span class="err">${esc(truncate(e.error instanceof Error ? e.error.message : String(e.error), MAX_ERROR_CHARS))}</span></td>`
            : `<td colspan="2" class="dim">${e.state === 'disabled' ? 'indexing is off on the node (HTTP 404)' : 'no container accepted yet'}</td>`;
      return `<tr><td>${esc(e.endpoint)}</td><td>${esc(e.state)}</td>${detail}</tr>`;
    })
    .join('\n');
  const sources = d.sources
    .map((src) => {
      const recent = [...src.recent]
        .reverse()
        .map(
          (p) =>
            `<div>${ago(p.startedSeconds, nowSeconds)} · ${num(p.durationSeconds * 1000, 1)} ms · ${p.reason ? `<span class="bad">${esc(p.reason)}</span>: <span class="err">${esc(p.error ?? '')}</span>` : '<span class="ok">ok</span>'}</div>`,
        )
        .join('');
      return (
        `<tr><td>${esc(src.name)}</td><td>${esc(humanDuration(src.intervalMs / 1000))}</td><td class="n">${num(src.polls)}</td>` +
        `<td>${yes(src.success)}</td><td>${ago(src.lastSuccessSeconds, nowSeconds)}</td><td>${recent || '<span class="dim">no poll yet</span>'}</td></tr>`
      );
    })
    .join('\n');
  const body = `<h1>${esc(n.name)}</h1>
<p><span class="${s.cls}">${esc(s.text)}</span>${since} · ${esc(n.url)}${d.nodeId ? ` · ${esc(d.nodeId)}` : ''} · last poll ${ago(n.lastPollSeconds, nowSeconds)}</p>
<p><a href="${esc(probe)}">raw series (/probe)</a> · <a href="${esc(`${probe}&debug=true`)}">a fresh poll, traced step by step</a></p>
${n.lastError ? `<p>Last poll error: <span class="err">${esc(truncate(n.lastError, MAX_ERROR_CHARS))}</span></p>` : ''}
<h2>Health checks</h2>
${d.checks.length ? `<table><thead><tr><th>check</th><th>passing</th><th>contiguous failures</th><th>failing since</th><th>last run</th><th>duration</th><th>the node's error text</th></tr></thead><tbody>\n${checks}\n</tbody></table>` : '<p class="dim">No health report (the node has not answered yet, or its last health poll failed).</p>'}
<h2>Chains</h2>
${d.chains.length ? `<table><thead><tr><th>chain</th><th>bootstrapping</th><th>last accepted height</th><th>processing blocks</th><th>longest processing</th><th>avg acceptance</th><th>connected stake</th></tr></thead><tbody>\n${chains}\n</tbody></table>` : '<p class="dim">No chain in the last health report.</p>'}
<h2>Index endpoints</h2>
${d.index.length ? `<table><thead><tr><th>endpoint</th><th>state</th><th>last accepted index</th><th>accepted</th></tr></thead><tbody>\n${index}\n</tbody></table>` : '<p class="dim">The index source is off for this node, or has not answered yet.</p>'}
<h2>Sources and their last polls</h2>
<table><thead><tr><th>source</th><th>interval</th><th>polls</th><th>last poll ok</th><th>last success</th><th>last polls (newest first)</th></tr></thead><tbody>
${sources}
</tbody></table>`;
  return page(`${n.name} · AvalancheGo Exporter`, body, { root: '../', metricsPath });
}
