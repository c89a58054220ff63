// The Compose demo with TLS on the exporter's port (deploy/compose/docker-compose.tls.yml):
// the override's wiring (the certs service, the volume where web-tls.yml's relative paths
// point, Prometheus's https job), then the certs service's own openssl command run here, the
// exporter started with web-tls.yml beside those files, and a real Prometheus (Debian
// package) scraping it over https with the demo's tls_config and basic auth.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { z } from 'zod';
import { afterAll, describe, expect, it } from 'vitest';
import { defined } from '../helpers/assert.js';
import { startFakeNode, waitFor, type FakeNode } from '../helpers/fake-node.js';
import { get } from '../helpers/https.js';
import { freePort } from '../helpers/net.js';
import { ProcessGroup } from '../helpers/processes.js';
import { COMPOSE_DIR, MAIN, ROOT, findTool, missingDist, run } from './lib.js';

const serviceSchema = z.object({
  image: z.string().optional(),
  command: z.array(z.string()).optional(),
  volumes: z.array(z.string()).optional(),
  depends_on: z.union([z.array(z.string()), z.record(z.string(), z.object({ condition: z.string() }))]).optional(),
  environment: z.record(z.string(), z.string()).optional(),
  healthcheck: z.object({ test: z.array(z.string()) }).optional(),
});
const composeSchema = z.object({ services: z.record(z.string(), serviceSchema), volumes: z.record(z.string(), z.unknown()).optional() });
const jobSchema = z
  .object({
    job_name: z.string(),
    scheme: z.string().optional(),
    tls_config: z.object({ ca_file: z.string(), server_name: z.string() }).optional(),
    basic_auth: z.object({ username: z.string(), password_file: z.string() }).optional(),
    static_configs: z.array(z.object({ targets: z.array(z.string()) })),
  })
  .loose();
const promSchema = z.object({ scrape_configs: z.array(jobSchema) }).loose();
const webSchema = z.object({ tls_server_config: z.object({ cert_file: z.string(), key_file: z.string() }) }).loose();

const yamlFile = <T>(name: string, schema: z.ZodType<T>): T => schema.parse(parseYaml(readFileSync(join(COMPOSE_DIR, name), 'utf8')));
const base = yamlFile('docker-compose.yml', composeSchema);
const tls = yamlFile('docker-compose.tls.yml', composeSchema);
const prom = yamlFile('prometheus.tls.yml', promSchema);
const web = yamlFile('web-tls.yml', webSchema);
const service = (file: z.infer<typeof composeSchema>, name: string) => defined(file.services[name], `service ${name}`);
const exporterJob = defined(
  prom.scrape_configs.find((j) => j.job_name === 'avalanchego-exporter'),
  'the avalanchego-exporter job of prometheus.tls.yml',
);
const WEB_FLAG = '--web.config.file=';
const webConfigPath = defined(
  service(tls, 'exporter')
    .command?.find((a) => a.startsWith(WEB_FLAG))
    ?.slice(WEB_FLAG.length),
  'the exporter command --web.config.file',
);
const password = readFileSync(join(COMPOSE_DIR, 'exporter.password'), 'utf8').replace(/\n$/, '');

describe('compose: the TLS override', () => {
  it('keeps the base exporter command and adds --web.config.file, with web-tls.yml mounted where the flag points', () => {
    const cmd = service(tls, 'exporter').command ?? [];
    expect(cmd.slice(0, -1)).toEqual(service(base, 'exporter').command);
    expect(service(tls, 'exporter').volumes).toContain(`./web-tls.yml:${webConfigPath}:ro`);
  });

  it("mounts the certs service's volume where web-tls.yml's relative cert and key paths point, after the service has run", () => {
    const certsDir = posix.join(posix.dirname(webConfigPath), posix.dirname(web.tls_server_config.cert_file));
    expect(posix.dirname(web.tls_server_config.key_file)).toBe(posix.dirname(web.tls_server_config.cert_file));
    expect(service(tls, 'exporter').volumes).toContain(`exporter-certs:${certsDir}:ro`);
    expect(service(tls, 'certs').volumes).toContain('exporter-certs:/certs');
    expect(Object.keys(tls.volumes ?? {})).toContain('exporter-certs');
    expect(service(tls, 'exporter').depends_on).toEqual({ certs: { condition: 'service_completed_successfully' } });
    // The container's health check asks https:// and trusts the demo certificate.
    expect(service(tls, 'exporter').healthcheck?.test.join(' ')).toContain('https://localhost:10650/-/healthy');
    expect(service(tls, 'exporter').environment?.NODE_EXTRA_CA_CERTS).toBe(posix.join(certsDir, 'exporter.crt'));
  });

  it('replaces the Prometheus config with the https job, which trusts the certificate from the same volume and sends the password', () => {
    const promConfig = defined(
      service(base, 'prometheus')
        .command?.find((a) => a.startsWith('--config.file='))
        ?.slice('--config.file='.length),
      'the prometheus --config.file flag',
    );
    expect(service(tls, 'prometheus').volumes).toContain(`./prometheus.tls.yml:${promConfig}:ro`);
    expect(exporterJob.scheme).toBe('https');
    const caFile = defined(exporterJob.tls_config, 'tls_config').ca_file;
    expect(service(tls, 'prometheus').volumes).toContain(`exporter-certs:${posix.dirname(caFile)}:ro`);
    expect(exporterJob.tls_config?.server_name).toBe('exporter');
    expect(exporterJob.static_configs[0]?.targets).toEqual(['exporter:10650']);
    expect(service(base, 'prometheus').volumes).toContain(`./exporter.password:${exporterJob.basic_auth?.password_file ?? ''}:ro`);
  });

  const compose = findTool('docker-compose', ['version']);
  it.skipIf(!compose.path)('docker-compose config accepts the base file and the override together', () => {
    const r = run('docker-compose', ['-f', join(COMPOSE_DIR, 'docker-compose.yml'), '-f', join(COMPOSE_DIR, 'docker-compose.tls.yml'), 'config', '-q']);
    expect(r.code, r.output).toBe(0);
  });
});

const openssl = findTool('openssl', ['version']);
const prometheus = findTool('prometheus', ['--version']);
const missing = missingDist() ?? (!openssl.path || !prometheus.path ? 'openssl or prometheus not on PATH (Debian packages)' : undefined);

describe.skipIf(missing !== undefined)('compose: TLS end to end with the certs service\'s certificate and a real Prometheus', () => {
  const procs = new ProcessGroup(ROOT);
  const tmp = mkdtempSync(join(tmpdir(), 'compose-tls-'));
  let node: FakeNode | undefined;
  afterAll(async () => {
    await procs.stopAll();
    await node?.close();
    rmSync(tmp, { recursive: true, force: true });
  }, 30_000);

  it('the certs command makes the files, the exporter serves https with basic auth, Prometheus scrapes it as up', async () => {
    // The certs service's script, with its volume at tmp/certs; the package install and the
    // chown to the image's user are the container's business.
    const script = defined(service(tls, 'certs').command?.[2], "the certs service's sh -c script")
      .replace(/apk add [^&]*&&/, '')
      .replace(/chown [^&]*&&/, '')
      .replaceAll('/certs/', `${tmp}/certs/`);
    mkdirSync(join(tmp, 'certs'));
    const made = run('sh', ['-c', script]);
    expect(made.code, made.output).toBe(0);
    // The script skips a volume that already has a certificate.
    const again = run('sh', ['-c', `${script} && echo kept`]);
    expect(again.code, again.output).toBe(0);
    const crt = readFileSync(join(tmp, 'certs', 'exporter.crt'), 'utf8');
    expect(run('openssl', ['x509', '-noout', '-ext', 'subjectAltName', '-in', join(tmp, 'certs', 'exporter.crt')]).stdout).toMatch(
      /DNS:exporter, DNS:localhost, IP Address:127\.0\.0\.1/,
    );

    copyFileSync(join(COMPOSE_DIR, 'web-tls.yml'), join(tmp, 'web-tls.yml'));
    node = await startFakeNode({ '/ext/health': { fixture: 'health/healthy-v1.14.2.json' } });
    writeFileSync(join(tmp, 'config.yaml'), `targets:\n  - name: n\n    url: ${node.url}\n`);
    const port = await freePort();
    procs.start('exporter', process.execPath, [
      MAIN,
      `--config.file=${join(tmp, 'config.yaml')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      `--web.config.file=${join(tmp, 'web-tls.yml')}`,
    ]);
    const url = `https://127.0.0.1:${port}`;
    await waitFor(async () => (await get(`${url}/-/healthy`, { ca: crt }).catch(() => ({ status: 0 }))).status === 200, `exporter up\n${procs.logs()}`, 15_000);
    const anonymous = await get(`${url}/metrics`, { ca: crt });
    expect([anonymous.status, anonymous.headers['www-authenticate']]).toEqual([401, 'Basic']);
    const ok = await get(`${url}/metrics`, { ca: crt, auth: `prometheus:${password}` });
    expect(ok.status).toBe(200);
    expect(ok.headers['strict-transport-security']).toBe('max-age=31536000');

    // Prometheus with the demo's exporter job: its scheme, tls_config (server_name exporter)
    // and basic auth, the volume's files on the host side, the service name to loopback.
    const job = {
      ...exporterJob,
      tls_config: { ...defined(exporterJob.tls_config, 'tls_config'), ca_file: join(tmp, 'certs', posix.basename(exporterJob.tls_config?.ca_file ?? '')) },
      basic_auth: { ...defined(exporterJob.basic_auth, 'basic_auth'), password_file: join(COMPOSE_DIR, 'exporter.password') },
      static_configs: [{ targets: [`127.0.0.1:${port}`] }],
      scrape_interval: '1s',
    };
    writeFileSync(join(tmp, 'prometheus.yml'), stringifyYaml({ global: { scrape_interval: '1s' }, scrape_configs: [job] }));
    const promPort = await freePort();
    procs.start('prometheus', 'prometheus', [
      `--config.file=${join(tmp, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(tmp, 'tsdb')}`,
      `--web.listen-address=127.0.0.1:${promPort}`,
    ]);
    const targetsSchema = z.object({ data: z.object({ activeTargets: z.array(z.object({ health: z.string(), lastError: z.string() })) }) });
    const target = await waitFor(
      async () => {
        const res = await fetch(`http://127.0.0.1:${promPort}/api/v1/targets`).catch(() => undefined);
        if (!res?.ok) return false;
        const t = targetsSchema.parse(await res.json()).data.activeTargets[0];
        return t && t.health !== 'unknown' ? t : false;
      },
      `Prometheus's first scrape of the exporter\n${procs.logs()}`,
      30_000,
    );
    expect([target.health, target.lastError]).toEqual(['up', '']);
  }, 90_000);
});
