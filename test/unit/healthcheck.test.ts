// The container HEALTHCHECK's two decisions: which process is the exporter (from a /proc
// laid out in a temporary folder), and where it serves /-/healthy (address and scheme).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findExporter, healthTarget } from '../../src/healthcheck.js';
import { makePki, type TestPki } from '../helpers/tls.js';

let dir: string;
let pki: TestPki;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'avaxexp-healthcheck-'));
  pki = makePki();
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(pki.dir, { recursive: true, force: true });
});

function proc(root: string, pid: number, argv: string[], cwd = '/app'): void {
  mkdirSync(join(root, String(pid)), { recursive: true });
  writeFileSync(join(root, String(pid), 'cmdline'), `${argv.join('\0')}\0`);
  symlinkSync(cwd, join(root, String(pid), 'cwd'));
}

describe('findExporter: the exporter process beside the healthcheck', () => {
  it('PID 1 when it is the exporter (exec-form ENTRYPOINT)', () => {
    const root = join(dir, 'a');
    proc(root, 1, ['node', 'dist/main.js', '--web.listen-address=:9999', '--web.config.file=web.yml']);
    proc(root, 40, ['node', 'dist/main.js', 'healthcheck']);
    expect(findExporter(root)).toEqual({ argv: ['--web.listen-address=:9999', '--web.config.file=web.yml'], cwd: '/app' });
  });
  it('behind an init (docker run --init: the init holds the same argv), and through the installed binary', () => {
    const root = join(dir, 'b');
    proc(root, 1, ['/sbin/docker-init', '--', 'node', 'dist/main.js', '--web.listen-address=:8443']);
    proc(root, 7, ['node', 'dist/main.js', '--web.listen-address=:8443']);
    expect(findExporter(root)).toEqual({ argv: ['--web.listen-address=:8443'], cwd: '/app' });
    const host = join(dir, 'b2');
    proc(host, 1, ['/sbin/init']);
    proc(host, 6, ['node', '/usr/lib/node_modules/avalanchego-exporter/dist/main.js', 'simulate', '--nodes=3']);
    proc(host, 7, ['node', '/opt/x/bin/avalanchego-exporter', '--web.listen-address', '127.0.0.1:1234'], '/srv');
    expect(findExporter(host)).toEqual({ argv: ['--web.listen-address', '127.0.0.1:1234'], cwd: '/srv' });
  });
  it('none: undefined (the default address is used)', () => {
    const root = join(dir, 'c');
    proc(root, 1, ['sh', '-c', 'sleep 1']);
    expect(findExporter(root)).toBeUndefined();
    expect(findExporter(join(dir, 'absent'))).toBeUndefined();
  });
});

describe('healthTarget: where /-/healthy is', () => {
  it.each([
    [':10650', 'http://127.0.0.1:10650/-/healthy'],
    ['0.0.0.0:8080', 'http://127.0.0.1:8080/-/healthy'],
    ['[::]:8080', 'http://[::1]:8080/-/healthy'],
    ['10.1.2.3:9', 'http://10.1.2.3:9/-/healthy'],
    ['[::1]:10650', 'http://[::1]:10650/-/healthy'],
  ])('%s → %s', (listen, url) => {
    expect(healthTarget(listen, undefined)).toEqual({ url, handshakeOnly: false });
  });
  it('https when the web config has tls_server_config; a handshake only when client certificates are required', () => {
    const tls = (extra: string) => {
      const f = join(dir, `web-${extra.length}.yml`);
      writeFileSync(f, `tls_server_config:\n  cert_file: ${pki.serverCert}\n  key_file: ${pki.serverKey}\n${extra}`);
      return f;
    };
    expect(healthTarget(':10650', tls(''))).toEqual({ url: 'https://127.0.0.1:10650/-/healthy', handshakeOnly: false });
    expect(healthTarget(':10650', tls(`  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ${pki.caFile}\n`))).toEqual({
      url: 'https://127.0.0.1:10650/-/healthy',
      handshakeOnly: true,
    });
  });
  it('a bad address is refused with the flag named', () => {
    expect(() => healthTarget('10650', undefined)).toThrow(/--web.listen-address="10650" is not HOST:PORT/);
  });
});
