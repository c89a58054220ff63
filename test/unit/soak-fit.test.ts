// The soak's fits (bench/lib.mjs): the plain line and the line with the sample's state held constant. A soak's heap
// moves with the state a sample was taken in; when that state drifts with time, the plain line takes the drift for
// growth and the fit given the state does not.
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs module without types (its JSDoc types are checked where bench/ is)
import * as lib from '../../bench/lib.mjs';

/** What the fits return (bench/lib.mjs). */
interface Fit {
  slope: number;
  slopeStd: number;
  mean: number;
  residualStd: number;
  n: number;
}
const { fitGiven, linearFit } = lib as {
  fitGiven: (points: ReadonlyArray<readonly number[]>) => Fit;
  linearFit: (points: ReadonlyArray<readonly [number, number]>) => Fit;
};

describe("the soak's fits", () => {
  it('a line: its slope, the slope’s standard error, the mean and the spread', () => {
    const exact = linearFit([
      [0, 1],
      [1, 3],
      [2, 5],
    ]);
    expect(exact).toMatchObject({ slope: 2, slopeStd: 0, mean: 3, residualStd: 0, n: 3 });
    const noisy = linearFit([
      [0, 1],
      [1, 2.9],
      [2, 5.2],
      [3, 7],
    ]);
    expect(noisy.slope).toBeCloseTo(2.03, 6);
    expect(noisy.slopeStd).toBeCloseTo(0.0656, 3);
    // Two points: the line through them, no spread to tell; fewer: nothing.
    expect(
      linearFit([
        [1, 2],
        [2, 4],
      ]),
    ).toMatchObject({ slope: 2, n: 2 });
    expect(Number.isNaN(linearFit([[1, 2]]).slope)).toBe(true);
  });

  it('given the state: a heap that only follows its state has no slope, though the state drifts with time', () => {
    // 60 samples over 60 minutes; the heap is 100 MiB plus 20 bytes a label set and nothing with time, and the label
    // sets rise by chance more late than early.
    const points = Array.from({ length: 60 }, (_, m) => {
      const sets = 12_000 + (m % 7) * 500 + m * 30;
      const series = 180_000 + (m % 5) * 8_000;
      return [m, 100 * 2 ** 20 + 20 * sets + 3 * series + ((m * 7919) % 13) * 1_000, series, sets];
    });
    const plain = linearFit(points.map(([m, h]) => [m ?? 0, h ?? 0]));
    const given = fitGiven(points);
    // The plain line reads the drift of the state as growth: 600 bytes a minute, 36 KiB an hour.
    expect(plain.slope).toBeGreaterThan(400);
    expect(Math.abs(given.slope)).toBeLessThan(3 * given.slopeStd + 10);
    expect(given.residualStd).toBeLessThan(plain.residualStd);
  });

  it('given the state: growth with time is kept', () => {
    const points = Array.from({ length: 40 }, (_, m) => {
      const sets = 12_000 + ((m * 31) % 9) * 400;
      return [m, 100e6 + 5_000 * m + 20 * sets + ((m * 13) % 5) * 100, sets];
    });
    const given = fitGiven(points);
    expect(given.slope).toBeCloseTo(5_000, -1);
    expect(given.slopeStd).toBeLessThan(50);
  });

  it('given the backlog: samples taken with requests queued do not read as growth, and a covariate that never moves is left out', () => {
    // 40 samples; each request queued or in flight holds 4 KiB, and the later samples fall in a backlog (as a
    // saturated 1,000-node run's did). Nothing grows with time.
    const points = Array.from({ length: 40 }, (_, m) => {
      const sets = 12_000 + ((m * 31) % 9) * 400;
      const backlog = m >= 30 && m % 2 === 0 ? 1_000 + m * 50 : 0;
      return [m, 110 * 2 ** 20 + 20 * sets + 4_096 * backlog + ((m * 13) % 5) * 1_000, sets, backlog];
    });
    const withoutBacklog = fitGiven(points.map((p) => p.slice(0, 3)));
    const withBacklog = fitGiven(points);
    expect(withoutBacklog.slope).toBeGreaterThan(50_000);
    expect(Math.abs(withBacklog.slope)).toBeLessThan(3 * withBacklog.slopeStd + 10);
    // No backlog in any sample: the column is constant, left out, and the fit is the one without it (not NaN).
    const quiet = points.map(([m, h, sets]) => [m ?? 0, h ?? 0, sets ?? 0]);
    const withZeros = fitGiven(quiet.map((p) => [...p, 0]));
    expect(withZeros).toEqual(fitGiven(quiet));
    expect(Number.isNaN(withZeros.slope)).toBe(false);
  });
});
