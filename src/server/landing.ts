// The landing page: links, and the nodes with their state (first failing ones).
import type { NodeSummary } from '../scheduler/poller.js';

const MAX_ROWS = 500;

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function state(n: NodeSummary): { rank: number; text: string; cls: string } {
  if (n.up === undefined) return { rank: 2, text: 'waiting for first poll', cls: 'wait' };
  if (!n.up) return { rank: 0, text: 'down', cls: 'bad' };
  if (!n.healthy) return { rank: 1, text: 'unhealthy', cls: 'warn' };
  return { rank: 3, text: 'healthy', cls: 'ok' };
}

export function landingPage(nodes: NodeSummary[], info: { version: string; configOrigin: string; shard?: { index: number; count: number } }): string {
  const rows = nodes
    .map((n) => ({ n, s: state(n) }))
    .sort((a, b) => a.s.rank - b.s.rank || a.n.name.localeCompare(b.n.name));
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.s.text, (counts.get(r.s.text) ?? 0) + 1);
  const summary = [...counts].map(([k, v]) => `${v} ${esc(k)}`).join(', ') || 'no targets';
  const body = rows
    .slice(0, MAX_ROWS)
    .map(
      ({ n, s }) =>
        `<tr><td><a href="probe?target=${encodeURIComponent(n.name)}">${esc(n.name)}</a></td><td>${esc(n.url)}</td>` +
        `<td class="${s.cls}">${esc(s.text)}</td><td>${esc(n.failingChecks.join(', '))}</td><td>${esc(n.lastError ?? '')}</td></tr>`,
    )
    .join('\n');
  const more = rows.length > MAX_ROWS ? `<p>… and ${rows.length - MAX_ROWS} more (the worst states are listed first).</p>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>AvalancheGo Exporter</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}
.ok{color:#1a7f37}.warn{color:#9a6700}.bad{color:#cf222e;font-weight:bold}.wait{color:#57606a}</style></head>
<body><h1>AvalancheGo Exporter</h1>
<p>Version ${esc(info.version)} · configuration: ${esc(info.configOrigin)}${info.shard && info.shard.count > 1 ? ` · shard ${info.shard.index} of ${info.shard.count}: the nodes below are the ones this replica owns` : ''}</p>
<ul><li><a href="metrics">/metrics</a>: every node's series and the exporter's own</li>
<li><code>/probe?target=&lt;name&gt;</code>: one node's series (multi-target scraping)</li>
<li><a href="-/healthy">/-/healthy</a> · <a href="-/ready">/-/ready</a> · <code>POST /-/reload</code></li></ul>
<h2>Nodes: ${summary}</h2>
<table><thead><tr><th>node</th><th>url</th><th>state</th><th>failing checks</th><th>last poll error</th></tr></thead>
<tbody>
${body}
</tbody></table>${more}
</body></html>
`;
}
