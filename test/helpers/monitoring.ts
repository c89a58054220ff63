// The Prometheus, Alertmanager and VictoriaMetrics binaries the tests run: the current
// releases, built from the Go module proxy by .ci/run (.ci/go-tools.sh, versions pinned in
// tools/monitoring/versions.env), and Debian's packages (prometheus 2.42, alertmanager
// 0.25), the oldest versions supported. Under CI=true a missing binary fails the test that
// needs it; elsewhere that test is skipped with the reason.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheRoot } from '../real-node/build.js';
import { ROOT } from '../rules/lib.js';

export interface Binary {
  /** Absolute path (or a command on PATH), undefined when the binary is missing. */
  path: string | undefined;
  /** The first line of `--version`, e.g. "prometheus, version 3.16.0 (branch: HEAD, …)". */
  version: string;
  /** Why the binary is missing and how to get it (empty when it is there). */
  missing: string;
}

export interface PrometheusGeneration {
  /** "Prometheus 3.16.0" or "Debian prometheus": for test names. */
  label: string;
  prometheus: Binary;
  promtool: Binary;
}

export interface AlertmanagerGeneration {
  label: string;
  alertmanager: Binary;
  amtool: Binary;
}

/** VictoriaMetrics: the single-node server, vmalert and vmalert-tool of one release. */
export interface VictoriaMetrics {
  /** "VictoriaMetrics 1.151.0": for test names. */
  label: string;
  victoriaMetrics: Binary;
  vmalert: Binary;
  vmalertTool: Binary;
}

/** KEY=value lines of tools/monitoring/versions.env. */
function pinned(): { prometheusModule: string; alertmanagerModule: string; victoriaMetricsModule: string } {
  const text = readFileSync(join(ROOT, 'tools', 'monitoring', 'versions.env'), 'utf8');
  const get = (key: string): string => {
    const m = new RegExp(`^${key}=(v\\d+\\.\\d+\\.\\d+)$`, 'm').exec(text);
    if (!m?.[1]) throw new Error(`tools/monitoring/versions.env: no ${key}=vX.Y.Z line`);
    return m[1];
  };
  return {
    prometheusModule: get('PROMETHEUS_MODULE'),
    alertmanagerModule: get('ALERTMANAGER_MODULE'),
    victoriaMetricsModule: get('VICTORIAMETRICS_MODULE'),
  };
}

/** Prometheus's Go module version v0.3MM.P is Prometheus 3.MM.P. */
export function prometheusRelease(moduleVersion: string): string {
  const m = /^v0\.3(\d\d)\.(\d+)$/.exec(moduleVersion);
  if (!m) throw new Error(`${moduleVersion} is not a Prometheus 3 module version (v0.3MM.P)`);
  return `3.${Number(m[1])}.${m[2]}`;
}

/** The current versions the tests run, as `--version` prints them: { prometheus: "3.16.0", alertmanager: "0.31.1", victoriaMetrics: "1.151.0" }. */
export function currentVersions(): { prometheus: string; alertmanager: string; victoriaMetrics: string } {
  const { prometheusModule, alertmanagerModule, victoriaMetricsModule } = pinned();
  return {
    prometheus: prometheusRelease(prometheusModule),
    alertmanager: alertmanagerModule.slice(1),
    victoriaMetrics: victoriaMetricsModule.slice(1),
  };
}

/** Where .ci/go-tools.sh caches a build: <cache root>/go-tools/<name>-<module version>/<name>. */
export function goToolPath(name: string, moduleVersion: string): string {
  return join(cacheRoot(), 'go-tools', `${name}-${moduleVersion}`, name);
}

function versionLine(path: string): string | undefined {
  const r = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  if (r.error || r.status !== 0) return undefined;
  return `${r.stdout}${r.stderr}`.split('\n')[0]?.trim() ?? '';
}

/** A binary built by .ci/go-tools.sh: $<envVar>, else the cache path of the pinned version. */
function built(name: string, envVar: string, moduleVersion: string, builder = 'build_monitoring_stack'): Binary {
  const fromEnv = process.env[envVar];
  const path = fromEnv || goToolPath(name, moduleVersion);
  const how = `build it with \`. .ci/go-tools.sh && ${builder}\` (as .ci/run does), or set ${envVar} to a ${name} binary`;
  if (!existsSync(path)) return { path: undefined, version: '', missing: `${name} ${moduleVersion} not found at ${path}: ${how}` };
  const version = versionLine(path);
  if (version === undefined) return { path: undefined, version: '', missing: `${path} --version failed: ${how}` };
  return { path, version, missing: '' };
}

/** A Debian package's binary on PATH. */
function debian(cmd: string, pkg: string): Binary {
  const version = versionLine(cmd);
  if (version === undefined) return { path: undefined, version: '', missing: `${cmd} not found on PATH (install the Debian package "${pkg}")` };
  return { path: cmd, version, missing: '' };
}

let cache:
  | { p3: PrometheusGeneration; pDeb: PrometheusGeneration; am: AlertmanagerGeneration; amDeb: AlertmanagerGeneration; vm: VictoriaMetrics }
  | undefined;
function all(): NonNullable<typeof cache> {
  if (cache) return cache;
  const { prometheusModule, alertmanagerModule, victoriaMetricsModule } = pinned();
  cache = {
    p3: {
      label: `Prometheus ${prometheusRelease(prometheusModule)}`,
      prometheus: built('prometheus', 'AVALANCHEGO_PROMETHEUS_BIN', prometheusModule),
      promtool: built('promtool', 'AVALANCHEGO_PROMTOOL_BIN', prometheusModule),
    },
    pDeb: { label: 'Debian prometheus', prometheus: debian('prometheus', 'prometheus'), promtool: debian('promtool', 'prometheus') },
    am: {
      label: `Alertmanager ${alertmanagerModule.slice(1)}`,
      alertmanager: built('alertmanager', 'AVALANCHEGO_ALERTMANAGER_BIN', alertmanagerModule),
      amtool: built('amtool', 'AVALANCHEGO_AMTOOL_BIN', alertmanagerModule),
    },
    amDeb: {
      label: 'Debian alertmanager',
      alertmanager: debian('prometheus-alertmanager', 'prometheus-alertmanager'),
      amtool: debian('amtool', 'prometheus-alertmanager'),
    },
    vm: {
      label: `VictoriaMetrics ${victoriaMetricsModule.slice(1)}`,
      victoriaMetrics: built('victoria-metrics', 'AVALANCHEGO_VICTORIAMETRICS_BIN', victoriaMetricsModule, 'build_victoriametrics'),
      vmalert: built('vmalert', 'AVALANCHEGO_VMALERT_BIN', victoriaMetricsModule, 'build_victoriametrics'),
      vmalertTool: built('vmalert-tool', 'AVALANCHEGO_VMALERT_TOOL_BIN', victoriaMetricsModule, 'build_victoriametrics'),
    },
  };
  return cache;
}

/** The current Prometheus (3.x, built from the Go module proxy): what the rule, end-to-end and detection tests run. */
export const prometheus3 = (): PrometheusGeneration => all().p3;
/** Debian's prometheus package (2.42): the oldest version supported. */
export const debianPrometheus = (): PrometheusGeneration => all().pDeb;
/** Both generations, the current one first. */
export const prometheusGenerations = (): PrometheusGeneration[] => [all().p3, all().pDeb];
/** The current Alertmanager (built from the Go module proxy). */
export const currentAlertmanager = (): AlertmanagerGeneration => all().am;
/** Debian's prometheus-alertmanager package (0.25): the oldest version supported. */
export const debianAlertmanager = (): AlertmanagerGeneration => all().amDeb;

/** VictoriaMetrics (single-node, vmalert, vmalert-tool), built from the Go module proxy. */
export const victoriaMetrics = (): VictoriaMetrics => all().vm;

/** The reasons the given binaries are missing, joined; empty when all are there. */
export function missingOf(...binaries: Binary[]): string {
  return binaries
    .map((b) => b.missing)
    .filter(Boolean)
    .join('; ');
}
