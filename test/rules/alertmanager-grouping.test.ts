// How deploy/alertmanager/alertmanager.yml groups notifications, against a real Alertmanager
// (the current one and Debian's 0.25, test/helpers/monitoring.ts), its webhooks sent to a
// loopback receiver. A network's fault is one notification naming its nodes: when a network
// loses quorum, five nodes' AvalancheGoConnectedStakeLow are one page, not five (the real
// quorum-lost drill saw five). A node's own alerts still page per node, and a validator below
// its uptime requirement is one incident whether its uptime alert or its at-risk alert fires first.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_CI, ROOT } from './lib.js';
import { AM_CONFIG, compressAlertmanager } from './detection-harness.js';
import { currentAlertmanager, debianAlertmanager, missingOf } from '../helpers/monitoring.js';
import { defined } from '../helpers/assert.js';
import { ProcessGroup } from '../helpers/processes.js';
import { freePort } from '../helpers/net.js';
import { waitFor } from '../helpers/fake-node.js';

type Labels = Record<string, string>;
interface Notification {
  receiver: string;
  status: string;
  groupKey: string;
  alerts: Array<{ status: string; labels: Labels }>;
}

/** Pages' group_wait 10s → 0.3s, group_interval 5m → 10s, tickets' group_wait 2m → 4s. */
const SPEEDUP = 30;
const NODES = ['v1', 'v2', 'v3', 'v4', 'v5'];
const labels = (alertname: string, severity: string, extra: Labels): Labels => ({
  alertname: `AvalancheGo${alertname}`,
  severity,
  job: 'avalanchego-exporter',
  instance: 'exporter:10650',
  ...extra,
});

describe.each([currentAlertmanager(), debianAlertmanager()].map((g) => [g.label, g] as const))('%s', (_label, g) => {
  const { alertmanager: am } = g;
  const missing = missingOf(am);
  it('Alertmanager is installed (required under CI=true)', (ctx) => {
    if (missing && !IN_CI) ctx.skip(missing);
    expect(missing).toBe('');
  });

  describe.skipIf(missing !== '')(`notification groups on a real Alertmanager (${am.version})`, () => {
    const group = new ProcessGroup(ROOT);
    const received: Notification[] = [];
    let hooks: Server | undefined;
    let url = '';
    let dir = '';

    beforeAll(async () => {
      hooks = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Notification);
          res.end();
        });
      });
      await new Promise<void>((resolve) => defined(hooks, 'the webhook receiver').listen(0, '127.0.0.1', resolve));
      const hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}`;
      dir = mkdtempSync(join(tmpdir(), 'avalanchego-grouping-'));
      const config = join(dir, 'alertmanager.yml');
      writeFileSync(config, compressAlertmanager(readFileSync(AM_CONFIG, 'utf8'), SPEEDUP, hookUrl));
      const port = await freePort();
      url = `http://127.0.0.1:${port}`;
      group.start('alertmanager', defined(am.path, 'the alertmanager binary'), [
        `--config.file=${config}`,
        `--storage.path=${dir}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--cluster.listen-address=',
        '--log.level=error',
      ]);
      await waitFor(
        async () => {
          try {
            return (await fetch(`${url}/-/ready`)).ok;
          } catch {
            return false;
          }
        },
        'Alertmanager ready',
        30_000,
      );
    }, 40_000);

    afterAll(async () => {
      await group.stopAll();
      hooks?.closeAllConnections();
      await new Promise((resolve) => (hooks ? hooks.close(resolve) : resolve(undefined)));
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const post = async (alerts: Labels[]) => {
      const startsAt = new Date().toISOString();
      const res = await fetch(`${url}/api/v2/alerts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(alerts.map((l) => ({ labels: l, startsAt }))),
      });
      expect(res.status, await res.text()).toBe(200);
    };
    /** The firing notifications that carry an alert named `alertname`, once `count` of them have come and the group_wait of another has passed. */
    const notifications = async (alertname: string, count: number): Promise<Notification[]> => {
      const of = () => received.filter((n) => n.status === 'firing' && n.alerts.some((x) => x.labels['alertname'] === `AvalancheGo${alertname}`));
      await waitFor(() => of().length >= count, `${count} notification(s) for ${alertname}`, 20_000);
      // Long enough for any other group's first notification (group_wait 0.3s here; a ticket's 4s) to come too.
      const settled = Date.now() + 5_000;
      await waitFor(() => Date.now() >= settled, 'the other groups to have had their turn', 10_000);
      return of();
    };

    it("a network's quorum lost: five nodes' ConnectedStakeLow on three chains are one page that names them", async () => {
      // Every node on every chain (quorum lost on the primary network).
      await post(NODES.flatMap((node) => ['P', 'C', 'X'].map((chain) => labels('ConnectedStakeLow', 'critical', { node, chain, network_id: '5' }))));
      const sent = await notifications('ConnectedStakeLow', 1);
      expect(sent.map((n) => n.receiver)).toEqual(['pager']);
      expect(
        defined(sent[0], 'the page')
          .alerts.map((x) => `${x.labels['node']}/${x.labels['chain']}`)
          .sort(),
      ).toEqual(NODES.flatMap((n) => [`${n}/C`, `${n}/P`, `${n}/X`]));
    });

    it("another network's stake is another page; a node's own alert still pages per node", async () => {
      await post([
        labels('ConnectedStakeLow', 'critical', { node: 'm1', chain: 'P', network_id: '1' }),
        ...['d1', 'd2'].map((node) => labels('NodeDown', 'critical', { node })),
      ]);
      const stake = await notifications('ConnectedStakeLow', 2);
      expect(stake.map((n) => new Set(n.alerts.map((x) => x.labels['network_id'])))).toEqual([new Set(['5']), new Set(['1'])]);
      const down = await notifications('NodeDown', 2);
      expect(down.map((n) => n.alerts.map((x) => x.labels['node']).join()).sort()).toEqual(['d1', 'd2']);
    });

    it("an L1's alerts (no node label): one page per L1 at risk, one ticket per validator, not one for all", async () => {
      // The tickets on a third L1: an L1 at risk holds its validators' tickets back (inhibit_rules).
      const [a, b, c] = ['L1a111', 'L1b222', 'L1c333'];
      await post([
        labels('L1WeightAtRisk', 'critical', { subnet: a }),
        labels('L1WeightAtRisk', 'critical', { subnet: b }),
        ...['NodeID-x', 'NodeID-y'].map((id) => labels('L1ValidatorDown', 'warning', { subnet: c, validation_id: `v-${id}`, validator_node_id: id })),
        labels('L1ValidatorRunwayLow', 'warning', { subnet: c, validation_id: 'v-NodeID-x', validator_node_id: 'NodeID-x' }),
      ]);
      const pages = await notifications('L1WeightAtRisk', 2);
      expect(pages.map((n) => [n.receiver, n.alerts.map((x) => x.labels['subnet']).join()]).sort()).toEqual([
        ['pager', a],
        ['pager', b],
      ]);
      const tickets = await notifications('L1ValidatorDown', 2);
      // One ticket per validator: NodeID-x's down and runway alerts in one, NodeID-y's in another.
      expect(
        tickets
          .map((n) => [
            n.receiver,
            n.alerts
              .map((x) => `${x.labels['validator_node_id']}/${x.labels['alertname']}`)
              .sort()
              .join(),
          ])
          .sort(),
      ).toEqual([
        ['tickets', 'NodeID-x/AvalancheGoL1ValidatorDown,NodeID-x/AvalancheGoL1ValidatorRunwayLow'],
        ['tickets', 'NodeID-y/AvalancheGoL1ValidatorDown'],
      ]);
    });

    it('a validator below its uptime requirement is one incident: the at-risk alert joins the uptime page of its node', async () => {
      await post([labels('UptimeBelowRewardThreshold', 'critical', { node: 'u1' })]);
      const first = await notifications('UptimeBelowRewardThreshold', 1);
      await post([
        labels('UptimeBelowRewardThreshold', 'critical', { node: 'u1' }),
        labels('AutoRenewedValidatorAtRisk', 'critical', { node: 'u1', subnet: '11111111111111111111111111111111LpoYY' }),
      ]);
      // The update comes after group_interval (10s here), in the same group (the same incident), and
      // carries only the at-risk alert: it holds the uptime alert back.
      const update = await notifications('AutoRenewedValidatorAtRisk', 1);
      expect(new Set([...first, ...update].map((n) => n.groupKey)).size).toBe(1);
      expect(update.map((n) => n.alerts.filter((x) => x.status === 'firing').map((x) => x.labels['alertname']))).toEqual([
        ['AvalancheGoAutoRenewedValidatorAtRisk'],
      ]);
    });
  });
});
