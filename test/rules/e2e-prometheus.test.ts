// End to end: the simulator's fleet, the exporter polling it, and a real Prometheus (both
// generations, test/helpers/monitoring.ts: Prometheus 3 and Debian's 2.42) scraping the exporter with the project's rules, their `for:` and range
// windows shortened 20 times. Every rule expression and every panel query runs through
// /api/v1/query; pushing a simulated node into a fault (down, disk filling, stalled chain,
// peers dropping, router overload) through the simulator's control API fires the matching
// alert in /api/v1/alerts, and the alert resolves after the node recovers. Everything listens on 127.0.0.1; every process is
// started here and stopped by its PID. Conditions are awaited by polling with deadlines.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_CI, ROOT, setSimScenario, allRules } from './lib.js';
import { ProcessGroup } from '../helpers/processes.js';
import { buildIfStale } from '../helpers/build.js';
import { prometheusGenerations } from '../helpers/monitoring.js';
import { TestPrometheus, speedUpRules, waitFor as waitForCondition } from '../helpers/prometheus.js';
import { JOB, SPEEDUP, checkPanelQueries, failingRuleExpressions, firingNames, startFleet, waitForFleetData } from './e2e-fleet.js';

// ---------------------------------------------------------------------------------------
// Processes

let group = new ProcessGroup(ROOT);
const waitFor = <T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> =>
  waitForCondition(group, what, timeoutMs, check);

let prom: TestPrometheus;
let simUrl = '';
const alerts = () => prom.alerts();
const firing = (name: string, node: string, severity?: string) => prom.firing(name, { node, ...(severity ? { severity } : {}) });

async function setScenario(node: string, scenario: string): Promise<void> {
  const r = await setSimScenario(simUrl, node, scenario);
  expect(r.status, r.text).toBe(200);
}

// ---------------------------------------------------------------------------------------

describe('end to end with a real Prometheus', () => {
  it('speedUpRules shortens for:, ranges and offsets', () => {
    expect(speedUpRules('        for: 10m\n  x[10m] offset 10m [6h] [5m]\n        for: 3m', SPEEDUP)).toBe(
      '        for: 30s\n  x[30s] offset 30s [1080s] [15s]\n        for: 9s',
    );
  });

  it('speedUpRules keeps a zero for: at zero (an alert that fires at once), and short ones at 2s', () => {
    expect(speedUpRules('        for: 0m\n        keep_firing_for: 0s\n        for: 20s\n  x[10s]', SPEEDUP)).toBe(
      '        for: 0s\n        keep_firing_for: 0s\n        for: 2s\n  x[2s]',
    );
  });

  describe.each(prometheusGenerations().map((g) => [g.label, g.prometheus] as const))('%s', (_label, prometheus) => {
    it('is installed (required under CI=true)', (ctx) => {
      if (!prometheus.path && !IN_CI) ctx.skip(prometheus.missing);
      expect(prometheus.missing).toBe('');
    });

    describe.skipIf(!prometheus.path)(prometheus.version, () => {
      let dir = '';

      beforeAll(async () => {
        group = new ProcessGroup(ROOT);
        buildIfStale(ROOT);
        dir = mkdtempSync(join(tmpdir(), 'avalanchego-e2e-'));
        const fleet = await startFleet(group, dir);
        simUrl = fleet.simUrl;
        prom = await TestPrometheus.start(group, { binary: prometheus.path, dir, job: JOB, targets: [fleet.exporter], speedup: SPEEDUP });
        await waitForFleetData(group, prom, 'Prometheus');
      }, 120_000);

      afterAll(async () => {
        await group.stopAll();
        if (dir) rmSync(dir, { recursive: true, force: true });
      }, 30_000);

      it('loaded every rule group without evaluation errors', async () => {
        const res = await fetch(`${prom.url}/api/v1/rules`);
        const body = (await res.json()) as {
          data: { groups: Array<{ name: string; rules: Array<{ name: string; health: string; lastError?: string }> }> };
        };
        const rules = body.data.groups.flatMap((g) => g.rules);
        expect(rules.length).toBe(allRules().length);
        const unhealthy = rules.filter((r) => r.health !== 'ok' && r.health !== 'unknown').map((r) => `${r.name}: ${r.lastError}`);
        expect(unhealthy).toEqual([]);
      });

      it('every rule expression runs', async () => {
        expect(await failingRuleExpressions(prom)).toEqual([]);
      });

      it('every panel query runs and returns data where the fleet has data', async () => {
        const { failures, empty } = await checkPanelQueries(prom);
        expect(failures).toEqual([]);
        expect(empty).toEqual([]);
      }, 60_000);

      it('no alert fires for the healthy fleet', async () => {
        expect(firingNames(await alerts())).toEqual([]);
      });

      it('a node that goes down fires AvalancheGoNodeDown, which resolves when it is back', async () => {
        await setScenario('node-1', 'down');
        const a = await waitFor('AvalancheGoNodeDown firing for node-1', 60_000, () => firing('AvalancheGoNodeDown', 'node-1'));
        expect(a.labels).toMatchObject({ severity: 'critical', job: JOB, node: 'node-1' });
        // The description's template query names the poll errors' reasons.
        expect(a.annotations['description']).toMatch(
          /^The exporter has not read a valid health report from node node-1 .* Poll errors in the last 5 minutes:( [a-z_]+)+\.$/,
        );
        // The other nodes are unaffected, and no stall is reported for the node that is down.
        // (Firing ones: under CPU load a slow poll can leave another node's alert pending for a while.)
        expect((await alerts()).filter((x) => x.state === 'firing' && x.labels['node'] !== 'node-1')).toEqual([]);
        expect(await firing('AvalancheGoChainStalled', 'node-1')).toBeUndefined();
        await setScenario('node-1', 'healthy');
        await waitFor('AvalancheGoNodeDown to resolve', 60_000, async () =>
          (await alerts()).some((x) => x.labels['alertname'] === 'AvalancheGoNodeDown') ? undefined : true,
        );
      }, 150_000);

      it('a filling disk fires AvalancheGoDiskSpaceLow, warning then critical, and it resolves', async () => {
        await setScenario('node-2', 'disk-filling');
        await waitFor('AvalancheGoDiskSpaceLow warning', 90_000, () => firing('AvalancheGoDiskSpaceLow', 'node-2', 'warning'));
        await waitFor('AvalancheGoDiskSpaceLow critical', 90_000, () => firing('AvalancheGoDiskSpaceLow', 'node-2', 'critical'));
        await setScenario('node-2', 'healthy');
        await waitFor('AvalancheGoDiskSpaceLow to resolve', 60_000, async () =>
          (await alerts()).some((x) => x.labels['alertname'] === 'AvalancheGoDiskSpaceLow') ? undefined : true,
        );
      }, 240_000);

      it('dropping peers and an overloaded router fire their alerts, which resolve after recovery', async () => {
        await setScenario('node-3', 'peers-dropping');
        await setScenario('node-4', 'router-overload');
        for (const [name, node] of [
          ['AvalancheGoConnectedStakeLow', 'node-3'],
          ['AvalancheGoTooFewPeers', 'node-3'],
          ['AvalancheGoRouterOverloaded', 'node-4'],
        ] as const) {
          await waitFor(`${name} critical for ${node}`, 90_000, () => firing(name, node, 'critical'));
        }
        await setScenario('node-3', 'healthy');
        await setScenario('node-4', 'healthy');
        const names = ['AvalancheGoConnectedStakeLow', 'AvalancheGoTooFewPeers', 'AvalancheGoRouterOverloaded'];
        await waitFor('the network and router alerts to resolve', 90_000, async () =>
          (await alerts()).some((x) => names.includes(x.labels['alertname'] ?? '')) ? undefined : true,
        );
      }, 240_000);

      it('a stalled chain fires AvalancheGoChainStalled, and it resolves when the chain moves again', async () => {
        await setScenario('node-0', 'stalled-chain');
        const a = await waitFor('AvalancheGoChainStalled for node-0', 120_000, () => firing('AvalancheGoChainStalled', 'node-0'));
        expect(a.labels).toMatchObject({ severity: 'critical', node: 'node-0', chain: 'C' });
        expect(a.annotations['description']).toMatch(/^Chain C of node node-0 has stayed at height \d{5,} for 12 minutes/);
        await setScenario('node-0', 'healthy');
        await waitFor('AvalancheGoChainStalled to resolve', 90_000, async () =>
          (await alerts()).some((x) => x.labels['alertname'] === 'AvalancheGoChainStalled') ? undefined : true,
        );
      }, 240_000);
    });
  });
});
