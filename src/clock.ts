// Wall-clock time, passed down from main so a test can fix it (the golden test does).
export interface Clock {
  /** Wall-clock milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
