// The real drills' judge (test/real-node/drills.ts) on notifications as Alertmanager sends them: a
// network-wide fault is one page that names its nodes in updates; a shared group's update that
// names a node's alert only as resolved is no ticket of that node.
import { describe, expect, it } from 'vitest';
import { DRILLS, explain, judge, subjectResult, type DrillResult, type DrillRun } from '../real-node/drills.js';
import type { AlertRecord, Notification } from '../rules/detection-harness.js';

const record = (node: string, alertname: string, severity: string, activeAt: number, firingAt: number): AlertRecord => ({
  alertname: `AvalancheGo${alertname}`,
  severity,
  node,
  labels: {},
  activeAt,
  firingAt,
  inhibited: false,
  inhibitedBy: new Set(),
});
const alert = (node: string, alertname: string, severity: string, status = 'firing') => ({
  alertname: `AvalancheGo${alertname}`,
  node,
  severity,
  status,
});
const NETWORK = '{}/{severity="critical"}:{alertname="AvalancheGoConnectedStakeLow", network_id="12345"}';

function drill(name: 'quorum-lost' | 'new-staking-key', notifications: Notification[], records: AlertRecord[]): DrillResult {
  const spec = DRILLS[name];
  const o = { start: 0, end: 2000 };
  const map = new Map(records.map((r, i) => [String(i), r]));
  return {
    name,
    spec,
    startedAt: 0,
    durationSeconds: 2000,
    subjects: spec.expect.map((e) => subjectResult(e, o, map, notifications, 20)),
    reasons: {},
    controls: { pages: [], tickets: [] },
  };
}

describe("the drills' judge", () => {
  const nodes = ['staker1', 'staker2', 'staker3', 'fresh', 'nonvalidator'];
  const records = nodes.map((n, i) => record(n, 'ConnectedStakeLow', 'critical', 40 + i * 10, 640 + i * 10));
  // The group's first page names the nodes whose alert fired first; the others join it 5m later.
  const first: Notification = {
    at: 655,
    receiver: 'pager',
    status: 'firing',
    groupKey: NETWORK,
    alerts: [alert('staker3', 'ConnectedStakeLow', 'critical'), alert('fresh', 'ConnectedStakeLow', 'critical')],
  };
  const update: Notification = {
    at: 955,
    receiver: 'pager',
    status: 'firing',
    groupKey: NETWORK,
    alerts: nodes.map((n) => alert(n, 'ConnectedStakeLow', 'critical')),
  };

  it('counts a network-wide fault as one page naming every node, its latency the first page', () => {
    const d = drill('quorum-lost', [first, update], records);
    expect(d.subjects.map((s) => [s.node, s.pagedFor])).toEqual(nodes.map((n) => [n, ['ConnectedStakeLow']]));
    expect(judge(d, 20)).toEqual({ ok: true, why: '' });
  });

  it('fails a network-wide fault that pages twice, or a node no page names', () => {
    const again: Notification = { ...first, at: 700, groupKey: `${NETWORK}-other`, alerts: [alert('staker1', 'ConnectedStakeLow', 'critical')] };
    expect(judge(drill('quorum-lost', [first, again, update], records), 20).why).toContain(
      '2 pages for staker1, staker2, staker3, fresh, nonvalidator together, expected 1',
    );
    expect(judge(drill('quorum-lost', [first], records), 20).why).toContain('staker1: paged for nothing, expected ConnectedStakeLow');
  });

  it("does not count a shared ticket's update that names a node only as resolved as that node's ticket", () => {
    const tickets = '{}/{severity="warning"}:{alertname="AvalancheGoConnectedStakeLow", network_id="12345"}';
    const page: Notification = {
      at: 600,
      receiver: 'pager',
      status: 'firing',
      groupKey: 'staker5',
      alerts: [alert('staker5', 'NoLongerValidator', 'critical')],
    };
    const opened: Notification = {
      at: 500,
      receiver: 'tickets',
      status: 'firing',
      groupKey: tickets,
      alerts: [alert('staker1', 'ConnectedStakeLow', 'warning')],
    };
    const updated: Notification = {
      ...opened,
      at: 800,
      alerts: [alert('staker1', 'ConnectedStakeLow', 'warning'), alert('staker5', 'ConnectedStakeLow', 'warning', 'resolved')],
    };
    const recs = [record('staker5', 'NoLongerValidator', 'critical', 0, 590), record('staker5', 'ConnectedStakeLow', 'warning', 10, 610)];
    const d = drill('new-staking-key', [opened, page, updated], recs);
    expect(d.subjects[0]?.summary.tickets).toBe(0);
    expect(judge(d, 20)).toEqual({ ok: true, why: '' });
    const named: Notification = { ...updated, alerts: [alert('staker5', 'ConnectedStakeLow', 'warning')] };
    expect(judge(drill('new-staking-key', [opened, page, named], recs), 20).why).toContain('staker5: 1 tickets, expected 0');
  });

  it('explains a failed drill by what was sent over it and the course of the alerts of the nodes its verdict names', () => {
    const d = drill('quorum-lost', [first], records);
    const verdict = judge(d, 20);
    const run = { timeline: { notifications: [first], records } } as unknown as DrillRun;
    const lines = explain(run, d, verdict.why);
    expect(lines).toContain('notification 655s pager firing [staker3:ConnectedStakeLow(critical):firing fresh:ConnectedStakeLow(critical):firing]');
    expect(lines).toContain('alert staker1 ConnectedStakeLow(critical) "" pending 40s firing 640s resolved -s');
    expect(lines.some((l) => l.startsWith('alert staker3 '))).toBe(false);
  });
});
