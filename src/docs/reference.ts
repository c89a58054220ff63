// The generated parts of the documentation, from the metric catalog, the config schema and the
// rule files (the single sources of truth): the full references (docs/metrics.md,
// docs/configuration.md), the README's two summary tables (metric families, alerts), and the
// list of public names (docs/public-names.txt) that CHANGELOG.md must account for. `npm run docs`
// writes them; `npm run docs -- --check` and test/unit/docs.test.ts fail when one is out of date.
// Every table is built from whatever the catalog, schema and rules hold, so a new metric, key,
// source or rule group shows up with a fallback text instead of breaking the generator.
import { CATALOG, GLOBAL_CATALOG, type MetricSpec } from '../metrics/catalog.js';
import { BUILTIN_SCHEDULER, L1_DEFAULTS } from '../config/schema.js';
import { walkSchema } from '../config/walk.js';
import { CONFIG_FILE } from '../sources/registry.js';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const ALL_METRICS = (): MetricSpec[] => [...CATALOG, ...GLOBAL_CATALOG];

export function metricsTable(): string {
  const row = (m: MetricSpec) => `| \`${m.name}\` | ${m.type} | ${m.labels.map((l) => `\`${l}\``).join(', ') || '—'} | ${cell(m.derivation)} |`;
  return ['| metric | type | labels | value |', '|---|---|---|---|', ...ALL_METRICS().map(row)].join('\n');
}

/** Where each source's series come from, for the families table; a source not listed here gets its name. */
const SOURCE_FROM: Record<string, string> = {
  health: '`health.health`: each check, and what the checks report',
  index: '`index.getLastAccepted`, per endpoint',
  info: '`info.*`: version, uptime, upgrades, peers',
  platform: '`platform.*`: validator entries, L1 balance, fees',
  l1: 'each L1 of `l1s:`: its set once, each vantage\'s connectivity',
  evm: '`eth_blockNumber`, per chain',
  proposervm: '`proposervm.getCurrentEpoch`, per chain',
  node_metrics: "the node's own `/ext/metrics`, a few families (off by default)",
  admin: '`admin.getLoggerLevel` (off by default)',
  chain_info: '`info.getBlockchainID` of X, C: the join key to chain IDs',
  exporter: 'the exporter itself',
};

/** The longest prefix, ending with `_`, that every name has. */
function commonPrefix(names: string[]): string {
  let prefix = names[0] ?? '';
  for (const n of names) while (!n.startsWith(prefix)) prefix = prefix.slice(0, prefix.lastIndexOf('_', prefix.length - 2) + 1);
  return prefix;
}

/**
 * A source's metric names, folded by their first word: `avalanchego_chain_{last_accepted_height, …}`. Each name
 * stays findable: the prefix and the rest are written together.
 */
function foldNames(names: string[]): string {
  const byStem = new Map<string, string[]>();
  for (const name of names) {
    const rest = name.replace(/^avalanchego_(exporter_)?/, '');
    const stem = `${name.startsWith('avalanchego_exporter_') ? 'exporter_' : ''}${rest.split('_')[0] ?? rest}`;
    byStem.set(stem, [...(byStem.get(stem) ?? []), name]);
  }
  return [...byStem.entries()]
    .flatMap(([stem, list]) => {
      const alone = list.filter((n) => n === `avalanchego_${stem}`);
      const rest = list.filter((n) => n !== `avalanchego_${stem}`);
      const prefix = commonPrefix(rest);
      const folded =
        rest.length > 1 && prefix.length > 'avalanchego_'.length ? [`\`${prefix}{${rest.map((n) => n.slice(prefix.length)).join(', ')}}\``] : rest.map((n) => `\`${n}\``);
      return [...alone.map((n) => `\`${n}\``), ...folded];
    })
    .join(', ');
}

/** The README's metric families: one row a source, its API and its metric names (docs/metrics.md has each one). */
export function metricFamiliesTable(): string {
  const bySource = new Map<string, string[]>();
  for (const m of ALL_METRICS()) bySource.set(m.source, [...(bySource.get(m.source) ?? []), m.name]);
  const rows = [...bySource.entries()].map(([source, names]) => `| ${source} | ${cell(SOURCE_FROM[source] ?? `the ${source} source`)} | ${foldNames(names)} |`);
  return ['| source | from | metrics |', '|---|---|---|', ...rows].join('\n');
}

/** A rule file as YAML gives it: only what the alerts table reads. */
export interface RuleGroups {
  groups: Array<{ name: string; rules: Array<{ alert?: string; labels?: Record<string, string> }> }>;
}

/** What each rule group is about, for the alerts table; a group not listed here gets its name. */
const GROUP_ABOUT: Record<string, string> = {
  'avalanchego-exporter': 'the exporter',
  'avalanchego-node': 'the node',
  'avalanchego-chains': 'chains',
  'avalanchego-helicon': 'after Helicon',
  'avalanchego-consensus': "the node's consensus",
  'avalanchego-network': 'network',
  'avalanchego-resources': 'resources',
  'avalanchego-validators': 'validators',
  'avalanchego-posture': 'posture',
  'avalanchego-exporter-scale': 'the exporter at scale',
  'avalanchego-l1': 'the L1 set',
};
const SEVERITY_ORDER = ['critical', 'warning', 'info'];

/** The groups of a rule file as YAML parsed it; anything else in it is ignored. */
function groupsOf(file: unknown): RuleGroups['groups'] {
  const groups = file !== null && typeof file === 'object' ? (file as { groups?: unknown }).groups : undefined;
  return Array.isArray(groups) ? (groups as RuleGroups['groups']).filter((g) => typeof g.name === 'string' && Array.isArray(g.rules)) : [];
}

/** The README's alerts: one row a rule group, each alert with its severities (docs/runbook.md has each one). */
export function alertsTable(files: readonly unknown[]): string {
  const rows: string[] = [];
  for (const group of files.flatMap(groupsOf)) {
    const severities = new Map<string, Set<string>>();
    for (const r of group.rules) {
      if (r.alert === undefined) continue;
      const s = severities.get(r.alert) ?? new Set<string>();
      s.add(r.labels?.['severity'] ?? 'none');
      severities.set(r.alert, s);
    }
    if (severities.size === 0) continue;
    const alerts = [...severities.entries()].map(([name, s]) => {
      const sorted = [...s].sort((a, b) => (SEVERITY_ORDER.indexOf(a) + 1 || 9) - (SEVERITY_ORDER.indexOf(b) + 1 || 9));
      return `\`${name.replace(/^AvalancheGo/, '')}\` (${sorted.join(', ')})`;
    });
    rows.push(`| ${cell(GROUP_ABOUT[group.name] ?? group.name)} | ${alerts.join(', ')} |`);
  }
  return ['| about | alerts (`AvalancheGo…`, severities) |', '|---|---|', ...rows].join('\n');
}

/** A built-in default as the config would write it. */
function defaultText(settingKey: string, value: unknown): string {
  const derived = CONFIG_FILE.derivedDefaults[settingKey];
  if (derived !== undefined) return `same as \`${derived}\``;
  if (value === undefined || (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length > 0)) return '';
  if (Array.isArray(value)) return `\`[${value.join(', ')}]\``;
  if (typeof value === 'object') return '`{}`';
  return `\`${typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value)}\``;
}

const lookup = (root: unknown, dotted: string): unknown =>
  dotted.split('.').reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), root);

/** Every config key once: a target's own keys, and what it may override listed once, under `defaults`. */
export function configKeys(): Array<{ path: string; typeName: string; fallback: string; description: string }> {
  const out: Array<{ path: string; typeName: string; fallback: string; description: string }> = [];
  walkSchema(CONFIG_FILE.schema, (path, node) => {
    const m = /^targets\[\]\.(.+)$/.exec(path);
    if (m && m[1] !== 'name' && m[1] !== 'url') return false;
    const setting = /^defaults\.(.+)$/.exec(path)?.[1];
    const fallback =
      setting !== undefined ? defaultText(setting, lookup(CONFIG_FILE.builtinDefaults, setting))
      : path.startsWith('scheduler.') ? defaultText('', lookup(BUILTIN_SCHEDULER, path.slice('scheduler.'.length)))
      : path.startsWith('l1s[].') ? defaultText('', lookup(L1_DEFAULTS, path.slice('l1s[].'.length)))
      : '';
    out.push({ path, typeName: node.typeName, fallback, description: node.description ?? '' });
    return true;
  });
  return out;
}

export function configTable(): string {
  return [
    '| key | type | default | meaning |',
    '|---|---|---|---|',
    ...configKeys().map((k) => `| \`${k.path}\` | ${cell(k.typeName)} | ${cell(k.fallback)} | ${cell(k.description)} |`),
    '| `targets[].<any key of defaults>` | | | Overrides that setting for this target. |',
  ].join('\n');
}

/** The public names as docs/public-names.txt lists them: `metric NAME` and `config KEY`, one a line. */
export function publicNames(): string[] {
  return [...ALL_METRICS().map((m) => `metric ${m.name}`), ...configKeys().map((k) => `config ${k.path}`)];
}

/**
 * docs/public-names.txt after adding the names the catalog and schema have now. Names only ever join the list: one
 * that leaves the catalog or the schema stays listed, and CHANGELOG.md must name it in a [CHANGE] line.
 */
export function mergePublicNames(listed: string): string {
  const lines = listed.split('\n').filter((l) => l !== '');
  const known = new Set(lines.filter((l) => !l.startsWith('#')));
  const added = publicNames().filter((n) => !known.has(n));
  return `${[...lines, ...added].join('\n')}\n`;
}

/** Replaces the text between `<!-- NAME:start -->` and `<!-- NAME:end -->`. */
export function replaceSection(doc: string, name: string, content: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  if (i < 0 || j < i) throw new Error(`the document has no ${start} … ${end} section`);
  return `${doc.slice(0, i + start.length)}\n${content}\n${doc.slice(j)}`;
}
