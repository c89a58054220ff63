// Conformance of the index API on all five endpoints: result shapes, the
// encodings, containers accepted over time, and every error of fact sheet §5.

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defined } from '../helpers/assert.js';
import { envelope, http, post, report, result, rpc, RFC3339, serviceError, simulator, waitFor } from './helpers.js';
import type { FormattedContainer } from './results.js';

const ENDPOINTS = ['C/block', 'P/block', 'X/block', 'X/tx', 'X/vtx'] as const;
const INVALID_ARG = "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. See documentation for example calls";
const STILL = { checkFrequencyMs: 3_600_000 };

// An independent cb58 decoder, so the test does not trust the simulator's own.
const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
function cb58Bytes(text: string): Buffer {
  let n = 0n;
  for (const c of text) {
    const v = B58.indexOf(c);
    if (v < 0) throw new Error(`not base58: ${text}`);
    n = n * 58n + BigInt(v);
  }
  const hex = n.toString(16);
  const raw = Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
  const lead = defined(/^1*/.exec(text), 'the leading 1s')[0].length;
  const all = Buffer.concat([Buffer.alloc(lead), raw]);
  const body = all.subarray(0, -4);
  const sum = createHash('sha256').update(body).digest().subarray(28);
  if (!sum.equals(all.subarray(-4))) throw new Error(`bad cb58 checksum: ${text}`);
  return body;
}

function checkContainer(c: FormattedContainer, encoding = 'hex'): void {
  expect(Object.keys(c)).toEqual(['id', 'bytes', 'timestamp', 'encoding', 'index']);
  expect(cb58Bytes(c.id)).toHaveLength(32);
  expect(c.bytes).toMatch(/^0x([0-9a-f]{2})+$/);
  expect(c.timestamp).toMatch(RFC3339);
  expect(c.timestamp).toMatch(/-04:00$/); // node-0's zone
  expect(c.encoding).toBe(encoding);
  expect(c.index).toMatch(/^(0|[1-9]\d*)$/);
  if (encoding !== 'hexnc') {
    const raw = Buffer.from(c.bytes.slice(2), 'hex');
    const sum = createHash('sha256').update(raw.subarray(0, -4)).digest().subarray(28);
    expect(raw.subarray(-4).equals(sum)).toBe(true);
  }
}

describe.each(ENDPOINTS)('/ext/index/%s', (endpoint) => {
  it('answers all six methods consistently', async () => {
    const sim = await simulator(STILL);
    const url = `${sim.url}/ext/index/${endpoint}`;
    const last = await result<FormattedContainer>(url, 'index.getLastAccepted', { encoding: 'hex' });
    checkContainer(last);
    const lastIndex = BigInt(last.index);
    expect(lastIndex).toBeGreaterThan(100n);
    const byIndex = await rpc(url, 'index.getContainerByIndex', { index: Number(last.index), encoding: 'hex' });
    expect(byIndex.body).toBe(`{"jsonrpc":"2.0","result":${JSON.stringify(last)},"id":1}\n`);
    const byId = await rpc(url, 'index.getContainerByID', { id: last.id, encoding: 'hex' });
    expect(byId.body).toBe(byIndex.body);
    expect((await rpc(url, 'index.getIndex', { id: last.id, encoding: 'hex' })).body).toBe(
      `{"jsonrpc":"2.0","result":{"index":"${last.index}"},"id":1}\n`,
    );
    expect((await rpc(url, 'index.isAccepted', { id: last.id, encoding: 'hex' })).body).toBe(
      '{"jsonrpc":"2.0","result":{"isAccepted":true},"id":1}\n',
    );
    // The range runs out at the last index: what was fetched is returned (a block accepted
    // since getLastAccepted may end it one later; the chain runs in real time here).
    const range = await result<{ containers: FormattedContainer[] }>(url, 'index.getContainerRange', {
      startIndex: Number(lastIndex - 2n),
      numToFetch: 10,
      encoding: 'hex',
    });
    expect(Object.keys(range)).toEqual(['containers']);
    expect(range.containers.length).toBeLessThan(10);
    expect(range.containers.map((c) => c.index)).toEqual(range.containers.map((_c, i) => String(lastIndex - 2n + BigInt(i))));
    expect(range.containers.slice(0, 3).map((c) => c.index)).toEqual([lastIndex - 2n, lastIndex - 1n, lastIndex].map(String));
    expect(range.containers[2]).toEqual(last);
    for (const c of range.containers) checkContainer(c);
    // Earlier containers come from the node's index too, each with its own ID.
    const first = await result<FormattedContainer>(url, 'index.getContainerByIndex', { index: '0' });
    checkContainer(first);
    expect(first.index).toBe('0');
    expect(first.id).not.toBe(last.id);
    expect(await result(url, 'index.getIndex', { id: first.id })).toEqual({ index: '0' });
  });

  it('returns every error of the index service with its exact message', async () => {
    const sim = await simulator(STILL);
    const url = `${sim.url}/ext/index/${endpoint}`;
    const lastAccepted = async () => BigInt((await result<FormattedContainer>(url, 'index.getLastAccepted')).index);
    const call = async (method: string, params: unknown) => (await rpc(url, method, params)).body;
    expect(await call('index.getContainerRange', { startIndex: 0, numToFetch: 0 })).toBe(serviceError('numToFetch must be in [1,1024] but is 0'));
    expect(await call('index.getContainerRange', { startIndex: 0, numToFetch: 1025 })).toBe(
      serviceError('numToFetch must be in [1,1024] but is 1025'),
    );
    // The chain runs in real time (an X block, with its transactions, every 10 s): the two answers that name the last
    // accepted index are compared when no container was accepted between the reads around them.
    for (let attempt = 1; ; attempt++) {
      const last = await lastAccepted();
      const beyond = last + 10n;
      const range = await call('index.getContainerRange', { startIndex: beyond.toString(), numToFetch: 1 });
      const next = await call('index.getContainerByIndex', { index: (last + 1n).toString() });
      if ((await lastAccepted()) !== last && attempt < 5) continue;
      expect(range).toBe(
        `{"jsonrpc":"2.0","error":{"code":-32000,"message":"start index (${beyond}) \\u003e last accepted index (${last})","data":null},"id":1}\n`,
      );
      expect(next).toBe(serviceError(`no container at index ${last + 1n}`));
      break;
    }
    expect(await call('index.getContainerByIndex', { index: '18446744073709551615' })).toBe(
      serviceError('no container at index 18446744073709551615'),
    );
    // A valid ID that was never accepted.
    const unknown = '2Xy1mbEtfD6E3AWmeWYJhz8bhXL8XtwXvWtk4V7Sqr2nE6bFHr';
    expect(cb58Bytes(unknown)).toHaveLength(32);
    expect(await call('index.getContainerByID', { id: unknown })).toBe(serviceError('not found'));
    expect(await call('index.getIndex', { id: unknown })).toBe(serviceError('not found'));
    expect(await call('index.isAccepted', { id: unknown })).toBe('{"jsonrpc":"2.0","result":{"isAccepted":false},"id":1}\n');
    // Invalid arguments are all hidden behind one message.
    for (const params of [{ id: 'not-an-id' }, { id: '' }, { id: 5 }]) {
      expect(await call('index.getIndex', params), JSON.stringify(params)).toBe(serviceError(INVALID_ARG));
    }
    for (const params of [{ index: -1 }, { index: 1.5 }, { index: '18446744073709551616' }, { index: true }, { encoding: 'base64' }]) {
      expect(await call('index.getContainerByIndex', params), JSON.stringify(params)).toBe(serviceError(INVALID_ARG));
    }
    expect(await call('index.getLastAccepted', 'hex')).toBe(serviceError(INVALID_ARG));
    expect(await call('index.getLastAccepted', { encoding: 'json' })).toBe(serviceError('unsupported encoding in method'));
  });
});

describe('index encodings and time', () => {
  it('accepts hex case-insensitively, hexc with a checksum and hexnc without', async () => {
    const sim = await simulator(STILL);
    const url = `${sim.url}/ext/index/P/block`;
    const hex = await result<FormattedContainer>(url, 'index.getContainerByIndex', { index: 7, encoding: 'HEX' });
    expect(hex.encoding).toBe('hex');
    const hexc = await result<FormattedContainer>(url, 'index.getContainerByIndex', { index: 7, encoding: 'hexc' });
    checkContainer(hexc, 'hexc');
    expect(hexc.bytes).toBe(hex.bytes);
    const hexnc = await result<FormattedContainer>(url, 'index.getContainerByIndex', { index: 7, encoding: 'hexnc' });
    checkContainer(hexnc, 'hexnc');
    expect(hexnc.bytes).toBe(hex.bytes.slice(0, -8));
    // Omitted encoding means hex.
    expect(await result(url, 'index.getContainerByIndex', { index: 7 })).toEqual(hex);
  });

  it('accepts containers as the chain grows; X/vtx stays frozen', async () => {
    const sim = await simulator({ ...STILL, timeScale: 200 });
    const lastIndex = async (endpoint: string) =>
      BigInt((await result<FormattedContainer>(`${sim.url}/ext/index/${endpoint}`, 'index.getLastAccepted')).index);
    const c0 = await lastIndex('C/block');
    const tx0 = await lastIndex('X/tx');
    const vtx0 = await lastIndex('X/vtx');
    // C: a block every 2 s of scenario time, 100 per second of real time at this scale.
    await waitFor(
      () => lastIndex('C/block'),
      (i) => i >= c0 + 20n,
      5_000,
      'C/block to grow',
    );
    await waitFor(
      () => lastIndex('X/tx'),
      (i) => i >= tx0 + 4n,
      5_000,
      'X/tx to grow',
    );
    expect(await lastIndex('X/vtx')).toBe(vtx0);
    // A new container carries a fresh acceptance time; the historic ones the bootstrap time.
    const url = `${sim.url}/ext/index/C/block`;
    const newest = await result<FormattedContainer>(url, 'index.getLastAccepted');
    expect(Math.abs(Date.parse(newest.timestamp) - Date.now())).toBeLessThan(5_000);
    const oldest = await result<FormattedContainer>(url, 'index.getContainerByIndex', { index: 0 });
    expect(Date.parse(oldest.timestamp)).toBeLessThan(Date.now() - (3 * 3_600_000) / 200);
  });

  it('ties the chain check to the index: lastAcceptedID is the block at index height-1', async () => {
    const sim = await simulator(STILL);
    const health = report((await http(`${sim.url}/ext/health`)).body);
    const consensus = defined(health.checks.C.message, 'the C message').engine.consensus;
    const block = await result<FormattedContainer>(`${sim.url}/ext/index/C/block`, 'index.getContainerByIndex', {
      index: defined(consensus.lastAcceptedHeight, 'lastAcceptedHeight') - 1,
    });
    expect(block.id).toBe(consensus.lastAcceptedID);
  });

  it('starts fresh indexes empty: no containers have been accepted, then they come', async () => {
    const sim = await simulator({ ...STILL, timeScale: 100, freshIndex: true });
    const url = (e: string) => `${sim.url}/ext/index/${e}`;
    expect((await rpc(url('X/vtx'), 'index.getLastAccepted')).body).toBe(serviceError('no containers have been accepted'));
    expect((await rpc(url('X/vtx'), 'index.getContainerRange', { startIndex: 0, numToFetch: 1 })).body).toBe(
      serviceError('no containers have been accepted'),
    );
    expect((await rpc(url('X/vtx'), 'index.getContainerByIndex', { index: 0 })).body).toBe(serviceError('no container at index 0'));
    // The check of numToFetch comes before the emptiness check.
    expect((await rpc(url('X/vtx'), 'index.getContainerRange', { startIndex: 0, numToFetch: 0 })).body).toBe(
      serviceError('numToFetch must be in [1,1024] but is 0'),
    );
    const first = await waitFor(
      async () => envelope((await rpc(url('C/block'), 'index.getContainerByIndex', { index: 0 })).body, 'index.getContainerByIndex'),
      (r) => r.result !== undefined,
      5_000,
      'the first C block of a fresh index',
    );
    const container = defined(first.result, 'the first container');
    checkContainer(container);
    expect(Math.abs(Date.parse(container.timestamp) - Date.now())).toBeLessThan(5_000);
  });

  it('is 404 when indexing is off, and the endpoint takes POST JSON-RPC only', async () => {
    const off = await simulator({ ...STILL, index: false });
    const r = await rpc(`${off.url}/ext/index/C/block`, 'index.getLastAccepted');
    expect(r.status).toBe(404);
    expect(r.body).toBe('404 page not found\n');
    const on = await simulator(STILL);
    const get = await http(`${on.url}/ext/index/C/block`);
    expect(get.status).toBe(405);
    expect(get.body).toBe('rpc: POST method required, received GET');
    expect((await post(`${on.url}/ext/index/C/tx`, '{}')).status).toBe(404);
    expect((await post(`${on.url}/ext/index/C`, '{}')).status).toBe(404);
  });
});
