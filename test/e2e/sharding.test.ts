// Sharded polling on real processes: one simulated fleet, three exporter processes with
// --shard.count=3, and a real Prometheus 3 scraping all three with the project's rules (sped
// up). Every target is polled by exactly one replica; a misrouted /probe names the owner; a
// replica killed by PID fires AvalancheGoExporterShardsMissing, which resolves when it is
// back; a reload that adds targets moves no existing target. Everything on 127.0.0.1, every
// process stopped by its PID, conditions awaited with deadlines.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_CI, ROOT } from '../rules/lib.js';
import { prometheus3 } from '../helpers/monitoring.js';
import { defined } from '../helpers/assert.js';
import { ProcessGroup, type Proc } from '../helpers/processes.js';
import { freePort } from '../helpers/net.js';
import { TestPrometheus, waitFor } from '../helpers/prometheus.js';
import { shardOf } from '../../src/shard.js';

// The current Prometheus (3.x), built by .ci/run from the Go module proxy.
const { prometheus } = prometheus3();
const MISSING = prometheus.missing;
const MAIN = join(ROOT, 'dist', 'main.js');
const JOB = 'avalanchego-exporter';
const SHARDS = 3;
const NODES = 240;
const ADDED = 30;

const group = new ProcessGroup(ROOT);
const until = <T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> => waitFor(group, what, timeoutMs, check);

describe('sharded polling with a real Prometheus', () => {
  it('Prometheus 3 is installed (required under CI=true)', (ctx) => {
    if (!prometheus.path && !IN_CI) ctx.skip(MISSING);
    expect(prometheus.path, MISSING).toBeDefined();
  });

  describe.skipIf(!prometheus.path)('three shards', () => {
    let dir = '';
    let simUrl = '';
    let prom: TestPrometheus;
    const ports: number[] = [];
    const exporters: Proc[] = [];
    const configFile = () => join(dir, 'exporter.yaml');

    function writeConfig(n: number): void {
      writeFileSync(
        configFile(),
        [
          '# 5s polls of health only: three processes share a 2-core machine with the simulator and Prometheus.',
          'defaults:',
          '  interval: 5s',
          '  timeout: 3s',
          '  index: {endpoints: []}',
          '  info: {enabled: false}',
          '  platform: {enabled: false}',
          '  chain_info: {enabled: false}',
          'targets:',
          ...Array.from({ length: n }, (_, i) => [`  - name: node-${i}`, `    url: ${simUrl}/node-${i}`]).flat(),
          '',
        ].join('\n'),
      );
    }
    const startShard = (i: number): Proc =>
      group.start(`exporter-${i}`, process.execPath, [
        MAIN,
        `--config.file=${configFile()}`,
        `--web.listen-address=127.0.0.1:${ports[i]}`,
        `--shard.count=${SHARDS}`,
        `--shard.index=${i}`,
        '--log.level=warn',
      ]);
    /** node → the `instance` (replica) whose series carry it, from Prometheus. */
    async function ownersInPrometheus(): Promise<Map<string, string[]>> {
      const owners = new Map<string, string[]>();
      for (const s of await prom.vector(`avalanchego_up{job="${JOB}"}`)) {
        const node = defined(s.metric['node'], 'the node label');
        owners.set(node, [...(owners.get(node) ?? []), defined(s.metric['instance'], 'the instance label')]);
      }
      return owners;
    }

    beforeAll(async () => {
      if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build`);
      dir = mkdtempSync(join(tmpdir(), 'avalanchego-shards-'));
      const simPort = await freePort();
      simUrl = `http://127.0.0.1:${simPort}`;
      group.start('simulator', process.execPath, [
        MAIN,
        'simulate',
        `--web.listen-address=127.0.0.1:${simPort}`,
        `--nodes=${NODES + ADDED}`,
        '--seed=shards',
      ]);
      await until('the simulator', 20_000, async () => ((await fetch(`${simUrl}/sim/nodes`)).ok ? true : undefined));
      writeConfig(NODES);
      for (let i = 0; i < SHARDS; i++) {
        ports.push(await freePort());
        exporters.push(startShard(i));
      }
      for (const port of ports)
        await until(`exporter on ${port} ready`, 30_000, async () => ((await fetch(`http://127.0.0.1:${port}/-/ready`)).ok ? true : undefined));
      prom = await TestPrometheus.start(group, {
        binary: prometheus.path,
        dir,
        job: JOB,
        targets: ports.map((p) => `127.0.0.1:${p}`),
        speedup: 20,
        interval: '2s',
      });
      await until(`all ${NODES} nodes in Prometheus`, 60_000, async () => ((await ownersInPrometheus()).size === NODES ? true : undefined));
    }, 180_000);

    afterAll(async () => {
      await group.stopAll();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }, 60_000);

    it("the union of the shards' avalanchego_up covers every target exactly once, on the replica the hash names", async () => {
      const owners = await ownersInPrometheus();
      expect(owners.size).toBe(NODES);
      const wrong: string[] = [];
      for (const [node, instances] of owners) {
        const expected = `127.0.0.1:${ports[shardOf(node, SHARDS)]}`;
        if (instances.length !== 1 || instances[0] !== expected) wrong.push(`${node}: ${instances.join(', ')} (expected ${expected})`);
      }
      expect(wrong).toEqual([]);
    });

    it('each replica reports its shard, the shard count, and only the targets it owns', async () => {
      const byInstance = async (metric: string) =>
        new Map((await prom.vector(`${metric}{job="${JOB}"}`)).map((s) => [defined(s.metric['instance'], 'the instance label'), Number(s.value[1])]));
      const metrics = ['avalanchego_exporter_shard_index', 'avalanchego_exporter_shards', 'avalanchego_exporter_targets'];
      await until('shard metrics of every replica', 30_000, async () => {
        for (const m of metrics) if ((await byInstance(m)).size !== SHARDS) return undefined;
        return true;
      });
      const index = await byInstance('avalanchego_exporter_shard_index');
      const count = await byInstance('avalanchego_exporter_shards');
      const targets = await byInstance('avalanchego_exporter_targets');
      let total = 0;
      for (let i = 0; i < SHARDS; i++) {
        const instance = `127.0.0.1:${ports[i]}`;
        expect(index.get(instance)).toBe(i);
        expect(count.get(instance)).toBe(SHARDS);
        const owned = Array.from({ length: NODES }, (_, n) => `node-${n}`).filter((n) => shardOf(n, SHARDS) === i).length;
        expect(targets.get(instance)).toBe(owned);
        total += defined(targets.get(instance), `avalanchego_exporter_targets of ${instance}`);
      }
      expect(total).toBe(NODES);
      // The landing page lists the owned nodes and says which shard this is.
      const page = await (await fetch(`http://127.0.0.1:${ports[0]}/`)).text();
      expect(page).toContain(`shard 0 of ${SHARDS}`);
      const other = defined(
        Array.from({ length: NODES }, (_, n) => `node-${n}`).find((n) => shardOf(n, SHARDS) !== 0),
        'a node of another shard',
      );
      expect(page).not.toContain(`>${other}<`);
    });

    it('/probe of a target another shard owns answers 421 and names the owner; its owner serves it', async () => {
      const node = defined(
        Array.from({ length: NODES }, (_, n) => `node-${n}`).find((n) => shardOf(n, SHARDS) === 1),
        'a node of shard 1',
      );
      const misrouted = await fetch(`http://127.0.0.1:${ports[0]}/probe?target=${node}`);
      expect(misrouted.status).toBe(421);
      expect(misrouted.headers.get('x-shard-owner')).toBe('1');
      expect(await misrouted.text()).toBe(
        `target "${node}" is polled by shard 1 of ${SHARDS}, not by this replica (shard 0): scrape /probe on shard 1\n`,
      );
      const owner = await fetch(`http://127.0.0.1:${ports[1]}/probe?target=${node}`);
      expect(owner.status).toBe(200);
      expect(await owner.text()).toMatch(new RegExp(`^avalanchego_up\\{node="${node}"\\} [01]$`, 'm'));
      // A name no replica has is still a plain 404.
      expect((await fetch(`http://127.0.0.1:${ports[0]}/probe?target=nowhere`)).status).toBe(404);
    });

    it('a shard killed by PID fires AvalancheGoExporterShardsMissing, which resolves when it is back', async () => {
      expect(await prom.firing('AvalancheGoExporterShardsMissing')).toBeUndefined();
      await group.stop(defined(exporters[2], 'the exporter of shard 2'));
      try {
        const alert = await prom.waitFor('AvalancheGoExporterShardsMissing firing', 90_000, () => prom.firing('AvalancheGoExporterShardsMissing'));
        expect(alert.labels['job']).toBe(JOB);
        expect(await prom.firing('AvalancheGoExporterShardingMismatch')).toBeUndefined();
      } finally {
        exporters[2] = startShard(2);
      }
      await prom.waitFor('AvalancheGoExporterShardsMissing to resolve', 90_000, async () =>
        (await prom.alerts()).some((a) => a.labels['alertname'] === 'AvalancheGoExporterShardsMissing') ? undefined : true,
      );
    }, 200_000);

    it('a reload that adds targets moves no existing target to another replica', async () => {
      const before = await ownersInPrometheus();
      writeConfig(NODES + ADDED);
      for (const p of exporters) process.kill(defined(p.child.pid, `the PID of ${p.name}`), 'SIGHUP');
      await until(`all ${NODES + ADDED} nodes in Prometheus`, 60_000, async () =>
        (await ownersInPrometheus()).size === NODES + ADDED ? true : undefined,
      );
      const after = await ownersInPrometheus();
      const moved = [...before].filter(([node, instances]) => after.get(node)?.join() !== instances.join()).map(([node]) => node);
      expect(moved).toEqual([]);
      const duplicated = [...after].filter(([, instances]) => instances.length !== 1).map(([node]) => node);
      expect(duplicated).toEqual([]);
    }, 120_000);
  });
});
