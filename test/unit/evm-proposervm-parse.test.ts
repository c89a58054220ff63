// The evm and proposervm sources' pure parsers: eth_blockNumber's hex quantity
// (go-ethereum's JSON-RPC answer) and proposervm.getCurrentEpoch's epoch
// (vms/proposervm/service.go GetEpochResponse), the states and the failures.
import { describe, expect, it } from 'vitest';
import type { RpcReply } from '../../src/rpc/client.js';
import { HttpStatusError, InvalidResponseError, RpcError } from '../../src/rpc/errors.js';
import { LinesBuilder } from '../../src/metrics/render.js';
import { renderNodes } from '../../src/metrics/scrape.js';
import { evm, evmSections, parseBlockNumber, parseChainReply } from '../../src/sources/evm.js';
import { parseEpochReply, proposervm } from '../../src/sources/proposervm.js';

const reply = (method: string, body: string, status = 200): RpcReply => ({
  url: 'http://127.0.0.1:9650/ext/bc/C/rpc',
  status,
  headers: {},
  body,
  method,
  id: 1,
});
const eth = (result: unknown) => reply('eth_blockNumber', JSON.stringify({ jsonrpc: '2.0', id: 1, result }));
const epochReply = (body: string) => reply('proposervm.getCurrentEpoch', body);
const L1 = '2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm';

function lines(add: (b: LinesBuilder) => void): string {
  const b = new LinesBuilder('n1');
  add(b);
  return renderNodes([[b.build()]])
    .toString()
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .join('\n');
}

describe('eth_blockNumber', () => {
  it.each([
    ['0x0', 0],
    ['0x1b4', 436],
    ['0x450f1ad', 72413613],
  ])('%s → %d', (hex, height) => {
    expect(parseBlockNumber(eth(hex))).toBe(height);
  });

  it.each([
    ['a decimal string', '436'],
    ['upper-case 0X', '0X1b4'],
    ['a leading zero', '0x01b4'],
    ['a number', 436],
    ['null', null],
    ['more than 64 bits', '0x10000000000000000'],
  ])('rejects %s', (_name, value) => {
    expect(() => parseBlockNumber(eth(value))).toThrow(InvalidResponseError);
  });

  it('a JSON-RPC error (non-array params) and an HTTP error are failures', () => {
    const error = reply('eth_blockNumber', '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"non-array args"}}');
    expect(() => parseBlockNumber(error)).toThrow(RpcError);
    expect(() => parseBlockNumber(reply('eth_blockNumber', '404 page not found\n', 404))).toThrow(HttpStatusError);
  });

  it.each([
    [
      'HTTP 404 (no such chain here: a partial-sync node, a proxy that passes only health, info and index)',
      reply('eth_blockNumber', '404 page not found\n', 404),
    ],
    [
      'a JSON-RPC "chain not found" (a gateway)',
      reply('eth_blockNumber', '{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Chain not found"}}'),
    ],
  ])('%s: not served here, a state, not a failure', (_name, answer) => {
    const chain = parseChainReply('C', answer);
    expect(chain).toEqual({ chain: 'C', state: 'not_served' });
    expect(evm.failure?.({ chains: [chain] })).toBeUndefined();
    expect(lines((b) => evm.samples(b, { chains: [chain] }))).toBe('');
    const shown = evmSections({ chains: [chain] })[0]?.rows[0]?.values[0];
    expect(shown && 'text' in shown ? shown.text : '').toMatch(/^not served here/);
  });

  it('another JSON-RPC error, or another HTTP status, stays a failure', () => {
    expect(() =>
      parseChainReply('C', reply('eth_blockNumber', '{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"block not found"}}')),
    ).toThrow(RpcError);
    expect(() => parseChainReply('C', reply('eth_blockNumber', 'forbidden', 403))).toThrow(HttpStatusError);
  });

  it('lines: one executed height per chain that answered', () => {
    const text = lines((b) =>
      evm.samples(b, {
        chains: [
          { chain: 'C', state: 'ok', executedHeight: 72413613 },
          { chain: L1, state: 'failed', error: new Error('x') },
        ],
      }),
    );
    expect(text).toBe('avalanchego_chain_executed_height{node="n1",chain="C"} 72413613');
  });
});

describe('proposervm.getCurrentEpoch', () => {
  it('the epoch of v1.14.2/v1.15.0: json.Uint64 strings', () => {
    const s = parseEpochReply(
      L1,
      epochReply('{"jsonrpc":"2.0","result":{"number":"1210","startTime":"1764000000","pChainHeight":"24819608"},"id":1}'),
    );
    expect(s).toEqual({ chain: L1, state: 'ok', epoch: { number: 1210, startSeconds: 1764000000, pChainHeight: 24819608 } });
    expect(lines((b) => proposervm.samples(b, { chains: [s] }))).toBe(
      [
        `avalanchego_proposervm_epoch_pchain_height{node="n1",chain="${L1}"} 24819608`,
        `avalanchego_proposervm_epoch_number{node="n1",chain="${L1}"} 1210`,
      ].join('\n'),
    );
  });

  it('HTTP 404 (a release without the ProposerVM API, or a chain the node does not run): unavailable, not a failure', () => {
    expect(parseEpochReply('C', reply('proposervm.getCurrentEpoch', '404 page not found\n', 404))).toEqual({ chain: 'C', state: 'unavailable' });
  });

  it('a release without the method: unsupported, not a failure', () => {
    const body = '{"jsonrpc":"2.0","error":{"code":-32601,"message":"rpc: can\'t find method \\"proposervm.GetCurrentEpoch\\"","data":null},"id":1}';
    expect(parseEpochReply('C', epochReply(body))).toEqual({ chain: 'C', state: 'unsupported' });
  });

  it.each([
    ['no pChainHeight', '{"jsonrpc":"2.0","result":{"number":"1","startTime":"2"},"id":1}', InvalidResponseError],
    ['a negative height', '{"jsonrpc":"2.0","result":{"number":"1","startTime":"2","pChainHeight":-5},"id":1}', InvalidResponseError],
    ['another error', '{"jsonrpc":"2.0","error":{"code":-32000,"message":"couldn\'t get current epoch: not found"},"id":1}', RpcError],
  ])('rejects %s', (_name, body, type) => {
    expect(() => parseEpochReply('C', epochReply(body))).toThrow(type);
  });
});

describe('a chain that bootstraps (HTTP 503 from api/server rejectMiddleware)', () => {
  const BOOTSTRAPPING = 'API call rejected because chain is not done bootstrapping\n';
  it('eth_blockNumber: a state, not a failure; no executed height, the poll does not fail', () => {
    const chain = parseChainReply('C', reply('eth_blockNumber', BOOTSTRAPPING, 503));
    expect(chain).toEqual({ chain: 'C', state: 'not_bootstrapped' });
    const snapshot = { chains: [chain, { chain: L1, state: 'ok' as const, executedHeight: 7 }] };
    expect(evm.failure?.(snapshot)).toBeUndefined();
    expect(lines((b) => evm.samples(b, snapshot))).toBe(`avalanchego_chain_executed_height{node="n1",chain="${L1}"} 7`);
    const shown = evmSections(snapshot)[0]?.rows[0]?.values[0];
    expect(shown && 'text' in shown ? shown.text : '').toMatch(/^bootstrapping/);
  });

  it("a 503 without the node's text (a proxy's) stays a failure", () => {
    expect(() => parseChainReply('C', reply('eth_blockNumber', '<html>503 Service Unavailable</html>', 503))).toThrow(HttpStatusError);
    expect(() => parseEpochReply('C', reply('proposervm.getCurrentEpoch', 'upstream connect error', 503))).toThrow(HttpStatusError);
  });

  it('proposervm.getCurrentEpoch: the same state', () => {
    const chain = parseEpochReply('C', reply('proposervm.getCurrentEpoch', BOOTSTRAPPING, 503));
    expect(chain).toEqual({ chain: 'C', state: 'not_bootstrapped' });
    expect(proposervm.failure?.({ chains: [chain] })).toBeUndefined();
    expect(lines((b) => proposervm.samples(b, { chains: [chain] }))).toBe('');
  });
});
