// --web.config.file parsing: one row per good and bad file; every refusal names
// the key (and line) and says how to fix it, never echoing a secret.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/load.js';
import { loadWebConfigFile, parseWebConfigText } from '../../src/web/config.js';
import { bcryptHash, makePki, type TestPki } from '../helpers/tls.js';

let pki: TestPki;
let dir: string;
beforeAll(() => {
  pki = makePki();
  dir = mkdtempSync(join(tmpdir(), 'avaxexp-webcfg-'));
  execFileSync('mkfifo', [join(dir, 'fifo')]);
});
afterAll(() => {
  rmSync(pki.dir, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
});

const tls = (extra = '') => `tls_server_config:\n  cert_file: server.pem\n  key_file: server.key\n${extra}`;

function problems(text: string): string {
  try {
    parseWebConfigText(text, 'web.yml', pki.dir);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('accepted');
}

describe('web config files', () => {
  it.each([
    ['empty file: plain HTTP, no auth', '', (c: ReturnType<typeof parseWebConfigText>) => expect([c.tls, c.users.size]).toEqual([undefined, 0])],
    [
      'TLS from files relative to the web config',
      tls(),
      (c: ReturnType<typeof parseWebConfigText>) => expect(c.tls?.context.minVersion).toBe('TLSv1.2'),
    ],
    [
      'TLS versions, ciphers and curves',
      tls(
        '  min_version: TLS13\n  max_version: TLS13\n  cipher_suites: [TLS_AES_128_GCM_SHA256]\n  curve_preferences: [X25519]\n  prefer_server_cipher_suites: false\n',
      ),
      (c: ReturnType<typeof parseWebConfigText>) =>
        expect([c.tls?.context.minVersion, c.tls?.context.ciphers, c.tls?.context.ecdhCurve, c.tls?.context.honorCipherOrder]).toEqual([
          'TLSv1.3',
          'TLS_AES_128_GCM_SHA256',
          'X25519',
          false,
        ]),
    ],
    [
      'users with the three bcrypt prefixes',
      `basic_auth_users:\n  a: ${bcryptHash('x', '$2y$')}\n  b: ${bcryptHash('x', '$2a$')}\n  c: ${bcryptHash('x', '$2b$')}\n`,
      (c: ReturnType<typeof parseWebConfigText>) => expect([...c.users.keys()]).toEqual(['a', 'b', 'c']),
    ],
    [
      'headers; a blank one is unset',
      'http_server_config:\n  http2: false\n  headers:\n    Strict-Transport-Security: max-age=31536000\n    X-XSS-Protection: ""\n',
      (c: ReturnType<typeof parseWebConfigText>) => expect(c.headers).toEqual({ 'Strict-Transport-Security': 'max-age=31536000' }),
    ],
  ])('accepts: %s', (_name, text, check) => {
    check(parseWebConfigText(text, 'web.yml', pki.dir));
  });

  it.each([
    [
      'an unknown top-level key, with its line and the key meant (as in the main config)',
      'tls_server_config: {}\nbasic_auth_user: {}\n',
      /web\.yml:2:18: \(top level\): unknown key "basic_auth_user" \(did you mean "basic_auth_users"\?\); known keys here: tls_server_config, http_server_config, basic_auth_users, rate_limit/,
    ],
    ['an unknown TLS key', tls('  client_ca_fille: x\n'), /tls_server_config: unknown key "client_ca_fille"/],
    [
      'a plain password instead of a hash (not echoed)',
      'basic_auth_users:\n  p: hunter2hunter2\n',
      /basic_auth_users\.p: the password of user "p" is not a bcrypt hash[^]*htpasswd/,
    ],
    ['a header the toolkit does not allow', 'http_server_config:\n  headers:\n    Server: x\n', /HTTP header "Server" cannot be configured/],
    [
      'an X-Frame-Options value outside the enumeration',
      'http_server_config:\n  headers:\n    X-Frame-Options: allow\n',
      /invalid value "allow" for X-Frame-Options: write one of deny, sameorigin/,
    ],
    [
      'a header value with CR/LF',
      'http_server_config:\n  headers:\n    Content-Security-Policy: "a\\r\\nSet-Cookie: x"\n',
      /cannot hold CR, LF or NUL/,
    ],
    ['a certificate without its key', 'tls_server_config:\n  cert_file: server.pem\n', /missing one of key or key_file/],
    ['a missing certificate file', tls().replace('server.pem', 'nope.pem'), /tls_server_config\.cert_file: cannot read [^:]*nope\.pem: no such file/],
    ['a key that does not match the certificate', tls().replace('server.key', 'client.key'), /cannot use the certificate and key/],
    ['client CAs without a client auth policy', tls('  client_ca_file: ca.pem\n'), /client CAs are configured without a client auth policy/],
    ['an unknown client_auth_type', tls('  client_auth_type: Always\n'), /unknown client_auth_type: write one of NoClientCert/],
    ['an unknown cipher suite', tls('  cipher_suites: [TLS_RSA_WITH_RC4_128_SHA]\n'), /unknown cipher suite/],
    ['an unknown curve', tls('  curve_preferences: [CurveP999]\n'), /unknown curve/],
    ['min_version above max_version', tls('  min_version: TLS13\n  max_version: TLS12\n'), /min_version TLS13 is above max_version TLS12/],
    ['a rate limit that allows nothing', 'rate_limit:\n  interval: 1s\n', /burst must be at least 1/],
    ['YAML syntax', 'basic_auth_users: [}', /YAML syntax/],
    [
      'a duplicate key, with both lines',
      'rate_limit: {}\nrate_limit: {}\n',
      /web\.yml:2:1: \(top level\): duplicate key "rate_limit" \(first at line 1\)/,
    ],
    ["an alias count above the main config's cap", `a: &a x\nb: [${Array(1001).fill('*a').join(', ')}]\n`, /too many copies/],
  ])('refuses %s', (_name, text, expected) => {
    const message = problems(text);
    expect(message).toMatch(expected);
    expect(message).not.toContain('hunter2');
  });

  it.each([
    ['a missing file', () => join(dir, 'absent.yml'), /no such file/],
    ['a directory', () => dir, /it is a directory/],
    ['a FIFO (never waits for a writer)', () => join(dir, 'fifo'), /it is a FIFO: give a regular file/],
    ['/dev/zero (never read to its end)', () => '/dev/zero', /it is a device: give a regular file/],
  ])('refuses a web config file that is %s', (_name, file, expected) => {
    expect(() => loadWebConfigFile(file())).toThrow(expected);
  });

  it('refuses a certificate file that is a FIFO or a device instead of hanging', () => {
    expect(problems(tls().replace('server.pem', join(dir, 'fifo')))).toMatch(/cert_file: cannot read .*fifo: it is a FIFO/);
    expect(problems(tls().replace('server.key', '/dev/zero'))).toMatch(/key_file: cannot read \/dev\/zero: it is a device/);
  });

  it('a YAML alias bomb is refused as a config problem', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      ...'bcdefghi'.split('').map((k, i) => `${k}: &${k} [${Array(10).fill(`*${'abcdefghi'[i]}`).join(', ')}]`),
      'basic_auth_users: *i',
    ].join('\n');
    expect(problems(bomb)).toMatch(/YAML/);
  });
});
