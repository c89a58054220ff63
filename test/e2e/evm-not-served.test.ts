// The evm source is on by default. A node that does not serve a chain's RPC (a
// partial-sync L1 validator runs no C-Chain; a proxy that passes only health,
// info and index) answers HTTP 404, or a gateway's JSON-RPC `chain not found`:
// that chain is "not served here", a state shown once, never a failed poll
// (which would open AvalancheGoPollsFailing after an upgrade).
import { describe, expect, it } from 'vitest';
import { startFakeNode, waitFor, type FakeNode } from '../helpers/fake-node.js';
import { closeAfterEach, sample, startTestExporter, waitForPolls, type TestExporter } from '../helpers/exporter.js';

let node: FakeNode | undefined;
let exporter: TestExporter | undefined;

closeAfterEach(
  () => [exporter, node],
  () => (exporter = node = undefined),
);

const L1 = '2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm';
const rpcError = (message: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32000, message } });
const eth = (result: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, result });

describe('evm: a chain the node does not serve', () => {
  it.each([
    ['the defaults (chains [C]), the C-Chain RPC 404', undefined, { '/ext/bc/C/rpc': undefined }],
    [
      'three chains: one 404, one "chain not found", one served',
      `[C, X2, ${L1}]`,
      { '/ext/bc/C/rpc': undefined, '/ext/bc/X2/rpc': { body: rpcError('chain not found: X2') }, [`/ext/bc/${L1}/rpc`]: { body: eth('0x1b4') } },
    ],
  ])('%s: the poll succeeds, the state is said once on the page and once in the log', async (_name, chains, rpcRoutes) => {
    const routes = Object.fromEntries(Object.entries(rpcRoutes).filter((e): e is [string, { body: string }] => e[1] !== undefined));
    node = await startFakeNode({ '/ext/health': { fixture: 'health/healthy-v1.14.2.json' }, ...routes });
    exporter = await startTestExporter(`
defaults:
  interval: 200ms
  timeout: 150ms
  index: { endpoints: [] }
  info: { enabled: false }
  platform: { enabled: false }
  chain_info: { enabled: false }
${chains === undefined ? '' : `  evm: { chains: ${chains} }\n`}targets:
  - name: n
    url: ${node.url}
`);
    await waitFor(() => (node?.requests.filter((r) => r.path === '/ext/bc/C/rpc').length ?? 0) >= 3, 'three evm polls of the node', 10_000);
    await waitForPolls(exporter, 3);
    const text = await exporter.metrics();
    expect(sample(text, 'avalanchego_exporter_poll_success{node="n",source="evm"}')).toBe(1);
    expect(text).not.toMatch(/avalanchego_exporter_poll_errors_total\{node="n",source="evm"/);
    expect(exporter.logs.filter((l) => l.msg === 'poll failed')).toEqual([]);
    // Only the chain that answered has an executed height.
    const heights = text.split('\n').filter((l) => l.startsWith('avalanchego_chain_executed_height{'));
    expect(heights).toEqual(chains === undefined ? [] : [`avalanchego_chain_executed_height{node="n",chain="${L1}"} 436`]);

    const notServed = Object.keys(rpcRoutes)
      .filter((p) => !(p in routes) || p === '/ext/bc/X2/rpc')
      .map((p) => p.split('/')[3]);
    // Logged when the state starts, not every poll.
    const said = exporter.logs.filter((l) => typeof l.msg === 'string' && l.msg.includes('is not served here'));
    expect(said.map((l) => l.chain).sort()).toEqual([...notServed].sort());
    expect(said.every((l) => l.level === 30)).toBe(true);
    // The node page says it once per chain, as a state (no error styling).
    const page = await exporter.metrics('/node/n');
    expect(page.split('not served here').length - 1).toBe(notServed.length);
    expect(page).not.toContain('HTTP 404 from');
  });
});
