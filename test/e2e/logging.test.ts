import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REDACTED } from '../../src/util/redact.js';
import { defined } from '../helpers/assert.js';
import { startFakeNode, type FakeNode } from '../helpers/fake-node.js';
import { startTestExporter, waitForPolls, type TestExporter } from '../helpers/exporter.js';

const TOKEN = 's3cret-bearer-token';
const PASSWORD = 'hunter2-password';
const SECRETS = [TOKEN, PASSWORD];
let node: FakeNode | undefined;
let exporter: TestExporter | undefined;
const dir = mkdtempSync(join(tmpdir(), 'avaxexp-log-'));

afterAll(async () => {
  await exporter?.close();
  await node?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('logging', () => {
  it('never writes secrets, at any level, while polls succeed and fail', async () => {
    node = await startFakeNode({
      '/ext/health': { fixture: 'health/degraded-v1.14.2.json' },
      '/ext/index/C/block': { status: 403, body: 'invalid host specified\n' },
    });
    // A real client certificate and key (openssl, Debian package); the key's body is a secret.
    const key = join(dir, 'client.key');
    const cert = join(dir, 'client.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=avaxexp-test',
      ],
      { stdio: 'ignore' },
    );
    SECRETS.push(defined(readFileSync(key, 'utf8').split('\n')[1], "the first line of the key's body"));
    exporter = await startTestExporter(
      `
defaults:
  interval: 1s
  timeout: 800ms
  info: { enabled: false }
  platform: { enabled: false }
  chain_info: { enabled: false }
targets:
  - name: n
    url: ${node.url}
    index: { endpoints: [C/block] }
    # A header secret beside basic_auth (an Authorization header with basic_auth is refused at load).
    headers: { X-Api-Key: "Bearer \${TOKEN}" }
    basic_auth: { username: mon, password: ${PASSWORD} }
  - name: tls
    url: https://127.0.0.1:1
    tls: { cert_file: ${cert}, key_file: ${key}, insecure_skip_verify: true }
`,
      { env: { TOKEN }, level: 'debug' },
    );
    await waitForPolls(exporter, 2, 20_000);
    const raw = exporter.rawLogs();
    for (const secret of SECRETS) expect(raw).not.toContain(secret);
    // The logs did cover the targets' settings and the failures.
    expect(raw).toContain('"msg":"target configured"');
    expect(raw).toContain(JSON.stringify(REDACTED));
    expect(exporter.logs.some((l) => l.msg === 'poll failed' && l.reason === 'host_rejected')).toBe(true);
    expect(exporter.logs.some((l) => l.msg === 'health check failing' && l.check === 'router')).toBe(true);
    expect(exporter.logs.some((l) => l.node === 'tls' && l.msg === 'poll failed' && l.reason === 'connect')).toBe(true);
  });
});
