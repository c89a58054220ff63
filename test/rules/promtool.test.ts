// promtool on the rule files: `check rules` on each, `test rules` on the unit tests, and
// the tests' coverage (every alert and severity fires in a case, every alert has a case
// where it must stay silent). Both promtool generations run them: Prometheus 3 (built from
// the Go module proxy, test/helpers/monitoring.ts) and Debian's 2.42, the oldest supported.
// Under CI a missing promtool fails, elsewhere its tests are skipped with the reason.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IN_CI, RULES_DIR, alertCases, alertRules, ruleFilePaths, ruleTestPaths, run, wrongExpectationTest } from './lib.js';
import { prometheusGenerations } from '../helpers/monitoring.js';

describe.each(prometheusGenerations().map((g) => [g.label, g.promtool] as const))('promtool (%s)', (_label, promtool) => {
  const bin = promtool.path ?? 'promtool';
  it('is installed (required under CI=true)', (ctx) => {
    if (!promtool.path && !IN_CI) ctx.skip(promtool.missing);
    expect(promtool.missing).toBe('');
  });

  describe.skipIf(!promtool.path)(`rules (${promtool.version})`, () => {
    it.each(ruleFilePaths().map((p) => [basename(p), p]))('check rules %s', (_name, path) => {
      const r = run(bin, ['check', 'rules', path]);
      expect(r.code, r.output).toBe(0);
    });

    it.each(ruleTestPaths().map((p) => [basename(p), p]))(
      'test rules %s',
      (_name, path) => {
        const r = run(bin, ['test', 'rules', path], 120_000);
        expect(r.code, r.output).toBe(0);
        expect(r.output).toContain('SUCCESS');
      },
      120_000,
    );

    it('test rules fails on a wrong expectation (the harness can fail)', () => {
      const dir = mkdtempSync(join(tmpdir(), 'avalanchego-rules-'));
      try {
        const file = join(dir, 'wrong.test.yml');
        writeFileSync(file, wrongExpectationTest(join(RULES_DIR, 'avalanchego-alerts.yml')));
        const r = run(bin, ['test', 'rules', file]);
        expect(r.code, r.output).not.toBe(0);
        expect(r.output).toContain('FAILED');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});

describe('promtool test coverage', () => {
  const cases = alertCases();
  const alerts = alertRules();
  const pairs = [...new Set(alerts.map((a) => `${a.alert} ${a.labels?.severity}`))].map((s) => s.split(' ') as [string, string]);

  it.each(pairs)('%s (%s) fires in at least one case', (name, severity) => {
    const firing = cases.filter((c) => c.alertname === name && c.expAlerts.some((a) => a.exp_labels?.severity === severity));
    expect(firing.length, `no alert_rule_test expects ${name} with severity ${severity} to fire`).toBeGreaterThan(0);
  });

  it.each([...new Set(alerts.map((a) => a.alert as string))])('%s has a case where it must not fire', (name) => {
    const silent = cases.filter((c) => c.alertname === name && c.expAlerts.length === 0);
    expect(silent.length, `no alert_rule_test expects ${name} to stay silent (exp_alerts: [])`).toBeGreaterThan(0);
  });

  it('every alert_rule_test names an alert that exists', () => {
    const names = new Set(alerts.map((a) => a.alert));
    const unknown = cases.filter((c) => !names.has(c.alertname)).map((c) => `${basename(c.file)}: ${c.alertname}`);
    expect(unknown).toEqual([]);
  });

  it('every test file loads both rule files', () => {
    for (const file of ruleTestPaths()) {
      const text = readFileSync(file, 'utf8');
      expect(text, basename(file)).toContain('../avalanchego-alerts.yml');
      expect(text, basename(file)).toContain('../avalanchego-recording.yml');
    }
  });
});
