// A source's snapshot is updated in place by the next poll when its shape is the same (Source.reuse): what
// is served after it, snapshot and lines, is exactly what a fresh snapshot of that poll gives.
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { health, parseHealth, reuseHealth, type HealthSnapshot } from '../../src/sources/health.js';
import { indexApi, reuseIndex, type IndexSnapshot } from '../../src/sources/index-api.js';
import { LinesBuilder } from '../../src/metrics/render.js';
import { renderNodes } from '../../src/metrics/scrape.js';

const healthDir = new URL('../fixtures/health/', import.meta.url);
const reports = readdirSync(healthDir).map((name) => ({
  name,
  parse: (): HealthSnapshot => parseHealth((JSON.parse(readFileSync(new URL(name, healthDir), 'utf8')) as { result: unknown }).result),
}));

function lines(samples: (b: LinesBuilder) => void): string {
  const b = new LinesBuilder('n');
  samples(b);
  return renderNodes([[b.build()]]).toString();
}

describe('health snapshots reused by the next poll', () => {
  // Every fixture after every other: same checks (kept) or not (replaced); the result is always the second.
  const pairs = reports.flatMap((a) => reports.map((b) => [a, b] as const));
  it.each(pairs.map(([a, b]) => [a.name, b.name, a, b] as const))('%s then %s', (_a, _b, a, b) => {
    const previous = a.parse();
    const previousChecks = previous.checks.map((c) => c);
    const next = b.parse();
    const served = reuseHealth(previous, next);
    const fresh = b.parse();
    expect(served).toEqual(fresh);
    expect(lines((l) => health.samples(l, served))).toBe(lines((l) => health.samples(l, fresh)));
    const sameShape =
      previousChecks.map((c) => c.name).join() === fresh.checks.map((c) => c.name).join() && previous.chains.length === fresh.chains.length;
    if (sameShape) {
      // The objects of the last poll, not the new ones.
      expect(served).toBe(previous);
      served.checks.forEach((c, i) => expect(c).toBe(previousChecks[i]));
    } else expect(served).toBe(next);
  });

  // The next poll of the same node: every number, time and duration moved (same checks, new values).
  function later(value: unknown): unknown {
    if (typeof value === 'number') return value + 1;
    if (typeof value === 'string') {
      if (/^\d{4}-\d\d-\d\dT/.test(value)) return value.replace(/^2026-/, '2027-');
      if (/^[0-9.]+(ns|µs|us|ms|s|m|h)/.test(value)) return `1${value}`;
      return value;
    }
    if (Array.isArray(value)) return value.map(later);
    if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, later(v)]));
    return value;
  }
  it.each(reports.map((r) => [r.name, r] as const))('%s, then its next poll with new values', (_name, r) => {
    const raw = (JSON.parse(readFileSync(new URL(r.name, healthDir), 'utf8')) as { result: unknown }).result;
    const previous = parseHealth(raw);
    const fresh = parseHealth(later(raw));
    const served = reuseHealth(previous, parseHealth(later(raw)));
    expect(served).toBe(previous);
    expect(served).toEqual(fresh);
    expect(lines((l) => health.samples(l, served))).toBe(lines((l) => health.samples(l, fresh)));
    expect(lines((l) => health.samples(l, served))).not.toBe(lines((l) => health.samples(l, parseHealth(raw))));
  });

  it('a check that recovers loses its error and first-failure time', () => {
    const failing = parseHealth({
      healthy: false,
      checks: { network: { error: 'no peers', timeOfFirstFailure: '2026-11-20T14:15:02Z', contiguousFailures: 3, message: { connectedPeers: 0 } } },
    });
    const ok = parseHealth({ healthy: true, checks: { network: { message: { connectedPeers: 12 } } } });
    const served = reuseHealth(failing, ok);
    expect(served).toBe(failing);
    expect(served.checks[0]).toEqual({ name: 'network', passing: true, contiguousFailures: 0, unparsed: 0 });
    expect(served.network.connectedPeers).toBe(12);
  });
});

describe('index snapshots reused by the next poll', () => {
  const ok = (endpoint: 'C/block' | 'P/block', lastIndex: number): IndexSnapshot['endpoints'][number] => ({
    endpoint,
    state: 'ok',
    lastIndex,
    timestampSeconds: 1_700_000_000 + lastIndex,
  });
  it('keeps the objects of endpoints still answering, takes the rest from the new poll', () => {
    const previous: IndexSnapshot = { endpoints: [ok('C/block', 1), ok('P/block', 2)] };
    const kept = previous.endpoints[0];
    const next: IndexSnapshot = { endpoints: [ok('C/block', 5), { endpoint: 'P/block', state: 'disabled' }] };
    const fresh = structuredClone(next);
    const served = reuseIndex(previous, next);
    expect(served).toBe(previous);
    expect(served.endpoints[0]).toBe(kept);
    expect(served).toEqual(fresh);
    expect(lines((l) => indexApi.samples(l, served))).toBe(lines((l) => indexApi.samples(l, fresh)));
  });

  it('other endpoints: the new snapshot as it is', () => {
    const next: IndexSnapshot = { endpoints: [ok('P/block', 3)] };
    expect(reuseIndex({ endpoints: [ok('C/block', 1)] }, next)).toBe(next);
    expect(reuseIndex({ endpoints: [ok('C/block', 1), ok('P/block', 1)] }, next)).toBe(next);
  });
});
