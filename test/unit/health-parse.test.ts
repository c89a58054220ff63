import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  executorFailure,
  health,
  parseHealth,
  parseHealthReply,
  reuseHealth,
  type CheckSnapshot,
  type HealthSnapshot,
} from '../../src/sources/health.js';
import { LinesBuilder } from '../../src/metrics/render.js';
import { renderNodes } from '../../src/metrics/scrape.js';
import { InvalidResponseError, RpcError } from '../../src/rpc/errors.js';
import type { RpcReply } from '../../src/rpc/client.js';

function fixture(name: string): unknown {
  const text = readFileSync(new URL(`../fixtures/health/${name}`, import.meta.url), 'utf8');
  return (JSON.parse(text) as { result: unknown }).result;
}

function check(s: HealthSnapshot, name: string): CheckSnapshot {
  const found = s.checks.find((c) => c.name === name);
  if (!found) throw new Error(`no check ${name} in the snapshot`);
  return found;
}
const chain = (s: HealthSnapshot, name: string) => s.chains.find((c) => c.chain === name);
const unparsedTotal = (s: HealthSnapshot) => s.checks.reduce((n, c) => n + c.unparsed, 0);

describe('parseHealth over fixture shapes', () => {
  it('v1.15.0 (Helicon): no avgAcceptanceTime in the chain checks, nothing unparsed, no acceptance-time series', () => {
    const s = parseHealth(fixture('healthy-v1.15.0.json'));
    expect(s.healthy).toBe(true);
    expect(unparsedTotal(s)).toBe(0);
    for (const name of ['C', 'P', 'X']) {
      expect(chain(s, name)?.lastAcceptedHeight).toBeGreaterThan(0);
      expect(chain(s, name)?.avgAcceptanceTimeSeconds).toBeUndefined();
    }
  });

  it('healthy v1.14.2: every check and field, times in a -04:00 zone', () => {
    const s = parseHealth(fixture('healthy-v1.14.2.json'));
    expect(s.healthy).toBe(true);
    expect(s.checks.map((c) => c.name)).toEqual([
      'C',
      'P',
      'X',
      'bls',
      'bootstrapped',
      'database',
      'diskspace',
      'futureupgrade',
      'network',
      'router',
    ]);
    expect(s.checks.every((c) => c.passing && c.contiguousFailures === 0 && c.firstFailureSeconds === undefined)).toBe(true);
    expect(unparsedTotal(s)).toBe(0);
    expect(check(s, 'C').timestampSeconds).toBeCloseTo(Date.parse('2026-11-20T14:15:02Z') / 1000 + 0.1234, 6);
    expect(check(s, 'C').durationSeconds).toBeCloseTo(38211e-9, 12);
    expect(chain(s, 'C')).toEqual({
      chain: 'C',
      bootstrapping: false,
      lastAcceptedHeight: 51234567,
      processingBlocks: 0,
      longestProcessingBlockSeconds: 0,
      avgAcceptanceTimeSeconds: 0.8125,
      connectedStakeRatio: 0.9987,
      disconnectedValidators: 0,
    });
    expect(s.chains.map((c) => c.chain)).toEqual(['C', 'P', 'X']);
    expect(s.network).toEqual({
      connectedPeers: 1610,
      sendFailRatio: 0.0125,
      timeSinceLastMsgReceivedSeconds: 0.0125,
      timeSinceLastMsgSentSeconds: 1.5e-6,
      ingressConnections: 37,
    });
    expect(s.router).toEqual({ outstandingRequests: 17, longestRunningRequestSeconds: 62.25 });
    expect(s.disk).toEqual({ availableBytes: 812345678901, availableRatio: 0.41 });
    expect(s.bootstrappingSubnets).toBe(0);
    expect(s.futureUpgrade).toEqual({ secondsUntil: undefined, stakeRatio: 0.985 });
  });

  it('degraded validator: errors with newlines, failure bookkeeping, every failing check', () => {
    const s = parseHealth(fixture('degraded-v1.14.2.json'));
    expect(s.healthy).toBe(false);
    const failing = s.checks.filter((c) => !c.passing).map((c) => c.name);
    expect(failing).toEqual(['C', 'bls', 'diskspace', 'futureupgrade', 'network', 'router']);
    expect(check(s, 'C').error).toContain('300 > 256\nblock processing too long');
    expect(check(s, 'C').contiguousFailures).toBe(12);
    expect(check(s, 'C').firstFailureSeconds).toBe(Date.parse('2026-11-20T14:09:32.5Z') / 1000);
    expect(check(s, 'router').error).toContain('1093 > 1024');
    expect(chain(s, 'C')).toMatchObject({
      processingBlocks: 300,
      longestProcessingBlockSeconds: 41.5,
      connectedStakeRatio: 0.5,
      disconnectedValidators: 2,
    });
    expect(s.router).toEqual({ outstandingRequests: 1093, longestRunningRequestSeconds: 312.004 });
    expect(s.network).toMatchObject({
      connectedPeers: 3,
      sendFailRatio: 0.95,
      timeSinceLastMsgReceivedSeconds: 65,
      timeSinceLastMsgSentSeconds: 2.000001,
    });
    expect(s.network.ingressConnections).toBeUndefined();
    expect(s.disk).toEqual({ availableBytes: 21474836480, availableRatio: 0.08 });
    expect(s.futureUpgrade).toEqual({ secondsUntil: 25 * 3600 + 44 * 60 + 58, stakeRatio: 0.7125 });
    expect(unparsedTotal(s)).toBe(0);
  });

  it('bootstrapping: empty consensus and a null engine mark chains bootstrapping; no heights', () => {
    const s = parseHealth(fixture('bootstrapping-v1.14.2.json'));
    expect(s.chains.map((c) => [c.chain, c.bootstrapping, c.lastAcceptedHeight])).toEqual([
      ['C', true, undefined],
      ['P', true, undefined],
      ['X', true, undefined],
    ]);
    expect(chain(s, 'C')?.connectedStakeRatio).toBe(0.93);
    expect(s.bootstrappingSubnets).toBe(1);
    expect(check(s, 'bootstrapped')).toMatchObject({ passing: false, contiguousFailures: 20 });
    // +05:30 zone
    expect(check(s, 'bootstrapped').firstFailureSeconds).toBe(Date.parse('2026-11-20T03:20:05.5Z') / 1000);
    expect(s.network.timeSinceLastMsgReceivedSeconds).toBeUndefined();
    expect(unparsedTotal(s)).toBe(0);
  });

  it('starting: "not yet run" checks fail, have no timestamp and no first failure', () => {
    const s = parseHealth(fixture('not-yet-run-v1.14.2.json'));
    expect(s.checks).toHaveLength(10);
    for (const c of s.checks) {
      expect(c).toEqual({ name: c.name, passing: false, contiguousFailures: 0, durationSeconds: 0, error: 'not yet run', unparsed: 0 });
    }
    expect(s.chains).toEqual([]);
  });

  it('before v1.10.3: consensus without engine wrapper, old key names', () => {
    const s = parseHealth(fixture('old-v1.10.2.json'));
    expect(chain(s, 'C')).toMatchObject({
      bootstrapping: false,
      processingBlocks: 4,
      longestProcessingBlockSeconds: 1.25,
      lastAcceptedHeight: undefined,
    });
    expect(chain(s, 'P')).toMatchObject({ processingBlocks: 0 });
    expect(s.disk).toEqual({ availableBytes: 300000000000 });
    expect(unparsedTotal(s)).toBe(0);
  });

  it('before v1.10.16: engine wrapper with outstandingBlocks / longestRunningBlock', () => {
    const s = parseHealth(fixture('old-v1.10.15.json'));
    expect(chain(s, 'C')).toMatchObject({ processingBlocks: 260, longestProcessingBlockSeconds: 31, connectedStakeRatio: 0.97 });
    expect(check(s, 'C').error).toBe('engine: snowman consensus is not healthy reason: number of outstanding blocks 260 > 256');
  });

  it('v1.7.3 and older: error object, null timeOfFirstFailure, unknown check names kept', () => {
    const s = parseHealth(fixture('legacy-v1.7.3.json'));
    expect(check(s, 'C')).toMatchObject({ passing: false, error: 'chain is not healthy', contiguousFailures: 7 });
    expect(check(s, 'P')).toMatchObject({ passing: true, contiguousFailures: 0 });
    expect(check(s, 'P').firstFailureSeconds).toBeUndefined();
    expect(chain(s, 'P')).toMatchObject({ connectedStakeRatio: 0.91 });
    expect(check(s, 'network.validators.heartbeat').passing).toBe(true);
    expect(unparsedTotal(s)).toBe(0);
  });

  it('an L1 keyed by chain ID with rpcchainvm details', () => {
    const s = parseHealth(fixture('l1-tagged-v1.14.2.json'));
    expect(chain(s, '2ebCneCbwthjQ1rYT41nhd7M76Hc6YmosMAQrTFhBq8qeqh6tt')).toMatchObject({
      lastAcceptedHeight: 88001,
      processingBlocks: 1,
      connectedStakeRatio: 0.75,
      disconnectedValidators: 1,
    });
  });

  it('shutting down, and a chain whose creation failed (no message: a failing check, no chain data)', () => {
    const s = parseHealth(fixture('shutting-down-v1.14.2.json'));
    expect(check(s, 'shuttingDown')).toMatchObject({ passing: false, error: 'server shutting down' });
    expect(check(s, 'myl1')).toMatchObject({ passing: false, contiguousFailures: 9 });
    expect(chain(s, 'myl1')).toBeUndefined();
    expect(unparsedTotal(s)).toBe(0);
  });

  it('wrong types are counted per check, never fatal, and the rest is served', () => {
    const s = parseHealth(fixture('wrong-types.json'));
    // C: timestamp, duration, lastAcceptedHeight, longestProcessingBlock, disconnectedValidators
    expect(check(s, 'C').unparsed).toBe(5);
    expect(chain(s, 'C')).toMatchObject({ processingBlocks: 2, connectedStakeRatio: 0.9, lastAcceptedHeight: undefined });
    expect(check(s, 'network').unparsed).toBe(1);
    expect(s.network.sendFailRatio).toBe(0.5);
    expect(check(s, 'router').unparsed).toBe(1);
    // An unknown check keeps its per-check values; its fields are not ours to judge.
    expect(check(s, 'mystery')).toMatchObject({ passing: true, unparsed: 0 });
  });

  it.each([
    ['null', null],
    ['a string', 'ok'],
    ['no checks', { healthy: true }],
    ['checks as an array', { checks: [], healthy: true }],
    ['healthy as a string', { checks: {}, healthy: 'true' }],
  ])('rejects a result that is not a health report: %s', (_name, result) => {
    expect(() => parseHealth(result)).toThrow(InvalidResponseError);
  });

  it('a check result that is not an object is a failing check, counted as unparsed', () => {
    const s = parseHealth({ checks: { weird: 42 }, healthy: true });
    expect(check(s, 'weird')).toMatchObject({ passing: false, unparsed: 1 });
  });
});

describe('parseHealthReply: the answer with its headers', () => {
  const reply = (body: string, headers: RpcReply['headers'] = {}): RpcReply => ({
    url: 'http://127.0.0.1:9650/ext/health',
    status: 200,
    headers,
    body: body.replace(/"id":\s*\d+(\s*\}\s*)$/, '"id":3$1'),
    method: 'health.health',
    id: 3,
  });
  const healthy = readFileSync(new URL('../fixtures/health/healthy-v1.14.2.json', import.meta.url), 'utf8');

  it('takes the node ID from the node-id header', () => {
    expect(parseHealthReply(reply(healthy, { 'node-id': 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg' }))).toMatchObject({
      nodeId: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg',
      healthy: true,
    });
  });

  it('has no node ID without the header (nodes before v1.11.3)', () => {
    expect(parseHealthReply(reply(healthy)).nodeId).toBeUndefined();
  });

  it('throws a JSON-RPC error as RpcError', () => {
    expect(() => parseHealthReply(reply('{"jsonrpc":"2.0","error":{"code":-32601,"message":"no service"},"id":3}'))).toThrow(RpcError);
  });
});

describe("a chain's dead SAE executor (v1.15.1+, vms/saevm/sae/health.go)", () => {
  const ERR =
    'saexec.Executor unhealthy due to block 51234501 (0x5c1f0e8a3b7d2e914f60a8c2d3b1e7f09a4c6d8e2b5f7a1c3e9d0b4f6a8c2e71): executing block: state root mismatch';
  it.each([
    ['alone', ERR, 51_234_501],
    ['inside the engine’s vm: … ; consensus: …', `vm: ${ERR} ; consensus: block processing too long: 41s > 30s`, 51_234_501],
    [
      'inside the handler’s engine: …; networking: …',
      `engine: vm: ${ERR} ; consensus: too many processing blocks: 300 > 256; networking: not connected to enough stake`,
      51_234_501,
    ],
    ['a cause that itself has ; and :', 'saexec.Executor unhealthy due to block 7 (0xab): a: b; c', 7],
    ['another error', 'block processing too long: 41s > 30s', undefined],
    ['the words without a block', 'saexec.Executor unhealthy due to block (0xab): x', undefined],
    ['a height beyond 2^53', 'saexec.Executor unhealthy due to block 99999999999999999999 (0xab): x', undefined],
  ])('%s', (_what, error, height) => {
    expect(executorFailure(error)).toBe(height);
  });

  it('the fixture: the C check failing with it → executor_failed 1 and its height; the other chains 0', () => {
    const s = parseHealth(fixture('executor-dead-v1.15.1.json'));
    expect(check(s, 'C').executorFailedHeight).toBe(51_234_501);
    const b = new LinesBuilder('n1');
    health.samples(b, s);
    const text = renderNodes([[b.build()]]).toString();
    expect(text).toContain('avalanchego_chain_executor_failed{node="n1",chain="C"} 1\n');
    expect(text).toContain('avalanchego_chain_executor_failed_height{node="n1",chain="C"} 51234501\n');
    expect(text).toContain('avalanchego_chain_executor_failed{node="n1",chain="P"} 0\n');
    expect(text).not.toContain('avalanchego_chain_executor_failed_height{node="n1",chain="P"}');
  });

  it('a healthy v1.15.0 report: every chain 0, no height; a reused snapshot forgets the height once the check passes', () => {
    const healthy = parseHealth(fixture('healthy-v1.15.0.json'));
    const dead = parseHealth(fixture('executor-dead-v1.15.1.json'));
    const reused = reuseHealth(dead, healthy);
    expect(check(reused, 'C').executorFailedHeight).toBeUndefined();
  });
});
