// The parsers over every answer recorded from real AvalancheGo nodes
// (test/fixtures/real/<version>/, recorded by `RECORD=1 npm run test:real-node`).
import { describe, expect, it } from 'vitest';
import { recordings, type Recording } from '../helpers/recordings.js';
import { parseHealth } from '../../src/sources/health.js';
import { EMPTY_INDEX_MESSAGE, parseLastAccepted } from '../../src/sources/index-api.js';
import type { IndexEndpoint } from '../../src/sources/index-api.js';

const all = recordings();
const rpcMethod = (r: Recording) => {
  try {
    return (JSON.parse(r.request.body ?? '') as { method?: string }).method;
  } catch {
    return undefined;
  }
};

// Health reports: JSON-RPC health.* answers (result) and GET answers with a body (the report itself).
const healthReports = all.filter(([, r]) => {
  if (!r.request.path.startsWith('/ext/health') || !r.body) return false;
  if (r.request.method === 'GET') return r.status === 200 || r.status === 503;
  const method = rpcMethod(r);
  return (
    r.request.path === '/ext/health' &&
    (method === 'health.health' || method === 'health.readiness' || method === 'health.liveness') &&
    r.body.includes('"result"')
  );
});

const lastAccepted = all.filter(([, r]) => {
  const params = (() => {
    try {
      return (JSON.parse(r.request.body ?? '') as { params?: { encoding?: string } }).params;
    } catch {
      return undefined;
    }
  })();
  return rpcMethod(r) === 'index.getLastAccepted' && r.status === 200 && (params?.encoding ?? 'hex') === 'hex';
});

describe('real recordings', () => {
  it('are there, from several releases', () => {
    expect(new Set(all.map(([name]) => name.split('/')[0])).size).toBeGreaterThanOrEqual(2);
    expect(healthReports.length).toBeGreaterThan(20);
    expect(lastAccepted.length).toBeGreaterThan(10);
  });

  it.each(healthReports)('health %s parses with nothing unparsed', (_name, r) => {
    const body = JSON.parse(r.body) as { result?: unknown };
    const snapshot = parseHealth(r.request.method === 'GET' ? body : body.result);
    expect(snapshot.checks.reduce((n, c) => n + c.unparsed, 0)).toBe(0);
    // The GET forms carry the verdict in the status too.
    if (r.request.method === 'GET') expect(snapshot.healthy).toBe(r.status === 200);
    for (const chain of snapshot.chains) {
      if (!chain.bootstrapping) expect(chain.lastAcceptedHeight ?? chain.processingBlocks).toBeGreaterThanOrEqual(0);
    }
  });

  it.each(lastAccepted)('index %s parses, or is the empty index', (_name, r) => {
    const endpoint = r.request.path.replace('/ext/index/', '') as IndexEndpoint;
    const body = JSON.parse(r.body) as { result?: unknown; error?: { message: string } };
    if (body.error) expect(body.error.message).toBe(EMPTY_INDEX_MESSAGE);
    else expect(parseLastAccepted(endpoint, body.result)).toMatchObject({ state: 'ok' });
  });

  it('a bootstrapping validator: chains bootstrapping, failing checks named', () => {
    const r = all.find(([name]) => name === 'v1.14.2/bootstrapping-validator/health-rpc-health.json')?.[1];
    if (!r) throw new Error('the bootstrapping validator recording is missing from test/fixtures/real/v1.14.2/');
    const snapshot = parseHealth((JSON.parse(r.body) as { result: unknown }).result);
    expect(snapshot.healthy).toBe(false);
    expect(snapshot.chains.length).toBeGreaterThan(0);
    expect(snapshot.chains.every((c) => c.bootstrapping)).toBe(true);
    expect(snapshot.checks.filter((c) => !c.passing).map((c) => c.name)).toEqual(expect.arrayContaining(['bootstrapped', 'C', 'P', 'X']));
  });
});
