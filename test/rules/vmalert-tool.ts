// The promtool test files (deploy/prometheus/tests/*.test.yml) as vmalert-tool runs them: one
// set of tests for both engines, translated here rather than kept twice. vmalert-tool reads
// Prometheus' test format but for:
// - `promql_expr_test`, which it calls `metricsql_expr_test`;
// - the alert group: vmalert adds an `alertgroup` label, left out with --disableAlertgroupLabel
//   (VMALERT_TOOL_ARGS), so that a case needs no `groupname`;
// - its clock: `time()` starts at 946684800 (2000-01-01) where promtool's starts at 0, so every
//   Unix timestamp of the inputs (a series named *_timestamp_seconds or *_time_seconds, the
//   naming convention of timestamps) and of the expected samples is moved by that much;
// - relative rule_files: the translated file lives elsewhere, so they become absolute.
// An expectation VictoriaMetrics cannot meet is listed in VM_DIFFERENCES with its cause, and
// vmalert-tool checks VictoriaMetrics' value instead: none is dropped.
import { basename, dirname, resolve } from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';

/** vmalert-tool's `time()` at eval_time 0 (2000-01-01T00:00:00Z); promtool's is 0. */
export const VMALERT_TOOL_EPOCH = 946684800;
export const VMALERT_TOOL_ARGS = ['unittest', '--disableAlertgroupLabel'];

/** Unix timestamps by the naming convention: their values move with the test's clock. */
const TIMESTAMP_SERIES = /^[a-zA-Z_:][a-zA-Z0-9_:]*_(?:timestamp|time)_seconds(?::[a-zA-Z0-9_]+)?\{/;

/**
 * An expectation of a promtool test that VictoriaMetrics cannot meet, and why. In the case
 * `alertname` at `evalTime` of the test named `test` in `file`, the text `promql` of an expected
 * label or annotation becomes `metricsql` for vmalert-tool.
 */
export interface VmDifference {
  file: string;
  test: string;
  alertname: string;
  evalTime: string;
  promql: string;
  metricsql: string;
  cause: string;
}

export const VM_DIFFERENCES: VmDifference[] = [
  {
    file: 'node.test.yml',
    test: 'flapping check; a single failure is not flapping',
    alertname: 'AvalancheGoHealthCheckFlapping',
    evalTime: '15m',
    promql: 'changed state 15 times',
    metricsql: 'changed state 16 times',
    cause:
      "MetricsQL's changes() counts a series' first sample as a change when the series starts inside the window " +
      '(the test series starts at 0, inside the 30m window at 15m); PromQL has no other transition count that both engines compute alike',
  },
];

interface TestFile {
  rule_files: string[];
  tests: Array<{
    name?: string;
    input_series?: Array<{ series: string; values: string | number }>;
    promql_expr_test?: Array<{ expr: string; eval_time: string; exp_samples?: Array<{ labels: string; value: number }> }>;
    metricsql_expr_test?: TestFile['tests'][number]['promql_expr_test'];
    alert_rule_test?: Array<{
      /** A duration ("15m"); YAML reads a bare 0 as a number. */
      eval_time: string | number;
      alertname: string;
      exp_alerts?: Array<{ exp_labels?: Record<string, string>; exp_annotations?: Record<string, string> }>;
    }>;
  }>;
  [key: string]: unknown;
}

/**
 * A series' values in promtool's expanding notation ("1 2 3", "0+60x20", "_x3 5", "stale") with
 * `by` added to every value: "a+bxn" starts at a + by, "axn" repeats a + by.
 */
export function shiftValues(values: string, by: number): string {
  return values
    .trim()
    .split(/\s+/)
    .map((tok) => {
      if (tok === 'stale' || tok.startsWith('_')) return tok;
      const m = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)(?:([+-](?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)?x(\d+))?$/i.exec(tok);
      if (!m?.[1]) throw new Error(`cannot move the value "${tok}" of "${values}" to vmalert-tool's clock`);
      const start = String(Number(m[1]) + by);
      if (m[3] === undefined) return start;
      return `${start}${m[2] ?? '+0'}x${m[3]}`;
    })
    .join(' ');
}

/**
 * The vmalert-tool version of the promtool test file `path` (its text `text`): rule_files
 * absolute, promql_expr_test renamed, timestamps moved to vmalert-tool's clock, and the
 * expectations of VM_DIFFERENCES replaced. `applied` collects the differences that matched.
 */
export function toVmalertTool(path: string, text: string, applied: Set<VmDifference> = new Set()): string {
  const doc = parseYaml(text) as TestFile;
  doc.rule_files = doc.rule_files.map((f) => resolve(dirname(path), f));
  for (const t of doc.tests) {
    for (const s of t.input_series ?? []) {
      if (TIMESTAMP_SERIES.test(s.series)) s.values = shiftValues(String(s.values), VMALERT_TOOL_EPOCH);
    }
    if (t.promql_expr_test) {
      for (const c of t.promql_expr_test) {
        for (const s of c.exp_samples ?? []) if (TIMESTAMP_SERIES.test(s.labels)) s.value += VMALERT_TOOL_EPOCH;
      }
      t.metricsql_expr_test = t.promql_expr_test;
      delete t.promql_expr_test;
    }
    for (const c of t.alert_rule_test ?? []) {
      for (const d of VM_DIFFERENCES) {
        if (d.file !== basename(path) || d.test !== t.name || d.alertname !== c.alertname || d.evalTime !== String(c.eval_time)) continue;
        for (const a of c.exp_alerts ?? []) {
          for (const m of [a.exp_labels, a.exp_annotations]) {
            for (const [k, v] of Object.entries(m ?? {})) {
              if (m && v.includes(d.promql)) {
                m[k] = v.replace(d.promql, d.metricsql);
                applied.add(d);
              }
            }
          }
        }
      }
    }
  }
  return stringifyYaml(doc, { lineWidth: 0 });
}

type SyntaxNode = ReturnType<ReturnType<typeof parser.parse>['cursor']>['node'];
type Kind = 'recorded' | 'scraped';

/**
 * The binary operations of `expr` between series that carry a recording rule's labels (its
 * name in `recorded`) and series that carry a scraped one's, matched on all their labels (no
 * `on (…)`): vmalert adds its -external.label labels to the series it records (Prometheus'
 * external_labels never reach its own storage), so such a match finds no pair there.
 */
export function joinsWithoutOn(expr: string, recorded: ReadonlySet<string>): string[] {
  const found: string[] = [];
  const text = (n: SyntaxNode) => expr.slice(n.from, n.to).replaceAll(/\s+/g, ' ');
  const children = (n: SyntaxNode): SyntaxNode[] => {
    const out: SyntaxNode[] = [];
    for (let c = n.firstChild; c; c = c.nextSibling) out.push(c);
    return out;
  };
  /** Whose labels the series of `n` carry: a recording rule's, a scraped series', or none (a number). */
  const kinds = (n: SyntaxNode): Set<Kind> => {
    switch (n.name) {
      case 'VectorSelector': {
        const id = n.getChild('Identifier');
        return new Set<Kind>([id && recorded.has(expr.slice(id.from, id.to)) ? 'recorded' : 'scraped']);
      }
      case 'AggregateExpr': {
        // `by (…)` keeps only the labels it names; `without` keeps the rest.
        const inner = n.getChild('FunctionCallBody');
        const inside = inner ? kinds(inner) : new Set<Kind>();
        return n.getChild('AggregateModifier')?.getChild('By') ? new Set() : inside;
      }
      case 'BinaryExpr': {
        const [left, right] = [n.firstChild, n.lastChild];
        if (!left || !right) return new Set();
        const [l, r] = [kinds(left), kinds(right)];
        const modifier = n.getChild('MatchingModifierClause');
        const mixed = [...l].some((k) => r.size > 0 && ![...r].includes(k)) || [...r].some((k) => l.size > 0 && ![...l].includes(k));
        if (mixed && !modifier?.getChild('On')) found.push(text(n));
        // and / unless keep the left side's series; or both; arithmetic the "many" side's, else the left's.
        if (n.getChild('Or')) return new Set([...l, ...r]);
        if (l.size === 0 || modifier?.getChild('GroupRight')) return r;
        return l;
      }
      case 'NumberDurationLiteral':
      case 'StringLiteral':
        return new Set();
      default:
        return new Set(children(n).flatMap((c) => [...kinds(c)]));
    }
  };
  kinds(parser.parse(expr).topNode);
  return found;
}
