// The alert rules and docs/runbook.md agree: mixin-style labels and annotations on every
// alert, every runbook_url resolves to a section of the runbook, every section says what the
// alert means and how to act, and the thresholds table lists every alert and severity with
// the rule's `for:`. Also the example Alertmanager configuration (amtool, when installed).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/metrics/catalog.js';
import { IN_CI, ROOT, RUNBOOK, RUNBOOK_BASE, alertRules, parsePromQL, run, type Rule } from './lib.js';
import { currentAlertmanager, debianAlertmanager } from '../helpers/monitoring.js';

const runbook = readFileSync(RUNBOOK, 'utf8');
const PER_NODE = new Set<string>(CATALOG.filter((m) => m.source !== 'l1').map((m) => m.name));
// The L1 set's series (no node label on the set-wide ones): its alerts name the L1's subnet.
const PER_L1 = new Set<string>(CATALOG.filter((m) => m.source === 'l1').map((m) => m.name));
const alerts = alertRules();
const names = [...new Set(alerts.map((a) => a.alert as string))];

/** GitHub's anchor for a heading: lower case, spaces to dashes, punctuation dropped. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');
const headings = [...runbook.matchAll(/^#{1,6} (.+)$/gm)].map((m) => m[1] as string);
const anchors = new Set(headings.map(anchorOf));

function section(name: string): string {
  const start = runbook.indexOf(`\n## ${name}\n`);
  if (start < 0) return '';
  const next = runbook.indexOf('\n## ', start + 4);
  return runbook.slice(start, next < 0 ? undefined : next);
}

// Rows of the thresholds table: | Alert | Severity | Fires when | For | Why |
const tableRows = runbook
  .split('\n')
  .filter((l) => /^\| AvalancheGo\w+ \|/.test(l))
  .map((l) => l.split('|').map((c) => c.trim()))
  .map((c) => ({ alert: c[1] as string, severity: c[2] as string, when: c[3] as string, for: c[4] as string, why: c[5] as string }));

describe.each(alerts.map((a) => [`${a.alert} (${a.labels?.severity})`, a] as [string, Rule]))('%s', (_n, a) => {
  it('follows the mixin conventions', () => {
    expect(a.alert).toMatch(/^AvalancheGo[A-Z][A-Za-z0-9]+$/);
    expect(a.for, 'every alert needs a for:').toMatch(/^\d+[smh]$/);
    expect(['critical', 'warning', 'info']).toContain(a.labels?.severity);
    expect(a.annotations?.summary ?? '').not.toBe('');
    expect(a.annotations?.description ?? '').not.toBe('');
    expect(a.annotations?.summary).not.toMatch(/\{\{/);
  });

  it('templates the description with the subject of the alert', () => {
    const d = a.annotations?.description ?? '';
    const selectorLabels = (label: string) => new RegExp(`\\b${label}\\b`).test(a.expr);
    // An alert about a node names it; an alert about the exporter (only process-wide series,
    // no node label) names the exporter or its job instead.
    // The poll metrics of an L1 (source="l1") carry its subnet, no node.
    const { selectors } = parsePromQL(a.expr);
    const l1Poll = (s: (typeof selectors)[number]) => s.matchers.some((m) => m.label === 'source' && m.op === '=' && m.value === 'l1');
    const perNode = selectors.some((s) => s.metric !== undefined && !l1Poll(s) && (PER_NODE.has(s.metric) || /^node(_\w+)?:/.test(s.metric)));
    const perL1 = selectors.some((s) => s.metric !== undefined && (PER_L1.has(s.metric) || l1Poll(s)));
    // An alert of the L1 set is about the L1 (or one of its validators) even when it reads per-node series to
    // leave some out (AvalancheGoL1ValidatorDown: a validator that is a down node of the fleet).
    if (perL1) expect(d).toContain('{{ $labels.subnet }}');
    else if (perNode) expect(d).toContain('{{ $labels.node }}');
    else if (a.alert !== 'AvalancheGoExporterAbsent') expect(d).toMatch(/\{\{ \$labels\.(instance|job) \}\}/);
    if (selectorLabels('chain') && a.alert !== 'AvalancheGoNodeUnhealthy') expect(d).toContain('{{ $labels.chain }}');
    if (!/check="/.test(a.expr) && /health_check_/.test(a.expr) && a.alert !== 'AvalancheGoNodeUnhealthy') {
      expect(d).toContain('{{ $labels.check }}');
    }
  });

  it('links to its runbook section', () => {
    const url = a.annotations?.runbook_url ?? '';
    expect(url).toBe(`${RUNBOOK_BASE}#${(a.alert as string).toLowerCase()}`);
    expect(anchors.has(url.split('#')[1] as string), `docs/runbook.md has no heading for ${url}`).toBe(true);
  });

  it('is in the thresholds table with its for:', () => {
    const row = tableRows.find((r) => r.alert === a.alert && r.severity === a.labels?.severity);
    expect(row, `no row "| ${a.alert} | ${a.labels?.severity} |" in the runbook's thresholds table`).toBeDefined();
    expect(row?.for).toBe(a.for);
    expect(row?.when).not.toBe('');
    expect(row?.why).not.toBe('');
  });
});

describe('runbook', () => {
  it.each(names)('%s has a section with meaning, impact, diagnosis and mitigation', (name) => {
    const s = section(name);
    expect(s, `no "## ${name}" section`).not.toBe('');
    for (const part of ['**Meaning.**', '**Impact.**', '**Diagnosis.**', '**Mitigation.**']) expect(s, `${name}: ${part}`).toContain(part);
    // Diagnosis names a panel of the dashboards or an API call to make.
    expect(s).toMatch(/→|curl|health\.health|info\./);
  });

  it('has no section or table row for an alert that does not exist', () => {
    const known = new Set(names);
    const sections = [...runbook.matchAll(/^## (AvalancheGo\w*)\s*$/gm)].map((m) => m[1] as string);
    expect(sections.filter((h) => !known.has(h))).toEqual([]);
    expect(tableRows.filter((r) => !known.has(r.alert)).map((r) => r.alert)).toEqual([]);
    expect(tableRows.length).toBe(alerts.length);
  });

  it('the thresholds table matches the numbers in the rules', () => {
    // Spot checks of the numbers quoted from AvalancheGo and the issue: a change to one of
    // these in the rules must come with a change to the table.
    const exprOf = (name: string, severity: string) => alerts.find((a) => a.alert === name && a.labels?.severity === severity)?.expr ?? '';
    expect(exprOf('AvalancheGoTooManyProcessingBlocks', 'warning')).toMatch(/> 6\b/);
    expect(exprOf('AvalancheGoTooManyProcessingBlocks', 'critical')).toMatch(/> 15\b/);
    expect(exprOf('AvalancheGoConnectedStakeLow', 'critical')).toMatch(/< 0\.80?\b/);
    expect(exprOf('AvalancheGoDiskSpaceLow', 'warning')).toMatch(/< 0\.10?\b/);
    expect(exprOf('AvalancheGoDiskSpaceLow', 'critical')).toMatch(/< 0\.05\b/);
    expect(exprOf('AvalancheGoRouterOverloaded', 'critical')).toMatch(/> 1024\b[\s\S]*> 300\b/);
    expect(exprOf('AvalancheGoBlockProcessingTooLong', 'critical')).toMatch(/> 30\b/);
    for (const [alert, text] of [
      ['AvalancheGoTooManyProcessingBlocks', '> 6'],
      ['AvalancheGoTooManyProcessingBlocks', '> 15'],
      ['AvalancheGoConnectedStakeLow', '< 80%'],
      ['AvalancheGoDiskSpaceLow', '< 10%'],
      ['AvalancheGoDiskSpaceLow', '< 5%'],
      ['AvalancheGoRouterOverloaded', '> 1024'],
      ['AvalancheGoBlockProcessingTooLong', '> 30s'],
    ] as const) {
      expect(
        tableRows.some((r) => r.alert === alert && r.when.includes(text)),
        `${alert}: "${text}"`,
      ).toBe(true);
    }
  });

  it('the absent-exporter alert is the only rule that names the scrape job', () => {
    for (const a of alerts) {
      if (a.alert === 'AvalancheGoExporterAbsent') expect(a.expr).toContain('job="avalanchego-exporter"');
      else expect(a.expr).not.toMatch(/job\s*=~?\s*"/);
    }
  });
});

// amtool of both Alertmanager generations: the current one (built from the Go module proxy)
// and Debian's 0.25, the oldest supported (test/helpers/monitoring.ts).
const AM_CONFIG = join(ROOT, 'deploy', 'alertmanager', 'alertmanager.yml');

describe.each([currentAlertmanager(), debianAlertmanager()].map((g) => [g.label, g.amtool] as const))(
  'alertmanager example (%s)',
  (_label, amtool) => {
    const bin = amtool.path ?? 'amtool';
    it('amtool is installed (required under CI=true)', (ctx) => {
      if (!amtool.path && !IN_CI) ctx.skip(amtool.missing);
      expect(amtool.missing).toBe('');
    });

    it.skipIf(!amtool.path)('passes amtool check-config', () => {
      const r = run(bin, ['check-config', AM_CONFIG]);
      expect(r.code, r.output).toBe(0);
    });

    it.skipIf(!amtool.path).each([
      ['critical', 'pager'],
      ['warning', 'tickets'],
      ['info', 'digest'],
    ])('routes severity=%s to %s', (severity, receiver) => {
      const r = run(bin, [
        'config',
        'routes',
        'test',
        `--config.file=${AM_CONFIG}`,
        `severity=${severity}`,
        'alertname=AvalancheGoNodeDown',
        'node=v1',
      ]);
      expect(r.code, r.output).toBe(0);
      expect(r.stdout.trim(), r.output).toBe(receiver);
    });
  },
);
