#!/usr/bin/env node
// What a change to grafana/build.mjs changes for a user of the dashboards: the panels (title,
// type, position, unit, description, min/max, fill, axis label, legend calcs), their queries
// (expression, legend, refId, instant/range/table), field overrides, value mappings,
// thresholds, transformations, variables, links and the dashboard settings, compared between
// the dashboards committed at a git revision and those in the working tree. The JSON's shape
// (field order, defaults Grafana fills in) is left out: only what a user sees is compared.
//
//   node scripts/dashboard-diff.mjs [rev]     default rev: HEAD; prints "-" old, "+" new lines
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIR = 'grafana/dashboards';
const rev = process.argv[2] ?? 'HEAD';

/** @typedef {{ id?: string, options?: unknown }} Config */
/**
 * @typedef {{
 *   title?: string, type?: string, id?: number, description?: string, datasource?: unknown,
 *   gridPos?: { x: number, y: number, w: number, h: number },
 *   fieldConfig?: {
 *     defaults?: { unit?: string, min?: number, max?: number, color?: { mode?: string }, thresholds?: { steps?: unknown }, mappings?: unknown, custom?: Record<string, unknown> },
 *     overrides?: Array<{ matcher?: Config, properties?: Array<{ id?: string, value?: unknown }> }>,
 *   },
 *   options?: { legend?: { displayMode?: string, calcs?: unknown }, tooltip?: unknown, colorMode?: string, graphMode?: string, reduceOptions?: { calcs?: unknown }, showValue?: string },
 *   targets?: Array<{ refId?: string, expr?: string, legendFormat?: string, instant?: boolean, range?: boolean, format?: string, datasource?: unknown }>,
 *   transformations?: Config[],
 * }} Panel the fields of a panel this script reads
 */
/**
 * @typedef {{
 *   uid?: string, title?: string, description?: string, tags?: unknown, editable?: boolean, graphTooltip?: number, time?: unknown, timezone?: string, refresh?: string,
 *   links?: Array<Record<string, unknown>>, templating?: { list?: Array<Record<string, unknown>> }, panels?: Panel[],
 * }} Dashboard the fields of a dashboard this script reads
 */

/** @param {unknown} v */
const j = (v) => JSON.stringify(v ?? null);

/**
 * The facts of one dashboard, one string each.
 * @param {Dashboard} d a dashboard's JSON
 * @returns {string[]}
 */
function facts(d) {
  const out = [];
  out.push(
    `dashboard uid=${d.uid} title=${j(d.title)} tags=${j(d.tags)} editable=${j(d.editable)} graphTooltip=${j(d.graphTooltip)} time=${j(d.time)} timezone=${j(d.timezone)} refresh=${j(d.refresh)}`,
  );
  out.push(`dashboard description=${j(d.description)}`);
  for (const l of d.links ?? [])
    out.push(
      `link ${j(l.title)} type=${j(l.type)} tags=${j(l.tags)} asDropdown=${j(l.asDropdown)} includeVars=${j(l.includeVars)} keepTime=${j(l.keepTime)} placement=${j(l.placement)}`,
    );
  for (const v of d.templating?.list ?? []) {
    const q = v.query && typeof v.query === 'object' ? /** @type {{ query?: unknown }} */ (v.query).query : v.query;
    out.push(
      `variable ${j(v.name)} type=${j(v.type)} label=${j(v.label)} query=${j(q)} definition=${j(v.definition)} datasource=${j(v.datasource)} multi=${j(v.multi)} includeAll=${j(v.includeAll)} allValue=${j(v.allValue)} refresh=${j(v.refresh)} sort=${j(v.sort)} hide=${j(v.hide ?? 0)}`,
    );
  }
  for (const p of d.panels ?? []) {
    const t = p.title;
    const g = p.gridPos;
    const defaults = p.fieldConfig?.defaults ?? {};
    const custom = defaults.custom ?? {};
    out.push(`panel ${j(t)} type=${j(p.type)} id=${j(p.id)} gridPos=${g ? `${g.x},${g.y},${g.w}x${g.h}` : 'none'} datasource=${j(p.datasource)}`);
    if (p.type === 'row') continue;
    out.push(`panel ${j(t)} description=${j(p.description)}`);
    out.push(`panel ${j(t)} unit=${j(defaults.unit)} min=${j(defaults.min)} max=${j(defaults.max)} color=${j(defaults.color?.mode)}`);
    out.push(`panel ${j(t)} thresholds=${j(defaults.thresholds?.steps)} mappings=${j(defaults.mappings ?? [])}`);
    if (p.type === 'timeseries') {
      out.push(
        `panel ${j(t)} fillOpacity=${j(custom.fillOpacity)} axisLabel=${j(custom.axisLabel || '')} lineWidth=${j(custom.lineWidth)} showPoints=${j(custom.showPoints)} legend=${j(p.options?.legend?.displayMode)} calcs=${j(p.options?.legend?.calcs)} tooltip=${j(p.options?.tooltip)}`,
      );
    }
    if (p.type === 'stat')
      out.push(`panel ${j(t)} colorMode=${j(p.options?.colorMode)} graphMode=${j(p.options?.graphMode)} calcs=${j(p.options?.reduceOptions?.calcs)}`);
    if (p.type === 'state-timeline') out.push(`panel ${j(t)} showValue=${j(p.options?.showValue)} fillOpacity=${j(custom.fillOpacity)}`);
    if (p.type === 'table') out.push(`panel ${j(t)} filterable=${j(custom.filterable)}`);
    for (const o of p.fieldConfig?.overrides ?? [])
      for (const prop of o.properties ?? []) out.push(`override ${j(t)} ${j(o.matcher?.id)}=${j(o.matcher?.options)} ${j(prop.id)}=${j(prop.value)}`);
    for (const q of p.targets ?? [])
      out.push(
        `query ${j(t)} ${j(q.refId)} ${j(q.expr)} legend=${j(q.legendFormat)} instant=${j(q.instant ?? false)} range=${j(q.range ?? false)} format=${j(q.format ?? 'time_series')} datasource=${j(q.datasource)}`,
      );
    for (const x of p.transformations ?? []) out.push(`transformation ${j(t)} ${j(x.id)} ${j(x.options)}`);
  }
  return out;
}

/** @param {(file: string) => string} read @param {string[]} files */
const load = (read, files) =>
  new Map(
    files.map((f) => {
      /** @type {unknown} */
      const d = JSON.parse(read(f));
      return [f, facts(/** @type {Dashboard} */ (d))];
    }),
  );

const oldFiles = execFileSync('git', ['ls-tree', '--name-only', `${rev}:${DIR}`], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f.endsWith('.json'));
const newFiles = readdirSync(join(ROOT, DIR)).filter((f) => f.endsWith('.json'));
const before = load((f) => execFileSync('git', ['show', `${rev}:${DIR}/${f}`], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 26 }), oldFiles);
const after = load((f) => readFileSync(join(ROOT, DIR, f), 'utf8'), newFiles);

let changes = 0;
for (const f of [...new Set([...oldFiles, ...newFiles])].sort()) {
  const a = new Set(before.get(f) ?? []);
  const b = new Set(after.get(f) ?? []);
  const gone = [...a].filter((x) => !b.has(x));
  const added = [...b].filter((x) => !a.has(x));
  console.log(`== ${f}: ${a.size} facts at ${rev}, ${b.size} now; ${gone.length} gone, ${added.length} new`);
  for (const x of gone) console.log(`- ${x}`);
  for (const x of added) console.log(`+ ${x}`);
  changes += gone.length + added.length;
}
console.log(changes === 0 ? 'no change a user sees' : `${changes} changed facts`);
