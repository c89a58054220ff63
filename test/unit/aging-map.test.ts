// AgingMap: a cache keyed by what churns keeps what was used since the turn before last, and nothing else.
import { describe, expect, it } from 'vitest';
import { AgingMap } from '../../src/util/aging-map.js';

describe('AgingMap', () => {
  it('an entry used in every period stays; one unused for a whole period goes at the next turn', () => {
    const m = new AgingMap<string, number>();
    m.set('kept', 1);
    m.set('gone', 2);
    expect(m.turn()).toBe(0);
    expect(m.get('kept')).toBe(1);
    expect(m.size).toBe(2);
    // `gone` was not used since the last turn: it goes now.
    expect(m.turn()).toBe(1);
    expect(m.get('gone')).toBeUndefined();
    expect(m.get('kept')).toBe(1);
    for (let i = 0; i < 10; i++) {
      m.turn();
      expect(m.get('kept')).toBe(1);
    }
    expect(m.size).toBe(1);
  });

  it('a churning key leaves at most two periods of entries behind', () => {
    const m = new AgingMap<string, number>();
    for (let i = 0; i < 10_000; i++) {
      m.set(`node-id-${i}`, i);
      if (i % 100 === 99) m.turn();
    }
    expect(m.size).toBeLessThanOrEqual(200);
    m.turn();
    m.turn();
    expect(m.size).toBe(0);
  });

  it('set replaces an entry of either period', () => {
    const m = new AgingMap<string, number>();
    m.set('a', 1);
    m.turn();
    m.set('a', 2);
    expect(m.size).toBe(1);
    expect(m.get('a')).toBe(2);
  });
});
