// The soak at CI size (bench/soak.mjs, about two minutes): 100 nodes under churn (a reload every 5 s that removes,
// adds and renames targets and rotates a TLS setting; scenario flips; debug probes; bad scrapes; scrapes back to
// back), then the original config and nodes again, twice. After each return, the series and every keyed count the
// exporter keeps are back at their baseline exactly; the heap after a full collection is within 5 % of its warm value
// (the first return, after the warm-up churn); descriptors other than sockets to the nodes, and timers, are back at
// their baseline. It fails when a reload leaves one target's state behind (a poll loop, a label set, a pool …).
// Runs the built exporter and simulator (dist/) as child processes, in their own process group.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';

const ARGS = [
  '--nodes=100',
  '--minutes=1',
  // Long enough that 100 nodes with every source do not saturate a busy 2-core machine (at 3 s and 6 s one did: a
  // baseline of polls skipped is no baseline).
  '--interval=5s',
  '--slow-interval=10s',
  '--index=C/block',
  '--peers=50',
  '--reload-every=5s',
  '--sample-every=20s',
  '--restore-every=30s',
  '--warmup=25s',
];

let soak: ChildProcess | undefined;
afterAll(async () => {
  const s = soak;
  if (!s?.pid || s.exitCode !== null || s.signalCode !== null) return;
  // The soak stops its exporter and simulator on SIGTERM; the group, in case it cannot.
  process.kill(-s.pid, 'SIGTERM');
  const exited = new Promise((r) => s.once('exit', r));
  const timer = setTimeout(() => {
    if (s.pid && s.exitCode === null) process.kill(-s.pid, 'SIGKILL');
  }, 15_000);
  await exited;
  clearTimeout(timer);
});

interface Restore {
  phase: 'restore';
  why: string;
  matched: boolean;
  diff: Record<string, [unknown, unknown]>;
  heap_after_gc_mb: number;
  fds_other: number;
  timers_other: number;
}

interface Goal {
  met: boolean | null;
}

interface Summary {
  summary: true;
  goals: {
    heap: Goal & { pct_per_hour: number; limit_pct_per_hour: number; why_not_judged?: string };
    flat: Goal & { deltas: Record<string, number> };
    returns_exact: Goal & { restores: number; matched: number };
    all_met: boolean;
  };
  reloads: number;
  scenario_flips: number;
  restores: number;
  baseline_steady: boolean;
  series_baseline_restored: boolean;
  state_baseline_restored: boolean;
  heap_restore_vs_warm_pct: number;
  heap_samples: number;
  heap_slope_given_state_halves: Array<{ from_minute: number; to_minute: number; samples: number }>;
  fd_other_delta: number;
  baseline: { fds_other_kinds: Record<string, number> };
  last_restore: { fds_other_kinds: Record<string, number> };
  timer_other_delta: number;
  scrape_errors: number;
}

describe('the soak at CI size (bench/soak.mjs)', () => {
  it.skipIf(!existsSync('dist/main.js'))(
    'after churn and the original config again, the series and every keyed count are back, the heap within 5 %, descriptors and timers back',
    async () => {
      const child = spawn(process.execPath, ['bench/soak.mjs', ...ARGS], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      soak = child;
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
      expect(code, `bench/soak.mjs failed:\n${err.slice(-3000)}`).toBe(0);
      const lines = out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const restores = lines.filter((l): l is Restore & Record<string, unknown> => l.phase === 'restore');
      const summary = lines.at(-1) as Summary | undefined;
      expect(summary?.summary, out.slice(-2000)).toBe(true);
      if (!summary) return;
      // Churn before each return (a reload waits for the exporter to serve it: fewer than 12 on a busy machine).
      expect(summary.reloads, out).toBeGreaterThanOrEqual(4);
      expect(summary.scenario_flips, out).toBeGreaterThanOrEqual(20);
      expect(summary.restores).toBe(2);
      expect(summary.baseline_steady, `the baseline: every source polled, no poll skipped\n${out}`).toBe(true);
      // Each return to the original config: every count back, else what was not (the baseline's and the value).
      for (const r of restores) expect({ why: r.why, diff: r.diff }).toEqual({ why: r.why, diff: {} });
      expect(summary.series_baseline_restored).toBe(true);
      expect(summary.state_baseline_restored).toBe(true);
      expect(Math.abs(summary.heap_restore_vs_warm_pct), 'the heap after collection against its warm value (%)').toBeLessThanOrEqual(5);
      expect(
        summary.fd_other_delta,
        `descriptors other than sockets to the nodes and the soak's own connections to the exporter, by kind: ${JSON.stringify(summary.baseline.fds_other_kinds)} at the baseline, ${JSON.stringify(summary.last_restore.fds_other_kinds)} at the last return`,
      ).toBe(0);
      expect(summary.timer_other_delta, 'timers other than the deadlines of polls under way').toBe(0);
      // The goals as the summary states them: the returns', and the heap's not judged on a run this short (its line is
      // set for 60 minutes), so not all met.
      expect(summary.goals.returns_exact).toEqual({ restores: 2, matched: 2, met: true });
      expect(summary.goals.flat.deltas.fd_other).toBe(summary.fd_other_delta);
      expect(summary.goals.flat.deltas.timer_other).toBe(summary.timer_other_delta);
      expect(summary.goals.heap.met).toBeNull();
      expect(summary.goals.heap.why_not_judged).toMatch(/^a 1-minute run, \d+ samples after the warm-up/);
      expect(summary.goals.all_met).toBe(false);
      expect(summary.scrape_errors).toBe(0);
      // The line of each half of the samples after the warm-up (none at this size, or a few): every sample in one half.
      const [first, second] = summary.heap_slope_given_state_halves;
      expect(summary.heap_slope_given_state_halves).toHaveLength(2);
      expect((first?.samples ?? 0) + (second?.samples ?? 0)).toBe(summary.heap_samples);
      if (first?.samples && second?.samples) expect(first.to_minute).toBeLessThan(second.from_minute);
    },
    600_000,
  );
});
