// One decision for a stake's end: the windows the status pages use (src/metrics/stake-expiry.ts)
// are the AvalancheGoValidatorStakeExpiring rules' and their runbook's, read here from the files.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { MIN_STAKE_WINDOWS, STAKE_EXPIRY_WINDOWS, stakeExpiry } from '../../src/metrics/stake-expiry.js';

const ALERT = 'AvalancheGoValidatorStakeExpiring';
const H = 3_600;
const D = 24 * H;

/** "7 * 86400", "3600": a product of integers, as the rules write a duration. */
function seconds(text: string): number {
  return text
    .split('*')
    .map((f) => Number(f.trim()))
    .reduce((a, b) => a * b, 1);
}

interface RuleWindow {
  label: string;
  severity: string;
  withinSeconds: number;
  minStakeSeconds: number;
  autoRenewLeftOut: boolean;
}

function rulesWindows(): RuleWindow[] {
  const doc = parse(readFileSync('deploy/prometheus/avalanchego-alerts.yml', 'utf8')) as {
    groups: Array<{ rules: Array<{ alert?: string; expr: string; labels?: Record<string, string> }> }>;
  };
  return doc.groups
    .flatMap((g) => g.rules)
    .filter((r) => r.alert === ALERT)
    .map((r) => {
      const within = /avalanchego_validator_end_timestamp_seconds - time\(\) < ([\d\s*]+)/.exec(r.expr)?.[1];
      const length = /avalanchego_validator_end_timestamp_seconds - avalanchego_validator_start_timestamp_seconds >= ([\d\s*]+)\)/.exec(r.expr)?.[1];
      expect(within, r.expr).toBeDefined();
      expect(length, r.expr).toBeDefined();
      return {
        label: r.labels?.['window'] ?? '',
        severity: r.labels?.['severity'] ?? '',
        withinSeconds: seconds(within ?? ''),
        minStakeSeconds: seconds(length ?? ''),
        autoRenewLeftOut: /unless on \([^)]*\) \(avalanchego_validator_auto_renew == 1\)/.test(r.expr),
      };
    });
}

/** "7d", "14d", "1h": the runbook's durations. */
function duration(text: string): number {
  const m = /^(\d+)([dh])$/.exec(text);
  expect(m, text).not.toBeNull();
  return Number(m?.[1]) * (m?.[2] === 'd' ? D : H);
}

function runbookWindows(): Array<Omit<RuleWindow, 'autoRenewLeftOut'>> {
  return readFileSync('docs/runbook.md', 'utf8')
    .split('\n')
    .filter((l) => l.startsWith(`| ${ALERT} |`))
    .map((l) => {
      const [, , severity = '', condition = ''] = l.split('|').map((c) => c.trim());
      const m = /ends in < (\d+[dh]) \((?:label )?`window: (\w+)`\), the stake lasts ≥ (\d+[dh])/.exec(condition);
      expect(m, l).not.toBeNull();
      return { label: m?.[2] ?? '', severity, withinSeconds: duration(m?.[1] ?? ''), minStakeSeconds: duration(m?.[3] ?? '') };
    });
}

const expected = STAKE_EXPIRY_WINDOWS.map((w) => ({
  label: w.label,
  severity: w.severity,
  withinSeconds: w.withinSeconds,
  minStakeSeconds: w.minStakeSeconds,
}));

describe('the stake-expiry windows: one decision for the rules, their runbook and the pages', () => {
  it('are the rules file’s, each leaving auto-renewing validators out', () => {
    const rules = rulesWindows();
    expect(rules.map(({ autoRenewLeftOut: _, ...w }) => w)).toEqual(expected);
    expect(rules.every((r) => r.autoRenewLeftOut)).toBe(true);
  });

  it("are the runbook's", () => {
    expect(runbookWindows()).toEqual(expected);
  });

  it('apply to stakes at least twice their length', () => {
    for (const w of STAKE_EXPIRY_WINDOWS) expect(w.minStakeSeconds).toBe(MIN_STAKE_WINDOWS * w.withinSeconds);
  });

  // The runbook's "Short stakes": a 12h Fuji stake gets only the 1h page, a 48h Mainnet stake the 1d page from its 24th hour.
  it.each<[string, number, number, string | undefined]>([
    ['a 12 h stake, first minute', 12 * H, 12 * H - 60, undefined],
    ['a 12 h stake, 61 minutes left', 12 * H, 61 * 60, undefined],
    ['a 12 h stake, 59 minutes left', 12 * H, 59 * 60, '1h'],
    ['a 48 h stake, first minute', 48 * H, 48 * H - 60, undefined],
    ['a 48 h stake, 24 h 1 m left', 48 * H, 24 * H + 60, undefined],
    ['a 48 h stake, 23 h 59 m left', 48 * H, 24 * H - 60, '1d'],
    ['a 48 h stake, 30 minutes left', 48 * H, 30 * 60, '1h'],
    ['a 14 d stake, 6 days left', 14 * D, 6 * D, '7d'],
    ['a 13 d stake, 6 days left', 13 * D, 6 * D, undefined],
    ['a 1 h stake, 10 minutes left', H, 10 * 60, undefined],
  ])('%s', (_what, length, left, window) => {
    const now = 1_800_000_000;
    expect(stakeExpiry({ startSeconds: now + left - length, endSeconds: now + left }, now)?.label).toBe(window);
  });

  it('leaves out a stake that renews itself, and one whose start is unknown (the rule needs both times)', () => {
    const now = 1_800_000_000;
    expect(stakeExpiry({ startSeconds: now - 30 * D, endSeconds: now + 60, autoRenew: true }, now)).toBeUndefined();
    expect(stakeExpiry({ endSeconds: now + 60 }, now)).toBeUndefined();
  });
});
