// What the exporter asks of a node with no settings but its URL, measured on a
// simulated node, and what the README and config.example.yaml say it asks: each
// source's requests and how many a node a minute. An operator behind a proxy
// that passes only some APIs, or one counting the load on a node, reads those
// lines; a source on by default that they do not list is a surprise after an
// upgrade (the evm source was).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { spreadFraction } from '../../src/scheduler/scheduler.js';
import { parseConfigText } from '../../src/sources/registry.js';
import { defined } from '../helpers/assert.js';
import { waitFor } from '../helpers/fake-node.js';
import { sample, startTestExporter, type TestExporter } from '../helpers/exporter.js';

let simulator: RunningSimulator | undefined;
let exporter: TestExporter | undefined;
let proxy: Server | undefined;

afterEach(async () => {
  await exporter?.close();
  if (proxy) await new Promise((resolve) => defined(proxy, 'the proxy').close(resolve));
  proxy?.closeAllConnections();
  await simulator?.close();
  exporter = proxy = simulator = undefined;
});

/** The source that sends `method` to `path`. */
function sourceOf(path: string, method: string): string {
  if (path === '/ext/health') return 'health';
  if (path === '/ext/info') return method === 'info.getBlockchainID' ? 'chain_info' : 'info';
  if (path === '/ext/admin') return 'admin';
  if (path.startsWith('/ext/index/')) return 'index';
  if (path.endsWith('/proposervm')) return 'proposervm';
  if (path.endsWith('/rpc')) return 'evm';
  if (path.startsWith('/ext/bc/')) return 'platform';
  throw new Error(`a request to ${path}, which no source sends`);
}

/** A loopback HTTP proxy in front of the node that notes each request (path and body without its id). */
async function recordingProxy(upstream: string, seen: Array<{ path: string; method: string; params: string }>): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const parsed = JSON.parse(body) as { method: string; params: unknown };
      seen.push({ path: req.url ?? '', method: parsed.method, params: JSON.stringify(parsed.params) });
      fetch(`${upstream}${req.url ?? ''}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(
        async (r) => res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'text/plain' }).end(await r.text()),
        () => res.destroy(),
      );
    });
  });
  proxy = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The documents' paragraph `Default requests, a node a minute (N in all): source N (…), …` (a comment block in YAML), as one line. */
function paragraph(text: string, where: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /requests, a node a minute/.test(l));
  expect(start, `${where}: the paragraph "Default requests, a node a minute (N in all): …"`).toBeGreaterThanOrEqual(0);
  const comment = lines[start]?.trimStart().startsWith('#') ?? false;
  const out: string[] = [];
  for (const l of lines.slice(start)) {
    if (l.trim() === '' || (comment && !l.trimStart().startsWith('#'))) break;
    out.push(l.replace(/^\s*#\s?/, ''));
  }
  return out.join(' ');
}

/** `source N (…)` pairs of the documents' paragraph, and its total `(N in all)`. */
function documented(text: string, where: string): { total: number; perSource: Map<string, { count: number; said: string }> } {
  const line = paragraph(text, where);
  const total = Number(defined(/\((\d+) in all\)/.exec(line), `${where}: "(N in all)"`)[1]);
  const perSource = new Map(
    [...line.matchAll(/\b([a-z_]+) (\d+) \(([^)]*)\)/g)].map((m) => [m[1] ?? '', { count: Number(m[2]), said: m[3] ?? '' }] as const),
  );
  return { total, perSource };
}

describe('the requests a node gets with the default settings', () => {
  it('are those the README and config.example.yaml list, as many a minute as they say', async () => {
    simulator = await startSimulator({ nodes: 1, validator: true, checkFrequencyMs: 200 });
    const seen: Array<{ path: string; method: string; params: string }> = [];
    const url = await recordingProxy(defined(simulator.nodes[0], 'the node').baseUrl, seen);
    // The name whose first polls start soonest (a fleet's first polls spread over the interval).
    const name = defined(
      ['n', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'node', 'validator'].sort((x, y) => spreadFraction(x) - spreadFraction(y))[0],
      'a name',
    );
    const yaml = `targets:\n  - name: ${name}\n    url: ${url}\n`;
    const target = defined(parseConfigText(yaml, 'test.yaml', {}).targets[0], 'the target');
    exporter = await startTestExporter(yaml);
    const running = ['health', 'index', 'info', 'platform', 'evm', 'proposervm', 'admin', 'chain_info'].filter((s) =>
      defined(exporter, 'the exporter')
        .scheduler.detail(name)
        ?.sources.some((d) => d.name === s),
    );
    await waitFor(
      async () => {
        const text = await defined(exporter, 'the exporter').metrics();
        return running.every((s) => sample(text, `avalanchego_exporter_poll_success{node="${name}",source="${s}"}`) !== undefined);
      },
      'a poll of every source that runs by default',
      30_000,
    );
    const detail = defined(exporter.scheduler.detail(name), 'the node');
    // One poll of each: its distinct requests (a poll asks each once; a fact another source offers is not asked again).
    const perPoll = new Map<string, Set<string>>();
    for (const r of seen) {
      const source = sourceOf(r.path, r.method);
      perPoll.set(source, (perPoll.get(source) ?? new Set()).add(`${r.path} ${r.method} ${r.params}`));
    }
    const measured = new Map(
      [...perPoll].map(([source, requests]) => {
        const intervalMs = defined(
          detail.sources.find((s) => s.name === source),
          `source ${source}`,
        ).intervalMs;
        return [source, { count: (requests.size * 60_000) / intervalMs, methods: new Set([...requests].map((r) => r.split(' ')[1] ?? '')) }] as const;
      }),
    );
    expect(target.intervalMs).toBe(15_000);
    const total = [...measured.values()].reduce((sum, m) => sum + m.count, 0);

    for (const [file, text] of [
      ['README.md', readFileSync('README.md', 'utf8')],
      ['config.example.yaml', readFileSync('config.example.yaml', 'utf8')],
    ] as const) {
      const doc = documented(text, file);
      expect(doc.total, `${file}: the total`).toBe(total);
      expect(new Set(doc.perSource.keys()), `${file}: the sources listed`).toEqual(new Set(measured.keys()));
      for (const [source, m] of measured) {
        const said = defined(doc.perSource.get(source), `${file}: ${source}`);
        expect(said.count, `${file}: ${source}'s requests a minute`).toBe(m.count);
        // Each method it sends is named (`info.*` names a whole service; a later method may drop its service's prefix).
        for (const method of m.methods) {
          const [service, name] = method.includes('.') ? method.split('.') : [undefined, method];
          expect(
            said.said.includes(method) || said.said.includes(`${service}.*`) || said.said.includes(name),
            `${file}: ${source} names ${method}`,
          ).toBe(true);
        }
      }
    }
  });
});
