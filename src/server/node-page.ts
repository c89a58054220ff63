// One node for a human, on /node/<name>: each source's sections (health: every check with
// its error text, contiguous failures and first failure, and the chains; index: the
// endpoints …), laid out from the render-ready data the sources give (sources/section.ts);
// each source's last polls with their duration and error; links to the raw /probe output
// and a traced fresh poll.
import type { NodeDetail } from '../scheduler/fleet.js';
import type { PageSection, SectionValue } from '../sources/section.js';
import { truncate } from '../util/text.js';
import { ago, esc, humanDuration, nodeState, num, page } from './html.js';

/** A check's error text on the node page. */
const MAX_ERROR_CHARS = 2000;

function yes(v: boolean | undefined, good = true): string {
  if (v === undefined) return '<span class="dim">–</span>';
  return v === good ? `<span class="ok">${v ? 'yes' : 'no'}</span>` : `<span class="bad">${v ? 'yes' : 'no'}</span>`;
}

export function nodePage(d: NodeDetail, nowSeconds: number, metricsPath = '/metrics'): string {
  const n = d.summary;
  const s = nodeState(n);
  const probe = `../probe?target=${encodeURIComponent(n.name)}`;
  const since =
    n.stateSinceSeconds !== undefined
      ? ` for ${esc(humanDuration(nowSeconds - n.stateSinceSeconds))} (since ${ago(n.stateSinceSeconds, nowSeconds)})`
      : '';
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
<p><span class="${s.cls}">${esc(s.text)}</span>${since} · ${esc(n.url)}${n.nodeId ? ` · ${esc(n.nodeId)}` : ''} · last poll ${ago(n.lastPollSeconds, nowSeconds)}</p>
<p><a href="${esc(probe)}">raw series (/probe)</a> · <a href="${esc(`${probe}&debug=true`)}">a fresh poll, traced step by step</a></p>
${n.lastError ? `<p>Last poll error: <span class="err">${esc(truncate(n.lastError, MAX_ERROR_CHARS))}</span></p>` : ''}
${d.sections.map((section) => sectionHtml(section, nowSeconds)).join('\n')}
<h2>Sources and their last polls</h2>
<table><thead><tr><th>source</th><th>interval</th><th>polls</th><th>last poll ok</th><th>last success</th><th>last polls (newest first)</th></tr></thead><tbody>
${sources}
</tbody></table>`;
  return page(`${n.name} · AvalancheGo Exporter`, body, { root: '../', metricsPath });
}

/** One value of a section, escaped. */
function valueHtml(v: SectionValue, nowSeconds: number): string {
  if ('text' in v) return v.tone ? `<span class="${v.tone}">${esc(v.text)}</span>` : esc(v.text);
  if ('number' in v) {
    if (v.number === undefined) return num(undefined);
    const text = `${num(v.number, v.digits)}${v.unit ? ` ${esc(v.unit)}` : ''}`;
    return v.tone ? `<span class="${v.tone}">${text}</span>` : text;
  }
  if ('time' in v) return ago(v.time, nowSeconds);
  if ('flag' in v) return yes(v.flag, v.good);
  return (
    (v.error ? `<div class="err">${esc(truncate(v.error, MAX_ERROR_CHARS))}</div>` : '') + (v.note ? `<div class="warn">${esc(v.note)}</div>` : '')
  );
}

/** A source's section: its heading and a table (the last value of a short row spans the columns left), or why it is empty. */
function sectionHtml(section: PageSection, nowSeconds: number): string {
  const title = `<h2>${esc(section.title)}</h2>`;
  if (section.rows.length === 0) return `${title}\n<p class="dim">${esc(section.empty)}</p>`;
  const width = section.columns ? section.columns.length - 1 : 1;
  const head = section.columns ? `<thead><tr>${section.columns.map((c) => `<th>${esc(c)}</th>`).join('')}</tr></thead>` : '';
  const rows = section.rows.map((row) => {
    const cells = row.values.map((v, i) => {
      const span = i === row.values.length - 1 && row.values.length < width ? ` colspan="${width - i}"` : '';
      const cls = 'number' in v ? ' class="n"' : '';
      return `<td${cls}${span}>${valueHtml(v, nowSeconds)}</td>`;
    });
    return `<tr><td>${esc(row.label)}</td>${cells.join('')}</tr>`;
  });
  return `${title}\n<table>${head}<tbody>\n${rows.join('\n')}\n</tbody></table>`;
}
