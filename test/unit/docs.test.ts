// The generated documentation (run `npm run docs` to regenerate; `npm run docs -- --check` is the same check):
// the README's metric-families and alerts tables, the full references docs/metrics.md and docs/configuration.md,
// and the list of public names that CHANGELOG.md must account for. Also the README's size and its config example.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  alertsTable,
  configTable,
  mergePublicNames,
  metricFamiliesTable,
  metricsTable,
  publicNames,
  type RuleGroups,
} from '../../src/docs/reference.js';
import { loadConfigFile } from '../../src/sources/registry.js';
import { CATALOG, GLOBAL_CATALOG } from '../../src/metrics/catalog.js';
import { defined } from '../helpers/assert.js';

const text = (path: string) => readFileSync(path, 'utf8');
const section = (doc: string, file: string, name: string) =>
  defined(doc.split(`<!-- ${name}:start -->\n`)[1], `the ${name} section of ${file}`).split(`\n<!-- ${name}:end -->`)[0];
const rules = (): RuleGroups[] =>
  readdirSync('deploy/prometheus')
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => parseYaml(text(`deploy/prometheus/${f}`)) as RuleGroups);

describe('generated documentation (run `npm run docs` to regenerate)', () => {
  it.each([
    ['README.md', 'metric-families', () => metricFamiliesTable()],
    ['README.md', 'alerts', () => alertsTable(rules())],
    ['docs/metrics.md', 'metrics-reference', () => metricsTable()],
    ['docs/configuration.md', 'config-reference', () => configTable()],
  ] as const)('%s: the %s section is generated from its source', (file, name, generate) => {
    expect(section(text(file), file, name)).toBe(generate());
  });

  it('the README is at most 25,000 bytes (the full references are in docs/)', () => {
    expect(Buffer.byteLength(text('README.md'))).toBeLessThanOrEqual(25_000);
  });

  it("the README's configuration example loads as it is (its password file beside it)", () => {
    const readme = text('README.md');
    const example = defined(/```yaml\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('\n## Configuration\n')))?.[1], 'the example');
    const dir = mkdtempSync(join(tmpdir(), 'avaxexp-readme-config-'));
    try {
      writeFileSync(join(dir, 'config.yaml'), example);
      writeFileSync(join(dir, 'rpc-1.password'), 'secret\n');
      const config = loadConfigFile(join(dir, 'config.yaml'), {});
      expect(config.targets.map((t) => t.name)).toEqual(['validator-1', 'rpc-1']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** `docs/public-names.txt`: every metric and config key ever public, one a line (`metric NAME`, `config KEY`). */
const LISTED = 'docs/public-names.txt';
const listed = () =>
  text(LISTED)
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'));

/** The names a `[CHANGE]` line of CHANGELOG.md quotes (in backticks). */
function changedNames(changelog: string): Set<string> {
  const out = new Set<string>();
  for (const line of changelog.split('\n')) {
    if (!/^\s*[-*] \[CHANGE\]/.test(line)) continue;
    for (const m of line.matchAll(/`([^`]+)`/g)) out.add(defined(m[1], 'a quoted name'));
  }
  return out;
}

/** Listed names that the catalog and schema no longer have, and no [CHANGE] line names. */
function unannouncedRemovals(names: string[], current: string[], changelog: string): string[] {
  const now = new Set(current);
  const changed = changedNames(changelog);
  return names.filter((n) => !now.has(n)).filter((n) => !changed.has(n.slice(n.indexOf(' ') + 1)));
}

describe('public names and CHANGELOG.md', () => {
  it(`${LISTED} lists every metric of the catalog and every config key (npm run docs adds new ones)`, () => {
    expect(text(LISTED)).toBe(mergePublicNames(text(LISTED)));
  });

  it('a listed name that left the catalog or the schema is named in a [CHANGE] line of CHANGELOG.md', () => {
    expect(unannouncedRemovals(listed(), publicNames(), text('CHANGELOG.md'))).toEqual([]);
  });

  it('the check fails for a metric or a key removed without a [CHANGE] line, and passes once one names it', () => {
    const current = publicNames();
    const gone = current.filter((n) => n !== 'metric avalanchego_up' && n !== 'config defaults.timeout');
    const changelog = '## Unreleased\n\n* [FEATURE] Something new.\n';
    expect(unannouncedRemovals(current, gone, changelog)).toEqual(['metric avalanchego_up', 'config defaults.timeout']);
    const announced = `${changelog}* [CHANGE] \`avalanchego_up\` is gone: use X. \`defaults.timeout\` is gone: use Y.\n`;
    expect(unannouncedRemovals(current, gone, announced)).toEqual([]);
    // A name in a line of another kind does not count.
    expect(unannouncedRemovals(current, gone, `${changelog}* [ENHANCEMENT] \`avalanchego_up\`, \`defaults.timeout\`.\n`)).toHaveLength(2);
  });

  it('CHANGELOG.md has the Prometheus exporters’ form: ## Unreleased, ## 0.1.0, and [KIND] lines only', () => {
    const changelog = text('CHANGELOG.md');
    const heads = changelog.split('\n').filter((l) => l.startsWith('## '));
    expect(heads[0]).toBe('## Unreleased');
    expect(heads).toContainEqual(expect.stringMatching(/^## 0\.1\.0 \/ \d{4}-\d\d-\d\d$/));
    const items = changelog.split('\n').filter((l) => /^[-*] /.test(l));
    expect(items.length).toBeGreaterThan(5);
    for (const l of items) expect(l).toMatch(/^\* \[(CHANGE|FEATURE|ENHANCEMENT|BUGFIX)\] \S/);
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
    // An L1's set-wide series have no node label (one series per validator, whichever vantage told it).
    if (m.source === 'l1') expect(['node', 'subnet']).toContain(m.labels[0]);
    else if (m.source !== 'exporter') expect(m.labels[0]).toBe('node');
    if (m.source === 'health') expect(m.help).toMatch(/health/);
  });
  it('names are unique', () => {
    expect(new Set(all.map((m) => m.name)).size).toBe(all.length);
  });
});
