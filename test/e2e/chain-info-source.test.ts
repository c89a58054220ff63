// The chain_info source (src/sources/chain-info.ts) end to end, on by default: the exporter asks a
// simulated node for the IDs of its X- and C-Chain (info.getBlockchainID) and serves avalanchego_chain_info of
// P, X and C with the alias as `chain`, the label every other series carries, so a series that names a chain by
// its ID joins them; a node that does not give the IDs fails the poll, one whose info API is not served is a
// state; the parser refuses what is not a blockchain ID.
import { describe, expect, it } from 'vitest';
import { PRIMARY_NETWORK_ID } from '../../src/config/schema.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { CHAINS } from '../../src/simulator/chain.js';
import { parseChainIdReply } from '../../src/sources/chain-info.js';
import type { RpcReply } from '../../src/rpc/client.js';
import { closeAfterEach, sample, startTestExporter, waitForPolls, type TestExporter } from '../helpers/exporter.js';
import { startFakeNode, type FakeNode } from '../helpers/fake-node.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';
import { defined } from '../helpers/assert.js';

let exporter: TestExporter | undefined;
let sim: RunningSimulator | undefined;
let fake: FakeNode | undefined;
closeAfterEach(
  () => [exporter, sim, fake],
  () => (exporter = sim = fake = undefined),
);

const ON = '  chain_info: { enabled: true, interval: 1s }\n';
const config = (url: string, chainInfo = ON) =>
  `defaults:\n  interval: 1s\n  timeout: 500ms\n  index: { endpoints: [] }\n  info: { enabled: false }\n  platform: { enabled: false }\n  evm: { enabled: false }\n${chainInfo}targets:\n  - name: n\n    url: ${url}\n`;

const reply = (body: string): RpcReply => ({
  status: 200,
  body,
  url: 'http://127.0.0.1:1/ext/info',
  method: 'info.getBlockchainID',
  id: 1,
  headers: {},
});

describe('chain_info source', () => {
  it('on: each primary chain by its alias, with its blockchain ID and the primary network; a second poll too', async () => {
    sim = await startSimulator({});
    exporter = await startTestExporter(config(defined(sim.nodes[0], 'node-0').baseUrl));
    await waitForPolls(exporter, 2);
    const text = await exporter.metrics();
    expect(sample(text, 'avalanchego_exporter_poll_success{node="n",source="chain_info"}')).toBe(1);
    for (const alias of ['P', 'X', 'C'] as const)
      expect(
        sample(
          text,
          `avalanchego_chain_info{node="n",chain="${alias}",name="${alias}",blockchain_id="${CHAINS[alias].chainId}",subnet="${PRIMARY_NETWORK_ID}"}`,
        ),
        alias,
      ).toBe(1);
    expect(text.match(/^avalanchego_chain_info\{/gm)).toHaveLength(3);
    expect(promtoolCheckMetrics(text)).toEqual([]);
  });

  it('on by default: with no setting, the IDs are asked and served', async () => {
    sim = await startSimulator({});
    exporter = await startTestExporter(config(defined(sim.nodes[0], 'node-0').baseUrl, ''));
    await waitForPolls(exporter);
    const text = await exporter.metrics();
    expect(sample(text, 'avalanchego_exporter_poll_success{node="n",source="chain_info"}')).toBe(1);
    expect(
      sample(text, `avalanchego_chain_info{node="n",chain="C",name="C",blockchain_id="${CHAINS.C.chainId}",subnet="${PRIMARY_NETWORK_ID}"}`),
    ).toBe(1);
  });

  it('off (enabled: false): never asked, no series', async () => {
    fake = await startFakeNode({ '/ext/health': { fixture: 'health/healthy-v1.14.2.json' } });
    exporter = await startTestExporter(config(fake.url, '  chain_info: { enabled: false }\n'));
    await waitForPolls(exporter);
    expect(fake.requests.some((r) => r.path === '/ext/info')).toBe(false);
    expect(await exporter.metrics()).not.toContain('avalanchego_chain_info{');
  });

  it('a node that does not give the IDs: the poll fails with its reason, no series', async () => {
    fake = await startFakeNode({
      '/ext/health': { fixture: 'health/healthy-v1.14.2.json' },
      '/ext/info': { body: '{"jsonrpc":"2.0","error":{"code":-32000,"message":"there is no ID with alias: X","data":null},"id":1}' },
    });
    exporter = await startTestExporter(config(fake.url));
    await waitForPolls(exporter);
    const text = await exporter.metrics();
    expect(sample(text, 'avalanchego_exporter_poll_success{node="n",source="chain_info"}')).toBe(0);
    expect(sample(text, 'avalanchego_exporter_poll_errors_total{node="n",source="chain_info",reason="rpc_error"}')).toBeGreaterThan(0);
    expect(text).not.toContain('avalanchego_chain_info{');
  });

  it('the info API not served (HTTP 404): a state, the poll succeeds, no series', async () => {
    fake = await startFakeNode({ '/ext/health': { fixture: 'health/healthy-v1.14.2.json' } });
    exporter = await startTestExporter(config(fake.url));
    await waitForPolls(exporter);
    const text = await exporter.metrics();
    expect(sample(text, 'avalanchego_exporter_poll_success{node="n",source="chain_info"}')).toBe(1);
    expect(text).not.toContain('avalanchego_chain_info{');
    expect(text).not.toContain('source="chain_info",reason=');
  });

  it.each([
    ['not an ID', '{"jsonrpc":"2.0","id":1,"result":{"blockchainID":"C-Chain"}}'],
    ['a bad checksum', '{"jsonrpc":"2.0","id":1,"result":{"blockchainID":"2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q6"}}'],
    ['no ID', '{"jsonrpc":"2.0","id":1,"result":{}}'],
    ['a megabyte', `{"jsonrpc":"2.0","id":1,"result":{"blockchainID":"${'2'.repeat(1_000_000)}"}}`],
  ])('the parser refuses %s as invalid_response, its text bounded', (_what, body) => {
    let error: unknown;
    try {
      parseChainIdReply('C', reply(body));
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ name: 'InvalidResponseError' });
    expect((error as Error).message.length).toBeLessThan(200);
  });
});
