import { describe, expect, it } from 'vitest';
import { LinesBuilder, escapeLabelValue, formatValue, renderNodes } from '../../src/metrics/render.js';

describe('exposition', () => {
  it('escapes label values as the text format requires', () => {
    expect(escapeLabelValue('a"b\\c\nd')).toBe('a\\"b\\\\c\\nd');
  });

  it.each([
    [1, '1'],
    [0.5, '0.5'],
    [1e-7, '1e-7'],
    [1795184102.1234, '1795184102.1234'],
    [NaN, 'NaN'],
    [Infinity, '+Inf'],
    [-Infinity, '-Inf'],
  ])('formats %d as %s', (value, text) => {
    expect(formatValue(value)).toBe(text);
  });

  it('groups samples by family under one HELP/TYPE, skips empty families, node label first', () => {
    const a = new LinesBuilder('a');
    a.add('avalanchego_up', 1);
    a.add('avalanchego_health_check_passing', 0, { check: 'weird "name"' });
    a.add('avalanchego_healthy', undefined);
    const b = new LinesBuilder('b');
    b.add('avalanchego_up', 0);
    const lines = renderNodes([[a.build()], [b.build()]]).toString().split('\n');
    expect(lines).toHaveLength(8);
    expect(lines[0]).toBe('# HELP avalanchego_up 1 when the last poll of health.health returned a valid report, else 0. Polled from health.health.');
    expect(lines.slice(1, 4)).toEqual(['# TYPE avalanchego_up gauge', 'avalanchego_up{node="a"} 1', 'avalanchego_up{node="b"} 0']);
    expect(lines[4]).toMatch(/^# HELP avalanchego_health_check_passing 1 when the health check has no error/);
    expect(lines.slice(5)).toEqual([
      '# TYPE avalanchego_health_check_passing gauge',
      'avalanchego_health_check_passing{node="a",check="weird \\"name\\""} 0',
      '',
    ]);
    const text = lines.join('\n');
    expect(text).not.toContain('avalanchego_healthy');
  });
});
