// The Compose demo deploy/compose/: what can be checked without a Docker engine. The compose
// file's mounts, ports and wiring; the exporter's config through --config.check; promtool
// check config on the Prometheus config with its rule paths mapped through the compose
// mounts to the repository's files; amtool check-config on the mounted Alertmanager file;
// `docker compose config` (or Debian's docker-compose) when present; and the stack itself
// run on loopback from the compose file's own commands: the simulator, the exporter,
// Prometheus and Alertmanager (the Debian packages), with service names mapped to
// 127.0.0.1 ports. Every process is started here and stopped by its PID.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { isAbsolute, join, posix, resolve } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSimulateArgs } from '../../src/simulator/cli.js';
import { defined } from '../helpers/assert.js';
import { waitFor } from '../helpers/fake-node.js';
import { freePort } from '../helpers/net.js';
import { COMPOSE_DIR, IN_CI, MAIN, ROOT, findTool, missingDist, run } from './lib.js';
import { ProcessGroup, type Proc } from '../helpers/processes.js';

const COMPOSE_FILE = join(COMPOSE_DIR, 'docker-compose.yml');

interface Service {
  build?: { context: string; dockerfile?: string };
  image?: string;
  command?: string[];
  volumes?: string[];
  ports?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, unknown> | string[];
  healthcheck?: { test: string[] };
}
const compose = parseYaml(readFileSync(COMPOSE_FILE, 'utf8')) as { services: Record<string, Service> };
const svc = (name: string): Service => {
  const s = compose.services[name];
  if (!s) throw new Error(`no service ${name} in ${COMPOSE_FILE}`);
  return s;
};

interface Mount { source: string; target: string; readOnly: boolean }
/** The bind mounts of a service (short syntax SRC:DST[:ro]), sources resolved against deploy/compose/. */
function mounts(name: string): Mount[] {
  return (svc(name).volumes ?? []).map((v) => {
    const [src, target, mode] = v.split(':');
    if (!src || !target || !(src.startsWith('.') || src.startsWith('/'))) throw new Error(`${name}: ${v} is not a bind mount`);
    return { source: resolve(COMPOSE_DIR, src), target, readOnly: mode === 'ro' };
  });
}
/** The host path of a path inside a service's container, through its bind mounts. */
function hostPath(name: string, containerPath: string): string {
  const m = mounts(name)
    .filter((x) => containerPath === x.target || containerPath.startsWith(`${x.target}/`))
    .sort((a, b) => b.target.length - a.target.length)[0];
  if (!m) throw new Error(`${name}: ${containerPath} is under no bind mount of the service`);
  return join(m.source, posix.relative(m.target, containerPath));
}
/** --flag=value of a service's command. */
function flag(name: string, f: string): string | undefined {
  const arg = (svc(name).command ?? []).find((a) => a.startsWith(`${f}=`));
  return arg?.slice(f.length + 1);
}

const promConfigPath = () => hostPath('prometheus', flag('prometheus', '--config.file') ?? '/etc/prometheus/prometheus.yml');
const amConfigPath = () => hostPath('alertmanager', flag('alertmanager', '--config.file') ?? '/etc/alertmanager/alertmanager.yml');
const exporterConfigPath = () => hostPath('exporter', flag('exporter', '--config.file') ?? '');

interface PromConfig {
  rule_files: string[];
  alerting: { alertmanagers: Array<{ static_configs: Array<{ targets: string[] }> }> };
  scrape_configs: Array<{ job_name: string; static_configs: Array<{ targets: string[] }> }>;
  [k: string]: unknown;
}
const promConfig = () => parseYaml(readFileSync(promConfigPath(), 'utf8')) as PromConfig;
const exporterConfig = () => parseYaml(readFileSync(exporterConfigPath(), 'utf8')) as { targets: Array<{ name: string; url: string }>; [k: string]: unknown };

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'avalanchego-compose-'));
});
afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** Prometheus' config with rule_files mapped to the host through the prometheus service's mounts. */
function promConfigOnHost(extra: Partial<PromConfig> = {}): string {
  const cfg = { ...promConfig(), ...extra };
  cfg.rule_files = promConfig().rule_files.map((f) => hostPath('prometheus', f));
  // Files a scrape job reads (the exporter's password) from their host side too.
  cfg.scrape_configs = cfg.scrape_configs.map((j) => {
    const auth = (j as { basic_auth?: { password_file?: string } }).basic_auth;
    return auth?.password_file ? { ...j, basic_auth: { ...auth, password_file: hostPath('prometheus', auth.password_file) } } : j;
  });
  const file = join(tmp, `prometheus-${Math.random().toString(36).slice(2)}.yml`);
  writeFileSync(file, stringifyYaml(cfg));
  return file;
}

describe('compose file', () => {
  it('has the five services of the demo', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['alertmanager', 'exporter', 'grafana', 'prometheus', 'simulator']);
  });

  it('every bind-mounted host path exists in the repository, read-only', () => {
    const all = Object.keys(compose.services).flatMap((n) => mounts(n).map((m) => ({ service: n, ...m })));
    expect(all.length).toBeGreaterThanOrEqual(6);
    for (const m of all) {
      expect(existsSync(m.source), `${m.service}: ${m.source}`).toBe(true);
      expect(m.source.startsWith(`${ROOT}/`), `${m.service}: ${m.source} is inside the repository`).toBe(true);
      expect(m.readOnly, `${m.service}: ${m.target} is mounted :ro`).toBe(true);
    }
  });

  it('the simulator and the exporter are built from the repository\'s Dockerfile, as one image', () => {
    for (const n of ['simulator', 'exporter']) {
      const b = svc(n).build;
      expect(b, n).toBeDefined();
      const build = defined(b, `${n}: build`);
      expect(resolve(COMPOSE_DIR, build.context)).toBe(ROOT);
      expect(statSync(join(ROOT, build.dockerfile ?? 'Dockerfile')).isFile()).toBe(true);
    }
    expect(svc('simulator').image).toBe(svc('exporter').image);
    expect(svc('simulator').command?.[0]).toBe('simulate');
  });

  it('publishes every port on 127.0.0.1 only', () => {
    const ports = Object.entries(compose.services).flatMap(([n, s]) => (s.ports ?? []).map((p) => [n, p] as const));
    expect(ports.length).toBe(5);
    for (const [n, p] of ports) expect(p, n).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
  });

  it('the simulator command is valid for the simulator, with the demo\'s six scenarios, and allows the host name "simulator"', () => {
    const { options, scenarios } = parseSimulateArgs((svc('simulator').command ?? []).slice(1));
    expect(options.host).toBe('0.0.0.0');
    expect(options.port).toBe(9650);
    expect(options.nodes).toBe(6);
    expect(options.timeScale).toBe(10);
    expect(scenarios).toEqual(['healthy', 'healthy', 'stalled-chain', 'disk-filling', 'peers-dropping', 'flapping']);
    expect(options.allowedHosts).toContain('simulator');
    // The simulator overrides the image's HEALTHCHECK (which probes the exporter's port).
    expect(svc('simulator').healthcheck?.test.join(' ')).toContain(':9650/');
  });

  it('the exporter polls every simulated node by the simulator\'s service name', () => {
    const { options } = parseSimulateArgs((svc('simulator').command ?? []).slice(1));
    const cfg = exporterConfig();
    expect(cfg.targets.map((t) => t.url)).toEqual(Array.from({ length: options.nodes ?? 1 }, (_, i) => `http://simulator:${options.port}/node-${i}`));
    expect(new Set(cfg.targets.map((t) => t.name)).size).toBe(cfg.targets.length);
    expect(flag('exporter', '--web.listen-address')).toBe(':10650');
    expect(svc('exporter').depends_on).toMatchObject({ simulator: { condition: 'service_healthy' } });
  });

  it('Prometheus scrapes the exporter as job "avalanchego-exporter", loads both rule files and alerts to the alertmanager service', () => {
    const cfg = promConfig();
    const job = cfg.scrape_configs.find((j) => j.job_name === 'avalanchego-exporter');
    expect(job?.static_configs[0]?.targets).toEqual([`exporter:${flag('exporter', '--web.listen-address')?.split(':').pop()}`]);
    expect(cfg.rule_files.map((f) => posix.basename(f)).sort()).toEqual(['avalanchego-alerts.yml', 'avalanchego-recording.yml']);
    for (const f of cfg.rule_files) expect(hostPath('prometheus', f)).toBe(join(ROOT, 'deploy', 'prometheus', posix.basename(f)));
    expect(cfg.alerting.alertmanagers[0]?.static_configs[0]?.targets).toEqual(['alertmanager:9093']);
    expect(svc('alertmanager').ports).toContain('127.0.0.1:9093:9093');
  });

  it('Alertmanager runs the repository\'s deploy/alertmanager/alertmanager.yml', () => {
    expect(amConfigPath()).toBe(join(ROOT, 'deploy', 'alertmanager', 'alertmanager.yml'));
  });

  it('Grafana: provisioning and dashboards mounted where the provisioning files expect them, anonymous viewers', () => {
    const prov = hostPath('grafana', '/etc/grafana/provisioning');
    expect(prov).toBe(join(ROOT, 'grafana', 'provisioning'));
    const provider = parseYaml(readFileSync(join(prov, 'dashboards', 'avalanchego.yml'), 'utf8')) as { providers: Array<{ options: { path: string } }> };
    const dashboards = hostPath('grafana', defined(provider.providers[0], 'the dashboard provider').options.path);
    expect(dashboards).toBe(join(ROOT, 'grafana', 'dashboards'));
    const ds = parseYaml(readFileSync(join(prov, 'datasources', 'prometheus.yml'), 'utf8')) as { datasources: Array<{ url: string }> };
    expect(ds.datasources[0]?.url).toBe('http://prometheus:9090');
    expect(svc('prometheus').ports).toContain('127.0.0.1:9090:9090');
    const env = svc('grafana').environment ?? {};
    expect(env).toMatchObject({ GF_AUTH_ANONYMOUS_ENABLED: 'true', GF_AUTH_ANONYMOUS_ORG_ROLE: 'Viewer' });
    const home = env['GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH'];
    expect(home && existsSync(hostPath('grafana', home)), `${home} is a mounted dashboard`).toBe(true);
  });
});

describe.skipIf(missingDist() !== undefined)('exporter config', () => {
  it('deploy/compose/exporter.yaml passes --config.check', () => {
    const r = run(process.execPath, [MAIN, `--config.file=${exporterConfigPath()}`, '--config.check']);
    expect(r.code, r.output).toBe(0);
    expect(r.stdout + r.stderr).toContain('valid, 6 targets');
  });
});

const promtool = findTool('promtool', ['--version']);
const amtool = findTool('amtool', ['--version']);

describe('promtool and amtool', () => {
  it('are installed (required under CI=true)', (ctx) => {
    if ((!promtool.path || !amtool.path) && !IN_CI) ctx.skip('promtool or amtool not found on PATH (Debian packages prometheus, prometheus-alertmanager)');
    expect(promtool.path, 'promtool').toBeDefined();
    expect(amtool.path, 'amtool').toBeDefined();
  });

  it.skipIf(!promtool.path)('promtool check config: the Prometheus config, its rule files mapped through the compose mounts', () => {
    const r = run('promtool', ['check', 'config', promConfigOnHost()]);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain('SUCCESS: 2 rule files found');
    for (const f of ['avalanchego-recording.yml', 'avalanchego-alerts.yml']) expect(r.output).toContain(join(ROOT, 'deploy', 'prometheus', f));
  });

  it.skipIf(!promtool.path)('promtool check config fails when a rule file is missing (the check can fail)', () => {
    const file = join(tmp, 'prometheus-missing-rule.yml');
    writeFileSync(file, stringifyYaml({ ...promConfig(), rule_files: [join(tmp, 'no-such-rules.yml')] }));
    const r = run('promtool', ['check', 'config', file]);
    expect(r.code, r.output).not.toBe(0);
  });

  it.skipIf(!amtool.path)('amtool check-config on the mounted Alertmanager config', () => {
    const r = run('amtool', ['check-config', amConfigPath()]);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain('SUCCESS');
  });
});

// `docker compose config` validates the file against the Compose specification without an
// engine. The Compose v2 plugin is not installed on this project's machines; Debian's
// docker-compose (1.29) does the same check. Optional: skipped with the reason when neither is.
const composeV2 = findTool('docker', ['compose', 'version']);
const composeV1 = findTool('docker-compose', ['version']);
const composeCmd: [string, string[]] | undefined = composeV2.path ? ['docker', ['compose']] : composeV1.path ? ['docker-compose', []] : undefined;

describe('docker compose config', () => {
  it.skipIf(!composeCmd)(`validates the file (${composeV2.version || composeV1.version})`, () => {
    const [cmd, pre] = defined(composeCmd, 'the compose command');
    const r = run(cmd, [...pre, '-f', COMPOSE_FILE, 'config', '-q'], { cwd: ROOT });
    expect(r.code, r.output).toBe(0);
    // A broken file fails the same check.
    const bad = join(tmp, 'docker-compose.yml');
    writeFileSync(bad, readFileSync(COMPOSE_FILE, 'utf8').replace('    ports:\n      - "127.0.0.1:9650:9650"', '    portz:\n      - "127.0.0.1:9650:9650"'));
    const r2 = run(cmd, [...pre, '-f', bad, 'config', '-q'], { cwd: ROOT });
    expect(r2.code, r2.output).not.toBe(0);
  });

  it('is available, or the reason it is skipped is known', (ctx) => {
    if (!composeCmd) ctx.skip('neither `docker compose` (v2 plugin) nor `docker-compose` is installed; the structural checks above still run');
    expect(composeCmd).toBeDefined();
  });
});

// ---------------------------------------------------------------------------------------
// The stack on loopback, from the compose file's own commands and configs.

/** GET with an explicit Host header (fetch() will not send one of its own choosing). */
function getWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const req = request(url, { method: 'GET', headers: { host }, timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => resolvePromise(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

const group = new ProcessGroup(ROOT);
const startProc = (name: string, cmd: string, args: string[]): Proc => group.start(name, cmd, args);
const logs = (): string => group.logs(2000);

const prometheusBin = findTool('prometheus', ['--version']);
const alertmanagerBin = findTool('prometheus-alertmanager', ['--version']);
const stackMissing = missingDist() ?? (!prometheusBin.path || !alertmanagerBin.path ? 'prometheus or prometheus-alertmanager not on PATH (Debian packages)' : undefined);

describe('the stack on loopback', () => {
  it('can run here (required under CI=true)', (ctx) => {
    if (stackMissing && !IN_CI) ctx.skip(stackMissing);
    expect(stackMissing).toBeUndefined();
  });

  describe.skipIf(stackMissing !== undefined)('simulator, exporter, Prometheus and Alertmanager', () => {
    const port: Record<string, number> = {};
    /** host:port of a compose service name, on loopback. */
    const addr = (hostPort: string): string => {
      const [host = '', p] = hostPort.split(':');
      if (host === 'localhost') return `127.0.0.1:${port['prometheus']}`;
      const mapped = port[host];
      if (mapped === undefined) throw new Error(`${hostPort}: not a service of the stack`);
      expect(p, `${hostPort}: the port the service listens on`).toBe(String({ simulator: 9650, exporter: 10650, alertmanager: 9093, prometheus: 9090 }[host]));
      return `127.0.0.1:${mapped}`;
    };

    beforeAll(async () => {
      for (const n of ['simulator', 'exporter', 'prometheus', 'alertmanager']) port[n] = await freePort();
      // The simulator exactly as compose runs it, on a loopback port.
      const simArgs = (svc('simulator').command ?? []).map((a) => (a.startsWith('--web.listen-address=') ? `--web.listen-address=127.0.0.1:${port['simulator']}` : a));
      startProc('simulator', process.execPath, [MAIN, ...simArgs]);
      // The exporter: compose's command, its config with the service name mapped to loopback.
      const cfg = exporterConfig();
      cfg.targets = cfg.targets.map((t) => ({ ...t, url: t.url.replace(/^http:\/\/([^/]+)/, (_m, hp: string) => `http://${addr(hp)}`) }));
      const exporterCfg = join(tmp, 'exporter.yaml');
      writeFileSync(exporterCfg, stringifyYaml(cfg));
      const expArgs = (svc('exporter').command ?? []).map((a) =>
        a.startsWith('--config.file=') ? `--config.file=${exporterCfg}` : a.startsWith('--web.listen-address=') ? `--web.listen-address=127.0.0.1:${port['exporter']}` : a);
      startProc('exporter', process.execPath, [MAIN, ...expArgs]);
      // Alertmanager with the mounted file; clustering off (it would listen on every interface).
      startProc('alertmanager', 'prometheus-alertmanager', [
        `--config.file=${amConfigPath()}`, `--storage.path=${join(tmp, 'am')}`, `--web.listen-address=127.0.0.1:${port['alertmanager']}`, '--cluster.listen-address=',
      ]);
      // Prometheus with compose's config: rule files through the mounts, service names to loopback.
      const pc = promConfig();
      const promFile = promConfigOnHost({
        scrape_configs: pc.scrape_configs.map((j) => ({ ...j, static_configs: j.static_configs.map((s) => ({ targets: s.targets.map(addr) })) })),
        alerting: { alertmanagers: pc.alerting.alertmanagers.map((a) => ({ static_configs: a.static_configs.map((s) => ({ targets: s.targets.map(addr) })) })) },
      });
      startProc('prometheus', 'prometheus', [
        `--config.file=${promFile}`, `--storage.tsdb.path=${join(tmp, 'tsdb')}`, `--web.listen-address=127.0.0.1:${port['prometheus']}`,
      ]);
    }, 60_000);

    afterAll(async () => {
      await Promise.all(group.procs.map((p) => group.stop(p)));
    }, 30_000);

    it('the simulator accepts the exporter\'s Host name "simulator" and rejects others with 403, as AvalancheGo does', async () => {
      const base = `http://127.0.0.1:${port['simulator']}`;
      await waitFor(async () => (await fetch(`${base}/sim/nodes`)).ok, `simulator\n${logs()}`, 20_000);
      for (const t of exporterConfig().targets) {
        const u = new URL(t.url);
        const status = await getWithHost(`${base}${u.pathname}/ext/health`, u.host);
        // 200 healthy or 503 unhealthy (the fault scenarios): anything but a rejection or a 404.
        expect([200, 503], `${t.name}: GET ${u.pathname}/ext/health with Host ${u.host}`).toContain(status);
      }
      expect(await getWithHost(`${base}/node-0/ext/health`, 'localhost:9650')).toBe(200);
      expect(await getWithHost(`${base}/node-0/ext/health`, 'exporter:9650')).toBe(403);
    });

    it('the exporter polls the six nodes and is ready', async () => {
      const base = `http://127.0.0.1:${port['exporter']}`;
      await waitFor(async () => (await fetch(`${base}/-/ready`)).status === 200, `exporter ready\n${logs()}`, 30_000);
      const text = await (await fetch(`${base}/metrics`)).text();
      for (let i = 0; i < 6; i++) expect(text, `node-${i}`).toMatch(new RegExp(`^avalanchego_up\\{node="node-${i}"\\} 1$`, 'm'));
    });

    it('Prometheus loads both rule files, scrapes every job and finds the Alertmanager', async () => {
      const api = `http://127.0.0.1:${port['prometheus']}/api/v1`;
      const rules = await waitFor(async () => {
        const r = (await (await fetch(`${api}/rules`)).json()) as { data: { groups: Array<{ name: string; file: string; rules: unknown[] }> } };
        return r.data.groups.length > 0 ? r.data.groups : undefined;
      }, `prometheus rules\n${logs()}`, 30_000);
      const expected = ['avalanchego-alerts.yml', 'avalanchego-recording.yml'].flatMap((f) =>
        (parseYaml(readFileSync(join(ROOT, 'deploy', 'prometheus', f), 'utf8')) as { groups: Array<{ name: string }> }).groups.map((g) => g.name));
      expect(rules.map((g) => g.name).sort()).toEqual(expected.sort());
      const targets = await waitFor(async () => {
        const r = (await (await fetch(`${api}/targets`)).json()) as { data: { activeTargets: Array<{ labels: { job: string }; health: string }> } };
        const t = r.data.activeTargets;
        return t.length === promConfig().scrape_configs.length && t.every((x) => x.health === 'up') ? t : undefined;
      }, `every target up\n${logs()}`, 45_000);
      expect(targets.map((t) => t.labels.job).sort()).toEqual(['alertmanager', 'avalanchego-exporter', 'prometheus']);
      const ams = await waitFor(async () => {
        const r = (await (await fetch(`${api}/alertmanagers`)).json()) as { data: { activeAlertmanagers: Array<{ url: string }> } };
        return r.data.activeAlertmanagers.length > 0 ? r.data.activeAlertmanagers : undefined;
      }, `alertmanager discovered\n${logs()}`, 30_000);
      expect(ams[0]?.url).toBe(`http://127.0.0.1:${port['alertmanager']}/api/v2/alerts`);
      // The rules evaluate on the scraped series: the fleet's lag, one series per node and chain.
      const lag = await waitFor(async () => {
        const r = (await (await fetch(`${api}/query?query=${encodeURIComponent('count(node_chain:avalanchego_chain_last_accepted_height:lag)')}`)).json()) as {
          data: { result: Array<{ value: [number, string] }> };
        };
        // The first evaluations may see only the nodes polled so far: wait for all six.
        const n = r.data.result[0] ? Number(r.data.result[0].value[1]) : 0;
        return n >= 6 ? n : undefined;
      }, `recording rule evaluated for the six nodes\n${logs()}`, 45_000);
      expect(lag).toBeGreaterThanOrEqual(6);
    }, 120_000);
  });
});

// Keep the helper honest: a path outside every mount is an error, not a guess.
describe('mount mapping', () => {
  it('refuses a container path that no bind mount covers', () => {
    expect(() => hostPath('prometheus', '/etc/prometheus-other/x.yml')).toThrow(/under no bind mount/);
    expect(isAbsolute(hostPath('prometheus', '/etc/prometheus/rules/avalanchego-alerts.yml'))).toBe(true);
  });
});
