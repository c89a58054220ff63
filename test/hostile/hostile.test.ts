// Hostile input, one table: what a broken, misconfigured or compromised node
// answers (bodies, headers, sizes), what a client sends to the exporter's port
// (slow or half-open connections, huge headers and bodies, malformed requests),
// and config files that are not files. Every row asserts the same things: the
// exporter keeps running and answering, avalanchego_up and the poll metrics say
// what happened with a bounded reason, no stale data series, promtool check
// metrics is clean, and memory stays bounded.
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REASONS } from '../../src/rpc/errors.js';
import { loadWebConfigFile, parseWebConfigText } from '../../src/web/config.js';
import { parseConfigText } from '../../src/sources/registry.js';
import { bcryptHash } from '../helpers/tls.js';
import { startTestExporter, waitForPolls, sample, type TestExporter } from '../helpers/exporter.js';
import { fixtureText, startFakeNode, waitFor, type FakeNode, type Route } from '../helpers/fake-node.js';
import { defined } from '../helpers/assert.js';
import { get } from '../helpers/https.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';
import { startSimulator } from '../../src/simulator/index.js';

/** A node that answers every request with the same raw bytes (not necessarily HTTP). */
async function rawNode(bytes: string): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
    s.once('data', () => s.end(bytes));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const HEALTHY = JSON.parse(fixtureText('health/healthy-v1.14.2.json')) as { result: { checks: Record<string, unknown>; healthy: boolean } };
const health = (checks: Record<string, unknown>, healthy = true) => JSON.stringify({ jsonrpc: '2.0', result: { checks, healthy }, id: 1 });
const nestedText = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const indexAnswer = (index: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    result: { id: '2fRa8uUVXBdUmiXyThT1wZAjcvT5qHC9CPgFgXSk4WtuhoAbC3', bytes: '0x00', timestamp: '2026-11-20T10:15:02Z', encoding: 'hex', index },
    id: 1,
  });

interface NodeCase {
  name: string;
  /** The fake node's routes, or raw bytes for a node that does not speak HTTP properly. */
  routes?: Record<string, Route>;
  raw?: string;
  index?: string[];
  limits?: string;
  /** More keys of the target (YAML lines, indented as under the target). */
  target?: string;
  /** avalanchego_up after the poll. */
  up: 0 | 1;
  /** The health or index poll's failure reason, when it fails. */
  reason?: (typeof REASONS)[number];
  source?: 'health' | 'index' | 'info' | 'platform';
  check(metrics: string, exporter: TestExporter, node: FakeNode | undefined): void | Promise<void>;
}

const manyChecks = Object.fromEntries(
  Array.from({ length: 20_000 }, (_, i) => [
    `check-${i}`,
    { message: {}, timestamp: '2026-11-20T10:15:02Z', duration: 1000, contiguousFailures: 0, timeOfFirstFailure: null },
  ]),
);

const HUGE = '9'.repeat(400);
const ECHOED_KEY = 'k3y-0f-the-0perat0r-5ecret';
const ECHOED_PASSWORD = 'hunter2-pa55w0rd';
const NODE_ID = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const NO_METHOD = JSON.stringify({ jsonrpc: '2.0', error: { code: -32601, message: "rpc: can't find method" }, id: 1 });

const ECHOED_TOKEN = Buffer.from(`ops:${ECHOED_PASSWORD}`).toString('base64');
const ECHOED_SECRETS = [ECHOED_KEY, ECHOED_PASSWORD, ECHOED_TOKEN];
const WITH_SECRETS = `    headers: { X-Api-Key: ${ECHOED_KEY} }\n    basic_auth: { username: ops, password: ${ECHOED_PASSWORD} }\n`;
/** Every source on, each asking one path: health, index, info, platform, evm, proposervm, admin. */
const EVERY_SOURCE = '    evm: { chains: [C] }\n    proposervm: { chains: [C] }\n    admin: { enabled: true }\n';
const SOURCE_PATHS = ['/ext/health', '/ext/index/C/block', '/ext/info', '/ext/bc/P', '/ext/bc/C/rpc', '/ext/bc/C/proposervm', '/ext/admin'];
const rpcError = (message: string) => JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: 1 });
/**
 * Every source's path answers `route`, except that info.getNodeID answers the node ID (so the platform source asks
 * its own path too) and info's other methods answer `infoError` (the info path answers JSON-RPC).
 */
const onEveryPath = (route: Route, infoError: string): Record<string, Route> => ({
  ...Object.fromEntries(SOURCE_PATHS.map((path) => [path, route])),
  '/ext/info': { body: rpcError(infoError), methods: { 'info.getNodeID': { nodeID: NODE_ID, nodePOP: null } } },
});
const echo = `a proxy echoes the request: X-Api-Key ${ECHOED_KEY}, Authorization: Basic ${ECHOED_TOKEN} (${ECHOED_PASSWORD})`;
/** The node's answer shown cut (an error body's first 200 characters): the key straddles the cut. */
const echoAtTheCut = `${'x'.repeat(170)} X-Api-Key ${ECHOED_KEY}, Authorization: Basic ${ECHOED_TOKEN} (${ECHOED_PASSWORD})`;

/** The echoed secrets, or their first 8 characters, appear nowhere a person or a log reader sees: /, /node/n, a debug probe, the log. */
async function expectNoSecretShown(exporter: TestExporter, node: FakeNode | undefined): Promise<void> {
  // The echo went through every source's path.
  const asked = new Set(defined(node, 'the fake node').requests.map((r) => r.path));
  for (const path of SOURCE_PATHS) expect(asked, path).toContain(path);
  const nodePage = (await get(`${exporter.url}/node/n`)).body;
  const shown: Record<string, string> = {
    '/': (await get(`${exporter.url}/`)).body,
    '/node/n': nodePage,
    '/probe?target=n&debug=true': (await get(`${exporter.url}/probe?target=n&debug=true`)).body,
    log: exporter.rawLogs(),
  };
  for (const [where, text] of Object.entries(shown)) for (const secret of ECHOED_SECRETS) expect(text, where).not.toContain(secret.slice(0, 8));
  // Shown masked, not left out: the node page has the node's text with the marker.
  expect(nodePage).toContain('&#60;secret&#62;');
}

/** The longest line of the log, in bytes. */
const longestLogLine = (exporter: TestExporter) =>
  Math.max(
    ...exporter
      .rawLogs()
      .split('\n')
      .map((l) => Buffer.byteLength(l)),
  );

const NODE_CASES: NodeCase[] = [
  {
    name: 'a node reporting 20,000 checks: series capped at limits.max_series_per_node, with a metric and a log line',
    routes: { '/ext/health': { body: health(manyChecks) } },
    limits: 'limits: { max_series_per_node: 1000 }',
    up: 1,
    check(metrics, exporter) {
      expect(metrics.split('\n').filter((l) => l.startsWith('avalanchego_health_check_') && l.includes('node="n"')).length).toBeLessThanOrEqual(1000);
      // One budget per node: every source's data series together (the poll metrics aside).
      expect(
        metrics.split('\n').filter((l) => l.startsWith('avalanchego_') && !l.startsWith('avalanchego_exporter_') && l.includes('node="n"')).length,
      ).toBeLessThanOrEqual(1000);
      expect(sample(metrics, 'avalanchego_exporter_series_dropped{node="n",source="health"}')).toBeGreaterThan(0);
      expect(exporter.logs.some((l) => l.msg === "series limit reached: the node's series are truncated" && l.level === 40)).toBe(true);
    },
  },
  {
    name: 'a 10 KB check name is served cut to limits.max_label_length',
    routes: {
      '/ext/health': {
        body: health({
          ...HEALTHY.result.checks,
          ['x'.repeat(10_000)]: { message: {}, timestamp: '2026-11-20T10:15:02Z', duration: 1, contiguousFailures: 0, timeOfFirstFailure: null },
        }),
      },
    },
    up: 1,
    check(metrics) {
      const longest = Math.max(...[...metrics.matchAll(/check="([^"]*)"/g)].map((m) => defined(m[1], 'a check label').length));
      expect(longest).toBeLessThanOrEqual(256);
      expect(metrics).toContain(`check="${'x'.repeat(255)}…"`);
    },
  },
  {
    name: "malformed HTTP from the node is the node's fault: invalid_response",
    raw: 'HELLO THIS IS NOT HTTP\r\n\r\n',
    up: 0,
    reason: 'invalid_response',
    check: () => {},
  },
  {
    name: '100 KB of response headers: invalid_response',
    raw: `HTTP/1.1 200 OK\r\nX-Junk: ${'a'.repeat(100_000)}\r\nContent-Length: 2\r\n\r\n{}`,
    up: 0,
    reason: 'invalid_response',
    check: () => {},
  },
  {
    name: 'a deeply nested JSON-RPC error object: invalid_response or rpc_error, never internal',
    routes: { '/ext/health': { body: `{"jsonrpc":"2.0","error":{"code":-32000,"message":"x","data":${nestedText(100_000)}},"id":1}` } },
    up: 0,
    source: 'health',
    check(metrics) {
      expect(metrics).not.toContain('reason="internal"');
    },
  },
  {
    name: 'a deeply nested id: invalid_response, never internal',
    routes: { '/ext/health': { body: `{"jsonrpc":"2.0","result":${JSON.stringify(HEALTHY.result)},"id":${nestedText(100_000)}}` } },
    up: 0,
    source: 'health',
    check(metrics) {
      expect(metrics).not.toContain('reason="internal"');
    },
  },
  {
    name: 'an 8 MB error message does not become an 8 MB log line or landing page',
    routes: { '/ext/health': { body: JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'E'.repeat(8 << 20) }, id: 1 }) } },
    up: 0,
    reason: 'rpc_error',
    check(_metrics, exporter) {
      expect(
        Math.max(
          ...exporter
            .rawLogs()
            .split('\n')
            .map((l) => l.length),
        ),
      ).toBeLessThan(10_000);
    },
  },
  {
    name: 'a negative height is not served as is',
    routes: { '/ext/health': { body: JSON.stringify(HEALTHY).replace(/"lastAcceptedHeight":\d+/g, '"lastAcceptedHeight":-5') } },
    up: 1,
    check(metrics) {
      expect(metrics).not.toMatch(/avalanchego_chain_last_accepted_height\{[^}]*\} -/);
    },
  },
  {
    name: 'an index above 2^64 sent as a string is refused, not served as 1e+26',
    routes: { '/ext/health': { fixture: 'health/healthy-v1.14.2.json' }, '/ext/index/C/block': { body: indexAnswer('100000000000000000000000000') } },
    index: ['C/block'],
    up: 1,
    reason: 'invalid_response',
    source: 'index',
    check(metrics) {
      expect(metrics).not.toContain('e+26');
      expect(metrics).not.toMatch(/avalanchego_index_last_accepted_index\{node="n"/);
    },
  },
  {
    name: 'numbers beyond uint64 (400 digits: network ID, weight, start and end time, fee price) are refused, never +Inf or network_id="Infinity"',
    routes: {
      '/ext/health': { fixture: 'health/healthy-v1.14.2.json' },
      '/ext/info': {
        body: NO_METHOD,
        methods: {
          'info.getNodeID': { nodeID: NODE_ID, nodePOP: null },
          'info.getNodeVersion': {
            version: 'avalanchego/1.14.2',
            databaseVersion: 'v1.4.5',
            rpcProtocolVersion: '42',
            gitCommit: '',
            vmVersions: {},
          },
          'info.getNetworkID': { networkID: HUGE },
        },
      },
      '/ext/bc/P': {
        body: NO_METHOD,
        methods: {
          'platform.getValidatorFeeState': { capacity: '20000', excess: '0', price: HUGE, timestamp: '2026-11-20T10:15:02Z' },
          'platform.getCurrentValidators': {
            validators: [
              { nodeID: NODE_ID, txID: 'x', startTime: HUGE, endTime: HUGE, weight: HUGE, potentialReward: HUGE, delegationFee: '2.0000' },
            ],
          },
        },
      },
    },
    up: 1,
    reason: 'invalid_response',
    source: 'platform',
    check(metrics) {
      const values = metrics.split('\n').filter((l) => l !== '' && !l.startsWith('#') && !l.includes('le="+Inf"'));
      expect(values.filter((l) => /Inf|Infinity|e\+/.test(l))).toEqual([]);
      expect(metrics).not.toContain('network_id=');
      expect(metrics).not.toMatch(/^avalanchego_validator_(weight|stake)/m);
    },
  },
  {
    name: 'a 1 MB node ID is refused: never sent back to the node, served or logged whole',
    routes: {
      '/ext/health': { fixture: 'health/healthy-v1.14.2.json', headers: { 'node-id': `NodeID-${'b'.repeat(8000)}` } },
      '/ext/info': { body: NO_METHOD, methods: { 'info.getNodeID': { nodeID: `NodeID-${'a'.repeat(1 << 20)}`, nodePOP: null } } },
      '/ext/bc/P': { body: NO_METHOD },
    },
    up: 1,
    reason: 'invalid_response',
    source: 'info',
    check(metrics, exporter, node) {
      expect(metrics).not.toContain('aaaaaaaaaa');
      expect(metrics).not.toContain('bbbbbbbbbb');
      expect(defined(node, 'the fake node').requests.filter((r) => r.body.includes('aaaaaaaaaa'))).toEqual([]);
      expect(
        Math.max(
          ...exporter
            .rawLogs()
            .split('\n')
            .map((l) => l.length),
        ),
      ).toBeLessThan(10_000);
    },
  },
  {
    name: 'bidi and zero-width characters in a check name and its error are shown written out on the pages; the pages carry a CSP and nosniff',
    routes: {
      '/ext/health': {
        body: health(
          {
            ...HEALTHY.result.checks,
            ['network\u202Ekrowten']: {
              message: {},
              error: 'fine\u200Bfine\u2066',
              timestamp: '2026-11-20T10:15:02Z',
              duration: 1,
              contiguousFailures: 1,
              timeOfFirstFailure: null,
            },
          },
          false,
        ),
      },
    },
    up: 1,
    async check(_metrics, exporter) {
      for (const path of ['/', '/node/n']) {
        const page = await get(`${exporter.url}${path}`);
        expect(page.status, path).toBe(200);
        expect(page.body, path).not.toMatch(/[\u200B-\u200F\u202A-\u202E\u2066-\u2069]/);
        expect(page.body, path).toContain('network⟨U+202E⟩krowten');
        expect(page.headers['content-security-policy'], path).toMatch(/default-src 'none'/);
        expect(page.headers['x-content-type-options'], path).toBe('nosniff');
      }
      expect((await get(`${exporter.url}/node/n`)).body).toContain('fine⟨U+200B⟩fine⟨U+2066⟩');
    },
  },
  {
    name: "a node that echoes the request's headers in its errors: the configured API key and basic-auth password never reach /, /node/n or the log",
    routes: {
      '/ext/health': {
        body: health(
          {
            ...HEALTHY.result.checks,
            echo: {
              message: {},
              error: `proxy says: X-Api-Key ${ECHOED_KEY} and Authorization: Basic ${Buffer.from(`ops:${ECHOED_PASSWORD}`).toString('base64')} refused (${ECHOED_PASSWORD})`,
              timestamp: '2026-11-20T10:15:02Z',
              duration: 1,
              contiguousFailures: 1,
              timeOfFirstFailure: null,
            },
          },
          false,
        ),
      },
      '/ext/info': { status: 401, body: `unauthorized: X-Api-Key ${ECHOED_KEY} is not known here` },
    },
    target: `    headers: { X-Api-Key: ${ECHOED_KEY} }\n    basic_auth: { username: ops, password: ${ECHOED_PASSWORD} }\n`,
    up: 1,
    async check(metrics, exporter) {
      const shown = [metrics, exporter.rawLogs(), (await get(`${exporter.url}/`)).body, (await get(`${exporter.url}/node/n`)).body];
      for (const text of shown) {
        expect(text).not.toContain(ECHOED_KEY);
        expect(text).not.toContain(ECHOED_PASSWORD);
      }
      expect((await get(`${exporter.url}/node/n`)).body).toContain('X-Api-Key &#60;secret&#62;');
    },
  },
  ...(
    [
      [
        "a proxy echoes the API key and the basic-auth password in a JSON-RPC error on every source's path",
        { body: rpcError(echo) },
        echo,
        'rpc_error',
      ],
      [
        "a proxy echoes them in an HTTP 401 body on every source's path, the key where the body is cut",
        { status: 401, body: echoAtTheCut, contentType: 'text/plain' },
        echoAtTheCut,
        'http_status',
      ],
    ] as const
  ).map(([name, route, infoError, reason]): NodeCase => ({
    name: `${name}: masked (whole and where cut) on /, /node/n, a debug probe and in the log`,
    routes: onEveryPath(route, infoError),
    index: ['C/block'],
    target: WITH_SECRETS + EVERY_SOURCE,
    up: 0,
    reason,
    check: (_metrics, exporter, node) => expectNoSecretShown(exporter, node),
  })),
  {
    name: 'a 6 MB JSON-RPC error message on every source: no log line reaches 64 KiB, and the node page stays small',
    routes: onEveryPath({ body: rpcError('E'.repeat(6 << 20)) }, 'I'.repeat(6 << 20)),
    index: ['C/block'],
    target: EVERY_SOURCE,
    up: 0,
    reason: 'rpc_error',
    async check(_metrics, exporter, node) {
      const asked = new Set(defined(node, 'the fake node').requests.map((r) => r.path));
      for (const path of SOURCE_PATHS) expect(asked, path).toContain(path);
      // Every source that fails on it logged its failure (so the test saw each one's line), and none is long. (The admin
      // source reads a JSON-RPC error of admin.getLoggerLevel as "the API is on": a state, with nothing of the text kept.)
      for (const source of ['health', 'index', 'info', 'platform', 'evm', 'proposervm'])
        expect(
          exporter.logs.some((l) => l.source === source && (l.level as number) >= 40),
          source,
        ).toBe(true);
      expect(longestLogLine(exporter)).toBeLessThan(64 * 1024);
      expect((await get(`${exporter.url}/node/n`)).body.length).toBeLessThan(200_000);
      expect((await get(`${exporter.url}/probe?target=n&debug=true`)).body.length).toBeLessThan(200_000);
    },
  },
  {
    name: 'a node with 1,000 new failing check names: the log holds 10 check lines a poll and "and 990 more", not 1,000',
    routes: {
      '/ext/health': {
        body: health(
          Object.fromEntries(
            Array.from({ length: 1_000 }, (_, i) => [
              `failing-${i}`,
              {
                message: {},
                error: 'E'.repeat(1_500),
                timestamp: '2026-11-20T10:15:02Z',
                duration: 1,
                contiguousFailures: 1,
                timeOfFirstFailure: null,
              },
            ]),
          ),
          false,
        ),
      },
    },
    up: 1,
    check(_metrics, exporter) {
      const lines = exporter.logs.filter((l) => l.node === 'n');
      expect(lines.filter((l) => l.msg === 'health check failing').length).toBe(10);
      expect(lines.some((l) => l.msg === 'and 990 more health check changes at this poll (not logged one by one)')).toBe(true);
      expect(
        Math.max(
          ...exporter
            .rawLogs()
            .split('\n')
            .map((l) => l.length),
        ),
      ).toBeLessThan(10_000);
    },
  },
];

/** Every poll failure reason in the exposition (the exporter's own skip reasons are not a node's). */
function pollReasons(metrics: string): string[] {
  return [...metrics.matchAll(/^(?!avalanchego_exporter_polls_skipped_total)[^\n]*reason="([^"]*)"/gm)].map((m) => defined(m[1], 'a reason'));
}

function config(url: string, c: Pick<NodeCase, 'index' | 'limits' | 'target'>): string {
  return `defaults:\n  interval: 2s\n  timeout: 1s\n  index: { endpoints: [${(c.index ?? []).join(', ')}] }\n${c.limits ? `  ${c.limits}\n` : ''}targets:\n  - name: n\n    url: ${url}\n${c.target ?? ''}`;
}

/** What every row asserts on the exporter's output after the hostile case. */
async function assertSound(
  exporter: TestExporter,
  c: { up: 0 | 1; reason?: string; source?: string },
  rssBefore: number,
  auth?: string,
): Promise<string> {
  const res = await get(`${exporter.url}/metrics`, auth ? { auth } : {});
  expect(res.status).toBe(200);
  const metrics = res.body;
  expect(sample(metrics, 'avalanchego_up{node="n"}')).toBe(c.up);
  for (const m of pollReasons(metrics)) expect(REASONS).toContain(m);
  if (c.reason) {
    const source = c.source ?? 'health';
    expect(
      sample(metrics, `avalanchego_exporter_poll_errors_total{node="n",source="${source}",reason="${c.reason}"}`),
      metrics.slice(0, 3000),
    ).toBeGreaterThan(0);
  } else if (c.source) {
    expect(sample(metrics, `avalanchego_exporter_poll_success{node="n",source="${c.source}"}`)).toBe(0);
  }
  // No stale data: a failed health poll leaves no chain or check series.
  if (c.up === 0) expect(metrics).not.toMatch(/^avalanchego_(chain|health_check)_[a-z_]*\{node="n"/m);
  expect(promtoolCheckMetrics(metrics)).toEqual([]);
  // The landing page stays bounded too.
  const landing = await get(`${exporter.url}/`, auth ? { auth } : {});
  expect(landing.status).toBe(200);
  expect(landing.body.length).toBeLessThan(200_000);
  expect(process.memoryUsage().rss - rssBefore).toBeLessThan(400 << 20);
  return metrics;
}

let exporter: TestExporter | undefined;
afterEach(async () => {
  await exporter?.close();
  exporter = undefined;
});

describe('hostile nodes', () => {
  it.each(NODE_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const rssBefore = process.memoryUsage().rss;
    const node = c.raw !== undefined ? await rawNode(c.raw) : await startFakeNode(c.routes);
    try {
      exporter = await startTestExporter(config(node.url, c), { level: 'debug' });
      await waitForPolls(exporter, 1, 20_000);
      const metrics = await assertSound(exporter, c, rssBefore);
      await c.check(metrics, exporter, c.raw === undefined ? (node as FakeNode) : undefined);
      // Node faults are not exporter bugs: no error-level stack trace.
      expect(exporter.logs.filter((l) => l.level === 50)).toEqual([]);
    } finally {
      await node.close();
    }
  });
});

describe('hostile clients and files', () => {
  let node: FakeNode | undefined;
  beforeAll(async () => {
    node = await startFakeNode({ '/ext/health': { fixture: 'health/healthy-v1.14.2.json' } });
  });
  afterAll(async () => {
    await node?.close();
  });

  const sockets: Socket[] = [];
  afterEach(() => {
    for (const s of sockets.splice(0)) s.destroy();
  });
  const open = async (port: number, first: string): Promise<Socket> => {
    const s = connect(port, '127.0.0.1');
    s.on('error', () => {});
    // Read (and drop) what the exporter sends, so that its close is seen.
    s.resume();
    sockets.push(s);
    await new Promise<void>((resolve) => s.once('connect', () => resolve()));
    if (first) s.write(first);
    return s;
  };
  /** Raw bytes to the exporter, and the status line it answers (or '' when it closes). */
  const raw = async (port: number, bytes: string): Promise<string> => {
    const s = await open(port, '');
    let answer = '';
    s.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    s.write(bytes);
    await new Promise<void>((resolve) => s.once('close', () => resolve()));
    return answer.split('\r\n')[0] ?? '';
  };

  /** Users of the web config of the rows that ask for one (bcrypt cost 8: slow enough for a flood to fill its share of the queue). */
  const USERS = ['alice', 'bob', 'carol'];
  const WEB_USERS = `basic_auth_users:\n${['mallory', ...USERS].map((u) => `  ${u}: ${bcryptHash(`${u}-pw`, '$2y$', 8)}\n`).join('')}`;
  const CLIENT_CASES: Array<[string, (port: number, url: string) => Promise<void>, string?]> = [
    [
      'slowloris: more half-open connections than the cap; /metrics and /probe still answer within 2 s',
      async (port, url) => {
        for (let i = 0; i < 80; i++) await open(port, 'GET /metrics HTTP/1.1\r\nHost: x\r\nX-a: ');
        expect((await get(`${url}/metrics`, { timeoutMs: 2_000 })).status).toBe(200);
        expect((await get(`${url}/probe?target=n`, { timeoutMs: 2_000 })).status).toBe(200);
      },
    ],
    [
      'a 100 KB request header: 431, connection closed',
      async (port) =>
        expect(await raw(port, `GET /metrics HTTP/1.1\r\nHost: x\r\nX-big: ${'a'.repeat(100_000)}\r\n\r\n`)).toBe(
          'HTTP/1.1 431 Request Header Fields Too Large',
        ),
    ],
    [
      'a 1 MB body to POST /-/reload: 413',
      async (port) =>
        expect(await raw(port, `POST /-/reload HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\nConnection: close\r\n\r\n${'a'.repeat(1000)}`)).toBe(
          'HTTP/1.1 413 Payload Too Large',
        ),
    ],
    [
      'an endless chunked body: the connection is closed',
      async (port) => {
        const s = await open(port, 'POST /-/reload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n');
        const closed = new Promise<void>((resolve) => s.once('close', () => resolve()));
        const chunk = `10000\r\n${'a'.repeat(0x10000)}\r\n`;
        for (let i = 0; i < 40 && !s.destroyed; i++) s.write(chunk);
        await closed;
      },
    ],
    ['a malformed request line: 400', async (port) => expect(await raw(port, 'GARBAGE\r\n\r\n')).toBe('HTTP/1.1 400 Bad Request')],
    [
      'a malformed escape in the path: 4xx in plain text, no stack trace',
      async (_port, url) => {
        const r = await get(`${url}/probe%zz`);
        expect(r.status).toBeGreaterThanOrEqual(400);
        expect(r.status).toBeLessThan(500);
        expect(r.body).not.toMatch(/at |<html/i);
      },
    ],
    [
      'a flood of wrong passwords from one address: 429 for the flood past its share; users whose password is not cached yet get in from another address, and polls go on',
      async (_port, url) => {
        const running = defined(exporter, 'the exporter');
        let stop = false;
        const answers = new Map<number, number>();
        const flood = Array.from({ length: 40 }, async () => {
          while (!stop) {
            const r = await get(`${url}/metrics`, { auth: 'mallory:wrong', localAddress: '127.0.0.2' }).catch(() => undefined);
            if (r) answers.set(r.status, (answers.get(r.status) ?? 0) + 1);
            // Back off a little when refused: enough to keep the share full, not so much CPU that the test measures itself.
            if (r?.status === 429) await new Promise((resolve) => setTimeout(resolve, 50));
          }
        });
        try {
          // The flooding address gets 429 once its share of the bcrypt queue is taken, while its checks still run (401).
          await waitFor(() => (answers.get(429) ?? 0) > 0 && (answers.get(401) ?? 0) > 0, 'the flood to be refused past its share', 15_000);
          // Each user, from 127.0.0.1, with a password not verified yet: in (200) within a bound while the flood goes on.
          for (const user of USERS) {
            const r = await get(`${url}/metrics`, { auth: `${user}:${user}-pw`, timeoutMs: 10_000 });
            expect(r.status, user).toBe(200);
            if (user === 'alice') expect(sample(r.body, 'avalanchego_exporter_password_checks_refused_total')).toBeGreaterThan(0);
          }
          // The event loop is not held by the password checks: the node's health is still polled (every 2 s) meanwhile.
          const healthPolls = () => running.scheduler.detail('n')?.sources.find((x) => x.name === 'health')?.polls ?? 0;
          const before = healthPolls();
          await waitFor(() => healthPolls() > before, 'a health poll during the flood', 10_000);
          expect(answers.get(429) ?? 0, 'the flood was still refused while the users got in').toBeGreaterThan(0);
        } finally {
          stop = true;
          await Promise.all(flood);
        }
      },
      WEB_USERS,
    ],
    [
      'debug probe hammer: back-to-back /probe?debug=true for 3 s polls the node for debugging at most once per interval (the floor), the rest get the last trace',
      async (_port, url) => {
        const fake = defined(node, 'the fake node');
        const before = fake.requests.filter((r) => r.path === '/ext/health').length;
        const until = Date.now() + 3_000;
        let answers = 0;
        await Promise.all(
          Array.from({ length: 8 }, async () => {
            while (Date.now() < until) {
              const r = await get(`${url}/probe?target=n&debug=true`);
              expect([200, 429]).toContain(r.status);
              if (r.status === 200) answers++;
            }
          }),
        );
        expect(answers).toBeGreaterThan(10);
        // Scheduled polls every 2 s (two in 3 s, one more at a boundary) and debug polls at most once per interval (two).
        expect(fake.requests.filter((r) => r.path === '/ext/health').length - before).toBeLessThanOrEqual(5);
      },
    ],
    [
      'headers.Authorization beside basic_auth on one target is refused, naming both keys (one would silently replace the other)',
      () => {
        expect(() =>
          parseConfigText(
            'targets:\n  - name: a\n    url: http://127.0.0.1:9650\n    headers: { Authorization: Bearer t }\n    basic_auth: { username: u, password: p }\n',
            'c.yaml',
            {},
          ),
        ).toThrow(/headers\.Authorization and basic_auth both set the Authorization header/);
        return Promise.resolve();
      },
    ],
    [
      'a web config that is /dev/zero or a FIFO is refused, not read forever',
      () => {
        expect(() => loadWebConfigFile('/dev/zero')).toThrow(/it is a device/);
        return Promise.resolve();
      },
    ],
  ];

  it.each(CLIENT_CASES)(
    '%s',
    async (_name, attack, web) => {
      const rssBefore = process.memoryUsage().rss;
      exporter = await startTestExporter(config(defined(node, 'the fake node').url, {}), {
        exporter: { maxConnections: 50, ...(web ? { webConfig: parseWebConfigText(web, 'web.yml', '.') } : {}) },
      });
      await waitForPolls(exporter);
      const port = Number(new URL(exporter.url).port);
      await attack(port, exporter.url);
      await waitFor(async () => (await get(`${defined(exporter, 'the exporter').url}/-/healthy`)).status === 200, 'exporter still answering');
      await assertSound(exporter, { up: 1 }, rssBefore, web ? 'alice:alice-pw' : undefined);
      // Each case bounds its own waits (the bcrypt flood: 15 s to be refused, 10 s a user, 10 s a poll);
      // the test's limit covers them on a loaded 2-core machine.
    },
    120_000,
  );
});

/**
 * Fleet layouts that starve a client with too few connections: the timeouts they cause are
 * the exporter's, not the nodes'. Each row: the simulator's nodes (one origin, path prefixes),
 * how they answer, the exporter's config, and how many complete polls of every node to watch.
 */
const LAYOUT_CASES: Array<{ name: string; nodes: number; answerMs: number; config: string; polls: number }> = [
  {
    // Measured before the socket budget: 8 connections to the gateway, 145–193 false timeouts.
    name: '60 nodes behind one gateway origin, each answer 400 ms: no false timeouts (connections follow the fleet, not 8 per origin)',
    nodes: 60,
    answerMs: 400,
    config: '  interval: 5s\n  timeout: 3s\n  info: { enabled: false }\n  platform: { enabled: false }\n  chain_info: { enabled: false }\n',
    polls: 3,
  },
  {
    // Measured before: 83–144 false timeouts (64 sockets to the origin, the wait for one counted as the node's time).
    name: '60 nodes behind one gateway origin, each answer 400 ms, 1 s timeout, info and platform on (the shipped sources): no false timeouts',
    nodes: 60,
    answerMs: 400,
    config: '  interval: 5s\n  timeout: 1s\n  info: { interval: 10s }\n  platform: { interval: 10s }\n',
    polls: 1,
  },
];

describe('hostile fleet layouts', () => {
  it.each(LAYOUT_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const rssBefore = process.memoryUsage().rss;
    const sim = await startSimulator({ nodes: c.nodes, scenario: 'slow', timings: { slowResponseMs: c.answerMs }, validator: false });
    try {
      const targets = sim.nodes.map((n) => `  - name: ${n.name}\n    url: ${n.baseUrl}\n`).join('');
      // Every node is behind the simulator's one origin (http://127.0.0.1:<port>/node-<i>).
      expect(new Set(sim.nodes.map((n) => new URL(n.baseUrl).origin)).size).toBe(1);
      exporter = await startTestExporter(`defaults:\n${c.config}targets:\n${targets}`, { level: 'info' });
      await waitForPolls(exporter, c.polls, 60_000);
      const res = await get(`${exporter.url}/metrics`);
      expect(res.status).toBe(200);
      const metrics = res.body;
      const errors = metrics.split('\n').filter((l) => l.startsWith('avalanchego_exporter_poll_errors_total{') && !l.endsWith(' 0'));
      expect(errors).toEqual([]);
      for (const n of sim.nodes) expect(sample(metrics, `avalanchego_up{node="${n.name}"}`), n.name).toBe(1);
      for (const m of pollReasons(metrics)) expect(REASONS).toContain(m);
      expect(promtoolCheckMetrics(metrics)).toEqual([]);
      expect(process.memoryUsage().rss - rssBefore).toBeLessThan(400 << 20);
    } finally {
      await sim.close();
    }
  });
});
