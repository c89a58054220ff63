// The real node itself: it starts, becomes ready and healthy, and C-Chain transactions advance
// both the C/block index and the C chain check's lastAcceptedHeight.
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { sendCChainTransfers } from './chain.js';
import { httpRequest } from './http.js';
import { startRealNode, type RealNode } from './node.js';
import { chainHeight, healthReport, lastAcceptedIndex } from './queries.js';
import { INDEX_ENDPOINTS } from './record.js';
import { waitFor } from './wait.js';
import { defined } from '../helpers/assert.js';

describe('real AvalancheGo node', () => {
  // Set by beforeAll; undefined when the node did not start.
  let started: RealNode | undefined;
  const theNode = (): RealNode => defined(started, 'the node');

  beforeAll(async () => {
    started = await startRealNode();
  });
  afterAll(async () => {
    await started?.stop();
  });

  const printLogOnFailure = (): void =>
    onTestFailed(async () => {
      process.stderr.write(`--- node log tail ---\n${await theNode().logTail(80)}\n`);
    });

  it('is ready, answers on loopback and reports itself healthy', async () => {
    const node = theNode();
    printLogOnFailure();
    expect(new URL(node.url).hostname).toBe('127.0.0.1');
    const readiness = await httpRequest(node.url, { method: 'GET', path: '/ext/health/readiness' });
    expect(readiness.status).toBe(200);
    expect(readiness.headers['node-id']).toMatch(/^NodeID-/);
    // Checks run every --health-check-frequency; wait for a run in which all pass.
    const report = await waitFor(
      async () => {
        const r = await healthReport(node.url);
        return r.healthy ? r : false;
      },
      { timeoutMs: 30_000, what: 'health.health healthy' },
    );
    expect(Object.keys(report.checks)).toEqual(expect.arrayContaining(['C', 'P', 'X', 'bootstrapped', 'network']));
  });

  it('serves the index API for every endpoint', async () => {
    const node = theNode();
    printLogOnFailure();
    for (const endpoint of INDEX_ENDPOINTS) {
      expect(await lastAcceptedIndex(node.url, endpoint)).toBeGreaterThanOrEqual(-1);
    }
  });

  it('C-Chain transfers advance the C/block index and the C check height', async () => {
    const node = theNode();
    printLogOnFailure();
    const height0 = await waitFor(() => chainHeight(node.url, 'C'), { timeoutMs: 30_000, what: 'C height' });
    const index0 = await lastAcceptedIndex(node.url, 'C/block');

    const transfers = 3;
    const { lastBlock } = await sendCChainTransfers(node.url, transfers);
    expect(Number(lastBlock)).toBeGreaterThanOrEqual(height0 + transfers);

    // The index is written on acceptance; the health height on the next check run.
    const index1 = await waitFor(
      async () => {
        const i = await lastAcceptedIndex(node.url, 'C/block');
        return i >= index0 + transfers ? i : false;
      },
      { timeoutMs: 30_000, what: 'C/block index to advance' },
    );
    const height1 = await waitFor(
      async () => {
        const h = await chainHeight(node.url, 'C');
        return h !== undefined && h >= height0 + transfers ? h : false;
      },
      { timeoutMs: 30_000, what: 'C lastAcceptedHeight to advance' },
    );
    expect(index1).toBeGreaterThanOrEqual(index0 + transfers);
    expect(height1).toBe(Number(lastBlock));
  });
});
