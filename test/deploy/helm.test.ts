// The Helm chart deploy/helm/avalanchego-exporter: helm lint --strict, helm template with the
// default values and with every optional part on, the rendered objects, the values schema,
// helm package, and the chart's default configuration through the exporter's own check.
// Helm comes from `go install helm.sh/helm/v3/cmd/helm@v3.22.0`; without it the tests are
// skipped locally and fail under CI=true.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/sources/registry.js';
import { defined } from '../helpers/assert.js';
import { waitFor } from '../helpers/fake-node.js';
import { freePort } from '../helpers/net.js';
import { bcryptHash, makePki } from '../helpers/tls.js';
import { RULES_DIR, ruleFilePaths } from '../rules/lib.js';
import { CHART, IN_CI, MAIN, PACKAGE_VERSION, ROOT, findTool, missingDist, parseManifests, run, type Container, type K8sObject, type RenderedKinds } from './lib.js';

const helm = findTool('helm', ['version', '--short'], true);
const HELM = helm.path ?? 'helm';
const MISSING = 'helm not found on PATH nor in $(go env GOPATH)/bin (go install helm.sh/helm/v3/cmd/helm@v3.22.0)';
const FULL_VALUES = join(ROOT, 'test', 'deploy', 'fixtures', 'helm-values-full.yaml');

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'avalanchego-helm-'));
});
afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

function template(args: string[] = [], chart = CHART): K8sObject[] {
  const r = run(HELM, ['template', 'rel', chart, '--namespace', 'mon', ...args]);
  if (r.code !== 0) throw new Error(r.output);
  return parseManifests(r.stdout);
}
/** helm template with values given as an object (written to a file, as an operator would). */
function templateWith(values: unknown, extra: string[] = []): K8sObject[] {
  const file = join(tmp, `values-${createHash('sha256').update(JSON.stringify(values)).digest('hex').slice(0, 12)}.yaml`);
  writeFileSync(file, stringifyYaml(values));
  return template(['-f', file, ...extra]);
}
/** The one object of `kind`, typed by its kind (the tests then assert on its fields). */
function one<K extends keyof RenderedKinds>(objs: K8sObject[], kind: K): RenderedKinds[K] {
  const found = objs.filter((o) => o.kind === kind);
  expect(found.map((o) => o.kind), `exactly one ${kind}`).toEqual([kind]);
  return defined(found[0], kind) as RenderedKinds[K];
}
const podSpec = (objs: K8sObject[]) => one(objs, 'Deployment').spec.template.spec;
const container = (objs: K8sObject[]): Container => defined(podSpec(objs).containers[0], 'the container');
/** The object's data[key] (a ConfigMap's file). */
const dataOf = (cm: RenderedKinds['ConfigMap'], key: string): string => defined(cm.data[key], `data[${key}] of ConfigMap ${cm.metadata.name}`);
const checksum = (objs: K8sObject[]): string | undefined => one(objs, 'Deployment').spec.template.metadata.annotations?.['checksum/config'];

/** The project's rule groups: recording rules first, then alerts (the chart's order). */
function projectGroups(files = ['avalanchego-recording.yml', 'avalanchego-alerts.yml']): unknown[] {
  return files.flatMap((f) => (parseYaml(readFileSync(join(RULES_DIR, f), 'utf8')) as { groups: unknown[] }).groups);
}

describe('helm', () => {
  it('is installed (required under CI=true)', (ctx) => {
    if (!helm.path && !IN_CI) ctx.skip(MISSING);
    expect(helm.path, MISSING).toBeDefined();
  });
});

describe('chart metadata', () => {
  it('Chart.yaml: apiVersion v2, appVersion = package.json version, kubeVersion >=1.19', () => {
    const chart = parseYaml(readFileSync(join(CHART, 'Chart.yaml'), 'utf8')) as Record<string, string>;
    expect(chart).toMatchObject({ apiVersion: 'v2', name: 'avalanchego-exporter', type: 'application', appVersion: PACKAGE_VERSION });
    expect(chart['kubeVersion']).toBe('>=1.19.0-0');
    expect(chart['version']).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('values.yaml: every top-level and second-level key has a comment above it', () => {
    // Second-level keys of Kubernetes objects passed through as they are (described by the
    // comment of their parent, documented by Kubernetes) and of the exporter's config.
    const passthrough = new Set(['config', 'podSecurityContext', 'securityContext', 'resources', 'livenessProbe', 'readinessProbe']);
    const lines = readFileSync(join(CHART, 'values.yaml'), 'utf8').split('\n');
    const undocumented: string[] = [];
    let parent = '';
    for (const [i, line] of lines.entries()) {
      const m = /^( {0,2})([A-Za-z]\w*):/.exec(line);
      if (!m) continue;
      const [, indent, key = ''] = m;
      if (indent === '') parent = key;
      else if (passthrough.has(parent)) continue;
      let j = i - 1;
      while (j >= 0 && lines[j]?.trim() === '') j--;
      if (!/^\s*#/.test(lines[j] ?? '')) undocumented.push(`values.yaml:${i + 1}: ${indent === '' ? '' : `${parent}.`}${key}`);
    }
    expect(undocumented).toEqual([]);
    expect(lines.filter((l) => /^[A-Za-z]/.test(l)).length).toBeGreaterThan(20);
  });

  it('values.schema.json: `config` allows exactly the top-level keys of the exporter\'s own config schema', () => {
    const schema = JSON.parse(readFileSync(join(CHART, 'values.schema.json'), 'utf8')) as {
      properties: { config: { additionalProperties: boolean; required: string[]; properties: Record<string, unknown> } };
    };
    const config = schema.properties.config;
    expect(config.additionalProperties).toBe(false);
    expect(Object.keys(config.properties).sort()).toEqual(Object.keys(configSchema.shape).sort());
    expect(config.required).toEqual(['targets']);
  });

  it('files/ holds copies of exactly the rule files of deploy/prometheus (`npm run docs` copies them)', () => {
    // Copies, not symbolic links: `npm pack` drops symbolic links (test/deploy/package.test.ts).
    const dir = join(CHART, 'files');
    const names = readdirSync(dir).sort();
    expect(names).toEqual(ruleFilePaths().map((p) => p.slice(RULES_DIR.length + 1)).sort());
    for (const n of names) {
      expect(lstatSync(join(dir, n)).isFile(), `${n} is a regular file`).toBe(true);
      expect(readFileSync(join(dir, n), 'utf8'), `files/${n} differs from deploy/prometheus/${n}: run npm run docs`).toBe(readFileSync(join(RULES_DIR, n), 'utf8'));
    }
  });
});

describe.skipIf(!helm.path)(`helm chart (${helm.version})`, () => {
  it('helm lint --strict passes with the default values and with every optional part on', () => {
    for (const args of [[], ['-f', FULL_VALUES]]) {
      const r = run(HELM, ['lint', '--strict', CHART, ...args]);
      expect(r.code, r.output).toBe(0);
      expect(r.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    }
  });

  describe('default values', () => {
    let objs: K8sObject[];
    beforeAll(() => {
      objs = template();
    });

    it('renders a ServiceAccount, a ConfigMap, a Service and a Deployment, and nothing of the Prometheus Operator', () => {
      expect(objs.map((o) => o.kind).sort()).toEqual(['ConfigMap', 'Deployment', 'Service', 'ServiceAccount']);
      for (const o of objs) {
        expect(o.metadata.name).toBe('rel-avalanchego-exporter');
        expect(o.metadata.namespace).toBe('mon');
        expect(o.metadata.labels).toMatchObject({ 'app.kubernetes.io/name': 'avalanchego-exporter', 'app.kubernetes.io/instance': 'rel', 'app.kubernetes.io/version': PACKAGE_VERSION });
      }
    });

    it('Deployment: one replica, the image of appVersion, the args, port 10650 named http-metrics', () => {
      const d = one(objs, 'Deployment');
      expect(d.spec.replicas).toBe(1);
      const c = container(objs);
      expect(c.image).toBe(`avalanchego-exporter:${PACKAGE_VERSION}`);
      expect(c.imagePullPolicy).toBe('IfNotPresent');
      expect(c.args).toEqual(['--config.file=/etc/avalanchego-exporter/config.yaml', '--web.listen-address=:10650']);
      expect(c.ports).toEqual([{ name: 'http-metrics', containerPort: 10650, protocol: 'TCP' }]);
      expect(d.spec.selector.matchLabels).toEqual({ 'app.kubernetes.io/name': 'avalanchego-exporter', 'app.kubernetes.io/instance': 'rel' });
      expect(d.spec.template.metadata.labels).toMatchObject(d.spec.selector.matchLabels);
      // The old pod serves until the new one is ready: a bad config never takes the exporter down.
      expect(d.spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } });
    });

    it('probes: liveness on /-/healthy, readiness on /-/ready, on the named port', () => {
      const c = container(objs);
      expect(c.livenessProbe.httpGet).toEqual({ path: '/-/healthy', port: 'http-metrics' });
      expect(c.readinessProbe.httpGet).toEqual({ path: '/-/ready', port: 'http-metrics' });
    });

    it('security: non-root numeric uid, read-only root filesystem, all capabilities dropped, no token', () => {
      const spec = podSpec(objs);
      expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } });
      expect(container(objs).securityContext).toEqual({
        allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ['ALL'] },
      });
      expect(spec.automountServiceAccountToken).toBe(false);
      expect(spec.serviceAccountName).toBe(one(objs, 'ServiceAccount').metadata.name);
    });

    it('the ConfigMap is mounted as a directory where --config.file points', () => {
      const spec = podSpec(objs);
      const cm = one(objs, 'ConfigMap');
      const vol = defined(spec.volumes.find((v) => v.name === 'config'), 'the config volume');
      expect(vol.configMap).toEqual({ name: cm.metadata.name, items: [{ key: 'config.yaml', path: 'config.yaml' }] });
      const mount = container(objs).volumeMounts.find((m) => m.name === 'config');
      expect(mount).toEqual({ name: 'config', mountPath: '/etc/avalanchego-exporter', readOnly: true });
      expect(Object.keys(cm.data)).toEqual(['config.yaml']);
    });

    it('the default config polls http://avalanchego:9650 and the values say why a host name may get 403', () => {
      const config = parseYaml(dataOf(one(objs, 'ConfigMap'), 'config.yaml')) as { targets: unknown };
      expect(config.targets).toEqual([{ name: 'avalanchego', url: 'http://avalanchego:9650' }]);
      expect(readFileSync(join(CHART, 'values.yaml'), 'utf8')).toMatch(/403 invalid host specified[\s\S]*--http-allowed-hosts/);
      expect(readFileSync(join(CHART, 'templates', 'NOTES.txt'), 'utf8')).toMatch(/403 invalid host specified[\s\S]*--http-allowed-hosts/);
    });

    it('Service: port 10650 named http-metrics, to the pod\'s named port, selecting the pod', () => {
      const s = one(objs, 'Service');
      expect(s.spec.type).toBe('ClusterIP');
      expect(s.spec.ports).toEqual([{ name: 'http-metrics', port: 10650, targetPort: 'http-metrics', protocol: 'TCP' }]);
      expect(one(objs, 'Deployment').spec.template.metadata.labels).toMatchObject(s.spec.selector);
    });

    it('the pod carries a checksum of the config: it changes with the config and only with it', () => {
      const base = checksum(objs);
      expect(base).toMatch(/^[0-9a-f]{64}$/);
      expect(checksum(template())).toBe(base);
      const other = checksum(templateWith({ config: { targets: [{ name: 'v1', url: 'http://10.0.0.1:9650' }] } }));
      expect(other).toMatch(/^[0-9a-f]{64}$/);
      expect(other).not.toBe(base);
      expect(checksum(templateWith({ resources: { limits: { memory: '1Gi' } } }))).toBe(base);
      const annotated = one(templateWith({ podAnnotations: { 'example.com/a': 'b' } }), 'Deployment').spec.template.metadata.annotations;
      expect(annotated).toEqual({ 'checksum/config': base, 'example.com/a': 'b' });
    });
  });

  describe('every optional part on (test/deploy/fixtures/helm-values-full.yaml)', () => {
    let objs: K8sObject[];
    beforeAll(() => {
      objs = template(['-f', FULL_VALUES]);
    });

    it('renders the ServiceMonitor and the PrometheusRule, and no ConfigMap (existingConfigMap)', () => {
      expect(objs.map((o) => o.kind).sort()).toEqual(['Deployment', 'PrometheusRule', 'Service', 'ServiceAccount', 'ServiceMonitor']);
      for (const o of objs) expect(o.metadata.name).toBe('avx');
    });

    it('the Deployment mounts the existing ConfigMap, without a checksum, and keeps the pod annotations', () => {
      const spec = podSpec(objs);
      expect(defined(spec.volumes.find((v) => v.name === 'config'), 'the config volume').configMap?.name).toBe('fleet-config');
      expect(one(objs, 'Deployment').spec.template.metadata.annotations).toEqual({ 'example.com/team': 'validators' });
    });

    it('image, extraArgs after the fixed args, env, envFrom, extra volumes, placement', () => {
      const c = container(objs);
      expect(c.image).toBe('registry.example.com/avalanchego-exporter:9.9.9');
      expect(c.args).toEqual([
        '--config.file=/etc/avalanchego-exporter/config.yaml', '--web.listen-address=:10650', '--log.level=debug', '--log.format=json',
      ]);
      expect(c.env).toEqual([{ name: 'NODE_TOKEN', valueFrom: { secretKeyRef: { name: 'avx-secrets', key: 'node-token' } } }]);
      expect(c.envFrom).toEqual([{ secretRef: { name: 'avx-env' } }]);
      expect(c.volumeMounts.map((m) => m.name)).toEqual(['config', 'node-ca']);
      const spec = podSpec(objs);
      expect(spec.volumes.map((v) => v.name)).toEqual(['config', 'node-ca']);
      expect(spec.nodeSelector).toEqual({ 'kubernetes.io/os': 'linux' });
      expect(spec.tolerations?.[0]).toMatchObject({ key: 'dedicated', effect: 'NoSchedule' });
      expect(spec.affinity?.nodeAffinity).toBeDefined();
    });

    it('ServiceMonitor: scrapes the Service\'s http-metrics port as job "avalanchego-exporter"', () => {
      const sm = one(objs, 'ServiceMonitor');
      const svc = one(objs, 'Service');
      expect(sm.apiVersion).toBe('monitoring.coreos.com/v1');
      expect(sm.metadata.labels).toMatchObject({ release: 'kube-prometheus-stack' });
      expect(sm.spec.namespaceSelector).toEqual({ matchNames: ['mon'] });
      expect(svc.metadata.labels).toMatchObject(sm.spec.selector.matchLabels);
      expect(sm.spec.endpoints).toHaveLength(1);
      const ep = defined(sm.spec.endpoints[0], 'the endpoint');
      expect(svc.spec.ports.map((p) => p.name)).toContain(ep.port);
      expect(ep).toMatchObject({ port: 'http-metrics', path: '/metrics', interval: '15s', scrapeTimeout: '5s' });
      expect(ep.relabelings).toEqual([{ action: 'replace', targetLabel: 'job', replacement: 'avalanchego-exporter' }]);
      expect(ep.metricRelabelings).toEqual([{ action: 'drop', sourceLabels: ['__name__'], regex: 'nodejs_gc_.*' }]);
      // The job name is the one the project's absence alert looks for.
      expect(readFileSync(join(RULES_DIR, 'avalanchego-alerts.yml'), 'utf8')).toContain(`up{job="${defined(ep.relabelings?.[0]?.replacement, 'the job relabeling\'s replacement')}"}`);
    });

    it('PrometheusRule: the groups of deploy/prometheus/*.yml, identical', () => {
      const pr = one(objs, 'PrometheusRule');
      expect(pr.apiVersion).toBe('monitoring.coreos.com/v1');
      expect(pr.metadata.labels).toMatchObject({ release: 'kube-prometheus-stack' });
      expect(pr.spec.groups).toEqual(projectGroups());
      // Every rule file of deploy/prometheus is in the PrometheusRule.
      expect(pr.spec.groups).toEqual(expect.arrayContaining(ruleFilePaths().flatMap((p) => (parseYaml(readFileSync(p, 'utf8')) as { groups: unknown[] }).groups)));
    });
  });

  it('PrometheusRule: alerts and recording can each be left out', () => {
    const onlyAlerts = one(templateWith({ prometheusRule: { enabled: true, recording: false } }), 'PrometheusRule');
    expect(onlyAlerts.spec.groups).toEqual(projectGroups(['avalanchego-alerts.yml']));
    const onlyRecording = one(templateWith({ prometheusRule: { enabled: true, alerts: false } }), 'PrometheusRule');
    expect(onlyRecording.spec.groups).toEqual(projectGroups(['avalanchego-recording.yml']));
  });

  it('the comparison of rules can fail: a changed rule file differs from the project\'s groups', () => {
    // A copy of the chart whose alert file has one threshold changed must not compare equal.
    const copy = join(tmp, 'chart-copy');
    run('cp', ['-rL', CHART, copy]);
    const alerts = join(copy, 'files', 'avalanchego-alerts.yml');
    writeFileSync(alerts, readFileSync(alerts, 'utf8').replace('for: 5m', 'for: 6m'));
    const pr = one(template(['--set', 'prometheusRule.enabled=true'], copy), 'PrometheusRule');
    expect(pr.spec.groups).not.toEqual(projectGroups());
  });

  describe('NOTES.txt', () => {
    // `helm install --dry-run` wants a cluster: the notes are rendered through a template
    // added to a copy of the chart that includes templates/NOTES.txt.
    function notes(args: string[]): string {
      const copy = join(tmp, `chart-notes-${Math.random().toString(36).slice(2)}`);
      const cp = run('cp', ['-rL', CHART, copy]);
      expect(cp.code, cp.output).toBe(0);
      writeFileSync(join(copy, 'templates', 'zz-notes.yaml'), [
        'apiVersion: v1', 'kind: ConfigMap', 'metadata: {name: notes}', 'data:', '  NOTES.txt: |',
        '    {{- include (print $.Template.BasePath "/NOTES.txt") . | nindent 4 }}', '',
      ].join('\n'));
      return dataOf(one(template([...args, '--show-only', 'templates/zz-notes.yaml'], copy), 'ConfigMap'), 'NOTES.txt');
    }

    it('default: how to look at it, the scrape job to add, the config, and the 403 on host names', () => {
      const text = notes([]);
      expect(text).toContain('kubectl -n mon port-forward svc/rel-avalanchego-exporter 10650:10650');
      expect(text).toContain('add a scrape job named "avalanchego-exporter"');
      expect(text).toContain('a change rolls the pod');
      expect(text).toContain('403 invalid host specified');
      expect(text).toContain('--http-allowed-hosts');
      expect(text).not.toContain('WARNING');
    });

    it('full values: ServiceMonitor, PrometheusRule, how to reload an existing ConfigMap; a warning for 2 replicas', () => {
      const text = notes(['-f', FULL_VALUES, '--set', 'replicaCount=2']);
      expect(text).toContain('A ServiceMonitor selects it (job="avalanchego-exporter")');
      expect(text).toContain('A PrometheusRule carries the project\'s alert and recording rules');
      expect(text).toContain('ConfigMap fleet-config (key config.yaml)');
      expect(text).toContain("kubectl -n mon exec deploy/avx -- sh -c 'kill -HUP 1'");
      expect(text).toContain('WARNING: replicaCount=2');
    });
  });

  it('ServiceMonitor with jobName "" keeps the Operator\'s default job (no relabeling)', () => {
    const sm = one(templateWith({ serviceMonitor: { enabled: true, jobName: '' } }), 'ServiceMonitor');
    expect(defined(sm.spec.endpoints[0], 'the endpoint').relabelings).toBeUndefined();
  });

  it.each([
    ['an unknown top-level key', { replicas: 2 }, "additional properties 'replicas' not allowed"],
    ['an unknown nested key', { serviceMonitor: { enable: true } }, "additional properties 'enable' not allowed"],
    ['a wrong type', { replicaCount: 'two' }, '/replicaCount'],
    ['a bad pull policy', { image: { pullPolicy: 'Sometimes' } }, '/image/pullPolicy'],
    ['a target without url', { config: { targets: [{ name: 'v1' }] } }, '/config/targets/0'],
    ['an empty target list', { config: { targets: [] } }, '/config/targets'],
    ['a scrape interval that is not a duration', { serviceMonitor: { interval: '30 seconds' } }, '/serviceMonitor/interval'],
    ['a service port out of range', { service: { port: 70000 } }, '/service/port'],
  ])('the schema rejects %s', (_what, values, message) => {
    const file = join(tmp, 'bad.yaml');
    writeFileSync(file, stringifyYaml(values));
    const r = run(HELM, ['template', 'rel', CHART, '-f', file]);
    expect(r.code, r.output).not.toBe(0);
    expect(r.stderr).toContain("values don't meet the specifications of the schema");
    expect(r.stderr).toContain(message);
  });

  it('kubeVersion: the first `helm template` works with the helm the README installs (no --kube-version), 1.19 on; older is refused', () => {
    // A `go install`ed helm has no Kubernetes version compiled in and renders for v1.20.
    const first = run(HELM, ['template', 'rel', CHART]);
    expect(first.code, first.output).toBe(0);
    for (const v of ['1.19.0', '1.20.0', '1.34.0']) {
      const r = run(HELM, ['template', 'rel', CHART, '--kube-version', v]);
      expect(r.code, r.output).toBe(0);
    }
    const r = run(HELM, ['template', 'rel', CHART, '--kube-version', '1.18.0']);
    expect(r.code, r.output).not.toBe(0);
    expect(r.stderr).toContain('chart requires kubeVersion: >=1.19.0-0');
  });

  it('helm package: the archive carries the rule files\' content, and renders the same rules', () => {
    const out = join(tmp, 'pkg');
    const r = run(HELM, ['package', CHART, '--destination', out]);
    expect(r.code, r.output).toBe(0);
    const tgz = join(out, `avalanchego-exporter-0.1.0.tgz`);
    const list = run('tar', ['-tvzf', tgz]);
    expect(list.code, list.output).toBe(0);
    for (const f of ['avalanchego-alerts.yml', 'avalanchego-recording.yml']) {
      // A regular file ("-rw..."), not a link.
      expect(list.stdout).toMatch(new RegExp(`^-\\S+\\s.*avalanchego-exporter/files/${f.replace('.', '\\.')}$`, 'm'));
      const content = run('tar', ['-xzOf', tgz, `avalanchego-exporter/files/${f}`]);
      expect(content.stdout).toBe(readFileSync(join(RULES_DIR, f), 'utf8'));
    }
    const pr = one(template(['--set', 'prometheusRule.enabled=true'], tgz), 'PrometheusRule');
    expect(pr.spec.groups).toEqual(projectGroups());
  });

  describe.skipIf(missingDist() !== undefined)('the rendered config through the exporter\'s --config.check', () => {
    function configCheck(objs: K8sObject[]) {
      const file = join(tmp, `config-${Math.random().toString(36).slice(2)}.yaml`);
      writeFileSync(file, dataOf(one(objs, 'ConfigMap'), 'config.yaml'));
      return run(process.execPath, [MAIN, `--config.file=${file}`, '--config.check']);
    }

    it('the chart\'s default config is valid', () => {
      const r = configCheck(template());
      expect(r.code, r.output).toBe(0);
      expect(r.stdout + r.stderr).toContain('valid, 1 target (avalanchego)');
    });

    it('a config the schema lets through but the exporter refuses (timeout >= interval) fails the check', () => {
      const r = configCheck(templateWith({ config: { defaults: { interval: '5s', timeout: '5s' }, targets: [{ name: 'v1', url: 'http://10.0.0.1:9650' }] } }));
      expect(r.code, r.output).toBe(1);
      expect(r.stderr).toContain('timeout');
    });
  });
  describe.skipIf(missingDist() !== undefined)('the rendered Deployment run as a process', () => {
    let child: ChildProcess | undefined;
    afterAll(async () => {
      if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        const running = child;
        const exited = new Promise((r) => running.once('exit', r));
        process.kill(child.pid, 'SIGTERM');
        await exited;
      }
    });

    it('its args start the exporter; the probes\' paths answer 200, ready although the default node is unreachable here', async () => {
      const objs = template(['--set', 'extraArgs={--log.level=debug}']);
      const c = container(objs);
      // The ConfigMap's items, written where the volume is mounted (a directory of this test).
      const mountDir = join(tmp, 'etc-avalanchego-exporter');
      mkdirSync(mountDir, { recursive: true });
      const mount = defined(c.volumeMounts.find((m) => m.name === 'config'), 'the config mount');
      const vol = defined(podSpec(objs).volumes.find((v) => v.name === 'config'), 'the config volume');
      for (const item of defined(vol.configMap, 'the config volume\'s ConfigMap').items) writeFileSync(join(mountDir, item.path), dataOf(one(objs, 'ConfigMap'), item.key));
      const port = await freePort();
      const args = c.args.map((a) => {
        if (a.startsWith('--config.file=')) {
          const path = a.slice('--config.file='.length);
          expect(path.startsWith(`${mount.mountPath}/`), `${path} is under the config mount`).toBe(true);
          return `--config.file=${join(mountDir, path.slice(mount.mountPath.length + 1))}`;
        }
        // The pod listens on every interface; the test only on loopback.
        if (a.startsWith('--web.listen-address=')) {
          expect(a.endsWith(`:${defined(c.ports[0], 'the container port').containerPort}`)).toBe(true);
          return `--web.listen-address=127.0.0.1:${port}`;
        }
        return a;
      });
      expect(args).toContain('--log.level=debug');
      let stderr = '';
      const exporter = spawn(process.execPath, [MAIN, ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
      child = exporter;
      exporter.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const base = `http://127.0.0.1:${port}`;
      const live = c.livenessProbe.httpGet.path;
      const ready = c.readinessProbe.httpGet.path;
      await waitFor(async () => (await fetch(`${base}${live}`)).status === 200, `liveness ${live}\n${stderr}`, 15_000);
      // The default target (http://avalanchego:9650) does not resolve here: the first poll
      // fails, and the exporter is ready all the same (readiness = every target polled once).
      await waitFor(async () => (await fetch(`${base}${ready}`)).status === 200, `readiness ${ready}\n${stderr}`, 20_000);
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toMatch(/^avalanchego_up\{node="avalanchego"\} 0$/m);
    });
  });
});

describe.skipIf(!helm.path)('sharding.replicas: a StatefulSet of shards', () => {
  const SHARDS = 3;
  const objs = () => template(['--set', `sharding.replicas=${SHARDS}`, '--set', 'serviceMonitor.enabled=true']);

  it('helm lint --strict passes with sharding on', () => {
    const r = run(HELM, ['lint', '--strict', CHART, '--set', `sharding.replicas=${SHARDS}`]);
    expect(r.code, r.output).toBe(0);
  });

  it('renders a StatefulSet (no Deployment) behind a headless Service, started in parallel', () => {
    const o = objs();
    expect(o.filter((x) => x.kind === 'Deployment')).toEqual([]);
    const sts = one(o, 'StatefulSet');
    const svc = one(o, 'Service');
    expect(sts.spec.replicas).toBe(SHARDS);
    expect(sts.spec.serviceName).toBe(svc.metadata.name);
    expect(sts.spec.podManagementPolicy).toBe('Parallel');
    expect(svc.spec.clusterIP).toBe('None');
    expect(sts.spec.selector.matchLabels).toEqual(svc.spec.selector);
  });

  it('each pod takes its shard from its own name: --shard.from-pod-name, --shard.count, POD_NAME from the downward API', () => {
    const c = defined(one(objs(), 'StatefulSet').spec.template.spec.containers[0], 'the container');
    expect(c.args).toEqual(expect.arrayContaining(['--shard.from-pod-name', `--shard.count=${SHARDS}`]));
    expect(c.env).toContainEqual({ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } });
  });

  it('the ServiceMonitor selects the headless Service, so every pod is scraped', () => {
    const o = objs();
    const selector = one(o, 'ServiceMonitor').spec.selector.matchLabels;
    expect(one(o, 'Service').metadata.labels).toMatchObject(selector);
    expect(one(o, 'StatefulSet').spec.template.metadata.labels).toMatchObject(one(o, 'Service').spec.selector);
  });

  it('the default values still render a Deployment and a ClusterIP Service with the same pod template', () => {
    const plain = template();
    const sharded = objs();
    one(plain, 'Deployment');
    expect(one(plain, 'Service').spec.clusterIP).toBeUndefined();
    const strip = (c: Container) => ({ ...c, args: c.args.filter((a) => !a.startsWith('--shard.')), env: (c.env ?? []).filter((e) => e.name !== 'POD_NAME') });
    const c1 = strip(defined(one(plain, 'Deployment').spec.template.spec.containers[0], 'the Deployment\'s container'));
    const c2 = strip(defined(one(sharded, 'StatefulSet').spec.template.spec.containers[0], 'the StatefulSet\'s container'));
    expect({ ...c2, env: c2.env.length ? c2.env : undefined }).toEqual({ ...c1, env: c1.env.length ? c1.env : undefined });
  });

  it('a negative or non-integer replica count is refused by the schema', () => {
    for (const bad of ['-1', 'three']) {
      const r = run(HELM, ['template', 'rel', CHART, '--set', `sharding.replicas=${bad}`]);
      expect(r.code, r.output).not.toBe(0);
    }
  });

  describe.skipIf(missingDist() !== undefined)('the rendered pods run as processes', () => {
    const children: ChildProcess[] = [];
    afterAll(async () => {
      for (const child of children) {
        if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((r) => child.once('exit', r));
          process.kill(child.pid, 'SIGTERM');
          await exited;
        }
      }
    });

    it(`${SHARDS} pods of a ${SHARDS}-shard release poll every target exactly once`, async () => {
      const simPort = await freePort();
      const sim = spawn(process.execPath, [MAIN, 'simulate', `--web.listen-address=127.0.0.1:${simPort}`, '--nodes=60', '--seed=helm-shards'], { cwd: ROOT, stdio: 'ignore' });
      children.push(sim);
      const simUrl = `http://127.0.0.1:${simPort}`;
      await waitFor(async () => (await fetch(`${simUrl}/sim/nodes`).catch(() => undefined))?.ok === true, 'the simulator', 20_000);
      const names = Array.from({ length: 60 }, (_, i) => `node-${i}`);
      const o = templateWith({
        sharding: { replicas: SHARDS },
        config: { defaults: { interval: '2s', timeout: '1500ms', index: { endpoints: [] }, info: { enabled: false }, platform: { enabled: false }, chain_info: { enabled: false } }, targets: names.map((name) => ({ name, url: `${simUrl}/${name}` })) },
      });
      const sts = one(o, 'StatefulSet');
      const pod = sts.spec.template.spec;
      const c = defined(pod.containers[0], 'the container');
      const mountDir = join(tmp, 'etc-sharded');
      mkdirSync(mountDir, { recursive: true });
      const mount = defined(c.volumeMounts.find((m) => m.name === 'config'), 'the config mount');
      const vol = defined(pod.volumes.find((v) => v.name === 'config'), 'the config volume');
      for (const item of defined(vol.configMap, 'the config volume\'s ConfigMap').items) writeFileSync(join(mountDir, item.path), dataOf(one(o, 'ConfigMap'), item.key));
      const bases: string[] = [];
      for (let i = 0; i < SHARDS; i++) {
        const port = await freePort();
        const args = c.args.map((a) =>
          a.startsWith('--config.file=') ? `--config.file=${join(mountDir, a.slice('--config.file='.length + mount.mountPath.length + 1))}`
            : a.startsWith('--web.listen-address=') ? `--web.listen-address=127.0.0.1:${port}` : a);
        // What the downward API gives the pod: the StatefulSet's name and the ordinal.
        const env = { ...process.env, POD_NAME: `${sts.metadata.name}-${i}` };
        const child = spawn(process.execPath, [MAIN, ...args], { cwd: ROOT, env, stdio: 'ignore' });
        children.push(child);
        bases.push(`http://127.0.0.1:${port}`);
      }
      for (const base of bases) await waitFor(async () => (await fetch(`${base}/-/ready`).catch(() => undefined))?.ok === true, `${base} ready`, 30_000);
      // Every target up on exactly one pod; a loaded machine may need a few polls to get there.
      const polledBy = new Map<string, number[]>();
      await waitFor(async () => {
        polledBy.clear();
        for (const [i, base] of bases.entries()) {
          const text = await (await fetch(`${base}/metrics`)).text();
          expect(text).toMatch(new RegExp(`^avalanchego_exporter_shard_index ${i}$`, 'm'));
          expect(text).toMatch(new RegExp(`^avalanchego_exporter_shards ${SHARDS}$`, 'm'));
          for (const [, node = ''] of text.matchAll(/^avalanchego_up\{node="([^"]+)"\} 1$/gm)) polledBy.set(node, [...(polledBy.get(node) ?? []), i]);
        }
        return polledBy.size === names.length;
      }, 'every target up on some pod', 30_000).catch(() => undefined);
      expect([...polledBy.keys()].sort()).toEqual([...names].sort());
      expect([...polledBy].filter(([, shards]) => shards.length !== 1)).toEqual([]);
    }, 90_000);
  });
});

describe.skipIf(!helm.path)('webConfig: TLS and basic auth on the exporter\'s port', () => {
  const hash = bcryptHash('s3cret');
  const exporter = container;
  const volume = (objs: K8sObject[], name: string) => podSpec(objs).volumes.find((v) => v.name === name)?.secret?.secretName;
  const webYml = (objs: K8sObject[]) => one(objs, 'Secret').stringData['web.yml'] ?? '';
  const webValues = (pkiDir = '/etc/avalanchego-exporter-tls') => ({
    webConfig: {
      config: {
        basic_auth_users: { prometheus: hash },
        tls_server_config: { cert_file: `${pkiDir}/tls.crt`, key_file: `${pkiDir}/tls.key` },
        http_server_config: { headers: { 'X-Content-Type-Options': 'nosniff' } },
      },
      tlsSecret: 'exporter-tls',
    },
    serviceMonitor: { enabled: true, basicAuth: { username: { name: 'scrape', key: 'user' }, password: { name: 'scrape', key: 'password' } } },
  });

  it('off by default: no Secret, no --web.config.file, probes over HTTP', () => {
    const objs = template();
    expect(objs.filter((o) => o.kind === 'Secret')).toEqual([]);
    expect(exporter(objs).args.join(' ')).not.toContain('--web.config.file');
    expect(exporter(objs).livenessProbe.httpGet.scheme).toBeUndefined();
  });

  it('on: a Secret with web.yml, the flag, both mounts, probes over HTTPS, the ServiceMonitor with https and basicAuth; helm lint --strict passes', () => {
    const objs = templateWith(webValues());
    expect(parseYaml(webYml(objs))).toEqual(webValues().webConfig.config);
    const c = exporter(objs);
    expect(c.args).toContain('--web.config.file=/etc/avalanchego-exporter-web/web.yml');
    expect(c.volumeMounts.map((m) => m.mountPath)).toEqual(expect.arrayContaining(['/etc/avalanchego-exporter-web', '/etc/avalanchego-exporter-tls']));
    expect(volume(objs, 'web-config')).toBe(one(objs, 'Secret').metadata.name);
    expect(volume(objs, 'web-tls')).toBe('exporter-tls');
    expect([c.livenessProbe.httpGet.scheme, c.readinessProbe.httpGet.scheme]).toEqual(['HTTPS', 'HTTPS']);
    const deployment = one(objs, 'Deployment');
    expect(deployment.spec.template.metadata.annotations?.['checksum/web-config']).toMatch(/^[0-9a-f]{64}$/);
    const monitor = one(objs, 'ServiceMonitor');
    const ep = monitor.spec.endpoints[0];
    expect([ep?.scheme, ep?.basicAuth?.username.name]).toEqual(['https', 'scrape']);
    const file = join(tmp, 'web-values.yaml');
    writeFileSync(file, stringifyYaml(webValues()));
    const lint = run(HELM, ['lint', '--strict', CHART, '-f', file]);
    expect(lint.code, lint.output).toBe(0);
  });

  it('an existing Secret: mounted as is, no Secret rendered; https follows webConfig.https', () => {
    const objs = templateWith({ webConfig: { existingSecret: 'my-web', https: true } });
    expect(objs.filter((o) => o.kind === 'Secret')).toEqual([]);
    expect(volume(objs, 'web-config')).toBe('my-web');
    expect(exporter(objs).livenessProbe.httpGet.scheme).toBe('HTTPS');
  });

  it('the schema refuses a key the web config does not have', () => {
    expect(() => templateWith({ webConfig: { config: { basic_auth_user: {} } } })).toThrow(/basic_auth_user/);
  });

  it.skipIf(missingDist() !== undefined)('the rendered web.yml passes the exporter\'s own check', () => {
    const pki = makePki();
    try {
      writeFileSync(join(pki.dir, 'tls.crt'), pki.read(pki.serverCert));
      writeFileSync(join(pki.dir, 'tls.key'), pki.read(pki.serverKey));
      const web = join(tmp, 'web.yml');
      writeFileSync(web, webYml(templateWith(webValues(pki.dir))));
      const r = run(process.execPath, [MAIN, `--web.config.file=${web}`, '--config.check']);
      expect(r.code, r.output).toBe(0);
      expect(r.stdout).toContain('valid web config, TLS, basic auth for 1 user');
    } finally {
      rmSync(pki.dir, { recursive: true, force: true });
    }
  });
});
