// The rule files on VictoriaMetrics: `vmalert -dryRun` parses each as MetricsQL (and its
// templates), and `vmalert-tool unittest` runs every promtool test file, translated by
// toVmalertTool (test/rules/vmalert-tool.ts): the same rules and the same expectations as
// promtool's, save the VM_DIFFERENCES listed there with their cause. Every test file in
// deploy/prometheus/tests is picked up. Under CI a missing binary fails, elsewhere the tests
// that need it are skipped with the reason.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_CI, ROOT, RULES_DIR, allRules, recordingRules, ruleFilePaths, ruleTestPaths, wrongExpectationTest } from './lib.js';
import { missingOf, victoriaMetrics } from '../helpers/monitoring.js';
import {
  VMALERT_TOOL_ARGS,
  VMALERT_TOOL_EPOCH,
  VM_DIFFERENCES,
  joinsWithoutOn,
  shiftValues,
  toVmalertTool,
  type VmDifference,
} from './vmalert-tool.js';

const vm = victoriaMetrics();

/** Runs a VictoriaMetrics tool with its temporary files (vmalert-tool's storage) in `tmp`, removed by the caller. */
function runVm(bin: string, args: string[], tmp: string, timeoutMs = 120_000): { code: number | null; output: string } {
  const r = spawnSync(bin, args, { encoding: 'utf8', timeout: timeoutMs, cwd: ROOT, env: { ...process.env, TMPDIR: tmp } });
  return { code: r.status, output: `$ ${bin} ${args.join(' ')}\n${r.stdout}${r.stderr}${r.error ? `\n${String(r.error)}` : ''}` };
}

describe('the translation of promtool tests for vmalert-tool', () => {
  it('moves timestamps in every value notation', () => {
    expect(shiftValues('0+60x20', 10)).toBe('10+60x20');
    expect(shiftValues('_ _ 120+60x18', 10)).toBe('_ _ 130+60x18');
    expect(shiftValues('1000x3 _x2 stale 5-1x4 -7 1.5e3', 10)).toBe('1010+0x3 _x2 stale 15-1x4 3 1510');
    expect(() => shiftValues('1+', 10)).toThrow(/cannot move the value "1\+"/);
  });

  it('renames promql_expr_test, makes rule_files absolute, moves timestamps and nothing else', () => {
    const path = join(RULES_DIR, 'tests', 'x.test.yml');
    const out = toVmalertTool(
      path,
      [
        'rule_files: [../avalanchego-alerts.yml]',
        'tests:',
        '  - input_series:',
        "      - {series: 'avalanchego_validator_end_timestamp_seconds{node=\"v1\"}', values: '100x3'}",
        "      - {series: 'avalanchego_up{node=\"v1\"}', values: '1x3'}",
        '    promql_expr_test:',
        '      - {expr: x, eval_time: 1m, exp_samples: [{labels: \'job:avalanchego_next_upgrade_timestamp_seconds:min{job="j"}\', value: 5}]}',
        '',
      ].join('\n'),
    );
    expect(out).toContain(`- ${join(RULES_DIR, 'avalanchego-alerts.yml')}`);
    expect(out).toContain(`values: ${VMALERT_TOOL_EPOCH + 100}+0x3`);
    expect(out).toContain('values: 1x3');
    expect(out).toContain('metricsql_expr_test:');
    expect(out).not.toContain('promql_expr_test');
    expect(out).toContain(`value: ${VMALERT_TOOL_EPOCH + 5}`);
  });

  it('every join of a recorded series with a scraped one names its labels (on), as vmalert labels what it records with -external.label', () => {
    const recorded = new Set(recordingRules().map((r) => r.record as string));
    expect(joinsWithoutOn('(a - on (x) b) and min_over_time(c:d:e[10m]) > 100', new Set(['c:d:e']))).toEqual([
      '(a - on (x) b) and min_over_time(c:d:e[10m]) > 100',
    ]);
    expect(joinsWithoutOn('a < on (x) (c:d:e + 0.05) unless on (x) c:d:e == 0', new Set(['c:d:e']))).toEqual([]);
    const found = allRules().flatMap((r) => joinsWithoutOn(r.expr, recorded).map((j) => `${r.alert ?? r.record}: ${j}`));
    expect(found).toEqual([]);
  });

  it('every listed VictoriaMetrics difference names a case and text of a test file, with its cause', () => {
    const applied = new Set<VmDifference>();
    for (const path of ruleTestPaths()) toVmalertTool(path, readFileSync(path, 'utf8'), applied);
    expect(VM_DIFFERENCES.filter((d) => !applied.has(d)).map((d) => `${d.file} "${d.test}" ${d.alertname} at ${d.evalTime}: "${d.promql}"`)).toEqual(
      [],
    );
    for (const d of VM_DIFFERENCES) expect(d.cause.length, d.promql).toBeGreaterThan(40);
  });
});

describe(`${vm.label}: vmalert and vmalert-tool`, () => {
  const missing = missingOf(vm.vmalert, vm.vmalertTool);
  it('is installed (required under CI=true)', (ctx) => {
    if (missing && !IN_CI) ctx.skip(missing);
    expect(missing).toBe('');
  });

  describe.skipIf(missing !== '')(`${vm.vmalert.version}; ${vm.vmalertTool.version}`, () => {
    let tmp = '';
    beforeAll(() => {
      tmp = mkdtempSync(join(tmpdir(), 'avalanchego-vmalert-tool-'));
    });
    afterAll(() => {
      if (tmp) rmSync(tmp, { recursive: true, force: true });
    });
    const vmalert = vm.vmalert.path ?? 'vmalert';
    const tool = vm.vmalertTool.path ?? 'vmalert-tool';

    it.each(ruleFilePaths().map((p) => [basename(p), p]))('vmalert -dryRun parses %s as MetricsQL', (_name, path) => {
      const r = runVm(vmalert, ['-dryRun', `-rule=${path}`, '-loggerLevel=ERROR'], tmp);
      expect(r.code, r.output).toBe(0);
    });

    it.each(ruleTestPaths().map((p) => [basename(p), p]))(
      'vmalert-tool unittest %s',
      (name, path) => {
        const file = join(tmp, name);
        writeFileSync(file, toVmalertTool(path, readFileSync(path, 'utf8')));
        const r = runVm(tool, [...VMALERT_TOOL_ARGS, `--files=${file}`], tmp);
        expect(r.code, r.output).toBe(0);
        expect(r.output).toContain('SUCCESS');
        expect(r.output).not.toContain('FAILED');
      },
      120_000,
    );

    it('vmalert-tool fails on a wrong expectation (the harness can fail)', () => {
      // As promtool's (test/rules/promtool.test.ts), through the translation.
      const file = join(tmp, 'wrong.test.yml');
      writeFileSync(file, toVmalertTool(join(RULES_DIR, 'tests', 'wrong.test.yml'), wrongExpectationTest('../avalanchego-alerts.yml')));
      const r = runVm(tool, [...VMALERT_TOOL_ARGS, `--files=${file}`], tmp);
      expect(r.code, r.output).not.toBe(0);
      expect(r.output).toContain('FAILED');
    });
  });
});
