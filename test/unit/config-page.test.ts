// /config is written as the config file is: snake_case keys, durations as durations, no YAML
// anchors (targets share their defaults' lists), every secret redacted, and what it shows
// loads back through the config schema to the same settings.
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadConfigFile, parseConfigText } from '../../src/sources/registry.js';
import type { TargetConfig } from '../../src/config/schema.js';
import { MAX_TARGETS_SHOWN, configYaml } from '../../src/server/config-page.js';
import { REDACTED } from '../../src/util/redact.js';

const full = () => loadConfigFile('test/fixtures/config/valid/full.yaml', { AVAXEXP_TEST_TOKEN: 'tok-secret-9' });

/** Every mapping key of a parsed YAML value. */
function keys(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keys);
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => [k, ...keys(v)]);
  return [];
}

describe('/config in the config file format', () => {
  it('snake_case keys, durations as durations, no anchors or aliases', () => {
    const text = configYaml(full());
    expect(text).not.toMatch(/[&*]a\d/);
    const doc = parseYaml(text) as { scheduler: unknown; targets: Array<Record<string, unknown>> };
    // Header names are the user's own: every other key is the schema's snake_case.
    const ours = keys({ ...doc, targets: doc.targets.map(({ headers: _h, ...t }) => t) });
    expect(ours.filter((k) => /[A-Z]/.test(k))).toEqual([]);
    expect(ours).not.toContain('intervalMs');
    expect(doc.scheduler).toEqual({ max_concurrent_requests: 64 });
    expect(doc.targets[0]).toMatchObject({
      name: 'a',
      url: 'http://127.0.0.1:9650',
      interval: '30s',
      timeout: '3s',
      health: { enabled: true, tags: ['11111111111111111111111111111111LpoYY'] },
      index: { endpoints: ['C/block'], interval: '30s' },
      info: { enabled: true, interval: '45s' },
      platform: { enabled: true, interval: '1m', subnets: ['2v3qLBtRK4VHC1W1JJMgKYPrSzsXEc83DuWBrhhLKRJXJbiRVA'] },
      admin: { enabled: true, interval: '5m' },
      limits: { max_series_per_node: 2000, max_label_length: 256 },
    });
    expect(doc.targets[1]).toMatchObject({ interval: '1m', index: { endpoints: [], interval: '2m' }, platform: { interval: '5m' } });
  });

  it('redacts header values and passwords', () => {
    const text = configYaml(full());
    expect(text).not.toContain('tok-secret-9');
    expect(text).not.toContain('from-defaults');
    expect(text).not.toContain('infra');
    const doc = parseYaml(text) as { targets: Array<{ headers: Record<string, string> }> };
    expect(doc.targets[1]?.headers).toEqual({ 'X-Team': REDACTED, authorization: REDACTED, 'X-Price': REDACTED });
  });

  it('redacts a basic-auth password and keeps the user name', () => {
    // full.yaml cannot hold basic_auth beside its headers.Authorization (refused at load), so a config of its own.
    const config = parseConfigText(
      'targets:\n  - name: a\n    url: http://10.0.0.1:9650\n    basic_auth: { username: monitor, password: pw-secret-7 }\n',
      'auth.yaml',
      {},
    );
    const text = configYaml(config);
    expect(text).not.toContain('pw-secret-7');
    const doc = parseYaml(text) as { targets: Array<{ basic_auth?: { username: string; password: string } }> };
    expect(doc.targets[0]?.basic_auth).toEqual({ username: 'monitor', password: REDACTED });
  });

  it('loads back through the config schema to the same settings (secrets aside)', () => {
    const config = full();
    const again = parseConfigText(configYaml(config), '/config', {});
    const plain = (t: TargetConfig) => ({ ...t, headers: Object.keys(t.headers), basicAuth: t.basicAuth?.username });
    expect(again.targets.map(plain)).toEqual(config.targets.map(plain));
    expect(again.maxConcurrentRequests).toBe(config.maxConcurrentRequests);
  });

  it('a fleet past the shown targets says how many are not shown', () => {
    const targets = Array.from(
      { length: MAX_TARGETS_SHOWN + 3 },
      (_, i) => `  - name: n${i}\n    url: http://10.0.0.${(i % 250) + 1}:9650/p${i}\n`,
    ).join('');
    const text = configYaml(parseConfigText(`targets:\n${targets}`, 'big.yaml', {}));
    expect((parseYaml(text) as { targets: unknown[] }).targets).toHaveLength(MAX_TARGETS_SHOWN);
    expect(text).toContain(`# 3 more targets not shown (the first ${MAX_TARGETS_SHOWN} are)`);
  });
});
