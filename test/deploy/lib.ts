// Shared helpers of the deployment tests (Helm chart, Compose stack): finding the external
// tools, running them, and reading the YAML they print.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { IN_CI, ROOT } from '../rules/lib.js';

export { IN_CI, ROOT };
export const CHART = join(ROOT, 'deploy', 'helm', 'avalanchego-exporter');
export const COMPOSE_DIR = join(ROOT, 'deploy', 'compose');
export const MAIN = join(ROOT, 'dist', 'main.js');
export const PACKAGE_VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

export interface Tool {
  /** Absolute path or command name; undefined when the tool is missing. */
  path: string | undefined;
  version: string;
}

/**
 * A tool on PATH, or (for tools installed with `go install`) in $(go env GOPATH)/bin,
 * which is often not on PATH.
 */
export function findTool(cmd: string, versionArgs: string[], goBin = false): Tool {
  const candidates = [cmd];
  if (goBin) {
    const gopath = spawnSync('go', ['env', 'GOPATH'], { encoding: 'utf8', timeout: 10_000 });
    if (gopath.status === 0 && gopath.stdout.trim()) candidates.push(join(gopath.stdout.trim(), 'bin', cmd));
  }
  for (const c of candidates) {
    if (c.includes('/') && !existsSync(c)) continue;
    const r = spawnSync(c, versionArgs, { encoding: 'utf8', timeout: 10_000 });
    if (!r.error && r.status === 0) return { path: c, version: `${r.stdout}${r.stderr}`.trim().split('\n')[0] ?? '' };
  }
  return { path: undefined, version: '' };
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The command line, stdout and stderr: the message of a failed expectation. */
  output: string;
}

export function run(cmd: string, args: string[], opts: { cwd?: string; timeoutMs?: number; input?: string } = {}): RunResult {
  // stdout and stderr are null when the command could not be started (ENOENT), whatever Node's types say.
  const r: SpawnSyncReturns<string | null> = spawnSync(cmd, args, { encoding: 'utf8', timeout: opts.timeoutMs ?? 60_000, cwd: opts.cwd ?? ROOT, input: opts.input });
  const stdout = r.stdout ?? '';
  const stderr = r.stderr ?? '';
  return { code: r.status, stdout, stderr, output: `$ ${cmd} ${args.join(' ')}\n${stdout}${stderr}${r.error ? `\n${String(r.error)}` : ''}` };
}

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}

// The parts of the rendered objects that the deployment tests read (a small local subset of
// the Kubernetes and Prometheus Operator types; the tests assert on the fields).
export interface Probe {
  httpGet: { path: string; port: string | number; scheme?: string };
}
export interface Container {
  image: string;
  imagePullPolicy: string;
  args: string[];
  ports: Array<{ name: string; containerPort: number; protocol: string }>;
  env?: Array<{ name: string; value?: string; valueFrom?: unknown }>;
  envFrom?: unknown[];
  volumeMounts: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
  livenessProbe: Probe;
  readinessProbe: Probe;
  securityContext?: Record<string, unknown>;
}
export interface Volume {
  name: string;
  configMap?: { name: string; items: Array<{ key: string; path: string }> };
  secret?: { secretName: string };
}
export interface PodSpec {
  containers: Container[];
  volumes: Volume[];
  securityContext?: Record<string, unknown>;
  automountServiceAccountToken?: boolean;
  serviceAccountName?: string;
  nodeSelector?: Record<string, string>;
  tolerations?: Array<Record<string, unknown>>;
  affinity?: { nodeAffinity?: unknown };
}
/** A Deployment or a StatefulSet. */
export interface Workload extends K8sObject {
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string>; annotations?: Record<string, string> }; spec: PodSpec };
    strategy?: unknown;
    serviceName?: string;
    podManagementPolicy?: string;
  };
}
export interface Service extends K8sObject {
  spec: {
    type?: string;
    clusterIP?: string;
    ports: Array<{ name: string; port: number; targetPort: string | number; protocol: string }>;
    selector: Record<string, string>;
  };
}
export interface ConfigMap extends K8sObject {
  data: Record<string, string>;
}
export interface Secret extends K8sObject {
  stringData: Record<string, string>;
}
export interface RelabelConfig {
  action: string;
  sourceLabels?: string[];
  targetLabel?: string;
  regex?: string;
  replacement?: string;
}
export interface ServiceMonitor extends K8sObject {
  spec: {
    namespaceSelector: unknown;
    selector: { matchLabels: Record<string, string> };
    endpoints: Array<{
      port: string;
      path?: string;
      interval?: string;
      scrapeTimeout?: string;
      scheme?: string;
      basicAuth?: { username: { name: string; key: string }; password: { name: string; key: string } };
      relabelings?: RelabelConfig[];
      metricRelabelings?: RelabelConfig[];
    }>;
  };
}
export interface PrometheusRule extends K8sObject {
  spec: { groups: unknown[] };
}
/** The kinds the chart renders, each with the shape the tests read. */
export interface RenderedKinds {
  ConfigMap: ConfigMap;
  Deployment: Workload;
  PrometheusRule: PrometheusRule;
  Secret: Secret;
  Service: Service;
  ServiceAccount: K8sObject;
  ServiceMonitor: ServiceMonitor;
  StatefulSet: Workload;
}

/** The documents of a multi-document YAML stream (helm template's output), empty ones dropped. */
export function parseManifests(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((d) => {
      if (d.errors.length > 0) throw new Error(`invalid YAML in rendered manifests: ${d.errors.map((e) => e.message).join('; ')}`);
      return d.toJS() as K8sObject | null;
    })
    .filter((o): o is K8sObject => o !== null);
}

export function missingDist(): string | undefined {
  return existsSync(MAIN) ? undefined : `${MAIN} is missing: run npm run build first`;
}
