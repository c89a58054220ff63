// End to end for the validator alerts (issue 9): the simulator's fleet of primary network and
// L1 validators, the exporter polling its info and platform APIs every second, and a real
// Prometheus 3 (test/helpers/monitoring.ts) with the project's rules sped up 20 times. Each validator
// scenario of the simulator, switched at runtime, fires its alert in /api/v1/alerts, and the
// alert resolves once the node is back to healthy (re-staked, topped up, its key restored).
// The simulator runs in real time (time scale 1): its L1 balance drains from 6 days of fees to
// 0 in 120 s, long enough for the runway page (for: 10m, 30 s here) to fire before the
// validator goes inactive. Everything listens on 127.0.0.1; every process is started here and
// stopped by its PID.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { L1_SUBNET_ID } from '../../src/simulator/index.js';
import { PRIMARY_NETWORK_ID } from '../../src/config/schema.js';
import { IN_CI, ROOT, setSimScenario } from './lib.js';
import { prometheus3 } from '../helpers/monitoring.js';
import { buildIfStale } from '../helpers/build.js';
import { ProcessGroup } from '../helpers/processes.js';
import { freePort } from '../helpers/net.js';
import { TestPrometheus, waitFor as waitForCondition } from '../helpers/prometheus.js';

// The current Prometheus (3.x), built by .ci/run from the Go module proxy.
const { prometheus } = prometheus3();
const MISSING = prometheus.missing;

// Every node validates the primary network and the simulated L1; each gets one scenario.
const NODES = ['node-0', 'node-1', 'node-2', 'node-3', 'node-4'];
const JOB = 'avalanchego-exporter';
const SPEEDUP = 20;

const group = new ProcessGroup(ROOT);
const waitFor = <T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> =>
  waitForCondition(group, what, timeoutMs, check);
let prom: TestPrometheus;
let simUrl = '';

async function setScenario(node: string, scenario: string): Promise<void> {
  const r = await setSimScenario(simUrl, node, scenario);
  expect(r.status, r.text).toBe(200);
}

const firing = (name: string, labels: Record<string, string>) => prom.firing(name, labels);
async function resolved(name: string, node: string): Promise<true | undefined> {
  return (await prom.alerts()).some((a) => a.labels['alertname'] === name && a.labels['node'] === node) ? undefined : true;
}

describe('validator alerts end to end with a real Prometheus', () => {
  it('Prometheus 3 is installed (required under CI=true)', (ctx) => {
    if (!prometheus.path && !IN_CI) ctx.skip(MISSING);
    expect(prometheus.path, MISSING).toBeDefined();
  });

  describe.skipIf(!prometheus.path)(prometheus.version, () => {
    let dir = '';

    beforeAll(async () => {
      buildIfStale(ROOT);
      dir = mkdtempSync(join(tmpdir(), 'avalanchego-e2e-validators-'));
      const [simPort, expPort] = [await freePort(), await freePort()];
      simUrl = `http://127.0.0.1:${simPort}`;
      group.start('simulator', process.execPath, [
        join(ROOT, 'dist', 'main.js'),
        'simulate',
        `--web.listen-address=127.0.0.1:${simPort}`,
        `--nodes=${NODES.length}`,
        '--validators=all',
        '--track-l1',
        '--seed=avalanchego-e2e-validators',
      ]);
      await waitFor('the simulator', 20_000, async () => ((await fetch(`${simUrl}/sim/nodes`)).ok ? true : undefined));

      writeFileSync(
        join(dir, 'exporter.yaml'),
        [
          'defaults:',
          '  interval: 2s',
          '  timeout: 1500ms',
          '  info:',
          '    interval: 2s',
          '  platform:',
          '    interval: 2s',
          `    subnets: [${L1_SUBNET_ID}]`,
          'targets:',
          ...NODES.flatMap((n) => [`  - name: ${n}`, `    url: ${simUrl}/${n}`]),
          '',
        ].join('\n'),
      );
      group.start('exporter', process.execPath, [
        join(ROOT, 'dist', 'main.js'),
        `--config.file=${join(dir, 'exporter.yaml')}`,
        `--web.listen-address=127.0.0.1:${expPort}`,
      ]);
      await waitFor('the exporter', 20_000, async () => ((await fetch(`http://127.0.0.1:${expPort}/metrics`)).ok ? true : undefined));

      prom = await TestPrometheus.start(group, { binary: prometheus.path, dir, job: JOB, targets: [`127.0.0.1:${expPort}`], speedup: SPEEDUP });
      await waitFor('every node a primary network and L1 validator in Prometheus', 60_000, async () =>
        (await prom.vector(`avalanchego_validator{job="${JOB}"} == 1`)).length === 2 * NODES.length ? true : undefined,
      );
      await waitFor('the uptime threshold and L1 runway recorded', 30_000, async () =>
        (await prom.vector('node:avalanchego_uptime_reward_threshold:ratio')).length === NODES.length &&
        (await prom.vector('node_subnet:avalanchego_l1_validator_balance_navax:runway_seconds')).length === NODES.length
          ? true
          : undefined,
      );
    }, 150_000);

    afterAll(async () => {
      await group.stopAll();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }, 30_000);

    it('the healthy validators fire nothing', async () => {
      const active = (await prom.alerts())
        .filter((a) => a.state === 'firing')
        .map((a) => `${a.labels['alertname']} ${a.labels['node'] ?? ''} ${a.labels['severity']}`);
      expect(active).toEqual([]);
    });

    it('each validator scenario fires its alert, which resolves when the node is healthy again', async () => {
      await setScenario('node-0', 'uptime-dropping');
      await setScenario('node-1', 'l1-balance-draining');
      await setScenario('node-2', 'node-id-changed');
      await setScenario('node-3', 'stake-expiring');
      await setScenario('node-4', 'version-behind');

      const primary = { subnet: PRIMARY_NETWORK_ID };
      const l1 = { subnet: L1_SUBNET_ID };
      // The stake ends 30 minutes after the switch: every window fires.
      for (const window of ['7d', '1d', '1h']) {
        await waitFor(`AvalancheGoValidatorStakeExpiring ${window} for node-3`, 90_000, () =>
          firing('AvalancheGoValidatorStakeExpiring', { node: 'node-3', window, ...primary }),
        );
      }
      const noLonger = await waitFor('AvalancheGoNoLongerValidator for node-2', 90_000, () =>
        firing('AvalancheGoNoLongerValidator', { node: 'node-2', severity: 'critical', ...primary }),
      );
      expect(noLonger.annotations['description']).toMatch(/^Node node-2 was a validator of subnet .* Its node ID is NodeID-\w+: /);
      await waitFor('AvalancheGoL1ValidatorBalanceLow critical for node-1', 90_000, () =>
        firing('AvalancheGoL1ValidatorBalanceLow', { node: 'node-1', severity: 'critical', ...l1 }),
      );
      await waitFor('AvalancheGoL1ValidatorInactive for node-1', 180_000, () => firing('AvalancheGoL1ValidatorInactive', { node: 'node-1', ...l1 }));
      await waitFor('AvalancheGoUptimeBelowRewardThreshold warning for node-0', 180_000, () =>
        firing('AvalancheGoUptimeBelowRewardThreshold', { node: 'node-0', severity: 'warning' }),
      );
      await waitFor('AvalancheGoUptimeBelowRewardThreshold critical for node-0', 180_000, () =>
        firing('AvalancheGoUptimeBelowRewardThreshold', { node: 'node-0', severity: 'critical' }),
      );
      // An older release than most of its peers (for: 1h, 3 minutes here).
      const behind = await waitFor('AvalancheGoNodeVersionBehindPeers for node-4', 300_000, () =>
        firing('AvalancheGoNodeVersionBehindPeers', { node: 'node-4', severity: 'warning' }),
      );
      expect(behind.annotations['description']).toMatch(/of the peers of node node-4 run a newer AvalancheGo than its \d+\.\d+\.\d+\.$/);

      // Each validator alert is about its node only. (Chain alerts are not judged here: in real
      // time, with rule windows 20 times shorter, a slow chain can look flat.)
      const expected = new Map([
        ['AvalancheGoUptimeBelowRewardThreshold', 'node-0'],
        ['AvalancheGoL1ValidatorBalanceLow', 'node-1'],
        ['AvalancheGoL1ValidatorInactive', 'node-1'],
        ['AvalancheGoNoLongerValidator', 'node-2'],
        ['AvalancheGoValidatorStakeExpiring', 'node-3'],
        ['AvalancheGoNodeVersionBehindPeers', 'node-4'],
        ['AvalancheGoNodeVersionBehindFleet', 'node-4'],
        ['AvalancheGoUpgradeNotScheduledOnNode', 'node-4'],
        ['AvalancheGoRegisteredBLSKeyMismatch', 'none'],
      ]);
      const wrongNode = (await prom.alerts()).filter(
        (a) => expected.has(a.labels['alertname'] ?? '') && expected.get(a.labels['alertname'] ?? '') !== a.labels['node'],
      );
      expect(wrongNode.map((a) => `${a.labels['alertname']} ${a.labels['node']}`)).toEqual([]);

      for (const node of NODES) await setScenario(node, 'healthy');
      for (const [name, node] of [
        ['AvalancheGoValidatorStakeExpiring', 'node-3'],
        ['AvalancheGoNoLongerValidator', 'node-2'],
        ['AvalancheGoL1ValidatorInactive', 'node-1'],
        ['AvalancheGoL1ValidatorBalanceLow', 'node-1'],
        ['AvalancheGoUptimeBelowRewardThreshold', 'node-0'],
        ['AvalancheGoNodeVersionBehindPeers', 'node-4'],
      ] as const) {
        await waitFor(`${name} to resolve for ${node}`, 120_000, () => resolved(name, node));
      }
    }, 600_000);
  });
});
