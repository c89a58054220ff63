// Throwaway certificates made with openssl for the exporter's own TLS tests: a
// CA, a server certificate for 127.0.0.1 signed by it, a client certificate
// signed by it (SAN DNS:prometheus), and a self-signed client certificate.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';

export interface TestPki {
  dir: string;
  caFile: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  strangerCert: string;
  strangerKey: string;
  ca: string;
  read(file: string): string;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

export function makePki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'avaxexp-pki-'));
  const key = (name: string) => openssl(dir, ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', name]);
  key('ca.key');
  openssl(dir, ['req', '-x509', '-new', '-key', 'ca.key', '-subj', '/CN=test CA', '-days', '2', '-out', 'ca.pem']);
  const signed = (name: string, cn: string, san: string) => {
    key(`${name}.key`);
    openssl(dir, ['req', '-new', '-key', `${name}.key`, '-subj', `/CN=${cn}`, '-out', `${name}.csr`]);
    writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${san}\n`);
    openssl(dir, [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.pem`,
    ]);
  };
  signed('server', '127.0.0.1', 'IP:127.0.0.1');
  signed('client', 'prometheus', 'DNS:prometheus');
  key('stranger.key');
  openssl(dir, [
    'req',
    '-x509',
    '-new',
    '-key',
    'stranger.key',
    '-subj',
    '/CN=stranger',
    '-addext',
    'subjectAltName=DNS:prometheus',
    '-days',
    '2',
    '-out',
    'stranger.pem',
  ]);
  const at = (f: string) => join(dir, f);
  return {
    dir,
    caFile: at('ca.pem'),
    serverCert: at('server.pem'),
    serverKey: at('server.key'),
    clientCert: at('client.pem'),
    clientKey: at('client.key'),
    strangerCert: at('stranger.pem'),
    strangerKey: at('stranger.key'),
    ca: readFileSync(at('ca.pem'), 'utf8'),
    read: (f) => readFileSync(f, 'utf8'),
  };
}

/** A bcrypt hash with the given prefix ($2y$ as htpasswd -B writes, $2a$, $2b$); cost 4 keeps tests fast. */
export function bcryptHash(password: string, prefix: '$2y$' | '$2a$' | '$2b$' = '$2y$', cost = 4): string {
  return bcrypt.hashSync(password, cost).replace(/^\$2[aby]\$/, prefix);
}
