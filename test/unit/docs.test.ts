import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configTable, metricsTable } from '../../src/docs/reference.js';
import { CATALOG, GLOBAL_CATALOG } from '../../src/metrics/catalog.js';
import { defined } from '../helpers/assert.js';

const readme = readFileSync('README.md', 'utf8');
const section = (name: string) =>
  defined(readme.split(`<!-- ${name}:start -->\n`)[1], `the ${name} section of README.md`).split(`\n<!-- ${name}:end -->`)[0];

describe('README reference tables (run `npm run docs` to regenerate)', () => {
  it('the metric reference is the catalog', () => {
    expect(section('metrics-reference')).toBe(metricsTable());
  });
  it('the config reference is the schema', () => {
    expect(section('config-reference')).toBe(configTable());
  });
});

describe('metric catalog rules', () => {
  const all = [...CATALOG, ...GLOBAL_CATALOG];
  it.each(all.map((m) => [m.name, m] as const))('%s follows the naming rules', (name, m) => {
    expect(name).toMatch(/^avalanchego_[a-z0-9_]+$/);
    expect(name.endsWith('_total')).toBe(m.type === 'counter');
    expect(m.help.length).toBeGreaterThan(10);
    // Base units: no milliseconds, percentages or bytes in other units.
    expect(name).not.toMatch(/_(milliseconds|ms|percent|percentage|kb|mb|gb)(_|$)/);
    if (m.source !== 'exporter') expect(m.labels[0]).toBe('node');
    if (m.source === 'health') expect(m.help).toMatch(/health/);
  });
  it('names are unique', () => {
    expect(new Set(all.map((m) => m.name)).size).toBe(all.length);
  });
});
