// Every way a node can answer badly: each maps to a bounded reason, sets
// avalanchego_up 0, leaves no stale data series, and never stops the exporter.
import { describe, expect, it } from 'vitest';
import { fixtureText, startFakeNode, waitFor, type FakeNode, type Route } from '../helpers/fake-node.js';
import { closeAfterEach, sample, startTestExporter, waitForPolls, type TestExporter } from '../helpers/exporter.js';
import { freePort } from '../helpers/net.js';
import { defined } from '../helpers/assert.js';

let node: FakeNode | undefined;
let exporter: TestExporter | undefined;

closeAfterEach(
  () => [exporter, node],
  () => (exporter = node = undefined),
);

const config = (url: string, extra = '') => `
defaults:
  interval: 300ms
  timeout: 150ms
  info: { enabled: false }
  platform: { enabled: false }
  chain_info: { enabled: false }
  evm: { enabled: false }
targets:
  - name: n
    url: ${url}
${extra}`;

const rpcError = (message: string) => JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message, data: null }, id: 1 }) + '\n';

describe('health poll failures', () => {
  const cases: Array<[string, Route, string]> = [
    ['timeout (answers after the deadline)', { fixture: 'health/healthy-v1.14.2.json', delayMs: 1000 }, 'timeout'],
    ['timeout (headers sent, the body stalls)', { fixture: 'health/healthy-v1.14.2.json', stallBody: true }, 'timeout'],
    ['connection accepted then closed without an answer', { drop: true }, 'connect'],
    ['HTTP 403 invalid host specified', { status: 403, body: 'invalid host specified\n', contentType: 'text/plain; charset=utf-8' }, 'host_rejected'],
    ['HTTP 404 (health API off)', { status: 404, body: '404 page not found\n', contentType: 'text/plain; charset=utf-8' }, 'http_status'],
    ['HTTP 405', { status: 405, body: 'rpc: POST method required, received GET', contentType: 'text/plain' }, 'http_status'],
    ['HTTP 415', { status: 415, body: 'rpc: unrecognized Content-Type: text/plain', contentType: 'text/plain' }, 'http_status'],
    [
      'HTTP 502 from a proxy with an HTML page',
      { status: 502, body: '<html><body>Bad Gateway</body></html>', contentType: 'text/html' },
      'http_status',
    ],
    [
      'an HTML page with status 200',
      { body: '<!doctype html><html><body>Welcome to nginx!</body></html>', contentType: 'text/html' },
      'invalid_response',
    ],
    ['truncated JSON', { body: '{"jsonrpc":"2.0","result":{"checks":{"C":{"mess' }, 'invalid_response'],
    ['an empty body', { body: '' }, 'invalid_response'],
    ['a JSON-RPC error', { body: rpcError('rpc: can\'t find service "health.health"') }, 'rpc_error'],
    ['wrong types in the result', { body: '{"jsonrpc":"2.0","result":{"checks":[],"healthy":"yes"},"id":1}\n' }, 'invalid_response'],
    ['a result that is null', { body: '{"jsonrpc":"2.0","result":null,"id":1}\n' }, 'invalid_response'],
    ['JSON that is not JSON-RPC', { body: '[1,2,3]\n' }, 'invalid_response'],
  ];

  it.each(cases.map(([name, route, reason]) => ({ name, route, reason })))('$name → reason $reason', async ({ route, reason }) => {
    node = await startFakeNode({ '/ext/health': route });
    exporter = await startTestExporter(config(node.url, '    index: { endpoints: [] }'));
    await waitForPolls(exporter);
    const text = await exporter.metrics();
    expect(sample(text, 'avalanchego_up{node="n"}')).toBe(0);
    expect(sample(text, `avalanchego_exporter_poll_errors_total{node="n",source="health",reason="${reason}"}`)).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'avalanchego_exporter_poll_success{node="n",source="health"}')).toBe(0);
    expect(text).not.toContain('avalanchego_healthy{');
    // The failure is logged once with its reason, at warn.
    expect(exporter.logs.filter((l) => l.msg === 'poll failed' && l.reason === reason)).toHaveLength(1);
  });

  it('connection refused → reason connect', async () => {
    const port = await freePort();
    exporter = await startTestExporter(config(`http://127.0.0.1:${port}`, '    index: { endpoints: [] }'));
    await waitForPolls(exporter);
    const text = await exporter.metrics();
    expect(sample(text, 'avalanchego_up{node="n"}')).toBe(0);
    expect(sample(text, 'avalanchego_exporter_poll_errors_total{node="n",source="health",reason="connect"}')).toBeGreaterThanOrEqual(1);
  });

  it('after a failed poll the old "healthy" is gone; it comes back when the node recovers', async () => {
    node = await startFakeNode({ '/ext/health': { fixture: 'health/healthy-v1.14.2.json' } });
    exporter = await startTestExporter(config(node.url, '    index: { endpoints: [] }'));
    await waitForPolls(exporter);
    expect(sample(await exporter.metrics(), 'avalanchego_healthy{node="n"}')).toBe(1);

    node.routes.set('/ext/health', { status: 503, body: 'down for maintenance' });
    const failed = await waitFor(async () => {
      const t = await defined(exporter, 'the exporter').metrics();
      return sample(t, 'avalanchego_up{node="n"}') === 0 ? t : undefined;
    }, 'up 0');
    expect(failed).not.toMatch(/avalanchego_(healthy|health_check_passing|chain_last_accepted_height)\{/);
    expect(sample(failed, 'avalanchego_exporter_last_success_timestamp_seconds{node="n",source="health"}')).toBeGreaterThan(0);

    node.routes.set('/ext/health', { fixture: 'health/healthy-v1.14.2.json' });
    await waitFor(async () => sample(await defined(exporter, 'the exporter').metrics(), 'avalanchego_healthy{node="n"}') === 1, 'recovery');
    expect(exporter.logs.some((l) => l.msg === 'poll recovered')).toBe(true);
  });

  it('keeps polling and serving while a node is broken (no crash, errors counted per poll)', async () => {
    node = await startFakeNode({ '/ext/health': { body: 'garbage' } });
    exporter = await startTestExporter(config(node.url, '    index: { endpoints: [] }'));
    await waitForPolls(exporter, 3);
    const text = await exporter.metrics();
    expect(sample(text, 'avalanchego_exporter_poll_errors_total{node="n",source="health",reason="invalid_response"}')).toBeGreaterThanOrEqual(3);
    // Repeats are at debug, the change of state at warn.
    expect(exporter.logs.filter((l) => l.msg === 'poll failed')).toHaveLength(1);
    expect(exporter.logs.filter((l) => l.msg === 'poll failed again').length).toBeGreaterThanOrEqual(2);
  });
});

describe('index poll', () => {
  const health = { '/ext/health': { fixture: 'health/healthy-v1.14.2.json' } as Route };

  it('HTTP 404 is "indexing off": available 0, not a failure, logged once', async () => {
    node = await startFakeNode(health);
    exporter = await startTestExporter(config(node.url, '    index: { endpoints: [C/block, X/tx] }'));
    await waitForPolls(exporter, 2);
    const text = await exporter.metrics();
    expect(sample(text, 'avalanchego_index_available{node="n",endpoint="C/block"}')).toBe(0);
    expect(sample(text, 'avalanchego_exporter_poll_success{node="n",source="index"}')).toBe(1);
    expect(text).not.toContain('poll_errors_total{node="n",source="index"');
    expect(sample(text, 'avalanchego_up{node="n"}')).toBe(1);
    expect(exporter.logs.filter((l) => String(l.msg).startsWith('index endpoint answers HTTP 404'))).toHaveLength(2);
  });

  it('HTTP 404 on /ext/health and on every index endpoint is a wrong URL, not "indexing off"', async () => {
    // A URL that is no node's base (a proxy prefix that does not exist here): every path 404s.
    node = await startFakeNode(health);
    exporter = await startTestExporter(config(`${node.url}/node-7`, '    index: { endpoints: [C/block, X/tx] }'));
    await waitForPolls(exporter, 2);
    const text = await exporter.metrics();
    expect(text).not.toContain('avalanchego_index_available{');
    expect(sample(text, 'avalanchego_exporter_poll_success{node="n",source="index"}')).toBe(0);
    expect(sample(text, 'avalanchego_exporter_poll_errors_total{node="n",source="index",reason="http_status"}')).toBeGreaterThanOrEqual(1);
    expect(exporter.logs.filter((l) => String(l.msg).startsWith('index endpoint answers HTTP 404'))).toHaveLength(0);
    const failed = exporter.logs
      .filter((l) => l.msg === 'poll failed')
      .map((l) => String((l.err as { message?: string } | undefined)?.message ?? l.error));
    expect(failed.join('\n')).toContain(`${node.url}/node-7 is not an AvalancheGo node's base URL`);
    expect(failed.join('\n')).toContain("no health API there: check that the target's url is the node's base URL");
  });

  it('"no containers have been accepted" is an empty index, not a failure', async () => {
    node = await startFakeNode({ ...health, '/ext/index/X/tx': { fixture: 'index/empty-index.json' } });
    exporter = await startTestExporter(config(node.url, '    index: { endpoints: [X/tx] }'));
    await waitForPolls(exporter);
    const text = await exporter.metrics();
    expect(sample(text, 'avalanchego_index_accepted_containers{node="n",endpoint="X/tx"}')).toBe(0);
    expect(text).not.toContain('avalanchego_index_last_accepted_index{');
    expect(sample(text, 'avalanchego_exporter_poll_success{node="n",source="index"}')).toBe(1);
  });

  it("one endpoint failing fails the poll but keeps the others' values", async () => {
    node = await startFakeNode({
      ...health,
      '/ext/index/C/block': { fixture: 'index/getLastAccepted-C-block.json' },
      '/ext/index/P/block': { fixture: 'index/getLastAccepted-P-block.json', delayMs: 1000 },
    });
    exporter = await startTestExporter(config(node.url, '    index: { endpoints: [C/block, P/block] }'));
    await waitForPolls(exporter);
    const text = await exporter.metrics();
    expect(sample(text, 'avalanchego_index_last_accepted_index{node="n",endpoint="C/block"}')).toBe(51234566);
    expect(text).not.toContain('endpoint="P/block"');
    expect(sample(text, 'avalanchego_exporter_poll_success{node="n",source="index"}')).toBe(0);
    expect(sample(text, 'avalanchego_exporter_poll_errors_total{node="n",source="index",reason="timeout"}')).toBeGreaterThanOrEqual(1);
    // Health is a separate source: unaffected.
    expect(sample(text, 'avalanchego_up{node="n"}')).toBe(1);
  });

  it('a JSON-RPC error other than the empty index is rpc_error', async () => {
    node = await startFakeNode({ ...health, '/ext/index/C/block': { body: rpcError('rpc: can\'t find method "index.GetLastAccepted"') } });
    exporter = await startTestExporter(config(node.url, '    index: { endpoints: [C/block] }'));
    await waitForPolls(exporter);
    expect(sample(await exporter.metrics(), 'avalanchego_exporter_poll_errors_total{node="n",source="index",reason="rpc_error"}')).toBe(1);
  });

  it('requests carry the JSON-RPC envelope, the tags, the headers and basic auth', async () => {
    node = await startFakeNode({ ...health, '/ext/index/C/block': { fixture: 'index/getLastAccepted-C-block.json' } });
    exporter = await startTestExporter(
      config(
        node.url,
        `    index: { endpoints: [C/block] }
    health: { tags: [11111111111111111111111111111111LpoYY] }
    headers: { X-Team: infra }
    basic_auth: { username: mon, password: pw }`,
      ),
    );
    await waitForPolls(exporter);
    const healthReq = defined(
      node.requests.find((r) => r.path === '/ext/health'),
      'the health request',
    );
    expect(JSON.parse(healthReq.body)).toMatchObject({
      jsonrpc: '2.0',
      method: 'health.health',
      params: { tags: ['11111111111111111111111111111111LpoYY'] },
    });
    expect(healthReq.headers['content-type']).toBe('application/json');
    expect(healthReq.headers['x-team']).toBe('infra');
    expect(healthReq.headers.authorization).toBe(`Basic ${Buffer.from('mon:pw').toString('base64')}`);
    const indexReq = defined(
      node.requests.find((r) => r.path === '/ext/index/C/block'),
      'the index request',
    );
    expect(JSON.parse(indexReq.body)).toMatchObject({ method: 'index.getLastAccepted', params: { encoding: 'hex' } });
  });

  it('a base URL with a path prefix is kept', async () => {
    const body = fixtureText('health/healthy-v1.14.2.json');
    node = await startFakeNode({ '/nodes/a/ext/health': { body } });
    exporter = await startTestExporter(config('PLACEHOLDER/nodes/a/', '    index: { endpoints: [] }').replace('PLACEHOLDER', node.url));
    await waitForPolls(exporter);
    expect(sample(await exporter.metrics(), 'avalanchego_up{node="n"}')).toBe(1);
  });
});

describe("the exporter's own HTTP endpoints", () => {
  it('answers bad requests with clear 4xx messages', async () => {
    node = await startFakeNode({ '/ext/health': { fixture: 'health/healthy-v1.14.2.json' } });
    exporter = await startTestExporter(config(node.url, '    index: { endpoints: [] }'));
    const get = (path: string, init?: RequestInit) => fetch(`${defined(exporter, 'the exporter').url}${path}`, init);
    let res = await get('/probe');
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('missing parameter "target"');
    res = await get('/probe?target=http://169.254.169.254/');
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('not a URL');
    res = await get(`/probe?target=${'x'.repeat(5000)}`);
    expect(res.status).toBe(404);
    expect((await res.text()).length).toBeLessThan(400);
    res = await get('/probe?target=a&target=b');
    expect(res.status).toBe(400);
    res = await get('/metrics', { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    res = await get('/-/reload');
    expect(res.status).toBe(405);
    res = await get('/nope');
    expect(res.status).toBe(404);
    res = await get('/-/healthy');
    expect(res.status).toBe(200);
    await waitForPolls(exporter);
    res = await get('/-/ready');
    expect(res.status).toBe(200);
    res = await get('/');
    const html = await res.text();
    expect(html).toContain('<td class="state ok">healthy <span class="dim">for ');
    expect(html).toContain('href="node/n"');
  });

  it('/-/ready is 503 until every target has been polled once', async () => {
    node = await startFakeNode({ '/ext/health': { fixture: 'health/healthy-v1.14.2.json', delayMs: 100 } });
    exporter = await startTestExporter(config(node.url, '    index: { endpoints: [] }').replace('300ms', '10s').replace('150ms', '5s'));
    const first = await fetch(`${exporter.url}/-/ready`);
    // The first poll is spread over the 10s interval; it may or may not have run yet.
    if (first.status === 503) expect(await first.text()).toContain('waiting for the first poll of 1 target');
    await waitForPolls(exporter, 1, 15_000);
    expect((await fetch(`${exporter.url}/-/ready`)).status).toBe(200);
  });
});
