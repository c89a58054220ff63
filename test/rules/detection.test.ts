// Detection quality on a short run (docs/detection.md has the full one): a stalled chain,
// a node down, a bootstrapping node and a healthy one, through the exporter, a real
// Prometheus with the shipped rules and a real Alertmanager with the shipped configuration,
// in time compressed 20 times; a webhook receiver on loopback counts what Alertmanager sends.
// About 100 s of real time.
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IN_CI, ROOT } from './lib.js';
import { currentAlertmanager, currentVersions, missingOf, prometheus3 } from '../helpers/monitoring.js';
import { runDetection, summarize, type RunResult, type Summary } from './detection-harness.js';
import { FAULTS, VM_SECTION, faultFleet, meets, unplanned } from './detection-plans.js';
import { SCENARIOS } from '../../src/simulator/index.js';
import { defined } from '../helpers/assert.js';

// The current Prometheus and Alertmanager (built by .ci/run from the Go module proxy).
const { prometheus } = prometheus3();
const am = currentAlertmanager().alertmanager;
const MISSING = missingOf(prometheus, am);
const missing = MISSING !== '';

const SPEEDUP = 20;
/** Long enough for NodeUnhealthy (15m after the chain check fails) to fire, and be inhibited, on the stalled node. */
const HOLD = 17 * 60;
/** After recovery: ChainStalled keeps firing 2m, and a resolved page waits for its group's next flush (group_interval 5m). */
const RECOVERY = 8 * 60;
const PICK = ['healthy', 'bootstrapping', 'stalled-chain', 'down'];

describe('detection', () => {
  it('Prometheus 3 and the current Alertmanager are installed (required under CI=true)', (ctx) => {
    if (missing && !IN_CI) ctx.skip(MISSING);
    expect(missing, MISSING).toBe(false);
  });

  it('docs/detection.md was generated on the current Prometheus and Alertmanager, and names them', () => {
    const { prometheus: p, alertmanager: a } = currentVersions();
    const head = readFileSync(join(ROOT, 'docs', 'detection.md'), 'utf8')
      .split('\n')
      .slice(0, 6)
      .join(' ');
    expect(head).toContain(`(prometheus, version ${p} `);
    expect(head).toContain(`; alertmanager, version ${a} `);
  });

  it('docs/detection.md has its VictoriaMetrics section, run on the current VictoriaMetrics and Alertmanager', () => {
    const { victoriaMetrics: v, alertmanager: a } = currentVersions();
    const text = readFileSync(join(ROOT, 'docs', 'detection.md'), 'utf8');
    const section = text.slice(text.indexOf(VM_SECTION.start), text.indexOf(VM_SECTION.end));
    expect(section, 'no VictoriaMetrics section: node scripts/detection.mjs --engine=victoriametrics').toContain('## VictoriaMetrics');
    expect(section).toMatch(new RegExp(`\\(victoria-metrics-[^;]*-v${v.replaceAll('.', '\\.')}-[^;]*; vmalert-[^;]*-v${v.replaceAll('.', '\\.')}-`));
    expect(section).toContain(`; alertmanager, version ${a} `);
  });

  it('the report plans every simulator scenario, or names the ones it does not', () => {
    expect(FAULTS.map((f) => f.scenario).filter((s) => !(SCENARIOS as readonly string[]).includes(s))).toEqual([]);
    // New scenarios show in the report as "not run" until they are planned.
    expect(unplanned().every((s) => (SCENARIOS as readonly string[]).includes(s))).toBe(true);
  });

  describe.skipIf(missing)('a short run: stalled chain, node down, bootstrapping, healthy', () => {
    const faults = FAULTS.filter((f) => PICK.includes(f.scenario));
    let result: RunResult;
    const by = new Map<string, Summary>();
    const summary = (scenario: string): Summary => defined(by.get(scenario), `the summary of ${scenario}`);

    beforeAll(async () => {
      result = await runDetection({
        speedup: SPEEDUP,
        nodes: faultFleet(faults, HOLD),
        durationSeconds: HOLD + RECOVERY,
        seed: 'avalanchego-detection-test',
      });
      faults.forEach((f, i) => by.set(f.scenario, summarize(defined(result.nodes[i], `the result of ${f.scenario}`), result.scrapeSeconds)));
    }, 240_000);

    it('each fault pages exactly once, with its root-cause alert, within for: plus two scrape intervals', () => {
      for (const f of faults) {
        const s = summary(f.scenario);
        expect({ scenario: f.scenario, ...meets(f, s) }).toEqual({ scenario: f.scenario, ok: true, why: '' });
      }
      expect(summary('stalled-chain').notified).toEqual(['ChainStalled (critical) → pager']);
      expect(summary('down').notified).toEqual(['NodeDown (critical) → pager']);
    });

    it('every other alert that fired for a faulty node was held back by an inhibition', () => {
      for (const f of faults) {
        const n = defined(result.nodes[faults.indexOf(f)], `the result of ${f.scenario}`);
        const notified = new Set(n.notifications.flatMap((x) => x.alerts.map((a) => `${a.alertname}/${a.severity}`)));
        const silent = n.alerts.filter((a) => a.firingAt !== undefined && !notified.has(`${a.alertname}/${a.severity}`));
        expect(silent.filter((a) => !a.inhibited).map((a) => `${f.scenario}: ${a.alertname} (${a.severity})`)).toEqual([]);
      }
      // The stall's symptoms never fire; the node's failing chain check does, and is inhibited.
      expect(summary('stalled-chain').fired).not.toContain('TooManyProcessingBlocks (critical)');
      expect(summary('stalled-chain').inhibited.some((x) => x.startsWith('NodeUnhealthy (critical) by ChainStalled'))).toBe(true);
    });

    it('a bootstrapping node and a healthy one raise nothing at all', () => {
      for (const s of ['bootstrapping', 'healthy']) {
        expect({ s, fired: summary(s).fired, notifications: summary(s).notifications }).toEqual({ s, fired: [], notifications: 0 });
      }
      // The spare healthy node of the fleet too.
      expect(defined(result.nodes.at(-1), 'the spare healthy node').notifications).toEqual([]);
    });

    it('after recovery every alert resolves and Alertmanager sends the resolved page', () => {
      for (const s of ['stalled-chain', 'down']) {
        const sum = summary(s);
        expect(sum.resolvedAfter, s).toBeDefined();
        expect(defined(sum.resolvedAfter, `the resolution time of ${s}`), s).toBeLessThan(4 * 60);
        expect(sum.resolvedNotificationAfter, s).toBeDefined();
      }
    });
  });
});
