// One node for a human, on /node/<name>: a summary first (its state, and every fault in one
// list: the validator at risk, the polls failing, the failing checks with the node's text), then
// each source's sections (health: every check with its error text, contiguous failures and first
// failure, and the chains; index: the endpoints …), laid out from the render-ready data the
// sources give (sources/section.ts), each in a <details> open only when it holds a fault; each
// source's last polls with their duration and error; links to the raw /probe output and a
// traced fresh poll. On a phone the tables stack (label over value): nothing wider than the screen.
import type { NodeDetail } from '../scheduler/fleet.js';
import type { PageSection, SectionValue } from '../sources/section.js';
import { truncate } from '../util/text.js';
import { failureSummary, rowState, validatorView } from './fleet-words.js';
import { ago, esc, humanDuration, num, page } from './html.js';

/** A check's error text on the node page. */
const MAX_ERROR_CHARS = 2000;
/** A failing check's text in the summary at the top (its whole text is in the health section). */
const MAX_SUMMARY_ERROR_CHARS = 300;

function yes(v: boolean | undefined, good = true): string {
  if (v === undefined) return '<span class="dim">–</span>';
  return v === good ? `<span class="ok">${v ? 'yes' : 'no'}</span>` : `<span class="bad">${v ? 'yes' : 'no'}</span>`;
}

/** A moment on the page, written by ago() with the page's clock. */
type When = (seconds: number | undefined) => string;

/** A foldable part of the page: open when it holds a fault (or when asked), closed otherwise. */
function fold(title: string, note: string, open: boolean, inner: string): string {
  return `<details class="sec"${open ? ' open' : ''}><summary><h2>${esc(title)}</h2>${note}</summary>\n${inner}\n</details>`;
}

/**
 * `onBadTime`: told of each time on the page no date can hold (the parsers refuse them: a guard, so that one bad value
 * never makes the page a 500).
 */
export function nodePage(d: NodeDetail, nowSeconds: number, metricsPath = '/metrics', onBadTime?: (seconds: number) => void): string {
  const n = d.summary;
  const when: When = (seconds) => ago(seconds, nowSeconds, onBadTime);
  const view = validatorView(n, undefined, nowSeconds);
  const s = rowState(n, view);
  const risks = view.facts.filter((f) => f.tone === 'bad' || f.tone === 'warn');
  const failures = failureSummary(n);
  const probe = `../probe?target=${encodeURIComponent(n.name)}`;
  const since =
    n.stateSinceSeconds !== undefined
      ? ` for ${esc(humanDuration(nowSeconds - n.stateSinceSeconds))} <span class="dim">(since ${when(n.stateSinceSeconds)})</span>`
      : '';
  // Every fault in one list, the worst kinds first: what costs the validator money, what the exporter
  // cannot read, what the node says is failing.
  const faults = [
    ...risks.map((f) => `<li class="${f.tone ?? ''}">${esc(f.text)}</li>`),
    ...failures.map((f) => `<li class="bad">polls failing: ${esc(f)}</li>`),
    ...n.failing.map(
      (c) =>
        `<li><b>${esc(c.name)}</b>${c.sinceSeconds !== undefined ? ` <span class="dim">failing since ${when(c.sinceSeconds)}</span>` : ''}${c.error ? `: <span class="err">${esc(truncate(c.error, MAX_SUMMARY_ERROR_CHARS))}</span>` : ''}</li>`,
    ),
  ];
  const summary =
    faults.length > 0
      ? `<ul class="faults">${faults.join('')}</ul>`
      : `<p class="ok faults">No fault${n.status === undefined ? ' seen yet (waiting for the first poll)' : ''}.</p>`;
  const sources = d.sources
    .map((src) => {
      // Newest first; an error the newer poll already showed is not repeated (a down node's five polls say the same).
      const recent = [...src.recent]
        .reverse()
        .map((p, i, all) => {
          const same = i > 0 && p.reason !== undefined && all[i - 1]?.reason === p.reason && all[i - 1]?.error === p.error;
          const outcome = !p.reason
            ? '<span class="ok">ok</span>'
            : `<span class="bad">${esc(p.reason)}</span>: ${same ? '<span class="dim">the same error</span>' : `<span class="err">${esc(p.error ?? '')}</span>`}`;
          return `<div>${when(p.startedSeconds)} · ${num(p.durationSeconds * 1000, 1)} ms · ${outcome}</div>`;
        })
        .join('');
      return (
        `<tr><td>${esc(src.name)}</td><td data-col="interval">${esc(humanDuration(src.intervalMs / 1000))}</td><td class="n" data-col="polls">${num(src.polls)}</td>` +
        `<td data-col="last poll ok">${yes(src.success)}</td><td data-col="last success">${when(src.lastSuccessSeconds)}</td><td data-col="last polls">${recent || '<span class="dim">no poll yet</span>'}</td></tr>`
      );
    })
    .join('\n');
  const sourcesFailing = d.sources.filter((src) => src.success === false).length;
  const body = `<h1>${esc(n.name)}</h1>
<p class="head"><span class="${s.cls}">${esc(s.text)}</span>${since} · last poll ${when(n.lastPollSeconds)}</p>
${summary}
<p class="dim ident">${esc(n.url)}${n.nodeId ? ` · ${esc(n.nodeId)}` : ''}</p>
<p><a href="${esc(probe)}">raw series (/probe)</a> · <a href="${esc(`${probe}&debug=true`)}">a fresh poll, traced step by step</a></p>
${d.sections.map((section) => sectionHtml(section, when)).join('\n')}
${fold(
  'Sources and their last polls',
  sourcesFailing > 0 ? ` <span class="bad">· ${sourcesFailing} failing</span>` : ` <span class="dim">· ${d.sources.length}</span>`,
  sourcesFailing > 0,
  `<table class="sec"><thead><tr><th>source</th><th>interval</th><th>polls</th><th>last poll ok</th><th>last success</th><th>last polls (newest first)</th></tr></thead><tbody>
${sources}
</tbody></table>`,
)}`;
  return page(`${n.name} · AvalancheGo Exporter`, body, { root: '../', metricsPath });
}

/** Whether a value says something is wrong: a bad or warning tone, a flag that is not what it should be, the node's error text. */
function isFault(v: SectionValue): boolean {
  if ('flag' in v) return v.flag !== undefined && v.flag !== (v.good ?? true);
  if ('error' in v) return v.error !== undefined || v.note !== undefined;
  if ('tone' in v) return v.tone === 'bad' || v.tone === 'warn';
  return false;
}

/** One value of a section, escaped. */
function valueHtml(v: SectionValue, when: When): string {
  if ('text' in v) return v.tone ? `<span class="${v.tone}">${esc(v.text)}</span>` : esc(v.text);
  if ('number' in v) {
    if (v.number === undefined) return num(undefined);
    const text = `${num(v.number, v.digits)}${v.unit ? ` ${esc(v.unit)}` : ''}`;
    return v.tone ? `<span class="${v.tone}">${text}</span>` : text;
  }
  if ('time' in v) return when(v.time);
  if ('flag' in v) return yes(v.flag, v.good);
  return (
    (v.error ? `<div class="err">${esc(truncate(v.error, MAX_ERROR_CHARS))}</div>` : '') + (v.note ? `<div class="warn">${esc(v.note)}</div>` : '')
  );
}

/**
 * A source's section: a <details> with its heading (and how many rows hold a fault), open only when
 * one does, and a table (the last value of a short row spans the columns left), or why it is empty.
 * Each cell carries its column's name, shown before it when the table stacks on a phone.
 */
function sectionHtml(section: PageSection, when: When): string {
  if (section.rows.length === 0) return fold(section.title, '', false, `<p class="dim">${esc(section.empty)}</p>`);
  const faulty = section.rows.filter((row) => row.values.some(isFault)).length;
  const width = section.columns ? section.columns.length - 1 : 1;
  const head = section.columns ? `<thead><tr>${section.columns.map((c) => `<th>${esc(c)}</th>`).join('')}</tr></thead>` : '';
  const rows = section.rows.map((row) => {
    const cells = row.values.map((v, i) => {
      const span = i === row.values.length - 1 && row.values.length < width ? ` colspan="${width - i}"` : '';
      const column = section.columns?.[i + 1];
      const attrs = `${'number' in v ? ' class="n"' : ''}${column && !span ? ` data-col="${esc(column)}"` : ''}${span}`;
      return `<td${attrs}>${valueHtml(v, when)}</td>`;
    });
    return `<tr${row.values.some(isFault) ? ' class="fault"' : ''}><td>${esc(row.label)}</td>${cells.join('')}</tr>`;
  });
  const note =
    faulty > 0
      ? ` <span class="bad">· ${faulty} of ${section.rows.length} with a fault</span>`
      : ` <span class="dim">· ${section.rows.length} ${section.rows.length === 1 ? 'row' : 'rows'}</span>`;
  return fold(
    section.title,
    note,
    faulty > 0,
    `<table class="sec${section.columns ? '' : ' kv'}">${head}<tbody>\n${rows.join('\n')}\n</tbody></table>`,
  );
}
