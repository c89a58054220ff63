// The Compose demo with the exporter's web config on (deploy/compose/docker-compose.web.yml):
// the override adds --web.config.file and its mount, web.yml passes the exporter's check,
// the password Prometheus sends matches the hash, and an exporter run with that web config
// answers 401 without it and 200 with it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { parse as parseYaml } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeNode, waitFor, type FakeNode } from '../helpers/fake-node.js';
import { get } from '../helpers/https.js';
import { freePort } from '../helpers/net.js';
import { ProcessGroup } from '../helpers/processes.js';
import { MAIN, ROOT, findTool, missingDist, run } from './lib.js';

const DIR = join(ROOT, 'deploy', 'compose');
type Service = { command?: string[]; volumes?: string[] };
const base = parseYaml(readFileSync(join(DIR, 'docker-compose.yml'), 'utf8')) as { services: Record<string, Service> };
const override = parseYaml(readFileSync(join(DIR, 'docker-compose.web.yml'), 'utf8')) as { services: Record<string, Service> };
const web = parseYaml(readFileSync(join(DIR, 'web.yml'), 'utf8')) as { basic_auth_users: Record<string, string> };
const password = readFileSync(join(DIR, 'exporter.password'), 'utf8').replace(/\n$/, '');
const prom = parseYaml(readFileSync(join(DIR, 'prometheus.yml'), 'utf8')) as { scrape_configs: Array<{ job_name: string; basic_auth?: { username: string; password_file: string } }> };
const procs = new ProcessGroup(ROOT);
function service(file: { services: Record<string, Service> }, name: string): Service {
  const s = file.services[name];
  if (!s) throw new Error(`no service ${name}`);
  return s;
}
let node: FakeNode | undefined;
afterAll(async () => {
  await procs.stopAll();
  await node?.close();
});

describe('compose: the web config override', () => {
  it('keeps the base command and adds --web.config.file, with web.yml mounted where the flag points', () => {
    const cmd = service(override, 'exporter').command ?? [];
    expect(cmd.slice(0, -1)).toEqual(service(base, 'exporter').command);
    expect(cmd.at(-1)).toBe('--web.config.file=/etc/avalanchego-exporter/web.yml');
    expect(service(override, 'exporter').volumes).toContain('./web.yml:/etc/avalanchego-exporter/web.yml:ro');
  });

  it('Prometheus sends the user and the password that web.yml\'s hash accepts, from a file it mounts', () => {
    const auth = prom.scrape_configs.find((j) => j.job_name === 'avalanchego-exporter')?.basic_auth;
    expect(auth?.username).toBe('prometheus');
    const hash = web.basic_auth_users[auth?.username ?? ''] ?? '';
    expect(hash).toMatch(/^\$2y\$10\$/);
    expect(bcrypt.compareSync(password, hash)).toBe(true);
    expect(service(base, 'prometheus').volumes).toContain(`./exporter.password:${auth?.password_file ?? ''}:ro`);
  });

  const compose = findTool('docker-compose', ['version']);
  it.skipIf(!compose.path)('docker-compose config accepts the two files together', () => {
    const r = run('docker-compose', ['-f', join(DIR, 'docker-compose.yml'), '-f', join(DIR, 'docker-compose.web.yml'), 'config', '-q']);
    expect(r.code, r.output).toBe(0);
  });

  it.skipIf(missingDist() !== undefined)('the exporter with web.yml: --config.check passes; 401 without the password, 200 with it', async () => {
    const check = run(process.execPath, [MAIN, `--web.config.file=${join(DIR, 'web.yml')}`, '--config.check']);
    expect(check.code, check.output).toBe(0);
    node = await startFakeNode({ '/ext/health': { fixture: 'health/healthy-v1.14.2.json' } });
    const port = await freePort();
    const p = procs.start('exporter', process.execPath, [MAIN, `--web.listen-address=127.0.0.1:${port}`, `--web.config.file=${join(DIR, 'web.yml')}`]);
    const url = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await get(`${url}/-/healthy`).catch(() => ({ status: 0 }))).status === 200, 'exporter up', 15_000).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}\n${procs.logs()}`);
    });
    const anonymous = await get(`${url}/metrics`);
    expect([anonymous.status, anonymous.headers['www-authenticate']]).toEqual([401, 'Basic']);
    const ok = await get(`${url}/metrics`, { auth: `prometheus:${password}` });
    expect(ok.status).toBe(200);
    expect(ok.headers['x-frame-options']).toBe('deny');
    await procs.stop(p);
  });
});
