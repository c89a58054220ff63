// The built CLI with the web flags: a refused web config, a port that cannot be
// bound (exit 1, one line, no poll), HTTPS with basic auth from the flag, and a
// SIGTERM that does not wait for half-open client connections.
import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defined } from '../helpers/assert.js';
import { startFakeNode, waitFor, type FakeNode } from '../helpers/fake-node.js';
import { sample } from '../helpers/exporter.js';
import { get } from '../helpers/https.js';
import { freePort } from '../helpers/net.js';
import { ProcessGroup, type Proc } from '../helpers/processes.js';
import { bcryptHash, makePki, type TestPki } from '../helpers/tls.js';

const MAIN = 'dist/main.js';
let dir: string;
let node: FakeNode | undefined;
let pki: TestPki;
const procs = new ProcessGroup(process.cwd());
const sockets: Socket[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'avaxexp-webcli-'));
  pki = makePki();
  node = await startFakeNode({ '/ext/health': { fixture: 'health/healthy-v1.14.2.json' } });
  writeFileSync(
    join(dir, 'c.yaml'),
    `defaults:\n  interval: 500ms\n  timeout: 250ms\n  index: { endpoints: [] }\ntargets:\n  - name: a\n    url: ${node.url}\n`,
  );
});
afterAll(async () => {
  await node?.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(pki.dir, { recursive: true, force: true });
});
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await procs.stopAll();
});

function run(args: string[]) {
  return spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8', timeout: 20_000 });
}

function exited(child: ChildProcess, timeoutMs = 10_000): Promise<number | null> {
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null) {
      resolve(child.exitCode);
      return;
    }
    const t = setTimeout(() => reject(new Error(`process did not exit within ${timeoutMs} ms`)), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(t);
      resolve(code);
    });
  });
}

describe('web flags', () => {
  it('a web config with an unknown key or an unreadable file is refused at start, naming it (exit 1)', () => {
    const bad = join(dir, 'bad-web.yml');
    writeFileSync(bad, 'basic_auth_users: {}\ntls_server_confg: {}\n');
    let r = run([`--web.config.file=${bad}`, `--config.file=${join(dir, 'c.yaml')}`]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${bad}:2:19: (top level): unknown key "tls_server_confg" (did you mean "tls_server_config"?)`);
    r = run([`--web.config.file=${join(dir, 'absent.yml')}`, '--config.check', `--config.file=${join(dir, 'c.yaml')}`]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`cannot read ${join(dir, 'absent.yml')}: no such file`);
    r = run(['--web.max-connections=0']);
    expect(r.status).toBe(2);
  });

  it.each([
    [
      'in use',
      (held: Server) => `127.0.0.1:${(held.address() as { port: number }).port}`,
      /^avalanchego-exporter: cannot listen on 127\.0\.0\.1:\d+: the address is already in use/,
    ],
    [
      'not on this machine',
      () => '192.0.2.1:10650',
      /^avalanchego-exporter: cannot listen on 192\.0\.2\.1:10650: the address is not one of this machine's/,
    ],
    [
      'a host name that does not resolve',
      () => 'nonexistent.invalid:10650',
      /^avalanchego-exporter: cannot listen on nonexistent\.invalid:10650: the host name does not resolve/,
    ],
  ])('a port that cannot be bound (%s) ends the process with exit 1 and one line, before any poll', async (_name, address, expected) => {
    const held = createServer();
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    try {
      const fake = defined(node, 'the fake node');
      const before = fake.requests.length;
      const p = procs.start('exporter', process.execPath, [MAIN, `--web.listen-address=${address(held)}`, `--config.file=${join(dir, 'c.yaml')}`]);
      expect(await exited(p.child, 15_000)).toBe(1);
      const out = p.output.join('');
      expect(out.trim().split('\n')).toHaveLength(1);
      expect(out).toMatch(expected);
      expect(fake.requests.length).toBe(before);
    } finally {
      held.close();
    }
  });

  it('HTTPS and basic auth from --web.config.file; SIGTERM exits 0 at once with half-open clients connected', async () => {
    const web = join(dir, 'web.yml');
    writeFileSync(
      web,
      `tls_server_config:\n  cert_file: ${pki.serverCert}\n  key_file: ${pki.serverKey}\nbasic_auth_users:\n  prometheus: ${bcryptHash('pw')}\n`,
    );
    const port = await freePort();
    const p: Proc = procs.start('exporter', process.execPath, [
      MAIN,
      `--web.listen-address=127.0.0.1:${port}`,
      `--config.file=${join(dir, 'c.yaml')}`,
      `--web.config.file=${web}`,
    ]);
    const url = `https://127.0.0.1:${port}`;
    await waitFor(
      async () => (await get(`${url}/-/ready`, { ca: pki.ca }).catch(() => ({ status: 0 }))).status === 200,
      'exporter ready over HTTPS',
      15_000,
    );
    expect((await get(`${url}/metrics`, { ca: pki.ca })).status).toBe(401);
    const ok = await get(`${url}/metrics`, { ca: pki.ca, auth: 'prometheus:pw' });
    expect(sample(ok.body, 'avalanchego_up{node="a"}')).toBe(1);
    // The container HEALTHCHECK: https from the same web config, no credentials needed.
    const health = run(['healthcheck', `--web.listen-address=127.0.0.1:${port}`, `--web.config.file=${web}`]);
    expect(health.status, `${health.stdout}${health.stderr}`).toBe(0);
    expect(health.stdout).toContain(`https://127.0.0.1:${port}/-/healthy healthy`);
    const plain = run(['healthcheck', `--web.listen-address=127.0.0.1:${port}`]);
    expect(plain.status, `${plain.stdout}${plain.stderr}`).toBe(1);

    // Half-open clients: TCP connected, a TLS handshake or a request never finished.
    for (let i = 0; i < 20; i++) {
      const s = connect(port, '127.0.0.1');
      s.on('error', () => {});
      if (i % 2) s.write('\x16\x03\x01'); // the first bytes of a ClientHello, then nothing
      sockets.push(s);
    }
    await waitFor(() => sockets.every((s) => !s.connecting), 'half-open clients connected', 5_000);
    process.kill(defined(p.child.pid, 'the PID of the exporter'), 'SIGTERM');
    // Well under Kubernetes' 30 s grace: the exporter does not wait for these clients.
    expect(await exited(p.child, 8_000)).toBe(0);
    expect(p.output.join('')).toContain('"msg":"stopped"');
  });
});
