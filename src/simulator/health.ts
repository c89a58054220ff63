// The node's health worker (api/health/worker.go): named checks with tags,
// cached results refreshed on a tick, failure bookkeeping, tag selection,
// and the exact wire form of api/health/result.go. Serialized results are
// cached per check and per tick so that a fleet answers from strings.

import { GO_ZERO_TIME, formatRfc3339Nano } from '../util/gotime.js';
import { goJson, goString } from './gojson.js';

export const ALL_TAG = 'all';
export const APPLICATION_TAG = 'application';

export interface CheckOutcome {
  /** The check's details (Go maps: keys are sorted when serialized); undefined = no message. */
  message?: unknown;
  /** The failure text; undefined while the check passes. */
  error?: string;
}

interface Result {
  message?: unknown;
  error?: string;
  /** Wall-clock end of the last run; null = never run (Go's zero time). */
  timestampNs: bigint | null;
  durationNs: number;
  contiguousFailures: number;
  timeOfFirstFailureNs: bigint | null;
  /** Cached wire form; cleared when the result changes. */
  json?: string;
}

/** The wire dialect: v1.7.4 and later, or the go-sundheit shape of v1.7.3 and earlier. */
export type ResultDialect = 'modern' | 'legacy';

function notYetRun(): Result {
  return { error: 'not yet run', timestampNs: null, durationNs: 0, contiguousFailures: 0, timeOfFirstFailureNs: null };
}

export class HealthWorker {
  private readonly results = new Map<string, Result>();
  private readonly tags = new Map<string, Set<string>>();
  private readonly monotonicPassed = new Map<string, CheckOutcome>();
  private readonly monotonic = new Set<string>();
  private sortedNames: string[] = [];
  /** Cached full (untagged) report, rebuilt after a tick. */
  private fullReport: { json: string; healthy: boolean } | undefined;

  constructor(
    private readonly offsetMinutes: () => number,
    private readonly dialect: () => ResultDialect,
  ) {}

  /** Registers a check; it reports `not yet run` until it first runs. */
  register(name: string, tags: string[], monotonic = false): void {
    this.results.set(name, notYetRun());
    for (const tag of [ALL_TAG, ...tags]) {
      let names = this.tags.get(tag);
      if (!names) this.tags.set(tag, (names = new Set()));
      names.add(name);
    }
    if (monotonic) this.monotonic.add(name);
    this.monotonicPassed.delete(name);
    this.sortedNames = [...this.results.keys()].sort();
    this.fullReport = undefined;
  }

  has(name: string): boolean {
    return this.results.has(name);
  }

  /** Forgets every check (a restart). */
  clear(): void {
    this.results.clear();
    this.tags.clear();
    this.monotonic.clear();
    this.monotonicPassed.clear();
    this.sortedNames = [];
    this.fullReport = undefined;
  }

  /** Records one run of a check, with worker.go's failure bookkeeping. */
  record(name: string, outcome: CheckOutcome, endNs: bigint, durationNs: number): void {
    const prev = this.results.get(name);
    if (!prev) throw new Error(`unknown check ${name}`);
    if (this.monotonic.has(name)) {
      // Readiness checks: once passing, the details stay cached; only the time moves.
      const passed = this.monotonicPassed.get(name);
      if (passed) outcome = passed;
      else if (outcome.error === undefined) this.monotonicPassed.set(name, outcome);
    }
    const next: Result = {
      message: outcome.message,
      error: outcome.error,
      timestampNs: endNs,
      durationNs,
      contiguousFailures: 0,
      timeOfFirstFailureNs: null,
    };
    if (outcome.error !== undefined) {
      next.contiguousFailures = prev.contiguousFailures + 1;
      next.timeOfFirstFailureNs = prev.contiguousFailures > 0 ? prev.timeOfFirstFailureNs : endNs;
    }
    this.results.set(name, next);
    this.fullReport = undefined;
  }

  /** worker.Results: the names selected by `tags` (plus application checks) and the verdict. */
  select(tags: readonly string[]): { names: string[]; healthy: boolean } {
    const wanted = new Set(tags.length === 0 ? [ALL_TAG] : tags);
    wanted.add(APPLICATION_TAG);
    const names = this.sortedNames.filter((n) => {
      for (const t of wanted) if (this.tags.get(t)?.has(n)) return true;
      return false;
    });
    return { names, healthy: names.every((n) => this.results.get(n)?.error === undefined) };
  }

  /** The APIReply `{"checks":{…},"healthy":…}` for these tags, compact, no newline. */
  report(tags: readonly string[]): { json: string; healthy: boolean } {
    const full = tags.length === 0;
    if (full && this.fullReport) return this.fullReport;
    const { names, healthy } = this.select(tags);
    const checks = names
      .flatMap((n) => {
        const result = this.results.get(n);
        return result ? [`${goString(n)}:${this.resultJson(result)}`] : [];
      })
      .join(',');
    const out = { json: `{"checks":{${checks}},"healthy":${healthy}}`, healthy };
    if (full) this.fullReport = out;
    return out;
  }

  private resultJson(r: Result): string {
    if (r.json !== undefined) return r.json;
    const zone = this.offsetMinutes();
    const time = (ns: bigint | null) => (ns === null ? GO_ZERO_TIME : formatRfc3339Nano(ns, zone));
    const parts: string[] = [];
    if (this.dialect() === 'legacy') {
      // go-sundheit (≤ v1.7.3): error is an object; the failure fields are always present.
      if (r.message !== undefined) parts.push(`"message":${goJson(r.message, true)}`);
      if (r.error !== undefined) parts.push(`"error":{"message":${goString(r.error)}}`);
      parts.push(`"timestamp":"${time(r.timestampNs)}"`, `"duration":${r.durationNs}`);
      parts.push(`"contiguousFailures":${r.contiguousFailures}`);
      parts.push(`"timeOfFirstFailure":${r.timeOfFirstFailureNs === null ? 'null' : `"${time(r.timeOfFirstFailureNs)}"`}`);
    } else {
      if (r.message !== undefined) parts.push(`"message":${goJson(r.message, true)}`);
      if (r.error !== undefined) parts.push(`"error":${goString(r.error)}`);
      parts.push(`"timestamp":"${time(r.timestampNs)}"`, `"duration":${r.durationNs}`);
      if (r.contiguousFailures > 0) {
        parts.push(`"contiguousFailures":${r.contiguousFailures}`);
        parts.push(`"timeOfFirstFailure":"${time(r.timeOfFirstFailureNs)}"`);
      }
    }
    r.json = `{${parts.join(',')}}`;
    return r.json;
  }
}
