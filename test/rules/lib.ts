// Shared readers for the alerting tests: rule files, promtool test files, dashboards,
// and a small PromQL inspector on top of @prometheus-io/lezer-promql.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parser } from '@prometheus-io/lezer-promql';
import { parse as parseYaml } from 'yaml';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const RULES_DIR = join(ROOT, 'deploy', 'prometheus');
export const RULE_TESTS_DIR = join(RULES_DIR, 'tests');
export const DASHBOARDS_DIR = join(ROOT, 'grafana', 'dashboards');
export const RUNBOOK = join(ROOT, 'docs', 'runbook.md');
export const RUNBOOK_BASE = 'https://github.com/avalanchego-exporter/avalanchego-exporter/blob/main/docs/runbook.md';

// ---------------------------------------------------------------------------------------
// Rules

export interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
export interface RuleFile {
  path: string;
  groups: Array<{ name: string; rules: Rule[] }>;
}

export function ruleFilePaths(): string[] {
  return readdirSync(RULES_DIR)
    .filter((f) => f.endsWith('.yml') || f.endsWith('.yaml'))
    .sort()
    .map((f) => join(RULES_DIR, f));
}

export function loadRuleFiles(): RuleFile[] {
  return ruleFilePaths().map((path) => ({ path, ...(parseYaml(readFileSync(path, 'utf8')) as Omit<RuleFile, 'path'>) }));
}

export function allRules(): Rule[] {
  return loadRuleFiles().flatMap((f) => f.groups.flatMap((g) => g.rules));
}
export const alertRules = (): Rule[] => allRules().filter((r) => r.alert !== undefined);
export const recordingRules = (): Rule[] => allRules().filter((r) => r.record !== undefined);

export function ruleTestPaths(): string[] {
  return readdirSync(RULE_TESTS_DIR)
    .filter((f) => f.endsWith('.yml'))
    .sort()
    .map((f) => join(RULE_TESTS_DIR, f));
}

/**
 * A rule test that must fail: a node down for 1 minute must not fire AvalancheGoNodeDown
 * (for: 3m), and it expects the alert. A rule-test harness that passes it cannot fail.
 */
export function wrongExpectationTest(alertsFile: string): string {
  return [
    'rule_files:',
    `  - ${alertsFile}`,
    'evaluation_interval: 1m',
    'tests:',
    '  - interval: 1m',
    '    input_series:',
    `      - series: 'avalanchego_up{job="j",instance="i",node="v1"}'`,
    `        values: '1 0 1 1 1'`,
    '    alert_rule_test:',
    '      - eval_time: 2m',
    '        alertname: AvalancheGoNodeDown',
    '        exp_alerts:',
    '          - exp_labels: {severity: critical, job: j, instance: i, node: v1}',
    '',
  ].join('\n');
}

export interface AlertCase {
  file: string;
  evalTime: string;
  alertname: string;
  expAlerts: Array<{ exp_labels?: Record<string, string> }>;
}
export function alertCases(): AlertCase[] {
  const out: AlertCase[] = [];
  for (const file of ruleTestPaths()) {
    const doc = parseYaml(readFileSync(file, 'utf8')) as {
      tests: Array<{ alert_rule_test?: Array<{ eval_time: string; alertname: string; exp_alerts?: AlertCase['expAlerts'] }> }>;
    };
    for (const t of doc.tests) {
      for (const c of t.alert_rule_test ?? []) {
        out.push({ file, evalTime: c.eval_time, alertname: c.alertname, expAlerts: c.exp_alerts ?? [] });
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Dashboards

export interface Panel {
  id?: number;
  type: string;
  title: string;
  description?: string;
  datasource?: unknown;
  gridPos?: { h: number; w: number; x: number; y: number };
  fieldConfig?: { defaults?: { unit?: string }; overrides?: unknown[] };
  targets?: Array<{ expr?: string; refId?: string; datasource?: unknown; legendFormat?: string }>;
  panels?: Panel[];
}
export interface TemplateVar {
  name: string;
  label?: string;
  type: string;
  query?: unknown;
  definition?: string;
  datasource?: unknown;
  multi?: boolean;
  includeAll?: boolean;
  allValue?: string;
  refresh?: number;
}
export interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: TemplateVar[] };
  description?: string;
  [key: string]: unknown;
}

export function dashboardPaths(): string[] {
  return readdirSync(DASHBOARDS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => join(DASHBOARDS_DIR, f));
}
export function loadDashboards(): Array<{ path: string; dashboard: Dashboard }> {
  return dashboardPaths().map((path) => ({ path, dashboard: JSON.parse(readFileSync(path, 'utf8')) as Dashboard }));
}

/** Every panel, rows' nested panels included. */
export function allPanels(d: Dashboard): Panel[] {
  return d.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
}

export interface PanelQuery {
  dashboard: string;
  panel: string;
  legend: string;
  expr: string;
}
export function panelQueries(): PanelQuery[] {
  return loadDashboards().flatMap(({ dashboard }) =>
    allPanels(dashboard).flatMap((p) =>
      (p.targets ?? [])
        .filter((t) => typeof t.expr === 'string')
        .map((t) => ({ dashboard: dashboard.uid, panel: p.title, legend: t.legendFormat ?? '', expr: t.expr as string })),
    ),
  );
}

/** The series selector inside a template variable's label_values(selector, label). */
export function templateSelectors(): Array<{ dashboard: string; variable: string; expr: string }> {
  const out: Array<{ dashboard: string; variable: string; expr: string }> = [];
  for (const { dashboard } of loadDashboards()) {
    for (const v of dashboard.templating.list) {
      if (v.type !== 'query' || typeof v.definition !== 'string') continue;
      const m = /^label_values\((.*),\s*(\w+)\)$/.exec(v.definition);
      if (!m) throw new Error(`${dashboard.uid} variable ${v.name}: unexpected query ${v.definition}`);
      out.push({ dashboard: dashboard.uid, variable: v.name, expr: m[1] as string });
    }
  }
  return out;
}

/**
 * Grafana variables replaced by values Prometheus accepts: interval variables by durations,
 * every other variable (used only inside label-matcher strings) by ".+" (an "All" choice).
 */
export function substituteGrafanaVariables(expr: string): string {
  return expr
    .replaceAll(/\$(?:\{__rate_interval\}|__rate_interval)/g, '1m')
    .replaceAll(/\$(?:\{__interval\}|__interval)/g, '15s')
    .replaceAll(/\$(?:\{__range\}|__range)/g, '1h')
    .replaceAll(/\$\{([A-Za-z_]\w*)(?::\w+)?\}|\$([A-Za-z_]\w*)/g, '.+');
}

// ---------------------------------------------------------------------------------------
// PromQL

type SyntaxNode = ReturnType<ReturnType<typeof parser.parse>['cursor']>['node'];

export interface ParsedSelector {
  metric: string | undefined;
  matchers: Array<{ label: string; op: string; value: string }>;
  /** Names of the functions and aggregations enclosing the selector, innermost first. */
  enclosing: string[];
  /** The range of a matrix selector, as written (e.g. "5m", "$__rate_interval"). */
  range?: string;
}
export interface ParsedExpr {
  errors: Array<{ from: number; to: number; text: string }>;
  selectors: ParsedSelector[];
}

function unquote(s: string): string {
  if (s.startsWith('`')) return s.slice(1, -1);
  return JSON.parse(s.startsWith("'") ? `"${s.slice(1, -1).replaceAll('"', '\\"')}"` : s) as string;
}

export function parsePromQL(expr: string): ParsedExpr {
  const tree = parser.parse(expr);
  const errors: ParsedExpr['errors'] = [];
  const selectors: ParsedSelector[] = [];
  const cursor = tree.cursor();
  do {
    if (cursor.type.isError) {
      errors.push({ from: cursor.from, to: cursor.to, text: expr.slice(Math.max(0, cursor.from - 20), cursor.to + 20) });
    }
    if (cursor.name === 'VectorSelector') selectors.push(readSelector(cursor.node, expr));
  } while (cursor.next());
  return { errors, selectors };
}

function readSelector(node: SyntaxNode, expr: string): ParsedSelector {
  const text = (n: SyntaxNode) => expr.slice(n.from, n.to);
  const ident = node.getChild('Identifier');
  const matchers: ParsedSelector['matchers'] = [];
  const list = node.getChild('LabelMatchers');
  for (let m = list?.firstChild ?? null; m; m = m.nextSibling) {
    if (m.name !== 'UnquotedLabelMatcher') continue;
    const label = m.getChild('LabelName');
    const op = m.getChild('MatchOp');
    const value = m.getChild('StringLiteral');
    if (label && op && value) matchers.push({ label: text(label), op: text(op), value: unquote(text(value)) });
  }
  const enclosing: string[] = [];
  let range: string | undefined;
  for (let p = node.parent; p; p = p.parent) {
    if (p.name === 'MatrixSelector' && range === undefined) {
      const m = /\[(.*)\]\s*$/.exec(text(p));
      range = m?.[1];
    }
    if (p.name === 'FunctionCall') {
      const id = p.getChild('FunctionIdentifier');
      if (id) enclosing.push(text(id));
    }
    if (p.name === 'AggregateExpr') {
      const op = p.getChild('AggregateOp');
      if (op) enclosing.push(text(op));
    }
  }
  return { metric: ident ? text(ident) : undefined, matchers, enclosing, range };
}

// ---------------------------------------------------------------------------------------
// External tools: present, or absent with a reason. Under CI a missing tool is a failure.

export const IN_CI = process.env.CI === 'true';

export function findTool(cmd: string, versionArgs: string[] = ['--version']): { path: string | undefined; version: string } {
  const r = spawnSync(cmd, versionArgs, { encoding: 'utf8', timeout: 10_000 });
  if (r.error || r.status !== 0) return { path: undefined, version: '' };
  return { path: cmd, version: `${r.stdout}${r.stderr}`.split('\n')[0] ?? '' };
}

export function run(cmd: string, args: string[], timeoutMs = 60_000): { code: number | null; output: string; stdout: string } {
  // stdout and stderr are null when the command could not be started (ENOENT), whatever Node's types say.
  const r: SpawnSyncReturns<string | null> = spawnSync(cmd, args, { encoding: 'utf8', timeout: timeoutMs, cwd: ROOT });
  const output = `$ ${cmd} ${args.join(' ')}\n${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? `\n${String(r.error)}` : ''}`;
  return { code: r.status, output, stdout: r.stdout ?? '' };
}

// ---------------------------------------------------------------------------------------
// End-to-end tests: the simulator's control API.

/** Switches a simulated node to a scenario through the simulator's control API; the answer's status and text. */
export async function setSimScenario(simUrl: string, node: string, scenario: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${simUrl}/sim/nodes/${node}/scenario`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ scenario }),
  });
  return { status: res.status, text: await res.text() };
}
