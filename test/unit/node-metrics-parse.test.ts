// The node_metrics source's streaming parse of /ext/metrics: the allow-list over
// each release's names (fixtures trimmed to the kept families and their
// neighbours), any split of the body into chunks, the strictness on kept lines,
// the states (404) and the series (absent, never 0).
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HttpReply } from '../../src/rpc/client.js';
import { HttpStatusError, InvalidResponseError } from '../../src/rpc/errors.js';
import { LinesBuilder } from '../../src/metrics/render.js';
import { renderNodes } from '../../src/metrics/scrape.js';
import {
  MAX_CHAINS,
  MAX_LINE_BYTES,
  NodeMetricsParser,
  familyOf,
  nodeMetrics,
  nodeMetricsOf,
  nodeMetricsSections,
  parseNodeMetrics,
  type ChainMetrics,
  type NodeMetricsSnapshot,
} from '../../src/sources/node-metrics.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/node_metrics/${name}`, import.meta.url), 'utf8');
const L1 = '2XmXgBX3gMrZvxBcCV7e7AGTh97Hjo1vXXMp9VYEW5fCxzDzH8';
const byChain = (chains: ChainMetrics[]) => Object.fromEntries(chains.map(({ chain, ...rest }) => [chain, rest]));

function lines(s: NodeMetricsSnapshot | undefined): string {
  const b = new LinesBuilder('n1');
  nodeMetrics.samples(b, s);
  return renderNodes([[b.build()]])
    .toString()
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .join('\n');
}

describe('each release’s names → the same chains', () => {
  it.each([
    [
      'v1.10.19.txt',
      'the chain in the name; the X-Chain’s DAG polls left out',
      {
        C: { pollsSuccessful: 2_418_823, pollsFailed: 1843, badBlocks: 0 },
        P: { pollsSuccessful: 301_442, pollsFailed: 12 },
        X: { pollsSuccessful: 80_211, pollsFailed: 0 },
      },
    ],
    [
      'v1.14.2.txt',
      'the chain in a label; a subnet-evm L1 under its VM ID',
      {
        C: { pollsSuccessful: 2_418_823, pollsFailed: 1843, badBlocks: 2 },
        P: { pollsSuccessful: 301_442, pollsFailed: 12 },
        X: { pollsSuccessful: 80_211, pollsFailed: 0 },
        [L1]: { pollsSuccessful: 404_112, pollsFailed: 7, badBlocks: 1 },
      },
    ],
    [
      'v1.15.0.txt',
      'after the switch to SAE: no bad-block counter for C (absent, not 0)',
      {
        C: { pollsSuccessful: 86_311, pollsFailed: 0 },
        P: { pollsSuccessful: 17_202, pollsFailed: 4 },
        X: { pollsSuccessful: 8_099, pollsFailed: 0 },
      },
    ],
    ['v1.15-before-restart.txt', 'coreth’s counter and the transition one of one chain: added up', { C: { pollsSuccessful: 5, badBlocks: 3 } }],
  ])('%s (%s)', (file, _what, expected) => {
    expect(byChain(parseNodeMetrics(fixture(file)))).toEqual(expected);
  });

  it.each([
    ['avalanche_snowman_polls_successful', { field: 'pollsSuccessful' }],
    ['avalanche_C_polls_failed', { field: 'pollsFailed', chain: 'C' }],
    ['avalanche_C_vm_eth_chain_block_bad_count', { field: 'badBlocks', chain: 'C' }],
    ['avalanche_subnetevm_eth_chain_block_bad_count', { field: 'badBlocks' }],
    ['avalanche_evm_transition_eth_chain_block_bad_count', { field: 'badBlocks' }],
    ['avalanche_avalanche_polls_successful', undefined],
    ['avalanche_X_avalanche_polls_successful', undefined],
    ['avalanche_snowman_polls_successful_total', undefined],
    ['avalanche_evm_eth_chain_block_bad_count_total', undefined],
  ])('familyOf(%s)', (name, expected) => {
    expect(familyOf(name)).toEqual(expected);
  });
});

describe('streaming', () => {
  const body = Buffer.from(fixture('v1.14.2.txt'));
  const whole = parseNodeMetrics(body);

  it('any split of the body into chunks gives the same chains (lines cut anywhere, even mid-character)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: body.length - 1 }), { maxLength: 40 }), (cuts) => {
        const parser = new NodeMetricsParser();
        let at = 0;
        for (const cut of [...cuts].sort((a, b) => a - b)) {
          parser.write(body.subarray(at, cut));
          at = cut;
        }
        parser.write(body.subarray(at));
        expect(parser.end()).toEqual(whole);
      }),
    );
  });

  it('byte by byte, with CRLF line ends and no newline at the end', () => {
    const crlf = Buffer.from(fixture('v1.14.2.txt').replaceAll('\n', '\r\n').trimEnd());
    const parser = new NodeMetricsParser();
    for (let i = 0; i < crlf.length; i++) parser.write(crlf.subarray(i, i + 1));
    expect(parser.end()).toEqual(whole);
  });

  it('does not keep the chunk it was given: only the unfinished line, copied', () => {
    const chunk = Buffer.from('avalanche_snowman_polls_failed{chain="C"} 3\navalanche_snowman_polls_succ');
    const parser = new NodeMetricsParser();
    parser.write(chunk);
    chunk.fill(0x20);
    parser.write(Buffer.from('essful{chain="C"} 9\n'));
    expect(parser.end()).toEqual([{ chain: 'C', pollsFailed: 3, pollsSuccessful: 9 }]);
  });

  it('lines of other families are skipped by their names, however malformed the rest', () => {
    expect(
      parseNodeMetrics('go_goroutines{{{ not a value\navalanche_network_peers NaN junk junk\navalanche_snowman_polls_failed{chain="P"} 1\n'),
    ).toEqual([{ chain: 'P', pollsFailed: 1 }]);
  });
});

describe('strict on what it keeps', () => {
  it.each([
    ['a kept line without a value', 'avalanche_snowman_polls_failed{chain="C"}\n', 'line 1: avalanche_snowman_polls_failed: expected a value'],
    ['a kept line without its chain label', 'avalanche_snowman_polls_failed 3\n', 'has no chain label'],
    [
      'a negative counter',
      'x 1\navalanche_snowman_polls_failed{chain="C"} -1\n',
      'line 2: avalanche_snowman_polls_failed: "-1" is not a counter\'s value',
    ],
    ['NaN', 'avalanche_snowman_polls_failed{chain="C"} NaN\n', 'is not a counter'],
    ['an unclosed label value', 'avalanche_snowman_polls_failed{chain="C} 1\n', 'its value is not closed'],
    ['a chain that is no alias', 'avalanche_snowman_polls_failed{chain="C/rpc"} 1\n', 'is not an alias or blockchain ID'],
    ['the same series twice', 'avalanche_snowman_polls_failed{chain="C"} 1\navalanche_snowman_polls_failed{chain="C"} 2\n', 'appears twice'],
    ['a line that starts with no name', '{chain="C"} 1\n', 'line 1: a series line starts with its metric name'],
    ['a timestamp that is not one', 'avalanche_snowman_polls_failed{chain="C"} 1 soon\n', 'is not an integer'],
    ['HTML', '<html><body>502 Bad Gateway</body></html>\n', 'line 1: a series line starts with its metric name'],
  ])('%s', (_what, body, message) => {
    expect(() => parseNodeMetrics(body)).toThrow(InvalidResponseError);
    expect(() => parseNodeMetrics(body)).toThrow(message);
  });

  it('a kept line with a timestamp, escapes and other labels', () => {
    expect(parseNodeMetrics('avalanche_snowman_polls_failed{a="x\\"y\\\\z\\n",chain="C",} 4 1700000000000\n')).toEqual([
      { chain: 'C', pollsFailed: 4 },
    ]);
  });

  it(`a line longer than ${MAX_LINE_BYTES} bytes, even split into chunks`, () => {
    const parser = new NodeMetricsParser();
    const part = Buffer.alloc(40_000, 0x61);
    parser.write(part);
    expect(() => parser.write(part)).toThrow(`longer than ${MAX_LINE_BYTES} bytes`);
  });

  it(`more than ${MAX_CHAINS} chains`, () => {
    const body = Array.from({ length: MAX_CHAINS + 1 }, (_, i) => `avalanche_snowman_polls_failed{chain="c${i}"} 1`).join('\n');
    expect(() => parseNodeMetrics(body)).toThrow(`more than ${MAX_CHAINS} chains`);
  });
});

describe('the answer → the snapshot', () => {
  const reply = (status: number, body = ''): HttpReply => ({ url: 'http://127.0.0.1:9650/ext/metrics', status, headers: {}, body });

  it('HTTP 404 (the metrics API off): a state, no series, said on the page', () => {
    const s = nodeMetricsOf(reply(404, '404 page not found\n'), new NodeMetricsParser());
    expect(s).toEqual({ state: 'not_served' });
    expect(lines(s)).toBe('');
    expect(nodeMetricsSections(s)[0]?.empty).toContain('--api-metrics-enabled=false');
  });

  it('another status is a failure with its text', () => {
    expect(() => nodeMetricsOf(reply(503, 'overloaded'), new NodeMetricsParser())).toThrow(HttpStatusError);
  });

  it('200: the stable series, a family the release lacks absent (never 0), counters as the node counts', () => {
    const parser = new NodeMetricsParser();
    parser.write(Buffer.from(fixture('v1.15.0.txt')));
    expect(lines(nodeMetricsOf(reply(200), parser))).toBe(
      [
        'avalanchego_consensus_polls_total{node="n1",chain="C",result="successful"} 86311',
        'avalanchego_consensus_polls_total{node="n1",chain="C",result="failed"} 0',
        'avalanchego_consensus_polls_total{node="n1",chain="P",result="successful"} 17202',
        'avalanchego_consensus_polls_total{node="n1",chain="P",result="failed"} 4',
        'avalanchego_consensus_polls_total{node="n1",chain="X",result="successful"} 8099',
        'avalanchego_consensus_polls_total{node="n1",chain="X",result="failed"} 0',
      ].join('\n'),
    );
    expect(lines(undefined)).toBe('');
  });
});
