// The posture source (src/sources/admin.ts) against a loopback node: off by default;
// when on, only the read-only admin.getLoggerLevel and index.getLastAccepted are sent;
// an admin API or index that is off is a state (0), not a failed poll.
import { describe, expect, it } from 'vitest';
import { closeAfterEach, startTestExporter, waitForPolls, sample, type TestExporter } from '../helpers/exporter.js';
import { startFakeNode, type FakeNode, type Route } from '../helpers/fake-node.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';

let exporter: TestExporter | undefined;
let node: FakeNode | undefined;
closeAfterEach(
  () => [exporter, node],
  () => (exporter = node = undefined),
);

const HEALTH: Route = { fixture: 'health/healthy-v1.14.2.json' };
const levels = (l: Record<string, [string, string]>) =>
  JSON.stringify({
    jsonrpc: '2.0',
    result: { loggerLevels: Object.fromEntries(Object.entries(l).map(([k, [log, display]]) => [k, { logLevel: log, displayLevel: display }])) },
    id: 1,
  });
const config = (url: string, admin: string) =>
  `defaults:\n  interval: 1s\n  timeout: 500ms\n  index: { endpoints: [] }\n  info: { enabled: false }\n  platform: { enabled: false }\n${admin}targets:\n  - name: n\n    url: ${url}\n`;

describe('admin (posture) source', () => {
  it('is off by default: no request to /ext/admin', async () => {
    node = await startFakeNode({ '/ext/health': HEALTH });
    exporter = await startTestExporter(config(node.url, ''));
    await waitForPolls(exporter);
    expect(node.requests.some((r) => r.path === '/ext/admin')).toBe(false);
    expect(await exporter.metrics()).not.toContain('avalanchego_admin_api_enabled{');
  });

  interface Row {
    name: string;
    routes: Record<string, Route>;
    expected: { admin: number; indexing: number; lines: string[] };
  }
  it.each<Row>([
    {
      name: 'admin API on, a logger left on DEBUG, indexing on',
      routes: {
        '/ext/admin': { body: levels({ C: ['INFO', 'INFO'], P: ['DEBUG', 'INFO'], main: ['VERBO', 'WEIRD'] }) },
        '/ext/index/C/block': { body: '{"jsonrpc":"2.0","error":{"code":-32000,"message":"no containers have been accepted"},"id":1}' },
      },
      expected: {
        admin: 1,
        indexing: 1,
        lines: [
          'avalanchego_logger_level{node="n",output="log",level="debug"} 1',
          'avalanchego_logger_level{node="n",output="log",level="verbo"} 1',
          'avalanchego_logger_level{node="n",output="display",level="info"} 2',
          'avalanchego_logger_level{node="n",output="display",level="unknown"} 1',
        ],
      },
    },
    { name: 'admin API and indexing off (HTTP 404)', routes: {}, expected: { admin: 0, indexing: 0, lines: [] } },
    {
      name: 'admin API without the method (older node)',
      routes: { '/ext/admin': { body: '{"jsonrpc":"2.0","error":{"code":-32601,"message":"rpc: can\'t find method admin.getLoggerLevel"},"id":1}' } },
      expected: { admin: 0, indexing: 0, lines: [] },
    },
  ])('$name', async ({ routes, expected }) => {
    node = await startFakeNode({ '/ext/health': HEALTH, ...routes });
    exporter = await startTestExporter(config(node.url, '  admin: { enabled: true, interval: 1s }\n'));
    await waitForPolls(exporter);
    const text = await exporter.metrics();
    expect(sample(text, 'avalanchego_admin_api_enabled{node="n"}')).toBe(expected.admin);
    expect(sample(text, 'avalanchego_indexing_enabled{node="n"}')).toBe(expected.indexing);
    expect(sample(text, 'avalanchego_exporter_poll_success{node="n",source="admin"}')).toBe(1);
    for (const line of expected.lines) expect(text).toContain(line);
    if (expected.admin === 0) expect(text).not.toContain('avalanchego_logger_level{');
    // Read-only: the only admin method ever sent.
    const adminMethods = node.requests.filter((r) => r.path === '/ext/admin').map((r) => (JSON.parse(r.body) as { method: string }).method);
    expect(new Set(adminMethods)).toEqual(new Set(['admin.getLoggerLevel']));
    expect(promtoolCheckMetrics(text)).toEqual([]);
  });
});
