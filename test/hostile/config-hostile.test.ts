// Hostile or unlucky config input (issue 12): files that never end or block,
// huge documents, secrets that must not be echoed. Each case is refused with a
// clear ConfigError, quickly, and never shows the secret.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, MAX_CONFIG_BYTES } from '../../src/config/load.js';
import { loadConfigFile, parseConfigText } from '../../src/sources/registry.js';

import { startExporter } from '../../src/exporter.js';
import { LOG_REDACTION } from '../../src/util/redact.js';
import { defined } from '../helpers/assert.js';

const dir = mkdtempSync(join(tmpdir(), 'avaxexp-config-hostile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TARGET = 'targets:\n  - name: a\n    url: http://127.0.0.1:9650\n';

function errorOf(load: () => unknown): ConfigError {
  try {
    load();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('the config was accepted');
}

describe('config files that are not regular files, or too big', () => {
  it('--config.file=/dev/zero is refused without reading it', () => {
    expect(errorOf(() => loadConfigFile('/dev/zero', {})).message).toContain(
      '/dev/zero: (top level): cannot read the file: it is a device: give a regular file',
    );
  });

  it('a config file larger than the cap is refused before it is read', () => {
    const file = join(dir, 'huge.yaml');
    writeFileSync(file, TARGET);
    // Sparse: no disk written, but fstat reports the size.
    truncateSync(file, MAX_CONFIG_BYTES + 1);
    expect(errorOf(() => loadConfigFile(file, {})).message).toContain(
      `cannot read the file: ${MAX_CONFIG_BYTES + 1} bytes is more than the ${MAX_CONFIG_BYTES} allowed: is this the right file?`,
    );
  });

  it('a directory as the config file', () => {
    expect(errorOf(() => loadConfigFile(dir, {})).message).toContain('cannot read the file: it is a directory: give a regular file');
  });

  it('a FIFO as ca_file is refused at once (opening it would wait for a writer forever)', () => {
    const fifo = join(dir, 'ca.fifo');
    execFileSync('mkfifo', [fifo]);
    const config = join(dir, 'fifo.yaml');
    writeFileSync(config, `${TARGET}    tls:\n      ca_file: ca.fifo\n`);
    expect(errorOf(() => loadConfigFile(config, {})).message).toContain(
      `5:16: targets[0].tls.ca_file: cannot read ${fifo}: it is a FIFO: give a regular file`,
    );
  });

  it('a huge password_file is refused, not read into memory', () => {
    const big = join(dir, 'big-password');
    writeFileSync(big, '');
    truncateSync(big, 1024 * 1024 * 1024);
    const config = join(dir, 'big-password.yaml');
    writeFileSync(config, `${TARGET}    basic_auth: { username: u, password_file: big-password }\n`);
    expect(errorOf(() => loadConfigFile(config, {})).message).toContain(`cannot read ${big}: 1073741824 bytes is more than the 65536 allowed`);
  });

  it('a file that reports size 0 but has content is read up to the cap (/proc)', () => {
    const config = join(dir, 'proc-password.yaml');
    writeFileSync(config, `${TARGET}    basic_auth: { username: u, password_file: /proc/self/status }\n`);
    expect(defined(defined(loadConfigFile(config, {}).targets[0], 'the target').basicAuth, 'its basic auth').password).toMatch(/^Name:/);
  });
});

describe('large and hostile YAML', () => {
  // 40k keys in one map (about 700 KB): the yaml package's own duplicate-key check compares
  // every pair (10.7 s measured); ours is one pass. A hang here fails on the test timeout.
  const headers = Array.from({ length: 40_000 }, (_, i) => `      X-Header-${i}: value-${i}\n`).join('');
  const big = `${TARGET}    headers:\n${headers}`;

  it('a 40,000-key map loads', () => {
    expect(big.length).toBeGreaterThan(700_000);
    const config = parseConfigText(big, 'big.yaml', {});
    expect(Object.keys(defined(config.targets[0], 'the target').headers)).toHaveLength(40_000);
  });

  it('a duplicate at the end of a 40,000-key map is found, with both lines', () => {
    const text = `${big}      X-Header-7: again\n`;
    expect(errorOf(() => parseConfigText(text, 'big.yaml', {})).message).toContain(
      'big.yaml:40005:7: targets[0].headers: duplicate key "X-Header-7" (first at line 12): a key may appear once in a map; remove one',
    );
  });

  it('thousands of problems: the first 20 are listed, the rest counted', () => {
    const text = `${TARGET}    headers:\n${Array.from({ length: 5000 }, (_, i) => `      "bad header ${i}": x\n`).join('')}`;
    const message = errorOf(() => parseConfigText(text, 'many.yaml', {})).message;
    expect(message.split('\n')[0]).toBe('invalid configuration (5000 problems):');
    expect(message.split('\n')).toHaveLength(22);
    expect(message).toContain('  … and 4980 more: fix these first, then check again');
  });

  it('a long unknown key and a long value are cut in messages', () => {
    const message = errorOf(() =>
      parseConfigText(`${TARGET}    ${'k'.repeat(100_000)}: 1\n    interval: "${'9'.repeat(100_000)}"\n`, 'long.yaml', {}),
    ).message;
    expect(message.length).toBeLessThan(1000);
  });

  it('a key named __proto__ is an unknown key, not a prototype that lends its keys', () => {
    const text = `targets:\n  - name: a\n    url: http://127.0.0.1:9650\n    __proto__: { interval: 1s, timeout: 1s }\n`;
    expect(errorOf(() => parseConfigText(text, 'proto.yaml', {})).message).toContain('proto.yaml:4:16: targets[0]: unknown key "__proto__"');
  });

  it('deep nesting is an error, not a crash', () => {
    const deep = `${TARGET}    headers: ${'['.repeat(5000)}${']'.repeat(5000)}\n`;
    expect(errorOf(() => parseConfigText(deep, 'deep.yaml', {})).message).toMatch(
      /^invalid configuration \(1 problem\):\n {2}deep\.yaml:4:\d+: \(top level\): YAML nested too deeply for the parser to follow: flatten the lists and maps \(a config needs a few levels\)$/,
    );
    // Deep but within what the parser follows: a plain schema error.
    const nested = `${TARGET}    headers: ${'['.repeat(200)}${']'.repeat(200)}\n`;
    expect(errorOf(() => parseConfigText(nested, 'deep.yaml', {})).message).toContain(
      'deep.yaml:4:14: targets[0].headers: expected a map of header name to value, got a list',
    );
  });
});

describe('secrets are never echoed', () => {
  const SECRET = '9876543210123';

  it('a header value from ${VAR} with a line break is refused at load, without showing it', () => {
    const text = `${TARGET}    headers:\n      Authorization: "Bearer \${TOKEN}"\n`;
    const message = errorOf(() => parseConfigText(text, 'env.yaml', { TOKEN: `s3cr3t-${SECRET}\n` })).message;
    expect(message).toContain('env.yaml:5:22: targets[0].headers.Authorization: the value holds a line break');
    expect(message).not.toContain(SECRET);
  });

  it('--config.check prints no password, header value or URL credentials', () => {
    const file = join(dir, 'secrets.yaml');
    writeFileSync(
      file,
      `targets:\n  - name: a\n    url: http://user:${SECRET}@10.0.0.5:99999/?token=${SECRET}\n    headers: { X-Token: ${SECRET} }\n    basic_auth: { username: u, password: ${SECRET} }\n`,
    );
    const r = spawnSync(process.execPath, ['dist/main.js', `--config.file=${file}`, '--config.check'], { encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('3 problems');
    expect(r.stderr).not.toContain(SECRET);
  });

  it('a failed reload shows no secret in the POST /-/reload answer or the logs', async () => {
    const file = join(dir, 'reload.yaml');
    writeFileSync(file, 'defaults: { interval: 1m, timeout: 1s, index: { endpoints: [] } }\ntargets:\n  - name: a\n    url: http://127.0.0.1:9\n');
    const chunks: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        chunks.push(String(chunk));
        cb();
      },
    });
    const logger = pino({ level: 'debug', redact: LOG_REDACTION }, sink);
    const exporter = await startExporter({
      config: loadConfigFile(file, {}),
      logger,
      listenAddress: '127.0.0.1:0',
      loadConfig: () => loadConfigFile(file, {}),
    });
    try {
      writeFileSync(file, `targets:\n  - name: a\n    url: ftp://u:${SECRET}@10.0.0.5/#x\n    basic_auth: { username: u, password: ${SECRET} }\n`);
      const res = await fetch(`${exporter.url}/-/reload`, { method: 'POST' });
      const body = await res.text();
      expect(res.status).toBe(500);
      expect(body).toContain(
        'targets[0].basic_auth.password: expected the password as a string (quote it), got a number (not shown: it is a secret)',
      );
      expect(body).toContain('"ftp://<secret>@10.0.0.5/#<secret>" carries credentials');
      expect(body).not.toContain(SECRET);
      expect(chunks.join('')).toContain('config reload failed');
      expect(chunks.join('')).not.toContain(SECRET);
    } finally {
      await exporter.close();
    }
  });
});
