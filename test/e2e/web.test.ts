// --web.config.file end to end, in-process: TLS with and without client
// certificates, bcrypt basic auth ($2y$, $2a$, $2b$), response headers, the
// verified-password cache, and reload keeping the last good web config.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWebConfigFile, parseWebConfigText } from '../../src/web/config.js';
import { KEPT_FOR_KNOWN_ADDRESSES, MAX_PENDING_BCRYPT, MAX_PENDING_BCRYPT_PER_ADDRESS, WebGuard, addressKey } from '../../src/web/guard.js';
import { closeAfterEach, startTestExporter, waitForPolls, sample, type TestExporter } from '../helpers/exporter.js';
import { defined } from '../helpers/assert.js';
import { startFakeNode, type FakeNode } from '../helpers/fake-node.js';
import { get } from '../helpers/https.js';
import { bcryptHash, makePki, type TestPki } from '../helpers/tls.js';

let pki: TestPki;
let node: FakeNode | undefined;
let exporter: TestExporter | undefined;

const CONFIG = (url: string) => `defaults:\n  interval: 1s\n  timeout: 500ms\n  index: { endpoints: [] }\ntargets:\n  - name: a\n    url: ${url}\n`;

beforeAll(async () => {
  pki = makePki();
  node = await startFakeNode({ '/ext/health': { fixture: 'health/healthy-v1.14.2.json' } });
});
afterAll(async () => {
  await node?.close();
  rmSync(pki.dir, { recursive: true, force: true });
});
closeAfterEach(
  () => [exporter],
  () => (exporter = undefined),
);

function webFile(name: string, text: string): string {
  const file = join(pki.dir, name);
  writeFileSync(file, text);
  return file;
}

async function start(webText: string, file = 'web.yml'): Promise<{ url: string; path: string }> {
  const path = webFile(file, webText);
  exporter = await startTestExporter(CONFIG(defined(node, 'the fake node').url), {
    exporter: { webConfig: loadWebConfigFile(path), loadWebConfig: () => loadWebConfigFile(path) },
  });
  await waitForPolls(exporter);
  return { url: exporter.url, path };
}

describe('web config: TLS and basic auth', () => {
  it('serves HTTPS; asks for basic auth with 401 and WWW-Authenticate: Basic; takes $2y$, $2a$ and $2b$ hashes; sets the configured headers', async () => {
    const { url } = await start(
      [
        'tls_server_config:',
        `  cert_file: ${pki.serverCert}`,
        '  key_file: server.key',
        'http_server_config:',
        '  headers:',
        '    X-Frame-Options: deny',
        '    X-Content-Type-Options: nosniff',
        'basic_auth_users:',
        `  prometheus: ${bcryptHash('s3cret', '$2y$')}`,
        `  alice: ${bcryptHash('wonder', '$2a$')}`,
        `  bob: ${bcryptHash('builder', '$2b$')}`,
      ].join('\n'),
    );
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const ca = pki.ca;

    const anonymous = await get(`${url}/metrics`, { ca });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe('Basic');
    expect(anonymous.headers['x-frame-options']).toBe('deny');
    expect(anonymous.body).not.toContain('avalanchego_up');

    for (const [user, password] of [
      ['prometheus', 's3cret'],
      ['alice', 'wonder'],
      ['bob', 'builder'],
    ]) {
      const ok = await get(`${url}/metrics`, { ca, auth: `${user}:${password}` });
      expect(ok.status, user).toBe(200);
      expect(sample(ok.body, 'avalanchego_up{node="a"}')).toBe(1);
      expect(ok.headers['x-content-type-options']).toBe('nosniff');
      // /probe is served without the framework: the same guard, the same headers.
      const probe = await get(`${url}/probe?target=a`, { ca, auth: `${user}:${password}` });
      expect([probe.status, sample(probe.body, 'avalanchego_up{node="a"}'), probe.headers['x-frame-options']], user).toEqual([200, 1, 'deny']);
    }
    for (const auth of ['prometheus:wrong', 'nobody:s3cret', 'prometheus:', ':s3cret']) {
      const r = await get(`${url}/metrics`, { ca, auth });
      expect(r.status, auth).toBe(401);
    }
    for (const path of ['/probe?target=a', '/', '/-/reload'])
      expect((await get(`${url}${path}`, { ca, method: path === '/-/reload' ? 'POST' : 'GET' })).status, path).toBe(401);
    // Liveness and readiness stay open to Kubernetes probes; they still get TLS and headers.
    const healthy = await get(`${url}/-/healthy`, { ca });
    expect(healthy.status).toBe(200);
    expect(healthy.headers['x-frame-options']).toBe('deny');
    expect((await get(`${url}/-/ready`, { ca })).status).toBe(200);
    // The certificate is checked by the client: without the CA the handshake fails.
    await expect(get(`${url}/-/healthy`)).rejects.toThrow(/certificate/);
  });

  it('RequireAndVerifyClientCert: a certificate signed by client_ca_file passes; none or a self-signed one is refused; client_allowed_sans narrows it', async () => {
    const { url, path } = await start(
      [
        'tls_server_config:',
        `  cert_file: ${pki.serverCert}`,
        `  key_file: ${pki.serverKey}`,
        '  client_auth_type: RequireAndVerifyClientCert',
        `  client_ca_file: ${pki.caFile}`,
        '  min_version: TLS12',
        '  cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384]',
        '  curve_preferences: [CurveP256, X25519]',
      ].join('\n'),
    );
    const ca = pki.ca;
    const client = { ca, cert: pki.read(pki.clientCert), key: pki.read(pki.clientKey) };
    expect((await get(`${url}/metrics`, client)).status).toBe(200);
    await expect(get(`${url}/metrics`, { ca })).rejects.toThrow();
    await expect(get(`${url}/metrics`, { ca, cert: pki.read(pki.strangerCert), key: pki.read(pki.strangerKey) })).rejects.toThrow();

    // Reload with a SAN list the client certificate does not match: refused from then on.
    writeFileSync(
      path,
      [
        'tls_server_config:',
        `  cert_file: ${pki.serverCert}`,
        `  key_file: ${pki.serverKey}`,
        '  client_auth_type: RequireAndVerifyClientCert',
        `  client_ca_file: ${pki.caFile}`,
        '  client_allowed_sans: [grafana]',
      ].join('\n'),
    );
    await defined(exporter, 'the exporter').reload();
    await expect(get(`${url}/metrics`, client)).rejects.toThrow();
  });

  it('VerifyClientCertIfGiven: no certificate passes, a verified one passes, an unverified one is refused', async () => {
    const { url } = await start(
      [
        'tls_server_config:',
        `  cert_file: ${pki.serverCert}`,
        `  key_file: ${pki.serverKey}`,
        '  client_auth_type: VerifyClientCertIfGiven',
        `  client_ca_file: ${pki.caFile}`,
      ].join('\n'),
    );
    const ca = pki.ca;
    expect((await get(`${url}/-/healthy`, { ca })).status).toBe(200);
    expect((await get(`${url}/-/healthy`, { ca, cert: pki.read(pki.clientCert), key: pki.read(pki.clientKey) })).status).toBe(200);
    await expect(get(`${url}/-/healthy`, { ca, cert: pki.read(pki.strangerCert), key: pki.read(pki.strangerKey) })).rejects.toThrow();
  });

  it('reload: a new password takes over; a bad web config is refused and the last good one stays; HTTP to HTTPS needs a restart', async () => {
    const { url, path } = await start(`basic_auth_users:\n  prometheus: ${bcryptHash('one')}\n`);
    expect(url).toMatch(/^http:/);
    expect((await get(`${url}/metrics`, { auth: 'prometheus:one' })).status).toBe(200);

    writeFileSync(path, `basic_auth_users:\n  prometheus: ${bcryptHash('two')}\n`);
    const reloaded = await get(`${url}/-/reload`, { method: 'POST', auth: 'prometheus:one' });
    expect(reloaded.status).toBe(200);
    expect((await get(`${url}/metrics`, { auth: 'prometheus:one' })).status).toBe(401);
    expect((await get(`${url}/metrics`, { auth: 'prometheus:two' })).status).toBe(200);

    for (const [text, expected] of [
      [
        'basic_auth_users:\n  prometheus: plaintext-password\n',
        /basic_auth_users\.prometheus: the password of user "prometheus" is not a bcrypt hash/,
      ],
      ['basic_auth_user:\n  prometheus: x\n', /unknown key "basic_auth_user"/],
      [`tls_server_config:\n  cert_file: ${pki.serverCert}\n  key_file: ${pki.serverKey}\n`, /switching between HTTP and HTTPS needs a restart/],
    ] as const) {
      writeFileSync(path, text);
      const bad = await get(`${url}/-/reload`, { method: 'POST', auth: 'prometheus:two' });
      expect(bad.status).toBe(500);
      expect(bad.body).toMatch(expected);
      expect(bad.body).not.toContain('plaintext-password');
      const text2 = await get(`${url}/metrics`, { auth: 'prometheus:two' });
      expect(text2.status).toBe(200);
      expect(sample(text2.body, 'avalanchego_exporter_config_last_reload_successful')).toBe(0);
    }
  });
});

describe('web config: the verified-password cache', () => {
  const guards: WebGuard[] = [];
  afterAll(async () => {
    for (const g of guards.splice(0)) await g.close();
  });

  it('the per-address share: one address past its share gets busy (429), another address still gets its turn ahead of the flood; an IPv6 /64 is one address', async () => {
    const guard = new WebGuard(parseWebConfigText(`basic_auth_users:\n  p: ${bcryptHash('pw')}\n`, 'web.yml', '.'));
    guards.push(guard);
    const done: string[] = [];
    const track = (label: string, verdict: Promise<boolean | 'busy' | 'slow'>) =>
      verdict.then((v) => {
        if (v !== 'busy') done.push(label);
        return v;
      });
    const flood = Array.from({ length: 10 }, (_, i) => track(`flood-${i}`, guard.check('p', 'wrong', '10.0.0.1')));
    const v6 = Array.from({ length: 6 }, (_, i) => track(`v6-${i}`, guard.check('p', 'wrong', `2001:db8:0:1::${i + 1}`)));
    const user = track('user', guard.check('p', 'pw', '::ffff:10.0.0.2'));
    const share = MAX_PENDING_BCRYPT_PER_ADDRESS;
    expect(await Promise.all(flood)).toEqual([...Array<boolean>(share).fill(false), ...Array<string>(10 - share).fill('busy')]);
    expect(await Promise.all(v6)).toEqual([...Array<boolean>(share).fill(false), ...Array<string>(6 - share).fill('busy')]);
    expect(await user).toBe(true);
    // Round robin over addresses: the user waited for two flood checks and one of the /64's, not for the flood's whole share.
    expect(done.indexOf('user')).toBeLessThan(done.indexOf(`flood-${share - 1}`));
    expect(guard.pendingChecks).toBe(0);
    expect(addressKey('2001:DB8:0:1:aa::5%eth0')).toBe('2001:db8:0:1::/64');
    expect(addressKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
  });

  it('places kept for known addresses: when a flood over many addresses fills the rest of the queue, an address that passed a check before still gets one', async () => {
    const guard = new WebGuard(parseWebConfigText(`basic_auth_users:\n  p: ${bcryptHash('pw')}\n  q: ${bcryptHash('qq')}\n`, 'web.yml', '.'));
    guards.push(guard);
    expect(await guard.check('p', 'pw', '10.1.0.1')).toBe(true);
    const open = MAX_PENDING_BCRYPT - KEPT_FOR_KNOWN_ADDRESSES;
    const flood = Array.from({ length: open + 1 }, (_, i) => guard.check('p', 'wrong', `10.2.${i >> 8}.${i & 255}`));
    // A new address finds the open places taken; the known one (another user, not verified yet) gets a kept place.
    const stranger = guard.check('q', 'qq', '10.3.0.1');
    const known = guard.check('q', 'qq', '10.1.0.1');
    expect(await stranger).toBe('busy');
    expect(await known).toBe(true);
    expect((await Promise.all(flood)).filter((v) => v === 'busy')).toHaveLength(1);
  });

  it('bcrypt runs on a worker thread that close() stops: a check under way then fails, a later one too (no thread left behind)', async () => {
    const guard = new WebGuard(parseWebConfigText(`basic_auth_users:\n  p: ${bcryptHash('pw', '$2y$', 10)}\n`, 'web.yml', '.'));
    const underWay = guard.check('p', 'pw', '10.0.0.1');
    await guard.close();
    await expect(underWay).rejects.toThrow(/shutting down/);
    await expect(guard.check('p', 'pw', '10.0.0.1')).rejects.toThrow(/shutting down/);
    expect(guard.pendingChecks).toBe(0);
  });

  it('a scrape with verified credentials runs no bcrypt; a changed hash or another password does', async () => {
    const guard = new WebGuard(parseWebConfigText(`basic_auth_users:\n  p: ${bcryptHash('pw')}\n`, 'web.yml', '.'));
    guards.push(guard);
    expect(await guard.check('p', 'pw')).toBe(true);
    expect(guard.bcryptRuns).toBe(1);
    for (let i = 0; i < 20; i++) expect(await guard.check('p', 'pw')).toBe(true);
    expect(guard.bcryptRuns).toBe(1);
    expect(await guard.check('p', 'wrong')).toBe(false);
    expect(await guard.check('nobody', 'pw')).toBe(false);
    expect(guard.bcryptRuns).toBe(3);
    guard.setConfig(parseWebConfigText(`basic_auth_users:\n  p: ${bcryptHash('new')}\n`, 'web.yml', '.'));
    expect(await guard.check('p', 'pw')).toBe(false);
    expect(await guard.check('p', 'new')).toBe(true);
    expect(await guard.check('p', 'new')).toBe(true);
    expect(guard.bcryptRuns).toBe(5);
  });

  it('rate_limit: burst requests pass, the next gets 429', () => {
    let now = 0;
    const guard = new WebGuard(parseWebConfigText('rate_limit:\n  interval: 1s\n  burst: 2\n', 'web.yml', '.'), () => now);
    const verdicts: number[] = [];
    const run = () => {
      const res = { statusCode: 200, setHeader() {}, end() {} };
      guard.middleware({ headers: {} } as never, res as never, () => {});
      verdicts.push(res.statusCode);
    };
    run();
    run();
    run();
    now = 1000;
    run();
    expect(verdicts).toEqual([200, 200, 429, 200]);
  });
});
