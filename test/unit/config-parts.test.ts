// The config's small pure parts, as tables: CB58 IDs, what an error may echo, paths.
import { describe, expect, it } from 'vitest';
import { decodeCb58 } from '../../src/config/cb58.js';
import { formatPath } from '../../src/config/path.js';
import { quote } from '../../src/config/echo.js';
import { isSecretPath, maskUrl } from '../../src/util/redact.js';
import { keysAt } from '../../src/config/walk.js';
import { configSchema } from '../../src/sources/registry.js';

describe('CB58', () => {
  it.each([
    ['11111111111111111111111111111111LpoYY', 32],
    // Block IDs recorded from a real node.
    ['2Xy1mbEtfD6E3AWmeWYJhz8bhXL8XtwXvWtk4V7Sqr2nE6bFHr', 32],
    ['2WmxHfGsVGrKB749ZdwdMsx8GbmD2nwbBRcxb81m6z7JsrzYKX', 32],
  ])('decodes %s', (text, length) => {
    const r = decodeCb58(text);
    expect('bytes' in r && r.bytes.length).toBe(length);
  });

  it.each([
    ['2Xy1mbEtfD6E3AWmeWYJhz8bhXL8XtwXvWtk4V7Sqr2nE6bFHs', 'its checksum does not match (a character is wrong or missing)'],
    ['2Xy1mbEtfD6E3AWmeWYJhz8bhXL8XtwXvWtk4V7Sqr2nE6bFH', 'its checksum does not match (a character is wrong or missing)'],
    ['NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', '"I" is not a base58 character (0, O, I and l are not used)'],
    ['', 'too short to hold an ID and its checksum'],
    ['1111', 'too short to hold an ID and its checksum'],
  ])('refuses %j', (text, error) => {
    expect(decodeCb58(text)).toEqual({ error });
  });
});

describe('what a config error may echo', () => {
  it.each([
    ['http://10.0.0.5:9650', 'http://10.0.0.5:9650'],
    ['http://user:pw@10.0.0.5:9650/', 'http://<secret>@10.0.0.5:9650/'],
    ['http://user:pw@10.0.0.5:99999/', 'http://<secret>@10.0.0.5:99999/'],
    ['ftp://user:pw@host/', 'ftp://<secret>@host/'],
    ['user:pw@host:9650', '<secret>@host:9650'],
    // A password with / ? # or @ in it: everything up to the last @ is masked.
    ['http://user:p/w?x#y@host/', 'http://<secret>@host/'],
    ['http://u:p@w@host/', 'http://<secret>@host/'],
    ['http://host/?token=abc', 'http://host/?<secret>'],
    ['http://host/#token=abc', 'http://host/#<secret>'],
    ['http://user:pw@host/?token=abc#frag', 'http://<secret>@host/?<secret>'],
  ])('maskUrl(%j) = %j', (text, shown) => {
    expect(maskUrl(text)).toBe(shown);
  });

  it('quote cuts long values', () => {
    expect(quote('x'.repeat(1000))).toBe(`"${'x'.repeat(80)}…"`);
    expect(quote('15 seconds')).toBe('"15 seconds"');
  });

  it.each([
    [['targets', 0, 'basic_auth', 'password'], true],
    [['defaults', 'headers', 'Authorization'], true],
    [['targets', 3, 'headers'], true],
    [['targets', 0, 'url'], false],
    [['defaults', 'interval'], false],
  ] as const)('isSecretPath(%j) = %s', (path, secret) => {
    expect(isSecretPath(path)).toBe(secret);
  });

  it('formatPath writes YAML paths and cuts long keys', () => {
    expect(formatPath(['targets', 1, 'health', 'tags', 0])).toBe('targets[1].health.tags[0]');
    expect(formatPath([])).toBe('(top level)');
    expect(formatPath(['defaults', 'headers', 'k'.repeat(500)])).toBe(`defaults.headers.${'k'.repeat(80)}…`);
  });
});

describe('schema walker', () => {
  it.each([
    [[], ['defaults', 'scheduler', 'targets']],
    [
      ['targets', 4],
      [
        'name',
        'url',
        'interval',
        'timeout',
        'health',
        'index',
        'info',
        'platform',
        'evm',
        'proposervm',
        'admin',
        'limits',
        'headers',
        'tls',
        'basic_auth',
      ],
    ],
    [
      ['defaults', 'platform'],
      ['enabled', 'interval', 'subnets'],
    ],
    [
      ['defaults', 'limits'],
      ['max_series_per_node', 'max_label_length'],
    ],
    [['defaults', 'headers'], []],
    [['nothing', 'here'], []],
  ] as const)('keys at %j', (path, keys) => {
    expect(keysAt(configSchema, path)).toEqual(keys);
  });
});
