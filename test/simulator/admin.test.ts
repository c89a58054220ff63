// Conformance of the admin API (fact sheet §6): every method, its state,
// and every error string.

import { describe, expect, it } from 'vitest';
import { defined } from '../helpers/assert.js';
import { http, result, rpc, serviceError, simulator } from './helpers.js';

const STILL = { checkFrequencyMs: 3_600_000 };
const INVALID_ARG = "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. See documentation for example calls";
const OK = '{"jsonrpc":"2.0","result":{},"id":1}\n';
const X_CHAIN = '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM';
const P_CHAIN = '11111111111111111111111111111111LpoYY';

async function admin(baseUrl: string, method: string, params?: unknown): Promise<string> {
  return (await rpc(`${baseUrl}/ext/admin`, method, params)).body;
}

describe('admin.alias', () => {
  it('serves an API under its alias as well as the original path', async () => {
    const sim = await simulator(STILL);
    expect(await admin(sim.url, 'admin.alias', { endpoint: 'health', alias: 'myhealth' })).toBe(OK);
    expect((await http(`${sim.url}/ext/myhealth/liveness`)).body).toBe('{"checks":{},"healthy":true}\n');
    expect((await http(`${sim.url}/ext/myhealth`)).status).toBe(200);
    expect((await http(`${sim.url}/ext/health/liveness`)).status).toBe(200);
    expect(await admin(sim.url, 'admin.alias', { endpoint: 'index/C', alias: 'cidx' })).toBe(OK);
    const last = await result(`${sim.url}/ext/cidx/block`, 'index.getLastAccepted');
    expect(last.encoding).toBe('hex');
  });

  it('refuses an alias longer than 512 bytes and an alias already taken', async () => {
    const sim = await simulator(STILL);
    expect(await admin(sim.url, 'admin.alias', { endpoint: 'health', alias: 'a'.repeat(513) })).toBe(serviceError('alias length is too long'));
    expect(await admin(sim.url, 'admin.alias', { endpoint: 'health', alias: 'a'.repeat(512) })).toBe(OK);
    // 257 two-byte characters: 514 bytes.
    expect(await admin(sim.url, 'admin.alias', { endpoint: 'health', alias: 'é'.repeat(257) })).toBe(serviceError('alias length is too long'));
    expect(await admin(sim.url, 'admin.alias', { endpoint: 'admin', alias: 'h2' })).toBe(OK);
    expect(await admin(sim.url, 'admin.alias', { endpoint: 'health', alias: 'h2' })).toBe(
      serviceError('route is either already aliased or already maps to a handle: /ext/h2'),
    );
    expect(await admin(sim.url, 'admin.alias', { endpoint: 'admin', alias: 'health' })).toBe(
      serviceError('failed to create endpoint as /ext/health already exists'),
    );
  });
});

describe('chain aliases', () => {
  it('lists the aliases of a chain and adds new ones', async () => {
    const sim = await simulator(STILL);
    expect(await admin(sim.url, 'admin.getChainAliases', { chain: X_CHAIN })).toBe(
      `{"jsonrpc":"2.0","result":{"aliases":["X","avm","${X_CHAIN}"]},"id":1}\n`,
    );
    expect(await admin(sim.url, 'admin.getChainAliases', { chain: P_CHAIN })).toBe(
      `{"jsonrpc":"2.0","result":{"aliases":["P","platform","${P_CHAIN}"]},"id":1}\n`,
    );
    expect(await admin(sim.url, 'admin.aliasChain', { chain: 'X', alias: 'exchange' })).toBe(OK);
    expect(await admin(sim.url, 'admin.aliasChain', { chain: 'exchange', alias: 'xx' })).toBe(OK);
    expect(await admin(sim.url, 'admin.getChainAliases', { chain: X_CHAIN })).toBe(
      `{"jsonrpc":"2.0","result":{"aliases":["X","avm","${X_CHAIN}","exchange","xx"]},"id":1}\n`,
    );
  });

  it('returns the aliaser and ID errors', async () => {
    const sim = await simulator(STILL);
    expect(await admin(sim.url, 'admin.aliasChain', { chain: 'nochain', alias: 'x1' })).toBe(serviceError('there is no ID with alias: nochain'));
    expect(await admin(sim.url, 'admin.aliasChain', { chain: 'C', alias: 'X' })).toBe(serviceError('alias already mapped to an ID: X'));
    expect(await admin(sim.url, 'admin.aliasChain', { chain: 'C', alias: 'c'.repeat(513) })).toBe(serviceError('alias length is too long'));
    expect(await admin(sim.url, 'admin.getChainAliases', { chain: 'X' })).toBe(serviceError('input string is smaller than the checksum size'));
    expect(await admin(sim.url, 'admin.getChainAliases', { chain: '' })).toBe(serviceError('base58 decoding error: zero length string'));
    expect(await admin(sim.url, 'admin.getChainAliases', { chain: 'abc0' })).toBe(serviceError("base58 decoding error: invalid base58 digit ('0')"));
    expect(await admin(sim.url, 'admin.getChainAliases', { chain: 'abcé' })).toBe(
      serviceError('base58 decoding error: high-bit set on invalid digit'),
    );
    // A valid cb58 string that is not 32 bytes long: a node ID's 20.
    expect(await admin(sim.url, 'admin.getChainAliases', { chain: defined(sim.nodes[0], 'node-0').nodeId.slice('NodeID-'.length) })).toBe(
      serviceError('invalid hash length: expected 32 bytes but got 20'),
    );
    expect(await admin(sim.url, 'admin.getChainAliases', { chain: `${X_CHAIN.slice(0, -1)}N` })).toBe(serviceError('invalid input checksum'));
    // A valid but unknown ID has no aliases: Go's nil slice.
    expect(await admin(sim.url, 'admin.getChainAliases', { chain: '2Xy1mbEtfD6E3AWmeWYJhz8bhXL8XtwXvWtk4V7Sqr2nE6bFHr' })).toBe(
      '{"jsonrpc":"2.0","result":{"aliases":null},"id":1}\n',
    );
  });
});

describe('logger levels', () => {
  it('reports every logger, or one', async () => {
    const sim = await simulator(STILL);
    const info = '{"logLevel":"INFO","displayLevel":"INFO"}';
    expect(await admin(sim.url, 'admin.getLoggerLevel')).toBe(
      `{"jsonrpc":"2.0","result":{"loggerLevels":{"C":${info},"P":${info},"X":${info},"main":${info},"vm-factory":${info}}},"id":1}\n`,
    );
    expect(await admin(sim.url, 'admin.getLoggerLevel', { loggerName: 'C' })).toBe(
      `{"jsonrpc":"2.0","result":{"loggerLevels":{"C":${info}}},"id":1}\n`,
    );
    expect(await admin(sim.url, 'admin.getLoggerLevel', { loggerName: 'nope' })).toBe(serviceError('logger with name "nope" not found'));
  });

  it('sets levels case-insensitively and answers with the new levels', async () => {
    const sim = await simulator(STILL);
    expect(await admin(sim.url, 'admin.setLoggerLevel', { loggerName: 'C', logLevel: 'debug' })).toBe(
      '{"jsonrpc":"2.0","result":{"loggerLevels":{"C":{"logLevel":"DEBUG","displayLevel":"INFO"}}},"id":1}\n',
    );
    expect(await admin(sim.url, 'admin.setLoggerLevel', { displayLevel: 'Verbo' })).toContain('"main":{"logLevel":"INFO","displayLevel":"VERBO"}');
    expect(await admin(sim.url, 'admin.getLoggerLevel', { loggerName: 'C' })).toBe(
      '{"jsonrpc":"2.0","result":{"loggerLevels":{"C":{"logLevel":"DEBUG","displayLevel":"VERBO"}}},"id":1}\n',
    );
    for (const level of ['OFF', 'FATAL', 'ERROR', 'WARN', 'INFO', 'TRACE', 'DEBUG', 'VERBO']) {
      expect(await admin(sim.url, 'admin.setLoggerLevel', { loggerName: 'P', logLevel: level })).toContain(`"logLevel":"${level}"`);
    }
  });

  it('returns the level errors', async () => {
    const sim = await simulator(STILL);
    const noLevel = serviceError('need to specify either displayLevel or logLevel');
    expect(await admin(sim.url, 'admin.setLoggerLevel', { loggerName: 'C' })).toBe(noLevel);
    expect(await admin(sim.url, 'admin.setLoggerLevel', { logLevel: null })).toBe(noLevel);
    expect(await admin(sim.url, 'admin.setLoggerLevel')).toBe(noLevel);
    expect(await admin(sim.url, 'admin.setLoggerLevel', { loggerName: 'nope', logLevel: 'INFO' })).toBe(
      serviceError('logger with name "nope" not found'),
    );
    // An unknown level fails while decoding the params.
    expect(await admin(sim.url, 'admin.setLoggerLevel', { logLevel: 'LOUD' })).toBe(serviceError(INVALID_ARG));
    expect(await admin(sim.url, 'admin.setLoggerLevel', { logLevel: '' })).toBe(serviceError(INVALID_ARG));
    expect(await admin(sim.url, 'admin.setLoggerLevel', { displayLevel: 3 })).toBe(serviceError(INVALID_ARG));
  });
});

describe('VMs, profiles and the rest', () => {
  it('loads subnet-evm once; a node with a broken plugin reports it every time', async () => {
    const sim = await simulator({ ...STILL, nodes: 2 });
    const [a, b] = sim.nodes.map((n) => n.baseUrl) as [string, string];
    const evm = '"newVMs":{"srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy":["subnet-evm"]}';
    expect(await admin(a, 'admin.loadVMs')).toBe(`{"jsonrpc":"2.0","result":{${evm}},"id":1}\n`);
    expect(await admin(a, 'admin.loadVMs', {})).toBe('{"jsonrpc":"2.0","result":{"newVMs":{}},"id":1}\n');
    const first = await result(`${b}/ext/admin`, 'admin.loadVMs');
    expect(Object.keys(first)).toEqual(['newVMs', 'failedVMs']);
    expect(Object.values(defined(first.failedVMs, 'failedVMs'))).toEqual(['fork/exec: exec format error']);
    const again = await result(`${b}/ext/admin`, 'admin.loadVMs');
    expect(again.newVMs).toEqual({});
    expect(again.failedVMs).toEqual(first.failedVMs);
  });

  it('runs the CPU profiler from idle to running and back', async () => {
    const sim = await simulator(STILL);
    expect(await admin(sim.url, 'admin.stopCPUProfiler')).toBe(serviceError("cpu profiler doesn't exist"));
    expect(await admin(sim.url, 'admin.startCPUProfiler')).toBe(OK);
    expect(await admin(sim.url, 'admin.startCPUProfiler')).toBe(serviceError('cpu profiler already running'));
    expect(await admin(sim.url, 'admin.stopCPUProfiler')).toBe(OK);
    expect(await admin(sim.url, 'admin.stopCPUProfiler')).toBe(serviceError("cpu profiler doesn't exist"));
  });

  it('answers the profile, stacktrace, config and database methods', async () => {
    const sim = await simulator(STILL);
    for (const method of ['admin.memoryProfile', 'admin.lockProfile', 'admin.stacktrace']) {
      expect(await admin(sim.url, method), method).toBe(OK);
    }
    expect(await admin(sim.url, 'admin.memoryProfile', 'x')).toBe(serviceError(INVALID_ARG));
    const config = await result(`${sim.url}/ext/admin`, 'admin.getConfig');
    expect(config).toMatchObject({ nodeID: defined(sim.nodes[0], 'node-0').nodeId, networkID: 1, healthCheckFreq: 3_600_000_000_000 });
    expect(await admin(sim.url, 'admin.dbGet', { key: '0x0102' })).toBe('{"jsonrpc":"2.0","result":{"value":"","errorCode":2},"id":1}\n');
    expect(await admin(sim.url, 'admin.dbGet', { key: '0102' })).toBe(serviceError('missing 0x prefix to hex encoding'));
    expect(await admin(sim.url, 'admin.dbGet', { key: '0x012' })).toBe(serviceError('encoding/hex: odd length hex string'));
  });

  it('forgets its state on a restart', async () => {
    const sim = await simulator(STILL);
    await admin(sim.url, 'admin.startCPUProfiler');
    await admin(sim.url, 'admin.alias', { endpoint: 'health', alias: 'hh' });
    sim.setScenario('node-0', 'starting');
    expect((await http(`${sim.url}/ext/hh/liveness`)).status).toBe(404);
    expect(await admin(sim.url, 'admin.startCPUProfiler')).toBe(OK);
  });

  it('is absent when the admin API is off', async () => {
    const sim = await simulator({ ...STILL, admin: false });
    const r = await rpc(`${sim.url}/ext/admin`, 'admin.lockProfile');
    expect([r.status, r.body]).toEqual([404, '404 page not found\n']);
  });
});
