// deploy/compose/builders-hub/: the override that adds the exporter, its rules and an Alertmanager to
// the Builder Console's "Monitoring Setup" stack, which it leaves as the Console wrote it. Checked
// against the Console's own file (test/deploy/fixtures/builders-hub-console.yml), without a Docker
// engine: the override's wiring and mounts, Prometheus keeping the Console's scrape job, promtool
// on the Prometheus config with its rule paths mapped through the mounts, the exporter's config
// loaded as the container gets it, and `docker compose config` (or Debian's docker-compose) on the
// two files together.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix, resolve } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/sources/registry.js';
import { defined } from '../helpers/assert.js';
import { COMPOSE_DIR, IN_CI, ROOT, findTool, run } from './lib.js';

const DIR = join(COMPOSE_DIR, 'builders-hub');
const OVERRIDE = join(DIR, 'docker-compose.exporter.yml');
const CONSOLE = join(ROOT, 'test', 'deploy', 'fixtures', 'builders-hub-console.yml');

interface Service {
  image?: string;
  build?: { context: string; dockerfile?: string };
  command?: string[];
  volumes?: string[];
  ports?: string[];
  configs?: Array<{ source: string; target: string }>;
  environment?: Record<string, string> | string[];
  depends_on?: string[] | Record<string, unknown>;
  extra_hosts?: string[];
}
interface ComposeFile {
  services: Record<string, Service>;
  configs?: Record<string, { content?: string; file?: string }>;
  volumes?: Record<string, unknown>;
}
interface ScrapeJob {
  job_name: string;
  metrics_path?: string;
  scheme?: string;
  static_configs: Array<{ targets: string[] }>;
}
interface PromConfig {
  rule_files: string[];
  alerting: { alertmanagers: Array<{ static_configs: Array<{ targets: string[] }> }> };
  scrape_configs: ScrapeJob[];
}

const override = parseYaml(readFileSync(OVERRIDE, 'utf8')) as ComposeFile;
const console_ = parseYaml(readFileSync(CONSOLE, 'utf8')) as ComposeFile;
const svc = (f: ComposeFile, name: string) => defined(f.services[name], `service ${name}`);

/** A service's bind mounts (SRC:DST[:ro]), sources resolved against the override's folder (the project directory). */
function mounts(name: string): Array<{ source: string; target: string; readOnly: boolean }> {
  return (svc(override, name).volumes ?? []).map((v) => {
    const [src = '', target = '', mode] = v.split(':');
    return { source: resolve(DIR, src), target, readOnly: mode === 'ro' };
  });
}
function hostPath(name: string, containerPath: string): string {
  const m = defined(
    mounts(name)
      .filter((x) => containerPath === x.target || containerPath.startsWith(`${x.target}/`))
      .sort((a, b) => b.target.length - a.target.length)[0],
    `${name}: a mount holding ${containerPath}`,
  );
  return join(m.source, posix.relative(m.target, containerPath));
}
const flag = (name: string, f: string) => (svc(override, name).command ?? []).find((a) => a.startsWith(`${f}=`))?.slice(f.length + 1);
const promConfig = () => parseYaml(readFileSync(hostPath('prometheus', defined(flag('prometheus', '--config.file'), '--config.file')), 'utf8')) as PromConfig;
/** The Console's Prometheus configuration, from its inline config. */
const consolePromConfig = () => parseYaml(defined(console_.configs?.['prometheus_config']?.content, 'the Console prometheus_config')) as PromConfig;

const tmp = mkdtempSync(join(tmpdir(), 'avaxexp-builders-hub-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the Builder Console stack (the fixture is its own docker-compose.yml)', () => {
  it('is the Monitoring Setup stack: Prometheus v3.13.1 on /ext/metrics, Grafana 13.1.1 with the avalanche-monitoring dashboards, no rules', () => {
    expect(Object.keys(console_.services).sort()).toEqual(['dashboards', 'grafana', 'prometheus']);
    expect(svc(console_, 'prometheus').image).toBe('prom/prometheus:v3.13.1');
    expect(svc(console_, 'grafana').image).toBe('grafana/grafana:13.1.1');
    const prom = consolePromConfig();
    expect(prom.scrape_configs.map((j) => [j.job_name, j.metrics_path])).toEqual([['avalanchego', '/ext/metrics']]);
    expect(prom.rule_files).toBeUndefined();
    expect(readFileSync(CONSOLE, 'utf8')).toContain('ava-labs/avalanche-monitoring/');
  });
});

describe('the override', () => {
  it('adds the exporter and an Alertmanager, and of the Console’s services touches only how Prometheus starts', () => {
    expect(Object.keys(override.services).sort()).toEqual(['alertmanager', 'exporter', 'prometheus']);
    // Prometheus: its image, ports, configs and restart policy are the Console's.
    expect(Object.keys(svc(override, 'prometheus')).sort()).toEqual(['command', 'depends_on', 'volumes']);
    expect(override.configs).toBeUndefined();
    expect(override.volumes).toBeUndefined();
  });

  it('every bind-mounted host path exists in the repository, read-only', () => {
    const all = Object.keys(override.services).flatMap((n) => mounts(n).map((m) => ({ service: n, ...m })));
    expect(all.length).toBeGreaterThanOrEqual(4);
    for (const m of all) {
      expect(existsSync(m.source), `${m.service}: ${m.source}`).toBe(true);
      expect(m.source.startsWith(`${ROOT}/`), `${m.service}: ${m.source} is inside the repository`).toBe(true);
      expect(m.readOnly, `${m.service}: ${m.target} is mounted :ro`).toBe(true);
    }
  });

  it('Prometheus keeps the Console’s scrape job as it is, and adds the exporter’s, the rules and the Alertmanager', () => {
    const ours = promConfig();
    const theirs = consolePromConfig();
    for (const job of theirs.scrape_configs) expect(ours.scrape_configs.find((j) => j.job_name === job.job_name)).toEqual(job);
    expect(flag('prometheus', '--storage.tsdb.path')).toBe('/prometheus');
    const exporterJob = defined(ours.scrape_configs.find((j) => j.job_name === 'avalanchego-exporter'), 'the exporter job');
    const port = defined(/:(\d+)$/.exec(defined(flag('exporter', '--web.listen-address'), 'the listen address'))?.[1], 'the port');
    expect(exporterJob.static_configs[0]?.targets).toEqual([`exporter:${port}`]);
    expect(ours.alerting.alertmanagers[0]?.static_configs[0]?.targets).toEqual(['alertmanager:9093']);
    expect(ours.rule_files.map((f) => hostPath('prometheus', f))).toEqual(
      ['avalanchego-recording.yml', 'avalanchego-alerts.yml'].map((f) => join(ROOT, 'deploy', 'prometheus', f)),
    );
    expect(svc(override, 'prometheus').depends_on).toEqual(['exporter', 'alertmanager']);
  });

  it('the exporter polls the node the Console scrapes, by default the one on this host', () => {
    const env = svc(override, 'exporter').environment as Record<string, string>;
    const url = defined(/^\$\{AVALANCHEGO_NODE_URL:-(.+)\}$/.exec(defined(env['AVALANCHEGO_NODE_URL'], 'AVALANCHEGO_NODE_URL'))?.[1], 'its default');
    const target = defined(consolePromConfig().scrape_configs[0]?.static_configs[0]?.targets[0], 'the Console target');
    expect(url).toBe(`http://${target}`);
    expect(svc(override, 'exporter').extra_hosts).toEqual(svc(console_, 'prometheus').extra_hosts);
    const config = loadConfigFile(hostPath('exporter', defined(flag('exporter', '--config.file'), '--config.file')), { AVALANCHEGO_NODE_URL: url });
    expect(config.targets.map((t) => [t.name, t.url])).toEqual([['node', url]]);
  });

  const promtool = findTool('promtool', ['--version']);
  it('promtool is installed (required under CI=true)', (ctx) => {
    if (!promtool.path && !IN_CI) ctx.skip('promtool not found on PATH (Debian package prometheus)');
    expect(promtool.path).toBeDefined();
  });
  it.skipIf(!promtool.path)('promtool check config: the Prometheus config, its rule files mapped through the mounts', () => {
    const cfg = promConfig();
    const file = join(tmp, 'prometheus.yml');
    writeFileSync(file, stringifyYaml({ ...cfg, rule_files: cfg.rule_files.map((f) => hostPath('prometheus', f)) }));
    const r = run('promtool', ['check', 'config', file]);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain('SUCCESS: 2 rule files found');
  });
});

// `docker compose config` on the Console's file and the override together. Debian's docker-compose
// (1.29) predates inline `configs.content` (Compose 2.23.1), which the Console's file uses: for it the
// Console's file is given in the form it knows, each inline config in a file of its own (the same
// stack); Compose v2 takes the Console's file as it is.
const composeV2 = findTool('docker', ['compose', 'version']);
const composeV1 = findTool('docker-compose', ['version']);

/** The Console's file as Debian's docker-compose reads it: inline configs moved to files. */
function consoleForV1(): string {
  const file = structuredClone(console_);
  for (const [name, c] of Object.entries(file.configs ?? {})) {
    const path = join(tmp, `${name}.yml`);
    writeFileSync(path, defined(c.content, name));
    (file.configs ?? {})[name] = { file: path };
  }
  const out = join(tmp, 'console-v1.yml');
  writeFileSync(out, stringifyYaml(file));
  return out;
}

describe('docker compose config, the Console’s file and the override together', () => {
  it('docker compose or docker-compose is installed (required under CI=true)', (ctx) => {
    if (!composeV2.path && !composeV1.path && !IN_CI) ctx.skip('neither `docker compose` (v2 plugin) nor `docker-compose` is installed');
    expect(composeV2.path ?? composeV1.path).toBeDefined();
  });

  it.skipIf(!composeV2.path && !composeV1.path)('accepts the two, and the merged Prometheus runs the override’s config on the Console’s image', () => {
    const [cmd, pre, base] = composeV2.path ? ['docker', ['compose'], CONSOLE] : ['docker-compose', [], consoleForV1()];
    const args = [...pre, '-f', base, '-f', OVERRIDE, '--project-directory', DIR];
    const r = run(cmd, [...args, 'config'], { cwd: DIR });
    expect(r.code, r.output).toBe(0);
    const merged = parseYaml(r.stdout) as ComposeFile;
    expect(Object.keys(merged.services).sort()).toEqual(['alertmanager', 'dashboards', 'exporter', 'grafana', 'prometheus']);
    expect(svc(merged, 'prometheus').image).toBe('prom/prometheus:v3.13.1');
    expect(svc(merged, 'grafana').image).toBe('grafana/grafana:13.1.1');
    expect(svc(merged, 'prometheus').command).toEqual(svc(override, 'prometheus').command);
    expect(svc(merged, 'prometheus').ports).toBeDefined();
    // A broken override fails the same check.
    const bad = join(tmp, 'bad-override.yml');
    writeFileSync(bad, readFileSync(OVERRIDE, 'utf8').replace('    restart: unless-stopped\n', '    restart: unless-stoped\n    portz: []\n'));
    const r2 = run(cmd, [...pre, '-f', base, '-f', bad, '--project-directory', DIR, 'config', '-q'], { cwd: DIR });
    expect(r2.code, r2.output).not.toBe(0);
  });
});
