import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, formatWarnings } from '../../src/config/load.js';
import { configFromValue, defaultConfig, loadConfigFile, parseConfigText } from '../../src/sources/registry.js';
import { parsePromDuration, formatPromDuration } from '../../src/config/duration.js';
import { defined } from '../helpers/assert.js';

const INVALID_DIR = 'test/fixtures/config/invalid';

// One file per invalid case, with the exact problems the loader must report (line:column: path: message).
const INVALID_CASES: Array<[string, string[]]> = [
  ['bad-duration', ['2:13: defaults.interval: "15 seconds" is not a positive duration: write it as Prometheus does, e.g. 500ms, 15s, 1m, 1h30m']],
  ['bad-endpoint', ['5:19: targets[0].index.endpoints[0]: "C/blocks" is not an index endpoint: use one of C/block, P/block, X/block, X/tx, X/vtx']],
  ['bad-name', ['2:11: targets[0].name: names are 1 to 128 characters: letters, digits and _ . : @ -, starting with a letter or digit']],
  ['bad-url', ['3:10: targets[0].url: "not a url" is not a URL: write the node\'s base URL, e.g. http://10.0.0.5:9650']],
  ['chain-twice', ['5:15: targets[0].evm.chains: a chain is listed twice: list each chain once']],
  [
    'chain-with-path',
    [
      '5:16: targets[0].proposervm.chains[0]: a chain is named by its alias (C) or its blockchain ID (CB58, from platform.getBlockchains): letters and digits, at most 64 characters, no slash',
    ],
  ],
  ['cert-without-key', ['5:7: targets[0].tls: cert_file and key_file go together: set both or neither']],
  ['duplicate-names', ['6:11: targets[2].name: duplicate name "a" (also targets[0]): names must be unique, they become the node label']],
  ['duration-not-string', ['2:13: defaults.interval: expected a duration string such as 15s, got number 15']],
  // Node.js timers overflow above 2^31-1 ms: 100d would poll 500 times a second.
  [
    'duration-too-long',
    [
      '2:13: defaults.interval: "100d" is longer than 24d: Node.js timers cannot wait more than 2^31-1 ms (24.8 days) and would fire at once; use at most 24d',
    ],
  ],
  [
    'header-line-break',
    [
      '5:22: targets[0].headers.Authorization: the value holds a line break or another control character, which would break every request: remove it (a ${VAR} read from a file often ends with a newline)',
    ],
  ],
  [
    'index-interval-not-above-timeout',
    [
      '7:17: targets[0].index.interval: timeout (5s, from defaults) must be shorter than index.interval (5s) for target "a": a poll must end before the next one is due; shorten timeout or lengthen index.interval',
    ],
  ],
  // A built-in source interval below a long timeout blames the timeout, once for all targets.
  [
    'info-interval-default-below-timeout',
    [
      '3:12: defaults.timeout: timeout (40s, from defaults) must be shorter than info.interval (30s, built-in default) for target "a": a poll must end before the next one is due; shorten timeout or lengthen info.interval',
    ],
  ],
  [
    'limits-out-of-range',
    [
      '3:26: defaults.limits.max_series_per_node: must be at least 100: write a whole number from 100 to 10000000',
      '4:23: defaults.limits.max_label_length: expected a whole number from 16 to 65536, got number 1.5',
    ],
  ],
  [
    'missing-env',
    [
      '5:22: targets[0].headers.Authorization: environment variable AVAXEXP_TEST_UNSET_TOKEN is not set: export it before starting the exporter, or write $${AVAXEXP_TEST_UNSET_TOKEN} for a literal text',
    ],
  ],
  // An API path pasted as the node's URL (the C-Chain RPC most often): refused, with the base URL to give.
  [
    'url-api-path',
    [
      '3:10: targets[0].url: "http://10.0.0.5:9650/ext/bc/C/rpc" ends in an AvalancheGo API path (/ext/bc/C/rpc): give the node\'s base URL, "http://10.0.0.5:9650"; the exporter adds /ext/health, /ext/info, /ext/index/… itself',
      '5:10: targets[1].url: "https://node.example.org/ext/health" ends in an AvalancheGo API path (/ext/health): give the node\'s base URL, "https://node.example.org"; the exporter adds /ext/health, /ext/info, /ext/index/… itself',
      '7:10: targets[2].url: "http://gw.example.org/avax/node-3/ext/info/" ends in an AvalancheGo API path (/ext/info/): give the node\'s base URL, "http://gw.example.org/avax/node-3"; the exporter adds /ext/health, /ext/info, /ext/index/… itself',
      '9:10: targets[3].url: "http://10.0.0.5:9650/ext/index/C/block" ends in an AvalancheGo API path (/ext/index/C/block): give the node\'s base URL, "http://10.0.0.5:9650"; the exporter adds /ext/health, /ext/info, /ext/index/… itself',
      '11:10: targets[4].url: "http://10.0.0.5:9650/ext" ends in an AvalancheGo API path (/ext): give the node\'s base URL, "http://10.0.0.5:9650"; the exporter adds /ext/health, /ext/info, /ext/index/… itself',
    ],
  ],
  // One pass: a missing variable, schema problems of two targets, and the cross-field checks and file reads of the others.
  [
    'many-kinds',
    [
      '7:22: targets[0].headers.Authorization: environment variable AVAXEXP_TEST_UNSET_TOKEN is not set: export it before starting the exporter, or write $${AVAXEXP_TEST_UNSET_TOKEN} for a literal text',
      '9:10: targets[1].url: "http://10.0.0.5:9650/ext/bc/C/rpc" ends in an AvalancheGo API path (/ext/bc/C/rpc): give the node\'s base URL, "http://10.0.0.5:9650"; the exporter adds /ext/health, /ext/info, /ext/index/… itself',
      '10:16: targets[1]: unknown key "intervall" (did you mean "interval"?); known keys here: name, url, interval, timeout, health, index, info, platform, evm, proposervm, admin, node_metrics, chain_info, limits, headers, tls, basic_auth',
      '14:14: targets[2].timeout: timeout (5s) must be shorter than interval (5s) for target "c": a poll must end before the next one is due; shorten timeout or lengthen interval',
      "18:16: targets[3].tls.ca_file: cannot read /nonexistent/ca.pem: no such file: check the path and the exporter's permissions",
      '19:11: targets[4].name: duplicate name "a" (also targets[0]): names must be unique, they become the node label',
    ],
  ],
  ['missing-targets', ['1:1: targets: required key is missing: expected a list of targets']],
  ['missing-url', ["2:5: targets[0].url: required key is missing: expected the node's base URL as a string, e.g. http://10.0.0.5:9650"]],
  ['no-targets', ['1:10: targets: list at least one target under targets']],
  // Both set the Authorization header; blamed where the later of the two was set (the target).
  [
    'authorization-and-basic-auth',
    [
      '7:17: targets[0].basic_auth: headers.authorization and basic_auth both set the Authorization header for target "a": keep one (basic_auth for a user and password, headers.authorization for a bearer token or another scheme)',
    ],
  ],
  ['password-and-file', ['5:7: targets[0].basic_auth: set password or password_file, not both']],
  // Every problem in one pass, in the order of the file: the schema's, and the cross-field checks and file reads
  // of what the schema's problems leave (they came in a second and a third pass before, unsorted).
  [
    'many-mistakes',
    [
      '4:12: defaults.timeout: timeout (20s, from defaults) must be shorter than interval (10s, from defaults) for target "a": a poll must end before the next one is due; shorten timeout or lengthen interval',
      '5:20: defaults.info.enabled: expected true or false, got string "yes please"',
      '6:19: defaults.evm.chains[0]: "C-Chain" is no alias a node knows (every request to /ext/bc/C-Chain/… would answer 404): the C-Chain is "C" (aliases are case-sensitive), or its blockchain ID',
      "10:21: targets[0].tls.ca_file: cannot read /nonexistent/ca.pem: no such file: check the path and the exporter's permissions",
      '11:11: targets[1].name: duplicate name "a" (also targets[0]): names must be unique, they become the node label',
      '13:12: targets[1]: unknown key "bogus"; known keys here: name, url, interval, timeout, health, index, info, platform, evm, proposervm, admin, node_metrics, chain_info, limits, headers, tls, basic_auth',
      '15:10: targets[2].url: "not a url" is not a URL: write the node\'s base URL, e.g. http://10.0.0.5:9650',
      '20:14: targets[3].timeout: timeout (2s) must be shorter than interval (1s) for target "c": a poll must end before the next one is due; shorten timeout or lengthen interval',
    ],
  ],
  ['password-file-device', ['6:22: targets[0].basic_auth.password_file: cannot read /dev/zero: it is a device: give a regular file']],
  // The value (9876543210123) is a secret: never echoed.
  [
    'password-number',
    ['6:17: targets[0].basic_auth.password: expected the password as a string (quote it), got a number (not shown: it is a secret)'],
  ],
  [
    'subnet-not-cb58',
    [
      '5:17: targets[0].platform.subnets[0]: "2v3qLBtRK4VHC1W1JJMgKYPrSzsXEc83DuWBrhhLKRJXJbiRVB" is not a subnet ID (CB58, e.g. 2v3qLBtRK4VHC1W1JJMgKYPrSzsXEc83DuWBrhhLKRJXJbiRVA): its checksum does not match (a character is wrong or missing); copy the ID from platform.getSubnets or the explorer',
      '5:69: targets[0].platform.subnets[1]: "not-an-id" is not a subnet ID (CB58, e.g. 2v3qLBtRK4VHC1W1JJMgKYPrSzsXEc83DuWBrhhLKRJXJbiRVA): "-" is not a base58 character (0, O, I and l are not used); copy the ID from platform.getSubnets or the explorer',
      '5:80: targets[0].platform.subnets[2]: 11111111111111111111111111111111LpoYY is the primary network, which is always checked: remove it from the list',
    ],
  ],
  ['tags-not-a-list', ['5:13: targets[0].health.tags: expected a list of tags, e.g. [11111111111111111111111111111111LpoYY], got string "primary"']],
  [
    'target-interval-below-default-timeout',
    [
      '4:15: targets[0].interval: timeout (5s, built-in default) must be shorter than interval (2s) for target "a": a poll must end before the next one is due; shorten timeout or lengthen interval',
    ],
  ],
  [
    'timeout-not-below-interval',
    [
      '3:12: defaults.timeout: timeout (10s, from defaults) must be shorter than interval (10s, from defaults) for target "a": a poll must end before the next one is due; shorten timeout or lengthen interval',
    ],
  ],
  [
    'timeout-too-long',
    [
      '4:15: targets[0].interval: "30d" is longer than 24d: Node.js timers cannot wait more than 2^31-1 ms (24.8 days) and would fire at once; use at most 24d',
      '5:14: targets[0].timeout: "25d" is longer than 24d: Node.js timers cannot wait more than 2^31-1 ms (24.8 days) and would fire at once; use at most 24d',
    ],
  ],
  // Relative to the config file's folder, not the working directory.
  [
    'tls-not-pem',
    [
      `5:16: targets[0].tls.ca_file: tls-not-pem.yaml (${resolve(INVALID_DIR, 'tls-not-pem.yaml')}) holds no PEM certificate (-----BEGIN CERTIFICATE-----): give the CA certificate(s) in PEM form`,
    ],
  ],
  [
    'tls-missing-file',
    ["5:16: targets[0].tls.ca_file: cannot read /nonexistent/ca.pem: no such file: check the path and the exporter's permissions"],
  ],
  [
    'unknown-key',
    [
      '4:16: targets[0]: unknown key "intervall" (did you mean "interval"?); known keys here: name, url, interval, timeout, health, index, info, platform, evm, proposervm, admin, node_metrics, chain_info, limits, headers, tls, basic_auth',
    ],
  ],
  [
    'unknown-keys-many',
    [
      '4:15: targets[0]: unknown key "platfrom" (did you mean "platform"?), unknown key "k1", unknown key "k2", unknown key "k3", unknown key "k4", and 1 more unknown key; known keys here: name, url, interval, timeout, health, index, info, platform, evm, proposervm, admin, node_metrics, chain_info, limits, headers, tls, basic_auth',
    ],
  ],
  // Credentials (and query, fragment) masked whatever else is wrong with the URL.
  [
    'url-credentials-and-query',
    [
      '3:10: targets[0].url: "http://<secret>@10.0.0.5:9650/?<secret>" carries credentials: move them to basic_auth so they are not logged',
      '5:10: targets[1].url: "http://<secret>@10.0.0.5:99999/" is not a URL: write the node\'s base URL, e.g. http://10.0.0.5:9650',
      '7:10: targets[2].url: "ftp://<secret>@10.0.0.5/" carries credentials: move them to basic_auth so they are not logged',
      '9:10: targets[3].url: "http://<secret>@10.0.0.5:9650/#<secret>" carries credentials: move them to basic_auth so they are not logged',
      '11:10: targets[4].url: "http://10.0.0.5:9650/?<secret>" must not have a query or fragment: give the base URL, the exporter adds /ext/health and /ext/index/…',
      '13:10: targets[5].url: "http://<secret>@10.0.0.5:9650/" is not a URL: write the node\'s base URL, e.g. http://10.0.0.5:9650',
    ],
  ],
  [
    'url-with-credentials',
    ['3:10: targets[0].url: "http://<secret>@10.0.0.5:9650" carries credentials: move them to basic_auth so they are not logged'],
  ],
  ['url-without-scheme', ['3:10: targets[0].url: "10.0.0.5:9650" is not a URL: write the node\'s base URL, e.g. http://10.0.0.5:9650']],
  [
    'yaml-alias-bomb',
    [
      '(top level): YAML aliases (*name) expand to too many copies of their anchors (&name), as in a "billion laughs" attack: write the values out, or use fewer aliases',
    ],
  ],
  ['yaml-duplicate-key', ['4:5: targets[0]: duplicate key "name" (first at line 2): a key may appear once in a map; remove one']],
  [
    'yaml-syntax',
    [
      '4:1: (top level): YAML syntax: Sequence item without - indicator: fix the YAML at this line (indentation, a missing - or quote)',
      '5:1: (top level): YAML syntax: Flow sequence in block collection must be sufficiently indented and end with a ]: fix the YAML at this line (indentation, a missing - or quote)',
    ],
  ],
  ['zero-concurrency', ['2:28: scheduler.max_concurrent_requests: must be at least 1: write a whole number from 1 to 1000000']],
];

/** The problem lines of the error a file gives, without the file name. */
function problemsOf(file: string, env: Record<string, string> = {}): string[] {
  let error: unknown;
  try {
    loadConfigFile(file, env);
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(ConfigError);
  const lines = (error as ConfigError).message.split('\n');
  // The problems; the warnings found in the same pass follow them (warningsOf).
  const end = lines.indexOf('warnings:');
  return lines.slice(1, end < 0 ? undefined : end).map((l) => l.replace(`  ${file}:`, '').trimStart());
}

describe('config: invalid files', () => {
  it('has a table row for every file in the folder', () => {
    const files = readdirSync(INVALID_DIR)
      .map((f) => f.replace(/\.yaml$/, ''))
      .sort();
    expect(INVALID_CASES.map(([name]) => name).sort()).toEqual(files);
  });

  it.each(INVALID_CASES)('%s', (name, expected) => {
    expect(problemsOf(`${INVALID_DIR}/${name}.yaml`)).toEqual(expected);
  });
});

describe('config: valid files', () => {
  it('loads config.example.yaml (every key documented there is accepted)', () => {
    // As shipped: no environment variable to set (the ${NODE_TOKEN} header is commented out).
    const config = loadConfigFile('config.example.yaml', {});
    expect(config.targets.map((t) => t.name)).toEqual(['validator-1', 'rpc-1', 'l1-validator']);
    expect(defined(config.targets[1], 'rpc-1').tls?.ca).toContain('BEGIN CERTIFICATE');
    expect(defined(config.targets[2], 'l1-validator').index.endpoints).toEqual([]);
    expect(config.maxConcurrentRequests).toBe(512);
  });

  it('merges built-in defaults, defaults and per-target overrides; interpolates', () => {
    const config = loadConfigFile('test/fixtures/config/valid/full.yaml', { AVAXEXP_TEST_TOKEN: 'abc' });
    const [a, b] = config.targets;
    expect(a).toEqual({
      name: 'a',
      url: 'http://127.0.0.1:9650',
      intervalMs: 30_000,
      timeoutMs: 3_000,
      health: { enabled: true, tags: ['11111111111111111111111111111111LpoYY'] },
      index: { endpoints: ['C/block'], intervalMs: 30_000 },
      info: { enabled: true, intervalMs: 45_000 },
      platform: { enabled: true, intervalMs: 60_000, subnets: ['2v3qLBtRK4VHC1W1JJMgKYPrSzsXEc83DuWBrhhLKRJXJbiRVA'] },
      evm: { enabled: true, intervalMs: 20_000, chains: ['C'] },
      proposervm: { enabled: true, intervalMs: 60_000, chains: ['2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5'] },
      admin: { enabled: true, intervalMs: 300_000 },
      node_metrics: { enabled: false, intervalMs: 30_000 },
      chain_info: { enabled: true, intervalMs: 60_000 },
      limits: { maxSeriesPerNode: 2000, maxLabelLength: 256 },
      headers: { 'X-Team': 'infra', Authorization: 'Bearer from-defaults' },
    });
    expect(b).toEqual({
      name: 'b',
      url: 'https://proxy.example.internal/nodes/b',
      intervalMs: 60_000,
      timeoutMs: 3_000,
      health: { enabled: true, tags: ['11111111111111111111111111111111LpoYY'] },
      index: { endpoints: [], intervalMs: 120_000 },
      info: { enabled: false, intervalMs: 45_000 },
      platform: { enabled: true, intervalMs: 300_000, subnets: ['2v3qLBtRK4VHC1W1JJMgKYPrSzsXEc83DuWBrhhLKRJXJbiRVA'] },
      evm: { enabled: false, intervalMs: 20_000, chains: ['C'] },
      proposervm: { enabled: true, intervalMs: 60_000, chains: [] },
      admin: { enabled: true, intervalMs: 300_000 },
      node_metrics: { enabled: false, intervalMs: 30_000 },
      chain_info: { enabled: true, intervalMs: 60_000 },
      limits: { maxSeriesPerNode: 2000, maxLabelLength: 128 },
      headers: { 'X-Team': 'infra', authorization: 'Bearer abc', 'X-Price': '$5' },
    });
    expect(config.maxConcurrentRequests).toBe(64);
  });

  const BUILTIN_TARGET = {
    intervalMs: 15_000,
    timeoutMs: 5_000,
    health: { enabled: true, tags: [] },
    index: { endpoints: ['C/block', 'P/block', 'X/block', 'X/tx'], intervalMs: 15_000 },
    info: { enabled: true, intervalMs: 30_000 },
    platform: { enabled: true, intervalMs: 60_000, subnets: [] },
    evm: { enabled: true, intervalMs: 15_000, chains: ['C'] },
    proposervm: { enabled: true, intervalMs: 60_000, chains: [] },
    admin: { enabled: false, intervalMs: 300_000 },
    node_metrics: { enabled: false, intervalMs: 30_000 },
    chain_info: { enabled: true, intervalMs: 60_000 },
    limits: { maxSeriesPerNode: 5000, maxLabelLength: 256 },
    headers: {},
  };

  it('without a file: one node at the default address with the built-in defaults', () => {
    const config = defaultConfig();
    expect(config.targets).toEqual([{ name: 'local', url: 'http://127.0.0.1:9650', ...BUILTIN_TARGET }]);
    expect(config.maxConcurrentRequests).toBe(512);
  });

  it('the built-in default and a file with the same content give the same config (one way in)', () => {
    const fromFile = parseConfigText('targets:\n  - name: local\n    url: http://127.0.0.1:9650\n', 'same.yaml', {});
    expect(fromFile.targets).toEqual(defaultConfig().targets);
  });

  it('a config given as a value passes the same checks as a file', () => {
    expect(() => configFromValue({ defaults: { interval: 5000 }, targets: [{ name: 'a', url: 'http://127.0.0.1:1' }] }, 'demo fleet')).toThrow(
      'demo fleet: defaults.interval: expected a duration string such as 15s, got number 5000',
    );
    const config = configFromValue(
      { defaults: { interval: '5s', timeout: '2s' }, targets: [{ name: 'a', url: 'http://127.0.0.1:1/' }] },
      'demo fleet',
    );
    expect(config).toMatchObject({
      origin: 'demo fleet',
      targets: [{ url: 'http://127.0.0.1:1', intervalMs: 5000, timeoutMs: 2000, index: { intervalMs: 5000 } }],
    });
  });

  it("relative file paths are read from the config file's folder, not the working directory", () => {
    const dir = mkdtempSync(join(tmpdir(), 'avaxexp-config-'));
    try {
      mkdirSync(join(dir, 'secrets'));
      writeFileSync(join(dir, 'secrets', 'pw'), 'from-the-folder\n');
      writeFileSync(
        join(dir, 'config.yaml'),
        'targets:\n  - name: a\n    url: http://127.0.0.1:9650\n    basic_auth: { username: u, password_file: secrets/pw }\n',
      );
      expect(defined(loadConfigFile(join(dir, 'config.yaml'), {}).targets[0], 'the target').basicAuth).toEqual({
        username: 'u',
        password: 'from-the-folder',
      });
      // Under the shipped systemd unit the working directory is /: a relative name must not be read from there.
      expect(process.cwd()).not.toBe(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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

describe('config: the chains of evm and proposervm', () => {
  const withChains = (source: string, chains: string) =>
    `defaults: { ${source}: { chains: ${chains} } }\ntargets:\n  - name: a\n    url: http://127.0.0.1:9650\n`;
  it.each([
    ['evm', 'C-Chain', 'C'],
    ['evm', 'cchain', 'C'],
    ['evm', 'c', 'C'],
    ['proposervm', 'P-Chain', 'P'],
    ['proposervm', 'x_chain', 'X'],
  ])('%s.chains: [%s] is refused, with the alias a node knows', (source, name, alias) => {
    expect(() => parseConfigText(withChains(source, `[${name}]`), 'c.yaml', {})).toThrow(
      `"${name}" is no alias a node knows (every request to /ext/bc/${name}/… would answer 404): the ${alias}-Chain is "${alias}"`,
    );
  });

  it.each([['[C]'], ['[evm]'], ['[2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5]'], ['[my-l1-alias]']])(
    "%s is accepted (an alias, a blockchain ID, or an alias of the node's own)",
    (chains) => {
      expect(parseConfigText(withChains('evm', chains), 'c.yaml', {}).targets).toHaveLength(1);
    },
  );
});

describe('config: warnings', () => {
  const file = (headers: string) => `targets:\n  - name: a\n    url: http://127.0.0.1:9650\n    headers: ${headers}\n`;
  it('an inline credential in headers loads, with a warning that says where and advises ${VAR}', () => {
    const config = parseConfigText(file('{ Authorization: "Bearer abc123", X-Api-Key: k3y, X-Trace: on }'), 'c.yaml', {});
    expect(formatWarnings(config)).toEqual([
      'c.yaml:4:31: targets[0].headers.Authorization: the credential is written inline: whoever reads this file reads it. Write it as "Bearer ${NODE_TOKEN}" and set NODE_TOKEN in the exporter\'s environment (systemd EnvironmentFile=, a Kubernetes Secret as an environment variable); for a user and password, basic_auth with password_file',
      expect.stringMatching(/^c\.yaml:4:59: targets\[0\]\.headers\.X-Api-Key: the credential is written inline: .* Write it as "\$\{NODE_TOKEN\}"/),
    ]);
    // The secret itself is never in the warning.
    expect(formatWarnings(config).join()).not.toContain('abc123');
  });

  it('a credential from the environment (${VAR}) is not warned about', () => {
    const config = parseConfigText(file('{ Authorization: "Bearer ${TOKEN}" }'), 'c.yaml', { TOKEN: 'abc123' });
    expect(config.targets[0]?.headers).toEqual({ Authorization: 'Bearer abc123' });
    expect(formatWarnings(config)).toEqual([]);
  });

  it('an invalid file lists the warnings after its problems, in the same pass', () => {
    expect(warningsOf('test/fixtures/config/invalid/many-mistakes.yaml')).toEqual([
      expect.stringMatching(/^16:31: targets\[2\]\.headers\.Authorization: the credential is written inline/),
    ]);
  });
});

function warningsOf(file: string): string[] {
  try {
    loadConfigFile(file, {});
  } catch (err) {
    const lines = (err as ConfigError).message.split('\n');
    return lines.slice(lines.indexOf('warnings:') + 1).map((l) => l.replace(`  ${file}:`, '').trimStart());
  }
  throw new Error(`${file} loaded`);
}
