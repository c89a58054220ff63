// The config's small pure parts, as tables: CB58 IDs, what an error may echo, paths.
import { describe, expect, it } from 'vitest';
import { decodeCb58 } from '../../src/config/cb58.js';
import { formatPath } from '../../src/config/path.js';
import { quote } from '../../src/config/echo.js';
import { isSecretPath, maskUrl } from '../../src/util/redact.js';
import { keysAt } from '../../src/config/walk.js';
import { configSchema } from '../../src/sources/registry.js';
import { chainList, configSection, enabledKey, sourceKeys } from '../../src/config/source-section.js';
import { z } from 'zod';

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
    [[], ['defaults', 'scheduler', 'l1s', 'targets']],
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
        'node_metrics',
        'chain_info',
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

describe("a source's config section (config/source-section.ts): its keys carry their own defaults", () => {
  it('a key without a built-in default (but `interval`, then the target’s) is refused where the section is declared', () => {
    expect(() =>
      configSection('extra', {
        description: 'x',
        keys: { enabled: enabledKey('x'), depth: z.number().optional().describe('x') },
        defaults: { enabled: true },
      }),
    ).toThrow('config section extra: depth has no built-in default: give it one in defaults');
    expect(() => configSection('extra', { description: 'x', keys: { depth: z.number().optional().describe('x') }, defaults: { depth: 1 } })).toThrow(
      'config section extra: no `enabled` key: say what turns the source on (enabled)',
    );
  });

  it('resolves and shows itself: `interval` as intervalMs (the target’s when left out), durations written back as durations', () => {
    const section = configSection('extra', {
      description: 'x',
      keys: { ...sourceKeys({ enabled: 'x', interval: 'x' }), chains: chainList('[C]', 'x') },
      defaults: { enabled: true, chains: ['C'] },
      enabled: (s) => s.enabled && s.chains.length > 0,
    });
    const chains = ['C'];
    const settings = section.resolve({ enabled: true, chains }, 15_000);
    expect(settings).toEqual({ enabled: true, intervalMs: 15_000, chains: ['C'] });
    const shown = section.show(settings);
    expect(shown).toEqual({ enabled: true, interval: '15s', chains: ['C'] });
    // A copy: targets share their defaults' lists, which YAML would write as anchors.
    expect(shown.chains).not.toBe(chains);
  });
});
