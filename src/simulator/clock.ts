// Two clocks: the wall clock (nanoseconds, for every timestamp a node
// reports, so a client's freshness arithmetic stays true) and the scenario
// clock (milliseconds since the simulator started, running `timeScale`
// times faster than real time, for heights and scenario timelines).

export class SimClock {
  private readonly startEpochNs: bigint;
  private readonly startHr: bigint;

  constructor(readonly timeScale: number) {
    if (!(timeScale > 0) || !Number.isFinite(timeScale)) throw new Error(`time scale must be a positive number, got ${timeScale}`);
    this.startHr = process.hrtime.bigint();
    // Date.now() has millisecond resolution; hrtime supplies the digits below.
    this.startEpochNs = BigInt(Date.now()) * 1_000_000n + (this.startHr % 1_000_000n);
  }

  /** Wall-clock time in nanoseconds since the Unix epoch. */
  nowNs(): bigint {
    return this.startEpochNs + (process.hrtime.bigint() - this.startHr);
  }

  /** Scenario time in milliseconds since the simulator started. */
  simMs(): number {
    return (Number(process.hrtime.bigint() - this.startHr) / 1e6) * this.timeScale;
  }

  /** The wall-clock time at which the scenario clock shows `simMs`. */
  wallNsAt(simMs: number): bigint {
    return this.startEpochNs + BigInt(Math.round((simMs / this.timeScale) * 1e6));
  }
}
