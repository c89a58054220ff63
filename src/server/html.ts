// What the status pages share: escaping, the page frame, times and bounded text. Every
// value from a node or the config goes through esc(); nothing is inserted unescaped.
import type { NodeStatus } from '../sources/source.js';
import { showInvisible } from '../util/visible.js';

export function esc(text: string): string {
  // Bidi and zero-width characters are written out (⟨U+202E⟩): they would let a node spoof a check name.
  return showInvisible(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** "3m 20s", "2h 5m", "4d 1h": a duration for people, from seconds. */
export function humanDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`;
}

/**
 * A time as "5m 2s ago" with the UTC time in a tooltip; "never" when undefined. A time no date can hold (the parsers
 * refuse them; this is the page's own guard) is shown as such, and `onBadTime` told, never thrown: one bad value of
 * a node once made its whole page a 500.
 */
export function ago(seconds: number | undefined, nowSeconds: number, onBadTime?: (seconds: number) => void): string {
  if (seconds === undefined) return '<span class="dim">never</span>';
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime())) {
    onBadTime?.(seconds);
    return `<span class="bad">not a time (${esc(String(seconds))})</span>`;
  }
  const iso = date.toISOString();
  const delta = nowSeconds - seconds;
  const text = delta >= 0 ? `${humanDuration(delta)} ago` : `in ${humanDuration(-delta)}`;
  return `<time datetime="${esc(iso)}" title="${esc(iso)}">${esc(text)}</time>`;
}

export function num(n: number | undefined, digits = 0): string {
  if (n === undefined || Number.isNaN(n)) return '<span class="dim">–</span>';
  return n.toLocaleString('en-US', { maximumFractionDigits: digits });
}

const STYLE = `body{font-family:system-ui,sans-serif;margin:1.5em;color:#1f2328}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #d0d7de;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.name,td.state,td.when{white-space:nowrap}td.v{min-width:14em}td.n{text-align:right;font-variant-numeric:tabular-nums}
.ok{color:#1a7f37}.warn{color:#9a6700}.bad{color:#cf222e;font-weight:bold}.wait,.dim{color:#57606a}
.err{white-space:pre-wrap;font-family:ui-monospace,monospace;font-size:.85em;color:#cf222e;max-width:60em;overflow-wrap:anywhere}
pre{background:#f6f8fa;padding:.8em;overflow:auto;max-width:100%}nav a{margin-right:1em}
ul.faults{margin:.4em 0 .8em;padding-left:1.2em}ul.faults li{margin:.15em 0}.ident{overflow-wrap:anywhere}
details.sec{border-top:1px solid #d0d7de;padding:.3em 0}details.sec>summary{cursor:pointer}summary h2{display:inline;font-size:1.1em;margin:0}
details.sec>table,details.sec>p{margin:.5em 0 .8em}tr.fault>td:first-child{font-weight:bold}
@media (max-width:640px){body{margin:.6em}h1{font-size:1.2em;margin:.3em 0}.intro{font-size:.85em;margin:.2em 0}
p.head{margin:.2em 0}summary h2{font-size:1em}ul.faults .err{display:-webkit-box;-webkit-line-clamp:3;-webkit-box-orient:vertical;overflow:hidden}
table.sec thead{display:none}table.sec,table.sec tbody{display:block}table.sec tr{display:flex;flex-wrap:wrap;gap:0 .8em;border-top:1px solid #d0d7de;padding:.3em 0}
table.sec td{display:block;border:0;padding:.05em 0}table.sec td:first-child,table.sec td:has(.err){flex-basis:100%}table.sec td:first-child{font-weight:600}table.sec td.n{text-align:left}
table.sec td[data-col]::before{content:attr(data-col)": ";color:#57606a;font-weight:normal}table.sec td:empty{display:none}
table.fleet thead{display:none}table.fleet,table.fleet tbody{display:block}
table.fleet tr{display:flex;flex-wrap:wrap;gap:0 .6em;border-top:1px solid #d0d7de;padding:.35em 0}
table.fleet td{display:block;border:0;padding:0}table.fleet td.n::before{content:attr(data-chain)" ";color:#57606a}
table.fleet td.v{flex-basis:100%}table.fleet td.v div{display:inline;margin-right:.6em}table.fleet td:empty{display:none}
table.fleet .err{display:-webkit-box;-webkit-line-clamp:2;-webkit-box-orient:vertical;overflow:hidden}
table.fleet td.checks>div:nth-child(n+3){display:none}td,th{overflow-wrap:anywhere}pre{white-space:pre-wrap}table{max-width:100%}}`;

/**
 * The page frame: title, navigation, and an optional auto-refresh. Links are relative
 * (`root` is the way back to `/`: '' or '../'), so the pages work behind a reverse proxy
 * that serves the exporter under a path prefix.
 */
export function page(title: string, body: string, options: { refreshSeconds?: number; root?: string; metricsPath?: string } = {}): string {
  const root = options.root ?? '';
  const metrics = (options.metricsPath ?? '/metrics').slice(1);
  const refresh = options.refreshSeconds ? `<meta http-equiv="refresh" content="${options.refreshSeconds}">` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${refresh}<title>${esc(title)}</title>
<style>${STYLE}</style></head>
<body><nav><a href="${root || './'}">fleet</a><a href="${root}${esc(metrics)}">/${esc(metrics)}</a><a href="${root}config">/config</a><a href="${root}-/ready">/-/ready</a></nav>
${body}
</body></html>
`;
}

/** How the pages show each status, with its rank (worst first); `waiting`: no answer from the status source yet. */
const STATES: Record<NodeStatus | 'waiting', { rank: number; text: string; cls: string }> = {
  down: { rank: 0, text: 'down', cls: 'bad' },
  unhealthy: { rank: 1, text: 'unhealthy', cls: 'warn' },
  // Catching up after a start: expected, not a fault to page on; below the faults, above healthy.
  bootstrapping: { rank: 2, text: 'bootstrapping', cls: 'wait' },
  waiting: { rank: 3, text: 'waiting for first poll', cls: 'wait' },
  healthy: { rank: 4, text: 'healthy', cls: 'ok' },
};

/** The node's state as the pages show it, with its rank (worst first): read from the status the node state keeps. */
export function nodeState(n: { status?: NodeStatus }): { rank: number; text: string; cls: string } {
  return STATES[n.status ?? 'waiting'];
}

/** The relative URL of a node's page from the page at `root`. */
export function nodeHref(name: string, root = ''): string {
  return `${root}node/${encodeURIComponent(name)}`;
}
