// /l1/<subnet>: an L1 of `l1s:` as a whole: every validator (weight, balance, runway, active) with one column per
// vantage saying whether it sees the validator connected, worst first (sources/l1-set.ts l1Rows). Built from the last
// poll of the L1: no I/O. Readable at 420 px: the table folds into one block per validator, as the node page's do.
import { l1Rows, weightAtRisk, type L1View, type VantageState } from '../sources/l1-set.js';
import { ago, esc, humanDuration, num, page } from './html.js';

const NAVAX_PER_AVAX = 1e9;

const STATE_TEXT: Record<VantageState, string> = {
  ok: 'answers',
  not_served: 'its VM serves no validators API (HTTP 404): no connectivity from this node',
  unsupported: 'its VM has no validators.getCurrentValidators (method not found): no connectivity from this node',
  not_bootstrapped: 'the L1 chain is bootstrapping',
  failed: 'the validators API failed',
  not_asked: "not asked: the L1's chain is not known (set l1s[].chain)",
};

/** The href of an L1's page from `/`. */
export function l1Href(subnet: string): string {
  return `l1/${encodeURIComponent(subnet)}`;
}

export function l1Page(v: L1View, nowSeconds: number, metricsPath = '/metrics'): string {
  const title = v.name ?? v.subnet;
  const s = v.snapshot;
  const head = `<h1>L1 ${esc(title)}</h1>
<p class="dim ident">subnet ${esc(v.subnet)}${s?.chain ? ` · chain ${esc(s.chain.id)}` : ''} · polled every ${esc(humanDuration(v.intervalMs / 1000))}, last success ${ago(v.lastSuccessSeconds, nowSeconds)}</p>`;
  if (!s) {
    const why =
      v.vantages.length === 0
        ? 'No vantage: no target of this exporter lists this subnet in <code>platform.subnets</code>, and <code>l1s[].vantages</code> names none.'
        : v.error !== undefined
          ? `No vantage answered the validator set: <span class="err">${esc(v.error)}</span>`
          : 'Not polled yet.';
    return page(`L1 ${title} · AvalancheGo Exporter`, `${head}\n<p class="bad">${why}</p>`, { root: '../', metricsPath });
  }
  const rows = l1Rows(s);
  const total = s.validators.reduce((sum, m) => sum + m.weight, 0);
  const risk = weightAtRisk(s, rows);
  const inactive = rows.filter((r) => r.member.balance <= 0).length;
  const down = rows.filter((r) => r.down).length;
  const facts = [
    `${num(s.validators.length)} validators, weight ${num(total)}`,
    `<span class="${risk >= 0.25 ? 'bad' : risk > 0 ? 'warn' : 'ok'}">${num(risk * 100, 1)} % of the weight at risk</span> (inactive, a runway under 24 h, or down; from 25 % its consensus stops)`,
    ...(inactive > 0 ? [`<span class="bad">${num(inactive)} inactive</span>`] : []),
    ...(down > 0 ? [`<span class="bad">${num(down)} down</span> (disconnected for more than half of the vantages that see them)`] : []),
    `set read from ${esc(s.from)}${s.height !== undefined ? ` at P-Chain height ${num(s.height)}` : ''}${s.feePriceNavaxPerSecond !== undefined ? ` · fee ${num(s.feePriceNavaxPerSecond, 3)} nAVAX/s` : ''}`,
  ];
  const dropped = s.validators.length - Math.min(s.validators.length, s.maxValidators);
  const vantages = s.vantages
    .map((x) => {
      const tone = x.state === 'ok' ? 'ok' : x.state === 'failed' ? 'bad' : 'dim';
      return `<li><b>${esc(x.node)}</b>: <span class="${tone}">${esc(STATE_TEXT[x.state])}</span>${x.error ? ` <span class="err">${esc(x.error)}</span>` : ''}${x.height !== undefined ? ` <span class="dim">· P-Chain height ${num(x.height)}</span>` : ''}</li>`;
    })
    .join('');
  const body = rows
    .map((r) => {
      const m = r.member;
      const state =
        m.balance <= 0 ? '<span class="bad">inactive</span>' : r.down ? '<span class="bad">down</span>' : '<span class="ok">active</span>';
      const runway =
        r.runwaySeconds === undefined
          ? '<span class="dim">–</span>'
          : `<span class="${r.runwaySeconds < 86_400 ? 'bad' : r.runwaySeconds < 7 * 86_400 ? 'warn' : ''}">${esc(humanDuration(r.runwaySeconds))}</span>`;
      const cells = r.connected
        .map(
          (c, i) =>
            `<td data-col="${esc(s.vantages[i]?.node ?? '')}">${c === undefined ? '<span class="dim">–</span>' : c ? '<span class="ok">connected</span>' : '<span class="bad">disconnected</span>'}</td>`,
        )
        .join('');
      return (
        `<tr${m.balance <= 0 || r.down ? ' class="fault"' : ''}><td>${esc(m.nodeId)} <span class="dim">${esc(m.validationId)}</span></td><td data-col="state">${state}</td>` +
        `<td class="n" data-col="weight">${num(m.weight)}</td><td class="n" data-col="balance">${num(m.balance / NAVAX_PER_AVAX, 6)} AVAX</td><td data-col="runway">${runway}</td>${cells}</tr>`
      );
    })
    .join('\n');
  const html = `${head}
<ul class="faults">${facts.map((f) => `<li>${f}</li>`).join('')}</ul>
${dropped > 0 ? `<p class="warn">${num(dropped)} validators past max_validators (${num(s.maxValidators)}) get no per-validator series; they are listed here and counted in the totals.</p>` : ''}
<h2>Vantages</h2>
<ul>${vantages}</ul>
<h2>Validators, worst first</h2>
<table class="sec"><thead><tr><th>validator (node ID, validation ID)</th><th>state</th><th>weight</th><th>balance</th><th>runway</th>${s.vantages.map((x) => `<th>${esc(x.node)}</th>`).join('')}</tr></thead><tbody>
${body}
</tbody></table>`;
  return page(`L1 ${title} · AvalancheGo Exporter`, html, { root: '../', metricsPath });
}
