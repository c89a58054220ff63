// Every inhibit rule of deploy/alertmanager/alertmanager.yml against a real Alertmanager
// (the current one built from the Go module proxy and Debian's 0.25, the oldest supported,
// test/helpers/monitoring.ts): alerts are added with amtool, and Alertmanager's API says which
// are inhibited and by what. Each rule is exercised by at least one case that it must
// inhibit, and cases that it must not (another node, an unrelated alert) keep it honest.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { IN_CI, ROOT, run } from './lib.js';
import { AM_CONFIG } from './detection-harness.js';
import { currentAlertmanager, debianAlertmanager, missingOf } from '../helpers/monitoring.js';
import { defined } from '../helpers/assert.js';
import { ProcessGroup } from '../helpers/processes.js';
import { freePort } from '../helpers/net.js';
import { waitFor } from '../helpers/prometheus.js';

type Labels = Record<string, string>;
interface InhibitRule {
  source_matchers: string[];
  target_matchers: string[];
  equal?: string[];
}
const rules = (parseYaml(readFileSync(AM_CONFIG, 'utf8')) as { inhibit_rules: InhibitRule[] }).inhibit_rules;

/** A matcher string of the configuration (`name="v"`, `name!="v"`, `name=~"re"`, `name!~"re"`) applied to labels. */
function matches(matcher: string, labels: Labels): boolean {
  const m = /^(\w+)(=~|!~|!=|=)"(.*)"$/.exec(matcher);
  if (!m) throw new Error(`unexpected matcher ${matcher}`);
  const [, name, op, value] = m as unknown as [string, string, string, string];
  const v = labels[name] ?? '';
  if (op === '=') return v === value;
  if (op === '!=') return v !== value;
  const re = new RegExp(`^(?:${value})$`);
  return op === '=~' ? re.test(v) : !re.test(v);
}
/** The inhibit rules (by index) under which `source` inhibits `target`, by the configuration's text. */
function rulesFor(source: Labels, target: Labels): number[] {
  return rules.flatMap((r, i) =>
    r.source_matchers.every((m) => matches(m, source)) &&
    r.target_matchers.every((m) => matches(m, target)) &&
    (r.equal ?? []).every((l) => (source[l] ?? '') === (target[l] ?? ''))
      ? [i]
      : [],
  );
}

const node = (n: string, extra: Labels = {}): Labels => ({ job: 'avalanchego-exporter', instance: 'exporter:10650', node: n, ...extra });
const a = (alertname: string, severity: string, labels: Labels): Labels => ({ alertname: `AvalancheGo${alertname}`, severity, ...labels });

interface Case {
  name: string;
  source: Labels;
  target: Labels;
  inhibited: boolean;
}
// Each case uses its own node, so that cases do not inhibit one another.
const CASES: Case[] = [
  {
    name: 'node down: a stalled chain of the node',
    source: a('NodeDown', 'critical', node('d1')),
    target: a('ChainStalled', 'critical', node('d1', { chain: 'C' })),
    inhibited: true,
  },
  {
    name: 'node down: another node is not',
    source: a('NodeDown', 'critical', node('d2')),
    target: a('ChainStalled', 'critical', node('d2b', { chain: 'C' })),
    inhibited: false,
  },
  {
    // And the node down does not hold the low disk back in turn (sources are never inhibited, below).
    name: 'low disk (critical): the node down after its shutdown',
    source: a('DiskSpaceLow', 'critical', node('d4')),
    target: a('NodeDown', 'critical', node('d4')),
    inhibited: true,
  },
  {
    name: 'low disk (warning) does not explain the node down',
    source: a('DiskSpaceLow', 'warning', node('d5')),
    target: a('NodeDown', 'critical', node('d5')),
    inhibited: false,
  },
  {
    name: "low disk (critical): another node's down is not",
    source: a('DiskSpaceLow', 'critical', node('d6')),
    target: a('NodeDown', 'critical', node('d6b')),
    inhibited: false,
  },
  {
    name: 'stalled chain: blocks piling up',
    source: a('ChainStalled', 'critical', node('s1', { chain: 'C' })),
    target: a('TooManyProcessingBlocks', 'critical', node('s1', { chain: 'C' })),
    inhibited: true,
  },
  {
    name: 'stalled chain: a block processing too long',
    source: a('ChainStalled', 'critical', node('s2', { chain: 'C' })),
    target: a('BlockProcessingTooLong', 'critical', node('s2', { chain: 'C' })),
    inhibited: true,
  },
  {
    name: 'stalled chain: the node unhealthy',
    source: a('ChainStalled', 'critical', node('s3', { chain: 'C' })),
    target: a('NodeUnhealthy', 'critical', node('s3')),
    inhibited: true,
  },
  {
    name: 'stalled chain: behind the fleet on another chain',
    source: a('ChainStalled', 'critical', node('s4', { chain: 'C' })),
    target: a('ChainBehindFleet', 'warning', node('s4', { chain: 'P' })),
    inhibited: true,
  },
  {
    name: 'stalled chain: a stale index',
    source: a('ChainStalled', 'critical', node('s5', { chain: 'C' })),
    target: a('IndexStale', 'warning', node('s5', { chain: 'C', endpoint: 'C/block' })),
    inhibited: true,
  },
  {
    name: 'stalled chain: a low disk is not',
    source: a('ChainStalled', 'critical', node('s6', { chain: 'C' })),
    target: a('DiskSpaceLow', 'critical', node('s6')),
    inhibited: false,
  },
  {
    name: 'no peers: low stake',
    source: a('TooFewPeers', 'critical', node('p1')),
    target: a('ConnectedStakeLow', 'critical', node('p1', { chain: 'C' })),
    inhibited: true,
  },
  {
    name: 'no peers: the node unhealthy',
    source: a('TooFewPeers', 'critical', node('p2')),
    target: a('NodeUnhealthy', 'critical', node('p2')),
    inhibited: true,
  },
  {
    name: 'no peers: send failures',
    source: a('TooFewPeers', 'critical', node('p3')),
    target: a('SendFailRatioHigh', 'critical', node('p3')),
    inhibited: true,
  },
  {
    name: 'few peers (warning) do not explain low stake',
    source: a('TooFewPeers', 'warning', node('p4')),
    target: a('ConnectedStakeLow', 'critical', node('p4', { chain: 'C' })),
    inhibited: false,
  },
  {
    name: 'low stake: a stalled chain',
    source: a('ConnectedStakeLow', 'critical', node('k1', { chain: 'P' })),
    target: a('ChainStalled', 'critical', node('k1', { chain: 'C' })),
    inhibited: true,
  },
  {
    name: 'low stake (critical, where the node fails its own chain checks): the node unhealthy',
    source: a('ConnectedStakeLow', 'critical', node('k5', { chain: 'P' })),
    target: a('NodeUnhealthy', 'critical', node('k5')),
    inhibited: true,
  },
  {
    // Alertmanager 0.30–0.34.0 would release it when the warning resolves first (the test below).
    name: 'low stake (warning) does not hold the node unhealthy back',
    source: a('ConnectedStakeLow', 'warning', node('k6', { chain: 'P' })),
    target: a('NodeUnhealthy', 'critical', node('k6')),
    inhibited: false,
  },
  {
    name: 'no peers: the uptime the network perceives',
    source: a('TooFewPeers', 'critical', node('p5')),
    target: a('UptimeBelowRewardThreshold', 'critical', node('p5')),
    inhibited: true,
  },
  {
    name: 'low stake (warning): the uptime the network perceives',
    source: a('ConnectedStakeLow', 'warning', node('k2', { chain: 'P' })),
    target: a('UptimeBelowRewardThreshold', 'critical', node('k2')),
    inhibited: true,
  },
  {
    name: "low stake: another node's uptime is not",
    source: a('ConnectedStakeLow', 'critical', node('k3', { chain: 'P' })),
    target: a('UptimeBelowRewardThreshold', 'critical', node('k3b')),
    inhibited: false,
  },
  {
    name: 'no peers: an auto-renewed validator at risk',
    source: a('TooFewPeers', 'critical', node('p6')),
    target: a('AutoRenewedValidatorAtRisk', 'critical', node('p6', { subnet: 'primary' })),
    inhibited: true,
  },
  {
    name: 'low stake (warning): an auto-renewed validator at risk',
    source: a('ConnectedStakeLow', 'warning', node('k4', { chain: 'P' })),
    target: a('AutoRenewedValidatorAtRisk', 'critical', node('k4', { subnet: 'primary' })),
    inhibited: true,
  },
  {
    name: 'an auto-renewed validator at risk: its uptime alert (one page for one fault)',
    source: a('AutoRenewedValidatorAtRisk', 'critical', node('r1', { subnet: 'primary' })),
    target: a('UptimeBelowRewardThreshold', 'critical', node('r1')),
    inhibited: true,
  },
  {
    name: "an auto-renewed validator at risk: another node's uptime is not",
    source: a('AutoRenewedValidatorAtRisk', 'critical', node('r2', { subnet: 'primary' })),
    target: a('UptimeBelowRewardThreshold', 'critical', node('r2b')),
    inhibited: false,
  },
  {
    name: 'low disk: the forecast of the disk filling up',
    source: a('DiskSpaceLow', 'warning', node('f1')),
    target: a('DiskFillingUp', 'warning', node('f1')),
    inhibited: true,
  },
  {
    name: 'an overloaded router: the node unhealthy',
    source: a('RouterOverloaded', 'warning', node('r1')),
    target: a('NodeUnhealthy', 'critical', node('r1')),
    inhibited: true,
  },
  {
    name: 'a BLS key mismatch: the node unhealthy',
    source: a('BLSKeyMismatch', 'critical', node('b1', { check: 'bls' })),
    target: a('NodeUnhealthy', 'critical', node('b1')),
    inhibited: true,
  },
  {
    name: 'a stale index does not explain the node unhealthy',
    source: a('IndexStale', 'warning', node('i1', { chain: 'C', endpoint: 'C/block' })),
    target: a('NodeUnhealthy', 'critical', node('i1')),
    inhibited: false,
  },
  {
    name: 'critical over warning of the same alert and subject',
    source: a('DiskSpaceLow', 'critical', node('w1')),
    target: a('DiskSpaceLow', 'warning', node('w1')),
    inhibited: true,
  },
  {
    name: 'critical over warning: another chain is not',
    source: a('TooManyProcessingBlocks', 'critical', node('w2', { chain: 'C' })),
    target: a('TooManyProcessingBlocks', 'warning', node('w2', { chain: 'P' })),
    inhibited: false,
  },
  {
    name: 'frozen L1 view: the stall of that chain',
    source: a('L1ProposerViewFrozen', 'critical', node('lv1', { chain: 'L1' })),
    target: a('ChainStalled', 'critical', node('lv1', { chain: 'L1' })),
    inhibited: true,
  },
  {
    name: 'frozen L1 view: a stall of another chain of the node is not',
    source: a('L1ProposerViewFrozen', 'critical', node('lv2', { chain: 'L1' })),
    target: a('ChainStalled', 'critical', node('lv2', { chain: 'C' })),
    inhibited: false,
  },
  {
    name: 'node down: its failing polls',
    source: a('NodeDown', 'critical', node('ps1')),
    target: a('PollSuccessLow', 'critical', node('ps1', { chain: 'C' })),
    inhibited: true,
  },
  {
    name: 'few peers (warning): the polls they cannot answer',
    source: a('TooFewPeers', 'warning', node('ps2')),
    target: a('PollSuccessLow', 'critical', node('ps2', { chain: 'C' })),
    inhibited: true,
  },
  {
    name: "few peers: another node's failing polls are not",
    source: a('TooFewPeers', 'critical', node('ps3')),
    target: a('PollSuccessLow', 'warning', node('ps4', { chain: 'C' })),
    inhibited: false,
  },
  {
    name: 'dead executor: the node unhealthy (its failing C check)',
    source: a('ChainExecutorDead', 'critical', node('ex1', { chain: 'C' })),
    target: a('NodeUnhealthy', 'critical', node('ex1')),
    inhibited: true,
  },
  {
    name: "dead executor: that chain's growing backlog",
    source: a('ChainExecutorDead', 'critical', node('ex2', { chain: 'C' })),
    target: a('ChainExecutionBacklog', 'critical', node('ex2', { chain: 'C' })),
    inhibited: true,
  },
  {
    name: 'dead executor: a stall of another chain of the node is not',
    source: a('ChainExecutorDead', 'critical', node('ex3', { chain: 'C' })),
    target: a('ChainStalled', 'critical', node('ex3', { chain: 'P' })),
    inhibited: false,
  },
  // The L1 set's alerts have no node label: each case its own subnet.
  {
    name: 'L1 weight at risk: a validator of that L1 down (no ticket storm)',
    source: a('L1WeightAtRisk', 'critical', { job: 'avalanchego-exporter', instance: 'exporter:10650', subnet: 'S1' }),
    target: a('L1ValidatorDown', 'warning', {
      job: 'avalanchego-exporter',
      instance: 'exporter:10650',
      subnet: 'S1',
      validation_id: 'v',
      validator_node_id: 'NodeID-A',
    }),
    inhibited: true,
  },
  {
    name: "L1 weight at risk: a validator's runway of that L1",
    source: a('L1WeightAtRisk', 'critical', { job: 'avalanchego-exporter', instance: 'exporter:10650', subnet: 'S2' }),
    target: a('L1ValidatorRunwayLow', 'warning', {
      job: 'avalanchego-exporter',
      instance: 'exporter:10650',
      subnet: 'S2',
      validation_id: 'v',
      validator_node_id: 'NodeID-A',
    }),
    inhibited: true,
  },
  {
    name: 'L1 weight at risk: a validator of another L1 is not',
    source: a('L1WeightAtRisk', 'critical', { job: 'avalanchego-exporter', instance: 'exporter:10650', subnet: 'S3' }),
    target: a('L1ValidatorDown', 'warning', {
      job: 'avalanchego-exporter',
      instance: 'exporter:10650',
      subnet: 'S4',
      validation_id: 'v',
      validator_node_id: 'NodeID-A',
    }),
    inhibited: false,
  },
  {
    name: "L1 weight at risk: a vantage's connected stake low for the L1's chain (one page for the L1)",
    source: a('L1WeightAtRisk', 'critical', { job: 'avalanchego-exporter', instance: 'exporter:10650', subnet: 'S5' }),
    target: a('ConnectedStakeLow', 'critical', node('cs1', { chain: 'B5', network_id: '5', subnet: 'S5' })),
    inhibited: true,
  },
  {
    name: "L1 weight at risk: a vantage's connected stake low (warning) for the L1's chain",
    source: a('L1WeightAtRisk', 'critical', { job: 'avalanchego-exporter', instance: 'exporter:10650', subnet: 'S6' }),
    target: a('ConnectedStakeLow', 'warning', node('cs2', { chain: 'B6', network_id: '5', subnet: 'S6' })),
    inhibited: true,
  },
  {
    name: "L1 weight at risk: a primary chain's connected stake low is not (the primary network's subnet)",
    source: a('L1WeightAtRisk', 'critical', { job: 'avalanchego-exporter', instance: 'exporter:10650', subnet: 'S7' }),
    target: a('ConnectedStakeLow', 'critical', node('cs3', { chain: 'C', network_id: '5', subnet: '11111111111111111111111111111111LpoYY' })),
    inhibited: false,
  },
  {
    name: 'L1 weight at risk: a connected stake low without chain_info (no subnet) is not',
    source: a('L1WeightAtRisk', 'critical', { job: 'avalanchego-exporter', instance: 'exporter:10650', subnet: 'S8' }),
    target: a('ConnectedStakeLow', 'critical', node('cs4', { chain: 'B8', network_id: '5' })),
    inhibited: false,
  },
];
// Inhibits every other alert: run last, on its own.
const EXPORTER_ABSENT: Case = {
  name: 'exporter absent: every node alert',
  source: a('ExporterAbsent', 'critical', { job: 'avalanchego-exporter' }),
  target: a('NodeDown', 'critical', node('x1')),
  inhibited: true,
};

describe('inhibit rules', () => {
  it('every inhibit rule is exercised by a case it must inhibit, and the expectations agree with the configuration', () => {
    const all = [...CASES, EXPORTER_ABSENT];
    const covered = new Set(all.filter((c) => c.inhibited).flatMap((c) => rulesFor(c.source, c.target)));
    expect(
      rules.map((_, i) => i).filter((i) => !covered.has(i)),
      'inhibit rules without a case',
    ).toEqual([]);
    for (const c of all) expect(rulesFor(c.source, c.target).length > 0, c.name).toBe(c.inhibited);
  });

  describe.each([currentAlertmanager(), debianAlertmanager()].map((g) => [g.label, g] as const))('%s', (_label, g) => {
    const { alertmanager: am, amtool } = g;
    const missing = missingOf(am, amtool);
    it('Alertmanager and amtool are installed (required under CI=true)', (ctx) => {
      if (missing && !IN_CI) ctx.skip(missing);
      expect(missing).toBe('');
    });

    describe.skipIf(missing !== '')(`a real Alertmanager (${am.version})`, () => {
      const group = new ProcessGroup(ROOT);
      let url = '';
      let dir = '';

      beforeAll(async () => {
        dir = mkdtempSync(join(tmpdir(), 'avalanchego-inhibit-'));
        const port = await freePort();
        url = `http://127.0.0.1:${port}`;
        group.start('alertmanager', defined(am.path, 'the alertmanager binary'), [
          `--config.file=${AM_CONFIG}`,
          `--storage.path=${dir}`,
          `--web.listen-address=127.0.0.1:${port}`,
          '--cluster.listen-address=',
          '--log.level=error',
        ]);
        const deadline = Date.now() + 30_000;
        for (;;) {
          try {
            if ((await fetch(`${url}/-/ready`)).ok) break;
          } catch {
            // starting
          }
          if (Date.now() > deadline) throw new Error(`Alertmanager did not become ready\n${group.logs()}`);
          await new Promise((r) => setTimeout(r, 200));
        }
      }, 40_000);

      afterAll(async () => {
        await group.stopAll();
        if (dir) rmSync(dir, { recursive: true, force: true });
      });

      const add = (labels: Labels) => {
        const r = run(defined(amtool.path, 'amtool'), [
          'alert',
          'add',
          `--alertmanager.url=${url}`,
          ...Object.entries(labels).map(([k, v]) => `${k}=${v}`),
        ]);
        expect(r.code, r.output).toBe(0);
      };
      const state = async () => {
        const alerts = (await (await fetch(`${url}/api/v2/alerts`)).json()) as Array<{
          labels: Labels;
          fingerprint: string;
          status: { inhibitedBy: string[] };
        }>;
        const names = new Map(alerts.map((x) => [x.fingerprint, x.labels]));
        return (labels: Labels) => {
          const found = alerts.find(
            (x) => Object.entries(labels).every(([k, v]) => x.labels[k] === v) && Object.keys(x.labels).length === Object.keys(labels).length,
          );
          if (!found) throw new Error(`alert ${JSON.stringify(labels)} not in Alertmanager`);
          return found.status.inhibitedBy.map((f) => names.get(f)?.['alertname']);
        };
      };
      const check = async (cases: Case[]) => {
        for (const c of cases) {
          add(c.source);
          add(c.target);
        }
        const inhibitedBy = await state();
        const got = cases.map((c) => ({ name: c.name, inhibited: inhibitedBy(c.target).includes(c.source['alertname']) }));
        expect(got).toEqual(cases.map((c) => ({ name: c.name, inhibited: c.inhibited })));
        // Sources are never inhibited by their targets.
        for (const c of cases) expect(inhibitedBy(c.source), c.name).toEqual([]);
        // amtool lists the inhibited targets.
        const q = run(defined(amtool.path, 'amtool'), ['alert', 'query', '--inhibited', `--alertmanager.url=${url}`, '-o', 'json']);
        expect(q.code, q.output).toBe(0);
        const listed = (JSON.parse(q.stdout) as Array<{ labels: Labels; status: { inhibitedBy: string[] } }>)
          .filter((x) => x.status.inhibitedBy.length > 0)
          .map((x) => `${x.labels['alertname']}/${x.labels['node']}`);
        for (const c of cases.filter((x) => x.inhibited)) expect(listed, c.name).toContain(`${c.target['alertname']}/${c.target['node']}`);
      };

      // Two amtool runs a case: under a loaded machine more than the default 30 s.
      it('each case inhibits exactly when expected', async () => {
        await check(CASES);
      }, 180_000);

      it('the exporter being absent inhibits every node alert', async () => {
        await check([EXPORTER_ABSENT]);
        const inhibitedBy = await state();
        for (const c of CASES) expect(inhibitedBy(c.target), c.name).toContain('AvalancheGoExporterAbsent');
      });

      // Alertmanager 0.30.0 to 0.34.0 index one source alert per rule and `equal` labels (the one
      // updated last): when that one resolves, the target is released, though another source of the
      // same node still fires (fixed upstream in 0.34.1, prometheus/alertmanager#5542). Stake falling
      // from 100 % fires both levels of ConnectedStakeLow for every chain, and the warning resolves
      // first when the node leaves the targets (the critical keeps firing 2m more): NodeUnhealthy,
      // held back meanwhile, paged the real isolated drill's controls in CI. Only the critical level,
      // the one at which the node's own check fails, holds NodeUnhealthy back.
      it('a held-back NodeUnhealthy stays held back when its node stake warning resolves before the critical', async () => {
        const post = async (alerts: Array<{ labels: Labels; endsAt: string }>) => {
          const r = await fetch(`${url}/api/v2/alerts`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(alerts),
          });
          expect(r.status, await r.text()).toBe(200);
        };
        const later = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
        // Until `check` holds of Alertmanager's inhibitions (the project's wait: it fails early if Alertmanager exits).
        const until = (what: string, check: (inhibitedBy: (labels: Labels) => Array<string | undefined>) => boolean) =>
          waitFor(group, what, 20_000, async () => (check(await state()) ? true : undefined));
        // The case before left the exporter absent, which holds back every node alert: it ends.
        await post([{ labels: EXPORTER_ABSENT.source, endsAt: later(-1) }]);
        const unhealthy = a('NodeUnhealthy', 'critical', node('held'));
        const critical = a('ConnectedStakeLow', 'critical', node('held', { chain: 'P', network_id: '12345' }));
        const warning = a('ConnectedStakeLow', 'warning', node('held', { chain: 'P', network_id: '12345' }));
        // The warning last and valid longest: the source 0.30–0.34.0 would index for the node.
        await post([{ labels: unhealthy, endsAt: later(60) }]);
        await post([{ labels: critical, endsAt: later(60) }]);
        await post([{ labels: warning, endsAt: later(120) }]);
        await until('NodeUnhealthy held back by ConnectedStakeLow', (inhibitedBy) => inhibitedBy(unhealthy).includes('AvalancheGoConnectedStakeLow'));
        await post([{ labels: warning, endsAt: later(-1 / 60) }]);
        // Alertmanager's inhibitor reads its alerts in the order they came: once a later source has
        // held its own target back, the warning's end has been read too.
        const marker = a('NodeDown', 'critical', node('held-marker'));
        const markerTarget = a('ChainStalled', 'critical', node('held-marker', { chain: 'C' }));
        await post([{ labels: markerTarget, endsAt: later(60) }]);
        await post([{ labels: marker, endsAt: later(60) }]);
        await until('the marker source to hold its target back', (inhibitedBy) => inhibitedBy(markerTarget).includes('AvalancheGoNodeDown'));
        expect((await state())(unhealthy)).toContain('AvalancheGoConnectedStakeLow');
      });
    });
  });
});
