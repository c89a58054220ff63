// End to end on VictoriaMetrics: the simulator's fleet, the exporter polling it, the
// single-node server scraping the exporter and vmalert evaluating the project's rules against
// it (test/helpers/victoriametrics.ts, as docs/victoriametrics.md deploys them), their `for:`
// and range windows shortened 20 times. vmalert loads every rule and evaluates it without
// error; every rule expression and every dashboard panel query runs through the server's query
// API as MetricsQL (a panel returning nothing must have a reason, as on Prometheus:
// test/rules/e2e-fleet.ts); a node taken down pages through vmalert, with the description its
// template queries, and the alert resolves after the node is back. Everything listens on
// 127.0.0.1; every process is started here and stopped by its PID.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_CI, ROOT, allRules, setSimScenario } from './lib.js';
import { ProcessGroup } from '../helpers/processes.js';
import { buildIfStale } from '../helpers/build.js';
import { missingOf, victoriaMetrics } from '../helpers/monitoring.js';
import { TestVictoriaMetrics } from '../helpers/victoriametrics.js';
import { JOB, SPEEDUP, checkPanelQueries, failingRuleExpressions, firingNames, startFleet, waitForFleetData } from './e2e-fleet.js';

const vm = victoriaMetrics();
const MISSING = missingOf(vm.victoriaMetrics, vm.vmalert);

describe(`end to end with ${vm.label}: the single-node server and vmalert`, () => {
  it('is installed (required under CI=true)', (ctx) => {
    if (MISSING && !IN_CI) ctx.skip(MISSING);
    expect(MISSING).toBe('');
  });

  describe.skipIf(MISSING !== '')(`${vm.victoriaMetrics.version}; ${vm.vmalert.version}`, () => {
    let group = new ProcessGroup(ROOT);
    let dir = '';
    let engine: TestVictoriaMetrics;
    let simUrl = '';

    beforeAll(async () => {
      group = new ProcessGroup(ROOT);
      buildIfStale(ROOT);
      dir = mkdtempSync(join(tmpdir(), 'avalanchego-e2e-vm-'));
      const fleet = await startFleet(group, dir);
      simUrl = fleet.simUrl;
      engine = await TestVictoriaMetrics.start(group, {
        victoriaMetrics: vm.victoriaMetrics.path ?? 'victoria-metrics',
        vmalert: vm.vmalert.path ?? 'vmalert',
        dir,
        job: JOB,
        targets: [fleet.exporter],
        speedup: SPEEDUP,
        // As docs/victoriametrics.md shows: vmalert adds it to the alerts and to the series it records.
        externalLabels: { cluster: 'e2e' },
      });
      // The recorded block rates are vmalert's, written back to the server (-remoteWrite.url).
      await waitForFleetData(group, engine, 'VictoriaMetrics');
    }, 120_000);

    afterAll(async () => {
      await group.stopAll();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }, 30_000);

    it('vmalert loaded every rule, and none has an evaluation error', async () => {
      const rules = (await engine.rules()).flatMap((g) => g.rules);
      expect(rules.length).toBe(allRules().length);
      expect(rules.filter((r) => r.lastError).map((r) => `${r.name}: ${r.lastError}`)).toEqual([]);
    });

    it('every rule expression runs as MetricsQL', async () => {
      expect(await failingRuleExpressions(engine)).toEqual([]);
    });

    it('every panel query parses as MetricsQL, runs, and returns data where the fleet has data', async () => {
      const { failures, empty } = await checkPanelQueries(engine);
      expect(failures).toEqual([]);
      expect(empty).toEqual([]);
    }, 60_000);

    it('no alert fires for the healthy fleet', async () => {
      expect(firingNames(await engine.alerts())).toEqual([]);
    });

    it('a node that goes down fires AvalancheGoNodeDown in vmalert, which resolves when it is back', async () => {
      const r = await setSimScenario(simUrl, 'node-1', 'down');
      expect(r.status, r.text).toBe(200);
      const a = await engine.waitFor('AvalancheGoNodeDown firing for node-1', 60_000, async () =>
        (await engine.alerts()).find((x) => x.labels['alertname'] === 'AvalancheGoNodeDown' && x.labels['node'] === 'node-1' && x.state === 'firing'),
      );
      // The labels Prometheus sends (with its external label), and no alertgroup (-disableAlertgroupLabel).
      expect(a.labels).toEqual({
        alertname: 'AvalancheGoNodeDown',
        severity: 'critical',
        job: JOB,
        instance: expect.any(String) as string,
        node: 'node-1',
        cluster: 'e2e',
      });
      // The description's template query runs on vmalert too, and names the poll errors' reasons.
      expect(a.annotations['description']).toMatch(
        /^The exporter has not read a valid health report from node node-1 .* Poll errors in the last 5 minutes:( [a-z_]+)+\.$/,
      );
      const back = await setSimScenario(simUrl, 'node-1', 'healthy');
      expect(back.status, back.text).toBe(200);
      await engine.waitFor('AvalancheGoNodeDown to resolve', 60_000, async () =>
        (await engine.alerts()).some((x) => x.labels['alertname'] === 'AvalancheGoNodeDown') ? undefined : true,
      );
    }, 150_000);
  });
});
