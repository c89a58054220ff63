// The info source's pure parsers over fixture answers (test/fixtures/info,
// written from the AvalancheGo source of each release): every method's
// states, the bounded peers summary, and the lines the snapshot gives.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RpcReply } from '../../src/rpc/client.js';
import { defined } from '../helpers/assert.js';
import { HttpStatusError, InvalidResponseError, RpcError } from '../../src/rpc/errors.js';
import { LinesBuilder } from '../../src/metrics/render.js';
import { renderNodes } from '../../src/metrics/scrape.js';
import {
  INFO_METHODS,
  MAX_PEER_VERSIONS,
  info,
  methodOutcome,
  nextUpgrade,
  parseInfo,
  parseNodeId,
  parseNodeVersion,
  parsePeers,
  parseUpgrades,
  parseUptime,
  summarizePeers,
  type InfoAnswers,
  type InfoMethod,
} from '../../src/sources/info.js';

const body = (file: string) => readFileSync(new URL(`../fixtures/info/${file}`, import.meta.url), 'utf8');
const result = (file: string) => (JSON.parse(body(file)) as { result: unknown }).result;
const reply = (method: string, text: string, status = 200): RpcReply => ({
  url: 'http://127.0.0.1:9650/ext/info',
  status,
  headers: {},
  body: text,
  method,
  id: 1,
});
const NOW = Date.parse('2026-11-23T00:00:00Z') / 1000;

/** A full set of answers of a v1.14.2 validator, with some replaced. */
function answers(over: Partial<Record<InfoMethod, RpcReply | { failed: unknown }>> = {}): InfoAnswers {
  const files: Record<InfoMethod, string> = {
    'info.getNodeID': 'getNodeID-v1.14.2.json',
    'info.getNodeVersion': 'getNodeVersion-v1.14.2.json',
    'info.getNetworkID': 'getNetworkID-mainnet.json',
    'info.uptime': 'uptime-validator-v1.14.2.json',
    'info.upgrades': 'upgrades-mainnet-v1.14.2.json',
    'info.peers': 'peers-mixed-v1.14.2.json',
  };
  return Object.fromEntries(INFO_METHODS.map((m) => [m, over[m] ?? reply(m, body(files[m]))])) as InfoAnswers;
}

function lines(snapshot: ReturnType<typeof parseInfo> | undefined): string {
  const b = new LinesBuilder('n1');
  info.samples(b, snapshot);
  return renderNodes([[b.build()]])
    .toString()
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .join('\n');
}

describe('methodOutcome: answers, states and failures', () => {
  it.each([
    ['uptime-validator-v1.14.2.json', 'info.uptime', 'ok'],
    ['uptime-not-validator-v1.14.2.json', 'info.uptime', 'not_validator'],
    ['uptime-not-validator-v1.7.3.json', 'info.uptime', 'not_validator'],
    ['upgrades-method-not-found-v1.10.19.json', 'info.upgrades', 'unsupported'],
    ['uptime-start-time-bootstrapping-v1.15.0.json', 'info.uptime', 'start_time_bootstrapping'],
    ['uptime-start-time-not-found-v1.15.0.json', 'info.uptime', 'start_time_not_found'],
  ])('%s → %s', (file, method, state) => {
    expect(methodOutcome(reply(method, body(file))).state).toBe(state);
  });

  it('"not a validator" is a state of info.uptime only', () => {
    expect(() => methodOutcome(reply('info.peers', body('uptime-not-validator-v1.14.2.json')))).toThrow(RpcError);
  });

  it.each([
    ['another JSON-RPC error', reply('info.uptime', '{"jsonrpc":"2.0","error":{"code":-32000,"message":"database closed"},"id":1}'), RpcError],
    ['HTTP 404 (the info API is off)', reply('info.getNodeID', '404 page not found\n', 404), HttpStatusError],
    ['an HTML page', reply('info.getNodeID', '<html>502</html>', 502), HttpStatusError],
    ['a cut-off body', reply('info.getNodeID', body('getNodeID-v1.14.2.json').slice(0, 40)), InvalidResponseError],
  ])('%s is a failure', (_name, r, type) => {
    expect(() => methodOutcome(r)).toThrow(type);
  });
});

describe('per-method parsers', () => {
  it('getNodeID: the node ID and its BLS key; none before v1.8.6', () => {
    expect(parseNodeId(result('getNodeID-v1.14.2.json'))).toEqual({
      nodeId: 'NodeID-FQWBUVv46nR5YiaYabXhHvBQDpBVjRCEd',
      blsPublicKey: '0x8897ae6e090e8f7a47922c610e6120861a8daf5e83826f1030f9e8626a03ab3a2700e173c9d362a5ebb79cccda482f98',
    });
    expect(parseNodeId(result('getNodeID-v1.7.3.json'))).toEqual({ nodeId: 'NodeID-FQWBUVv46nR5YiaYabXhHvBQDpBVjRCEd' });
    expect(parseNodeId({ nodeID: 'NodeID-FQWBUVv46nR5YiaYabXhHvBQDpBVjRCEd', nodePOP: null })).toEqual({
      nodeId: 'NodeID-FQWBUVv46nR5YiaYabXhHvBQDpBVjRCEd',
    });
    expect(() => parseNodeId({ nodeID: 42 })).toThrow(/info.getNodeID returned no node ID: nodeID/);
  });

  it.each([
    ['getNodeVersion-v1.14.2.json', '1.14.2', [1, 14, 2]],
    ['getNodeVersion-v1.7.3.json', '1.7.3', [1, 7, 3]],
  ])('getNodeVersion %s → %s', (file, text, parts) => {
    expect(parseNodeVersion(result(file))).toEqual({ text, parts });
  });

  it('keeps a version it cannot parse as text, without parts', () => {
    expect(parseNodeVersion({ version: 'custom-build' })).toEqual({ text: 'custom-build' });
    expect(parseNodeVersion({ version: 'x'.repeat(500) }).text).toHaveLength(64);
  });

  it('uptime: percentages to ratios; wrong types are invalid', () => {
    const u = parseUptime(result('uptime-validator-v1.14.2.json'));
    expect(u.rewardingStakeRatio).toBe(1);
    expect(u.weightedAverageRatio).toBeGreaterThan(0.99);
    expect(parseUptime({ rewardingStakePercentage: 80.5, weightedAveragePercentage: '79.2500' })).toEqual({
      rewardingStakeRatio: 0.805,
      weightedAverageRatio: 0.7925,
    });
    expect(() => parseUptime(result('uptime-wrong-types.json'))).toThrow(InvalidResponseError);
  });

  it('upgrades: the next scheduled time; placeholders (year 9999) and the past do not count', () => {
    const times = parseUpgrades(result('upgrades-mainnet-v1.14.2.json'));
    expect(times).toHaveLength(15);
    // Every mainnet upgrade of v1.14.2 is past on 2026-11-23 and Helicon is unscheduled.
    expect(nextUpgrade(times, NOW)).toBeUndefined();
    const granite = Date.parse('2025-11-19T16:00:00Z') / 1000;
    expect(nextUpgrade(times, granite - 3600)).toBe(granite);
    expect(() => parseUpgrades({ graniteTime: 'soon' })).toThrow(/graniteTime "soon", not an RFC 3339 time/);
    expect(() => parseUpgrades([])).toThrow(InvalidResponseError);
  });

  it('peers: counts per minor version, `unknown` for what does not parse, the share on a newer version', () => {
    const pv = parsePeers(result('peers-mixed-v1.14.2.json'));
    const s = summarizePeers(pv, [1, 14, 1]);
    expect(s.total).toBe(6);
    expect(s.byMinor).toEqual([
      { version: '1.14', count: 3 },
      { version: '1.13', count: 1 },
      { version: '1.15', count: 1 },
      { version: 'unknown', count: 1 },
    ]);
    // 1.14.2, 1.14.2 and 1.15.0 are newer than 1.14.1, of 5 parseable.
    expect(s.newerRatio).toBeCloseTo(3 / 5);
    expect(summarizePeers(pv, undefined).newerRatio).toBeUndefined();
    expect(summarizePeers(parsePeers(result('peers-none-v1.14.2.json')), [1, 14, 2])).toEqual({ total: 0, byMinor: [] });
    expect(summarizePeers(parsePeers({ numPeers: '0', peers: null }), [1, 14, 2]).total).toBe(0);
    expect(() => parsePeers({ numPeers: '1' })).toThrow(/no peers list/);
  });

  it(`peers: at most ${MAX_PEER_VERSIONS} minor versions, the rest under "other"`, () => {
    const peers = Array.from({ length: 40 }, (_, i) => ({ version: `avalanchego/1.${i % 15}.0` }));
    const s = summarizePeers(parsePeers({ peers }), [1, 14, 0]);
    expect(s.byMinor).toHaveLength(MAX_PEER_VERSIONS + 1);
    expect(defined(s.byMinor.at(-1), 'the last version').version).toBe('other');
    expect(s.byMinor.reduce((sum, v) => sum + v.count, 0)).toBe(40);
  });
});

describe('parseInfo and its lines', () => {
  it('a v1.14.2 validator: node info, version number, uptime, peers and every method ok', () => {
    const s = parseInfo(answers(), NOW);
    expect(s.failure).toBeUndefined();
    const uptime = defined(s.uptime, 'the uptime');
    expect(lines(s)).toBe(
      [
        'avalanchego_node_info{node="n1",node_id="NodeID-FQWBUVv46nR5YiaYabXhHvBQDpBVjRCEd",version="1.14.2",network_id="1"} 1',
        'avalanchego_node_version_number{node="n1"} 1014002',
        `avalanchego_uptime_rewarding_stake_ratio{node="n1"} ${uptime.rewardingStakeRatio}`,
        `avalanchego_uptime_weighted_average_ratio{node="n1"} ${uptime.weightedAverageRatio}`,
        'avalanchego_network_peers_by_version{node="n1",version="1.14"} 3',
        'avalanchego_network_peers_by_version{node="n1",version="1.13"} 1',
        'avalanchego_network_peers_by_version{node="n1",version="1.15"} 1',
        'avalanchego_network_peers_by_version{node="n1",version="unknown"} 1',
        'avalanchego_network_peers_newer_version_ratio{node="n1"} 0.2',
        ...INFO_METHODS.map((m) => `avalanchego_info_method_state{node="n1",method="${m}",state="ok"} 1`),
      ].join('\n'),
    );
  });

  it('a non-validator: no uptime series, info.uptime in state not_validator, and the poll succeeds', () => {
    const s = parseInfo(answers({ 'info.uptime': reply('info.uptime', body('uptime-not-validator-v1.14.2.json')) }), NOW);
    expect(s.failure).toBeUndefined();
    const text = lines(s);
    expect(text).not.toContain('avalanchego_uptime_');
    expect(text).toContain('avalanchego_info_method_state{node="n1",method="info.uptime",state="not_validator"} 1');
  });

  it.each([
    ['uptime-start-time-bootstrapping-v1.15.0.json', 'start_time_bootstrapping'],
    ['uptime-start-time-not-found-v1.15.0.json', 'start_time_not_found'],
  ])('v1.15 info.uptime %s: a state like not_validator, no uptime series, the poll succeeds', (file, state) => {
    const s = parseInfo(answers({ 'info.uptime': reply('info.uptime', body(file)) }), NOW);
    expect(s.failure).toBeUndefined();
    const text = lines(s);
    expect(text).not.toContain('avalanchego_uptime_');
    expect(text).toContain(`avalanchego_info_method_state{node="n1",method="info.uptime",state="${state}"} 1`);
  });

  it('heliconTime of info.upgrades: v1.15.0 Mainnet 2026-09-22 15:00 UTC; v1.14.2 has the placeholder; v1.10.19 none', () => {
    const v115 = parseInfo(answers({ 'info.upgrades': reply('info.upgrades', body('upgrades-mainnet-v1.15.0.json')) }), NOW);
    expect(v115.heliconSeconds).toBe(1790089200);
    expect(parseInfo(answers(), NOW).heliconSeconds).toBe(Date.parse('9999-12-01T00:00:00Z') / 1000);
    const old = parseInfo(answers({ 'info.upgrades': reply('info.upgrades', body('upgrades-method-not-found-v1.10.19.json')) }), NOW);
    expect(old.heliconSeconds).toBeUndefined();
  });

  it('v1.10.19 lacks info.upgrades: state unsupported, no next-upgrade series, not a failure', () => {
    const s = parseInfo(answers({ 'info.upgrades': reply('info.upgrades', body('upgrades-method-not-found-v1.10.19.json')) }), NOW);
    expect(s.failure).toBeUndefined();
    expect(lines(s)).toContain('avalanchego_info_method_state{node="n1",method="info.upgrades",state="unsupported"} 1');
  });

  it('v1.7.3: `avalanche/1.7.3`, no BLS key, its own not-a-validator text', () => {
    const s = parseInfo(
      answers({
        'info.getNodeID': reply('info.getNodeID', body('getNodeID-v1.7.3.json')),
        'info.getNodeVersion': reply('info.getNodeVersion', body('getNodeVersion-v1.7.3.json')),
        'info.uptime': reply('info.uptime', body('uptime-not-validator-v1.7.3.json')),
        'info.upgrades': reply('info.upgrades', body('upgrades-method-not-found-v1.10.19.json')),
      }),
      NOW,
    );
    expect(s).toMatchObject({ version: { text: '1.7.3' }, methods: { 'info.uptime': 'not_validator', 'info.upgrades': 'unsupported' } });
    expect(s.blsPublicKey).toBeUndefined();
    expect(lines(s)).toContain('avalanchego_node_version_number{node="n1"} 1007003');
  });

  it('a scheduled upgrade ahead: its time', () => {
    const upgrades = JSON.parse(body('upgrades-mainnet-v1.14.2.json')) as { result: Record<string, unknown> };
    upgrades.result.heliconTime = '2026-11-28T16:00:00Z';
    const s = parseInfo(answers({ 'info.upgrades': reply('info.upgrades', JSON.stringify(upgrades)) }), NOW);
    expect(lines(s)).toContain(`avalanchego_next_upgrade_timestamp_seconds{node="n1"} ${Date.parse('2026-11-28T16:00:00Z') / 1000}`);
  });

  it('a failed method fails the poll but keeps the others: no series from it, no state for it', () => {
    const timeout = new Error('deadline');
    const s = parseInfo(answers({ 'info.peers': { failed: timeout }, 'info.uptime': reply('info.uptime', body('uptime-wrong-types.json')) }), NOW);
    expect(s.failure).toBeInstanceOf(InvalidResponseError);
    expect(info.failure?.(s)).toBe(s.failure);
    const text = lines(s);
    expect(text).toContain('avalanchego_node_info{');
    expect(text).not.toContain('avalanchego_network_peers');
    expect(text).not.toContain('method="info.peers"');
    expect(text).not.toContain('method="info.uptime"');
  });

  it('without the version, the node info has no version label and there is no newer-version share', () => {
    const s = parseInfo(answers({ 'info.getNodeVersion': { failed: new Error('reset') } }), NOW);
    expect(lines(s)).toContain('avalanchego_node_info{node="n1",node_id="NodeID-FQWBUVv46nR5YiaYabXhHvBQDpBVjRCEd",network_id="1"} 1');
    expect(lines(s)).not.toContain('newer_version_ratio');
  });

  it('after a failed poll (no snapshot) the source serves nothing', () => {
    expect(lines(undefined)).toBe('');
  });
});
