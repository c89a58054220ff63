import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, defaultConfig, loadConfigFile, parseConfigText } from '../../src/config/load.js';
import { parsePromDuration, formatPromDuration } from '../../src/config/duration.js';

const INVALID_DIR = 'test/fixtures/config/invalid';

// One file per invalid case, with the exact problems the loader must report (line:column: path: message).
const INVALID_CASES: Array<[string, string[]]> = [
  ["bad-duration", ["2:13: defaults.interval: \"15 seconds\" is not a positive duration: write it as Prometheus does, e.g. 500ms, 15s, 1m, 1h30m"]],
  ["bad-endpoint", ["5:19: targets[0].index.endpoints[0]: \"C/blocks\" is not an index endpoint: use one of C/block, P/block, X/block, X/tx, X/vtx"]],
  ["bad-name", ["2:11: targets[0].name: names are 1 to 128 characters: letters, digits and _ . : @ -, starting with a letter or digit"]],
  ["bad-url", ["3:10: targets[0].url: \"not a url\" is not a URL: write the node's base URL, e.g. http://10.0.0.5:9650"]],
  ["cert-without-key", ["5:7: targets[0].tls: cert_file and key_file go together: set both or neither"]],
  ["duplicate-names", ["6:11: targets[2].name: duplicate name \"a\" (also targets[0]): names must be unique, they become the node label"]],
  ["duration-not-string", ["2:13: defaults.interval: expected a duration string such as 15s, got number 15"]],
  ["missing-env", ["5:22: targets[0].headers.Authorization: environment variable AVAXEXP_TEST_UNSET_TOKEN is not set: export it before starting the exporter, or write $${AVAXEXP_TEST_UNSET_TOKEN} for a literal text"]],
  ["missing-targets", ["1:1: targets: required key is missing: expected a list of targets"]],
  ["missing-url", ["2:5: targets[0].url: required key is missing: expected the node's base URL as a string, e.g. http://10.0.0.5:9650"]],
  ["no-targets", ["1:10: targets: list at least one target under targets"]],
  ["password-and-file", ["5:7: targets[0].basic_auth: set password or password_file, not both"]],
  ["tags-not-a-list", ["5:13: targets[0].health.tags: expected a list of tags, e.g. [11111111111111111111111111111111LpoYY], got string \"primary\""]],
  ["target-interval-below-default-timeout", ["4:15: targets[0].interval: timeout (5000 ms) must be shorter than interval (2000 ms) for target \"a\": polls must finish before the next one is due"]],
  ["timeout-not-below-interval", ["3:12: defaults.timeout: timeout (10000 ms) must be shorter than interval (10000 ms) for target \"a\": polls must finish before the next one is due"]],
  ["tls-not-pem", ["5:16: targets[0].tls.ca_file: test/fixtures/config/invalid/tls-not-pem.yaml holds no PEM certificate (-----BEGIN CERTIFICATE-----): give the CA certificate(s) in PEM form"]],
  ["tls-missing-file", ["5:16: targets[0].tls.ca_file: cannot read /nonexistent/ca.pem: ENOENT: check the path and the exporter's permissions"]],
  ["unknown-key", ["4:16: targets[0]: unknown key \"intervall\" (did you mean \"interval\"?); known keys here: name, url, interval, timeout, health, index, headers, tls, basic_auth"]],
  ["url-with-credentials", ["3:10: targets[0].url: \"http://user:***@10.0.0.5:9650/\" carries credentials: move them to basic_auth so they are not logged"]],
  ["url-without-scheme", ["3:10: targets[0].url: \"10.0.0.5:9650\" is not a URL: write the node's base URL, e.g. http://10.0.0.5:9650"]],
  ["yaml-duplicate-key", ["4:5: (top level): YAML syntax: Map keys must be unique"]],
  ["yaml-syntax", ["4:1: (top level): YAML syntax: Sequence item without - indicator", "5:1: (top level): YAML syntax: Flow sequence in block collection must be sufficiently indented and end with a ]"]],
  ["zero-concurrency", ["2:28: scheduler.max_concurrent_requests: must be at least 1"]],
];

describe('config: invalid files', () => {
  it('has a table row for every file in the folder', () => {
    const files = readdirSync(INVALID_DIR).map((f) => f.replace(/\.yaml$/, '')).sort();
    expect(INVALID_CASES.map(([name]) => name).sort()).toEqual(files);
  });

  it.each(INVALID_CASES)('%s', (name, expected) => {
    const file = `${INVALID_DIR}/${name}.yaml`;
    let error: unknown;
    try {
      loadConfigFile(file, {});
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const lines = (error as ConfigError).message.split('\n').slice(1).map((l) => l.replace(`  ${file}:`, ''));
    expect(lines).toEqual(expected);
  });
});

describe('config: valid files', () => {
  it('loads config.example.yaml (every key documented there is accepted)', () => {
    const config = loadConfigFile('config.example.yaml', { NODE_TOKEN: 't0ken' });
    expect(config.targets.map((t) => t.name)).toEqual(['validator-1', 'rpc-1', 'l1-validator']);
    expect(config.targets[1]!.headers.Authorization).toBe('Bearer t0ken');
    expect(config.targets[1]!.tls?.ca).toContain('BEGIN CERTIFICATE');
    expect(config.targets[2]!.index.endpoints).toEqual([]);
    expect(config.maxConcurrentRequests).toBe(512);
  });

  it('merges built-in defaults, defaults and per-target overrides; interpolates; reads files', () => {
    const config = loadConfigFile('test/fixtures/config/valid/full.yaml', { AVAXEXP_TEST_TOKEN: 'abc' });
    const [a, b] = config.targets;
    expect(a).toEqual({
      name: 'a',
      url: 'http://127.0.0.1:9650',
      intervalMs: 30_000,
      timeoutMs: 3_000,
      health: { enabled: true, tags: ['11111111111111111111111111111111LpoYY'] },
      index: { endpoints: ['C/block'] },
      headers: { 'X-Team': 'infra' },
    });
    expect(b).toMatchObject({
      url: 'https://proxy.example.internal/nodes/b',
      intervalMs: 60_000,
      timeoutMs: 3_000,
      index: { endpoints: [] },
      headers: { 'X-Team': 'infra', Authorization: 'Bearer abc', 'X-Price': '$5' },
      basicAuth: { username: 'monitor', password: 'secret-from-file' },
    });
    expect(config.maxConcurrentRequests).toBe(64);
  });

  it('without a file: one node at the default address with the built-in defaults', () => {
    expect(defaultConfig().targets).toEqual([
      {
        name: 'local',
        url: 'http://127.0.0.1:9650',
        intervalMs: 15_000,
        timeoutMs: 5_000,
        health: { enabled: true, tags: [] },
        index: { endpoints: ['C/block', 'P/block', 'X/block', 'X/tx'] },
        headers: {},
      },
    ]);
  });

  it('reports every problem at once, not just the first', () => {
    const text = 'targets:\n  - name: a\n    url: ftp://x\n  - name: b\n    url: http://x\n    timeout: soon\n';
    expect(() => parseConfigText(text, 'inline.yaml', {})).toThrow(/2 problems/);
  });

  it('an empty file says what is missing', () => {
    expect(() => parseConfigText('', 'empty.yaml', {})).toThrow('targets: required key is missing');
  });
});

describe('Prometheus durations', () => {
  it.each([
    ['500ms', 500],
    ['15s', 15_000],
    ['1m', 60_000],
    ['1h30m', 5_400_000],
    ['1d', 86_400_000],
    ['1w2d', 777_600_000],
  ])('%s', (text, ms) => {
    expect(parsePromDuration(text)).toBe(ms);
    expect(parsePromDuration(formatPromDuration(ms))).toBe(ms);
  });

  it.each(['', '15', '1.5s', '15 s', 's', '1m1h', '-1s'])('rejects %j', (text) => {
    expect(parsePromDuration(text)).toBeUndefined();
  });
});
