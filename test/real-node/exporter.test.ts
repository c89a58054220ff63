// The exporter (dist/main.js, a child process) against the real node: it is up, parses every
// check the node reports, exposes chain heights and every index endpoint (empty ones as empty),
// and shows new C-Chain blocks on a later poll. Then against a real node that never bootstraps:
// up but unhealthy, failing checks counted as failing (not as unparsed), chains bootstrapping.
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { sendCChainTransfers } from './chain.js';
import { parseMetrics, select, startExporter, type RunningExporter, type Sample } from './exporter.js';
import { httpRequest } from './http.js';
import { startRealNode, type NodeProfile, type RealNode } from './node.js';
import { healthReport, lastAcceptedIndex } from './queries.js';
import { INDEX_ENDPOINTS, PRIMARY_NETWORK_ID } from './record.js';
import { legacyModuleDir, legacyVersions } from './build.js';
import { waitFor } from './wait.js';
import { defined } from '../helpers/assert.js';

const NODE = 'real';

function exporterConfig(url: string): string {
  return [
    'defaults:',
    '  interval: 2s',
    '  timeout: 1s',
    '  index:',
    `    endpoints: [${INDEX_ENDPOINTS.join(', ')}]`,
    // The slow sources (defaults 30 s and 1 m) as often as the others, so a test waits seconds.
    '  info: { interval: 2s }',
    '  platform: { interval: 2s }',
    'targets:',
    `  - name: ${NODE}`,
    `    url: ${url}`,
    '',
  ].join('\n');
}

/** Polls /metrics until `check` accepts a scrape; returns that scrape. */
function scrapeUntil(exporter: RunningExporter, what: string, check: (s: Sample[]) => boolean, timeoutMs = 30_000): Promise<Sample[]> {
  return waitFor(
    async () => {
      const samples = await exporter.metrics();
      return check(samples) ? samples : false;
    },
    { timeoutMs, intervalMs: 250, what },
  );
}

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return select(samples, name, { node: NODE, ...labels })[0]?.value;
}

/** A real node and an exporter polling it. */
interface Both {
  node: RealNode;
  exporter: RunningExporter;
}

function printLogsOnFailure(get: () => Both): void {
  onTestFailed(async () => {
    const { exporter, node } = get();
    process.stderr.write(`--- exporter output (tail) ---\n${exporter.output().split('\n').slice(-40).join('\n')}\n`);
    process.stderr.write(`--- node log tail ---\n${await node.logTail(40)}\n`);
  });
}

async function startBoth(profile: NodeProfile, extraFlags: string[] = [], moduleDir?: string): Promise<Both> {
  const node = await startRealNode({ profile, extraFlags, ...(moduleDir ? { moduleDir } : {}) });
  try {
    return { node, exporter: await startExporter(exporterConfig(node.url)) };
  } catch (err) {
    await node.stop();
    throw err;
  }
}

/**
 * The info and platform series of a lone node of `version`: identity and version, methods the
 * release lacks as `unsupported` states (info.upgrades before v1.11.11, the validator fee state
 * before v1.12.2, both answering `rpc: can't find method`), the polls successful, and no
 * validator entry (with sybil protection off the node is in no validator set).
 */
async function expectInfoAndPlatform(exporter: RunningExporter, node: RealNode, version: string): Promise<void> {
  const samples = await scrapeUntil(
    exporter,
    'info and platform polls',
    (s) =>
      value(s, 'avalanchego_exporter_poll_success', { source: 'info' }) !== undefined &&
      value(s, 'avalanchego_exporter_poll_success', { source: 'platform' }) !== undefined &&
      value(s, 'avalanchego_validator', { subnet: PRIMARY_NETWORK_ID }) !== undefined,
  );
  const bare = version.slice(1);
  expect(select(samples, 'avalanchego_node_info', { node: NODE }).map((s) => s.labels)).toEqual([
    { node: NODE, node_id: node.nodeId, version: bare, network_id: '12345' },
  ]);
  const [major, minor, patch] = bare.split('.').map(Number) as [number, number, number];
  expect(value(samples, 'avalanchego_node_version_number')).toBe(major * 1e6 + minor * 1e3 + patch);
  for (const source of ['info', 'platform']) {
    expect(value(samples, 'avalanchego_exporter_poll_success', { source }), source).toBe(1);
  }
  const lacksUpgrades = version === 'v1.10.19';
  const lacksFeeState = version === 'v1.10.19' || version === 'v1.11.13';
  const state = (name: string, method: string) => select(samples, name, { node: NODE, method }).find((s) => s.value === 1)?.labels.state;
  expect(state('avalanchego_info_method_state', 'info.upgrades')).toBe(lacksUpgrades ? 'unsupported' : 'ok');
  expect(state('avalanchego_info_method_state', 'info.getNodeID')).toBe('ok');
  expect(state('avalanchego_platform_method_state', 'platform.getValidatorFeeState')).toBe(lacksFeeState ? 'unsupported' : 'ok');
  expect(state('avalanchego_platform_method_state', 'platform.getCurrentValidators')).toBe('ok');
  expect(value(samples, 'avalanchego_validator_fee_price_navax_per_second')).toBe(lacksFeeState ? undefined : 1);
  expect(value(samples, 'avalanchego_validator', { subnet: PRIMARY_NETWORK_ID })).toBe(0);
}

describe('exporter against the real node', () => {
  // Set by beforeAll; undefined when it failed (startBoth stops what it had started).
  let started: Both | undefined;
  const both = (): Both => defined(started, 'the node and the exporter');

  beforeAll(async () => {
    started = await startBoth('single-node');
  });
  afterAll(async () => {
    await started?.exporter.stop();
    await started?.node.stop();
  });
  const logs = () => printLogsOnFailure(both);

  it('reports the node up and healthy, with every check parsed', async () => {
    const { node, exporter } = both();
    logs();
    // Wait for a poll after every check of the node has run and passed.
    await waitFor(async () => (await healthReport(node.url)).healthy, { timeoutMs: 30_000, what: 'node healthy' });
    // The health and index sources poll independently: wait for a completed poll of each.
    const samples = await scrapeUntil(
      exporter,
      'avalanchego_up 1, healthy 1 and an index poll',
      (s) =>
        value(s, 'avalanchego_up') === 1 &&
        value(s, 'avalanchego_healthy') === 1 &&
        value(s, 'avalanchego_exporter_poll_success', { source: 'index' }) !== undefined &&
        // With the info source on (the default), avalanchego_node_info comes from its first poll.
        select(s, 'avalanchego_node_info', { node: NODE, node_id: node.nodeId }).length === 1,
    );
    const report = await healthReport(node.url);
    const checks = Object.keys(report.checks).sort();

    const passing = select(samples, 'avalanchego_health_check_passing', { node: NODE });
    expect(passing.map((s) => s.labels.check).sort()).toEqual(checks);
    expect(passing.every((s) => s.value === 1)).toBe(true);

    const unparsed = select(samples, 'avalanchego_health_check_unparsed_fields', { node: NODE });
    expect(unparsed.map((s) => s.labels.check).sort()).toEqual(checks);
    expect(unparsed.filter((s) => s.value !== 0)).toEqual([]);

    expect(select(samples, 'avalanchego_node_info', { node: NODE, node_id: node.nodeId })).toHaveLength(1);
    for (const source of ['health', 'index']) {
      expect(value(samples, 'avalanchego_exporter_poll_success', { source })).toBe(1);
    }
  });

  it('exposes chain heights and every index endpoint, an empty index as empty', async () => {
    const { node, exporter } = both();
    logs();
    const samples = await scrapeUntil(
      exporter,
      'chain heights and index metrics',
      (s) =>
        ['C', 'P', 'X'].every((chain) => value(s, 'avalanchego_chain_last_accepted_height', { chain }) !== undefined) &&
        INDEX_ENDPOINTS.every((endpoint) => value(s, 'avalanchego_index_available', { endpoint }) !== undefined),
    );
    for (const chain of ['C', 'P', 'X']) {
      expect(value(samples, 'avalanchego_chain_last_accepted_height', { chain })).toBeGreaterThanOrEqual(0);
      expect(value(samples, 'avalanchego_chain_bootstrapping', { chain })).toBe(0);
    }
    for (const endpoint of INDEX_ENDPOINTS) {
      expect(value(samples, 'avalanchego_index_available', { endpoint }), endpoint).toBe(1);
      const last = await lastAcceptedIndex(node.url, endpoint);
      if (last < 0) {
        // Empty: zero containers, and no position or timestamp to report.
        expect(value(samples, 'avalanchego_index_accepted_containers', { endpoint }), endpoint).toBe(0);
        expect(value(samples, 'avalanchego_index_last_accepted_index', { endpoint }), endpoint).toBeUndefined();
      } else {
        expect(value(samples, 'avalanchego_index_last_accepted_index', { endpoint }), endpoint).toBe(last);
        expect(value(samples, 'avalanchego_index_accepted_containers', { endpoint }), endpoint).toBe(last + 1);
      }
    }
  });

  it('reports the new C height and C/block index on a later poll after transactions', async () => {
    const { node, exporter } = both();
    logs();
    const before = await exporter.metrics();
    const height0 = value(before, 'avalanchego_chain_last_accepted_height', { chain: 'C' }) ?? 0;
    const index0 = value(before, 'avalanchego_index_last_accepted_index', { endpoint: 'C/block' }) ?? -1;

    const transfers = 3;
    const { lastBlock } = await sendCChainTransfers(node.url, transfers);
    const expectedIndex = await lastAcceptedIndex(node.url, 'C/block');
    expect(expectedIndex).toBeGreaterThanOrEqual(index0 + transfers);

    const after = await scrapeUntil(
      exporter,
      'the new C height and C/block index',
      (s) =>
        value(s, 'avalanchego_chain_last_accepted_height', { chain: 'C' }) === Number(lastBlock) &&
        value(s, 'avalanchego_index_last_accepted_index', { endpoint: 'C/block' }) === expectedIndex,
    );
    expect(value(after, 'avalanchego_chain_last_accepted_height', { chain: 'C' })).toBeGreaterThanOrEqual(height0 + transfers);
    expect(value(after, 'avalanchego_index_accepted_containers', { endpoint: 'C/block' })).toBe(expectedIndex + 1);
    const acceptedAt = value(after, 'avalanchego_index_last_accepted_timestamp_seconds', { endpoint: 'C/block' });
    expect(acceptedAt).toBeGreaterThan(Date.now() / 1000 - 120);
  });
  it('reports its version and the info and platform states of a lone node', async () => {
    const { node, exporter } = both();
    logs();
    await expectInfoAndPlatform(exporter, node, node.version);
  });
  it('serves the same node through /probe?target=real, and is ready', async () => {
    const { exporter } = both();
    logs();
    const probe = await httpRequest(exporter.url, { method: 'GET', path: `/probe?target=${NODE}` });
    expect(probe.status).toBe(200);
    const samples = parseMetrics(probe.body);
    expect(value(samples, 'avalanchego_up')).toBe(1);
    expect(value(samples, 'avalanchego_chain_last_accepted_height', { chain: 'C' })).toBeGreaterThanOrEqual(0);
    expect(value(samples, 'avalanchego_index_available', { endpoint: 'C/block' })).toBe(1);
    expect((await httpRequest(exporter.url, { method: 'GET', path: '/-/ready' })).status).toBe(200);
  });
});

describe('exporter against a real node that never bootstraps', () => {
  // Set by beforeAll; undefined when it failed (startBoth stops what it had started).
  let started: Both | undefined;
  const both = (): Both => defined(started, 'the node and the exporter');

  beforeAll(async () => {
    started = await startBoth('bootstrapping-validator');
  });
  afterAll(async () => {
    await started?.exporter.stop();
    await started?.node.stop();
  });

  it('reports it up, unhealthy, with the failing checks parsed and the chains bootstrapping', async () => {
    const { node, exporter } = both();
    printLogsOnFailure(() => ({ exporter, node }));
    const samples = await scrapeUntil(
      exporter,
      'a health poll and an index poll of the bootstrapping node',
      // The index source runs on its own interval: its first poll may end after the health poll's.
      (s) =>
        value(s, 'avalanchego_up') === 1 &&
        value(s, 'avalanchego_chain_bootstrapping', { chain: 'C' }) !== undefined &&
        INDEX_ENDPOINTS.every((endpoint) => value(s, 'avalanchego_index_available', { endpoint }) !== undefined),
    );
    expect(value(samples, 'avalanchego_healthy')).toBe(0);
    const report = await healthReport(node.url);
    const failing = Object.entries(report.checks)
      .filter(([, check]) => check.error !== undefined)
      .map(([name]) => name)
      .sort();
    expect(failing).toEqual(['C', 'P', 'X', 'bootstrapped', 'network']);
    for (const check of Object.keys(report.checks)) {
      const passing = value(samples, 'avalanchego_health_check_passing', { check });
      expect(passing, check).toBe(failing.includes(check) ? 0 : 1);
      expect(value(samples, 'avalanchego_health_check_unparsed_fields', { check }), check).toBe(0);
    }
    for (const check of failing) {
      expect(value(samples, 'avalanchego_health_check_contiguous_failures', { check }), check).toBeGreaterThanOrEqual(1);
      expect(value(samples, 'avalanchego_health_check_first_failure_timestamp_seconds', { check }), check).toBeGreaterThan(0);
    }
    for (const chain of ['C', 'P', 'X']) {
      expect(value(samples, 'avalanchego_chain_bootstrapping', { chain }), chain).toBe(1);
      // consensus is {} while bootstrapping: no height to report.
      expect(value(samples, 'avalanchego_chain_last_accepted_height', { chain }), chain).toBeUndefined();
      // 1 of the 5 equal genesis validators is connected: itself.
      expect(value(samples, 'avalanchego_chain_connected_stake_ratio', { chain }), chain).toBeCloseTo(0.2, 6);
      expect(value(samples, 'avalanchego_chain_disconnected_validators', { chain }), chain).toBe(4);
    }
    expect(value(samples, 'avalanchego_network_connected_peers')).toBe(0);
    expect(value(samples, 'avalanchego_bootstrapping_subnets')).toBe(1);
    for (const endpoint of INDEX_ENDPOINTS) {
      expect(value(samples, 'avalanchego_index_available', { endpoint }), endpoint).toBe(1);
      expect(value(samples, 'avalanchego_index_accepted_containers', { endpoint }), endpoint).toBe(0);
    }
    for (const source of ['health', 'index']) {
      expect(value(samples, 'avalanchego_exporter_poll_success', { source }), source).toBe(1);
    }
  });

  it('reports the P-Chain API answering 503 while bootstrapping as a state, not as a failed poll', async () => {
    const { node, exporter } = both();
    printLogsOnFailure(() => ({ exporter, node }));
    const res = await httpRequest(node.url, {
      method: 'POST',
      path: '/ext/bc/P',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"platform.getHeight","params":{}}',
    });
    expect([res.status, res.body]).toEqual([503, 'API call rejected because chain is not done bootstrapping\n']);
    const samples = await scrapeUntil(
      exporter,
      'a platform poll of the bootstrapping node',
      (s) => value(s, 'avalanchego_exporter_poll_success', { source: 'platform' }) !== undefined,
    );
    const state = (method: string) =>
      select(samples, 'avalanchego_platform_method_state', { node: NODE, method }).find((s) => s.value === 1)?.labels.state;
    expect(state('platform.getCurrentValidators')).toBe('not_bootstrapped');
    expect(value(samples, 'avalanchego_exporter_poll_success', { source: 'platform' })).toBe(1);
    // Nothing is known about its validator entry until the P-Chain answers.
    expect(value(samples, 'avalanchego_validator', { subnet: PRIMARY_NETWORK_ID })).toBeUndefined();
    // The info API answers while the chains bootstrap: the genesis key's node ID and the version.
    expect(select(samples, 'avalanchego_node_info', { node: NODE }).map((s) => s.labels.node_id)).toEqual([node.nodeId]);
    expect(value(samples, 'avalanchego_exporter_poll_success', { source: 'info' })).toBe(1);
  });
});

describe('exporter against a real node with indexing off', () => {
  // Set by beforeAll; undefined when it failed (startBoth stops what it had started).
  let started: Both | undefined;
  const both = (): Both => defined(started, 'the node and the exporter');

  beforeAll(async () => {
    // The last occurrence of a flag wins: this overrides --index-enabled=true.
    started = await startBoth('single-node', ['--index-enabled=false']);
  });
  afterAll(async () => {
    await started?.exporter.stop();
    await started?.node.stop();
  });

  it('reports every index endpoint unavailable (HTTP 404), not as a failed poll', async () => {
    const { node, exporter } = both();
    printLogsOnFailure(() => ({ exporter, node }));
    const res = await httpRequest(node.url, {
      method: 'POST',
      path: '/ext/index/C/block',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"index.getLastAccepted","params":{}}',
    });
    expect([res.status, res.body]).toEqual([404, '404 page not found\n']);
    const samples = await scrapeUntil(exporter, 'index metrics', (s) =>
      INDEX_ENDPOINTS.every((endpoint) => value(s, 'avalanchego_index_available', { endpoint }) !== undefined),
    );
    for (const endpoint of INDEX_ENDPOINTS) {
      expect(value(samples, 'avalanchego_index_available', { endpoint }), endpoint).toBe(0);
      expect(value(samples, 'avalanchego_index_last_accepted_index', { endpoint }), endpoint).toBeUndefined();
    }
    expect(value(samples, 'avalanchego_exporter_poll_success', { source: 'index' })).toBe(1);
    expect(value(samples, 'avalanchego_up')).toBe(1);
  });
});

// Older releases answer in older shapes (no avgAcceptanceTime, disconnectedValidators, bls,
// futureupgrade or disk percentage on v1.10): the exporter must parse them all the same.
describe.each(legacyVersions())('exporter against a real AvalancheGo %s', (version) => {
  // Set by beforeAll; undefined when it failed (startBoth stops what it had started).
  let started: Both | undefined;
  const both = (): Both => defined(started, 'the node and the exporter');

  beforeAll(async () => {
    started = await startBoth('single-node', [], legacyModuleDir(version));
  });
  afterAll(async () => {
    await started?.exporter.stop();
    await started?.node.stop();
  });

  it('reports it up and healthy, every check parsed, heights and every index endpoint', async () => {
    const { node, exporter } = both();
    printLogsOnFailure(() => ({ exporter, node }));
    expect(node.version).toBe(version);
    await waitFor(async () => (await healthReport(node.url)).healthy, { timeoutMs: 30_000, what: 'node healthy' });
    const samples = await scrapeUntil(
      exporter,
      'up, healthy and index metrics',
      (s) =>
        value(s, 'avalanchego_healthy') === 1 &&
        INDEX_ENDPOINTS.every((endpoint) => value(s, 'avalanchego_index_available', { endpoint }) !== undefined),
    );
    expect(value(samples, 'avalanchego_up')).toBe(1);
    const checks = Object.keys((await healthReport(node.url)).checks).sort();
    const unparsed = select(samples, 'avalanchego_health_check_unparsed_fields', { node: NODE });
    expect(unparsed.map((s) => s.labels.check).sort()).toEqual(checks);
    expect(unparsed.filter((s) => s.value !== 0)).toEqual([]);
    for (const chain of ['C', 'P', 'X']) {
      expect(value(samples, 'avalanchego_chain_last_accepted_height', { chain }), chain).toBeGreaterThanOrEqual(0);
    }
    for (const endpoint of INDEX_ENDPOINTS) {
      expect(value(samples, 'avalanchego_index_available', { endpoint }), endpoint).toBe(1);
      const last = await lastAcceptedIndex(node.url, endpoint);
      expect(value(samples, 'avalanchego_index_accepted_containers', { endpoint }), endpoint).toBe(last + 1);
    }
  });
  it('reports its version, and the info and platform methods it lacks as unsupported, not as failed polls', async () => {
    const { node, exporter } = both();
    printLogsOnFailure(() => ({ exporter, node }));
    await expectInfoAndPlatform(exporter, node, version);
  });
});
