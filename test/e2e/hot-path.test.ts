// The fleet-scale hot path (issue 10), end to end on loopback: /metrics streamed
// with the exporter's own series first and gzip when accepted, the poll-start
// delay histogram, and the socket budget toward nodes.
import { gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyError } from '../../src/rpc/errors.js';
import { Admission, CONNECTIONS_PER_NODE } from '../../src/rpc/admission.js';
import { NodeClient, RequestBodies } from '../../src/rpc/client.js';
import { Dispatchers } from '../../src/rpc/sockets.js';
import { parseConfigText } from '../../src/sources/registry.js';
import { defined } from '../helpers/assert.js';
import { startFakeNode, type FakeNode } from '../helpers/fake-node.js';
import { nodeSeries, sample, startTestExporter, waitForPolls, type TestExporter } from '../helpers/exporter.js';

// Set by beforeAll; undefined when it failed part-way (afterAll closes what was started).
let a: FakeNode | undefined;
let b: FakeNode | undefined;
let exporter: TestExporter | undefined;

beforeAll(async () => {
  const routes = {
    '/ext/health': { fixture: 'health/healthy-v1.14.2.json' },
    '/ext/index/C/block': { fixture: 'index/getLastAccepted-C-block.json' },
  };
  a = await startFakeNode(routes);
  b = await startFakeNode(routes);
  exporter = await startTestExporter(`
defaults:
  interval: 4s
  timeout: 2s
  index: { endpoints: [C/block] }
  info: { enabled: false }
  platform: { enabled: false }
targets:
  - { name: a, url: '${a.url}' }
  - { name: b, url: '${b.url}' }
`);
  await waitForPolls(exporter, 1, 20_000);
});

afterAll(async () => {
  await exporter?.close();
  await a?.close();
  await b?.close();
});

/** The series of an exposition without their values (a poll may end between two scrapes). */
const shape = (text: string): string => text.replace(/ [^ \n]+$/gm, '');

async function scrape(headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') {
  const res = await request(`${defined(exporter, 'the exporter').url}/metrics`, { method, headers });
  return { status: res.statusCode, headers: res.headers, body: Buffer.from(await res.body.arrayBuffer()) };
}

describe('/metrics at fleet scale', () => {
  it('streams the exporter series first, then every node family, identical to the one-piece render', async () => {
    const plain = await scrape();
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const text = plain.body.toString();
    const nodes = nodeSeries(defined(exporter, 'the exporter').scheduler);
    expect(shape(text).endsWith(shape(nodes))).toBe(true);
    expect(text.indexOf('avalanchego_exporter_poll_start_delay_seconds_count')).toBeLessThan(text.indexOf('avalanchego_up{'));
  });

  it('gzips when the scraper accepts it, and only then', async () => {
    const gz = await scrape({ 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers.vary).toBe('Accept-Encoding');
    const text = gunzipSync(gz.body).toString();
    expect(shape(text).endsWith(shape(nodeSeries(defined(exporter, 'the exporter').scheduler)))).toBe(true);
    expect(gz.body.length).toBeLessThan(text.length / 3);
    const refused = await scrape({ 'accept-encoding': 'gzip;q=0, identity' });
    expect(refused.headers['content-encoding']).toBeUndefined();
  });

  it('answers HEAD with the headers and no body', async () => {
    const head = await scrape({}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toMatch(/^text\/plain; version=0.0.4/);
    expect(head.body.length).toBe(0);
  });

  it('counts every poll start in avalanchego_exporter_poll_start_delay_seconds (no node label)', async () => {
    const text = await defined(exporter, 'the exporter').metrics();
    // Two nodes, two sources each, at least one poll each.
    expect(sample(text, 'avalanchego_exporter_poll_start_delay_seconds_count')).toBeGreaterThanOrEqual(4);
    expect(text).toMatch(/^avalanchego_exporter_poll_start_delay_seconds_bucket\{le="0\.005"\} \d+$/m);
    expect(text).not.toMatch(/^avalanchego_exporter_poll_start_delay_seconds_bucket\{node=/m);
    expect(sample(text, 'avalanchego_exporter_file_descriptor_errors_total')).toBe(0);
  });
});

describe('socket budget', () => {
  it('allows 2 connections per node to an origin, so nodes behind one gateway get their share', () => {
    const d = new Admission(Infinity, new Dispatchers({ maxConnections: 5 }).maxConnections);
    d.setLayout(['http://10.0.0.1:9650', 'http://gw.example:8080/node-1', 'http://gw.example:8080/node-2', 'http://gw.example:8080/node-3']);
    expect(d.connectionsFor('http://10.0.0.1:9650')).toBe(CONNECTIONS_PER_NODE);
    // Three nodes behind the gateway: 6, capped by the global budget.
    expect(d.connectionsFor('http://gw.example:8080')).toBe(5);
    // Never more connections to one origin than requests may be in flight.
    d.setLayout(['http://gw.example:8080/node-1', 'http://gw.example:8080/node-2'], 3);
    expect(d.connectionsFor('http://gw.example:8080')).toBe(3);
    expect(new Dispatchers({ maxConnections: 100 }).maxConnections).toBe(100);
    // Without a setting, the budget comes from the open-files limit.
    expect(new Dispatchers().maxConnections).toBeGreaterThanOrEqual(64);
  });

  it('a connection past the budget fails at once with reason connect and a message that says what to do', async () => {
    const dispatchers = new Dispatchers({ maxConnections: 1 });
    const admission = new Admission(10, dispatchers.maxConnections);
    dispatchers.sizePoolsBy(admission);
    const config = parseConfigText(
      `targets:\n  - { name: a, url: '${defined(a, 'fake node a').url}' }\n  - { name: b, url: '${defined(b, 'fake node b').url}' }\n`,
      'test.yaml',
      {},
    );
    admission.setLayout(config.targets.map((t) => t.url));
    const ta = defined(config.targets[0], 'target a');
    const tb = defined(config.targets[1], 'target b');
    const poll = { signal: AbortSignal.timeout(2000) };
    try {
      // The first node's keep-alive connection takes the whole budget.
      const first = await new NodeClient(ta, dispatchers, admission.node(ta.url), new RequestBodies()).rpc('/ext/health', 'health.health', {}, poll);
      expect(first.status).toBe(200);
      expect(dispatchers.openConnections).toBe(1);
      const err = await new NodeClient(tb, dispatchers, admission.node(tb.url), new RequestBodies())
        .rpc('/ext/health', 'health.health', {}, poll)
        .catch((e: unknown) => e);
      const failure = classifyError(err, { url: tb.url, timeoutMs: 2000 });
      expect(failure.reason).toBe('connect');
      expect(failure.message).toMatch(/1 connections open to nodes, its budget \(1/);
      expect(failure.message).toMatch(/ulimit -n/);
    } finally {
      await dispatchers.close();
    }
  });

  it('sends the same request body every poll, built once, with an id the answer must echo', async () => {
    const dispatchers = new Dispatchers();
    const nodeA = defined(a, 'fake node a');
    const config = parseConfigText(`targets:\n  - { name: a, url: '${nodeA.url}' }\n`, 'test.yaml', {});
    const bodies = new RequestBodies();
    const ta = defined(config.targets[0], 'target a');
    const client = new NodeClient(ta, dispatchers, new Admission(4).node(ta.url), bodies);
    const within = () => ({ signal: AbortSignal.timeout(2000) });
    const before = nodeA.requests.length;
    const one = await client.rpc('/ext/health', 'health.health', {}, within());
    const two = await client.rpc('/ext/health', 'health.health', {}, within());
    const other = await client.rpc('/ext/index/C/block', 'index.getLastAccepted', { encoding: 'hex' }, within());
    await dispatchers.close();
    expect(one.id).toBe(two.id);
    expect(other.id).not.toBe(one.id);
    const sent = nodeA.requests.slice(before).map((r) => r.body);
    expect(sent[0]).toBe(sent[1]);
    expect(JSON.parse(defined(sent[0], 'the first request body'))).toEqual({ jsonrpc: '2.0', id: one.id, method: 'health.health', params: {} });
    expect(JSON.parse(defined(sent[2], 'the third request body'))).toEqual({
      jsonrpc: '2.0',
      id: other.id,
      method: 'index.getLastAccepted',
      params: { encoding: 'hex' },
    });
    // Params JSON cannot encode: a rejected promise, as for any failed request, never a synchronous throw.
    const bad = client.rpc('/ext/health', 'health.health', { n: 1n }, within());
    await expect(bad).rejects.toThrow(/BigInt/);
  });
});
