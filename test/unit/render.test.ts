import { describe, expect, it } from 'vitest';
import { LinesBuilder, escapeLabelValue, formatValue } from '../../src/metrics/render.js';
import { renderChunks, renderNodes } from '../../src/metrics/scrape.js';

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
    const lines = renderNodes([[a.build()], [b.build()]])
      .toString()
      .split('\n');
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

  it('renders the same bytes in chunks of any size, one block per source, with non-ASCII names', () => {
    const nodes = ['a', 'nœud-ü', 'c'].map((name, n) => {
      const health = new LinesBuilder(name);
      health.add('avalanchego_up', 1);
      for (let i = 0; i < 20; i++) health.add('avalanchego_health_check_passing', i % 2, { check: `check-${i}-✓` });
      const index = new LinesBuilder(name);
      index.add('avalanchego_index_available', 1, { endpoint: 'C/block' });
      index.add('avalanchego_exporter_poll_success', 1, { source: 'index' });
      health.add('avalanchego_exporter_poll_success', n === 1 ? 0 : 1, { source: 'health' });
      return [health.build(), index.build()];
    });
    const whole = renderNodes(nodes);
    for (const size of [1, 7, 64, 1000, 1 << 20]) {
      const chunks = [...renderChunks(nodes, size)];
      expect(Buffer.concat(chunks).equals(whole)).toBe(true);
      if (size === 1 << 20) expect(chunks).toHaveLength(1);
    }
    const text = whole.toString();
    // One HELP per family, every node's samples of a family together, poll_success from both sources.
    expect(text.match(/^# HELP avalanchego_exporter_poll_success /gm)).toHaveLength(1);
    expect(text).toContain(
      'avalanchego_exporter_poll_success{node="nœud-ü",source="health"} 0\navalanchego_exporter_poll_success{node="nœud-ü",source="index"} 1\n',
    );
    expect(text).toContain('avalanchego_health_check_passing{node="nœud-ü",check="check-19-✓"} 1\n');
    expect([...renderChunks([])]).toEqual([]);
  });
});

describe('LinesBuilder', () => {
  it('refuses a metric that is not in the catalog, naming where to declare it', () => {
    expect(() => new LinesBuilder('n').add('avalanchego_not_a_metric', 1)).toThrow(
      /avalanchego_not_a_metric is not in the metric catalog: declare it in src\/metrics\/catalog\.ts/,
    );
  });
});
