// The health worker on its own: worker.go's failure bookkeeping, monotonic
// readiness checks, tag selection and the result wire forms.

import { describe, expect, it } from 'vitest';
import { HealthWorker } from '../../src/simulator/health.js';
import { parseReport } from './helpers.js';

const T0 = 1_774_917_950_487_301_876n; // 2026-03-31T00:45:50.487301876Z
const SEC = 1_000_000_000n;

function worker(zone = 0, dialect: 'modern' | 'legacy' = 'modern') {
  return new HealthWorker(
    () => zone,
    () => dialect,
  );
}

describe('HealthWorker', () => {
  it('counts contiguous failures, keeps the first failure time, and clears both on a pass', () => {
    const w = worker();
    w.register('router', ['application']);
    const current = () => parseReport(w.report([]).json).checks.router;
    w.record('router', { message: { outstandingRequests: 2000 }, error: 'overloaded' }, T0, 5875);
    expect(w.report([]).json).toBe(
      '{"checks":{"router":{"message":{"outstandingRequests":2000},"error":"overloaded","timestamp":"2026-03-31T00:45:50.487301876Z","duration":5875,"contiguousFailures":1,"timeOfFirstFailure":"2026-03-31T00:45:50.487301876Z"}},"healthy":false}',
    );
    w.record('router', { error: 'overloaded' }, T0 + 30n * SEC, 100);
    expect(current()).toMatchObject({
      contiguousFailures: 2,
      timestamp: '2026-03-31T00:46:20.487301876Z',
      timeOfFirstFailure: '2026-03-31T00:45:50.487301876Z',
    });
    w.record('router', { message: { outstandingRequests: 3 } }, T0 + 60n * SEC, 100);
    expect(w.report([]).json).toBe(
      '{"checks":{"router":{"message":{"outstandingRequests":3},"timestamp":"2026-03-31T00:46:50.487301876Z","duration":100}},"healthy":true}',
    );
    w.record('router', { error: 'again' }, T0 + 90n * SEC, 100);
    expect(current()).toMatchObject({ contiguousFailures: 1, timeOfFirstFailure: '2026-03-31T00:47:20.487301876Z' });
  });

  it('treats not yet run as failing without counting it', () => {
    const w = worker(-240);
    w.register('bootstrapped', ['application']);
    expect(w.report([]).json).toBe(
      '{"checks":{"bootstrapped":{"error":"not yet run","timestamp":"0001-01-01T00:00:00Z","duration":0}},"healthy":false}',
    );
    w.record('bootstrapped', { message: ['x'], error: 'subnets not bootstrapped' }, T0, 1);
    const r = parseReport(w.report([]).json).checks.bootstrapped;
    expect(r.contiguousFailures).toBe(1);
    expect(r.timestamp).toBe('2026-03-30T20:45:50.487301876-04:00');
  });

  it('caches the details of a monotonic check once it passes; only the time moves', () => {
    const w = worker();
    w.register('bootstrapped', ['application'], true);
    w.record('bootstrapped', { message: ['sub'], error: 'subnets not bootstrapped' }, T0, 1);
    w.record('bootstrapped', { message: [] }, T0 + SEC, 2);
    w.record('bootstrapped', { message: ['sub'], error: 'subnets not bootstrapped' }, T0 + 2n * SEC, 3);
    expect(w.report([]).json).toBe(
      '{"checks":{"bootstrapped":{"message":[],"timestamp":"2026-03-31T00:45:52.487301876Z","duration":3}},"healthy":true}',
    );
  });

  it('selects by tag with application checks always in, and judges only what it selects', () => {
    const w = worker();
    w.register('network', ['application']);
    w.register('C', ['subnetA']);
    w.register('L1', ['subnetB']);
    w.record('network', {}, T0, 1);
    w.record('C', {}, T0, 1);
    w.record('L1', { error: 'down' }, T0, 1);
    const pick = (tags: string[]) => {
      const r = w.report(tags);
      return [Object.keys(parseReport(r.json).checks), r.healthy];
    };
    expect(pick([])).toEqual([['C', 'L1', 'network'], false]);
    expect(pick(['all'])).toEqual([['C', 'L1', 'network'], false]);
    expect(pick(['subnetA'])).toEqual([['C', 'network'], true]);
    expect(pick(['subnetB'])).toEqual([['L1', 'network'], false]);
    expect(pick(['nope'])).toEqual([['network'], true]);
  });

  it('writes the go-sundheit form for the legacy dialect', () => {
    const w = worker(-420, 'legacy');
    w.register('C', []);
    w.register('X', []);
    w.record('C', { message: null, error: 'stuck' }, T0, 465253);
    w.record('X', {}, T0, 1853);
    expect(w.report([]).json).toBe(
      '{"checks":{"C":{"message":null,"error":{"message":"stuck"},"timestamp":"2026-03-30T17:45:50.487301876-07:00","duration":465253,"contiguousFailures":1,"timeOfFirstFailure":"2026-03-30T17:45:50.487301876-07:00"},' +
        '"X":{"timestamp":"2026-03-30T17:45:50.487301876-07:00","duration":1853,"contiguousFailures":0,"timeOfFirstFailure":null}},"healthy":false}',
    );
  });

  it('escapes < > & in messages and errors and sorts nested map keys', () => {
    const w = worker();
    w.register('C', []);
    w.record(
      'C',
      { message: { z: 1, a: { y: 'a<b', b: 2 } }, error: 'too many processing blocks: 300 > 256\nblock processing too long: 41.5s > 30s' },
      T0,
      1,
    );
    expect(w.report([]).json).toContain(
      '"message":{"a":{"b":2,"y":"a\\u003cb"},"z":1},"error":"too many processing blocks: 300 \\u003e 256\\nblock processing too long: 41.5s \\u003e 30s"',
    );
  });
});
