// @ts-check
// The panel kinds the dashboards use, each with the same datasource, legend, tooltip and
// colour settings, through Grafana's typed builders (@grafana/grafana-foundation-sdk).
import * as common from '@grafana/grafana-foundation-sdk/common';
import * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import * as prometheus from '@grafana/grafana-foundation-sdk/prometheus';
import * as stat from '@grafana/grafana-foundation-sdk/stat';
import * as statetimeline from '@grafana/grafana-foundation-sdk/statetimeline';
import * as table from '@grafana/grafana-foundation-sdk/table';
import * as timeseries from '@grafana/grafana-foundation-sdk/timeseries';
import { DS } from './shared.mjs';

/** @typedef {{ h: number, w: number }} Size a panel's height and width (of 24 columns); the dashboard lays panels out in order */
/** @typedef {{ color: string, value: number | null }} Step */
/** @typedef {prometheus.DataqueryBuilder} Query */
/** @typedef {{ id: string, value: unknown }} Property a field override's property */
/** @typedef {{ matcher: { id: 'byName' | 'byRegexp', options: string }, properties: readonly Property[] }} Override */

// ---------------------------------------------------------------------------------------
// Queries

/**
 * A range query drawn over time.
 * @param {string} expr
 * @param {string} [legendFormat]
 */
export function target(expr, legendFormat = '__auto') {
  return new prometheus.DataqueryBuilder().datasource(DS).expr(expr).legendFormat(legendFormat).range();
}

/**
 * An instant query of a table, named `refId` (the merge of a table's queries keys on it).
 * @param {string} expr
 * @param {string} refId
 */
export function tableTarget(expr, refId) {
  return new prometheus.DataqueryBuilder()
    .datasource(DS)
    .expr(expr)
    .format(prometheus.PromQueryFormat.Table)
    .instant()
    .refId(refId)
    .legendFormat('__auto');
}

/**
 * The queries with a refId each: their own (tableTarget), or A, B, C … by position.
 * @param {readonly Query[]} targets
 */
function withRefIds(targets) {
  return targets.map((t, i) => (t.build().refId ? t : t.refId(String.fromCharCode(65 + i))));
}

// ---------------------------------------------------------------------------------------
// Field settings

/**
 * Absolute thresholds.
 * @param {readonly Step[]} steps
 */
export function thresholds(steps) {
  return new dashboard.ThresholdsConfigBuilder().mode(dashboard.ThresholdsMode.Absolute).steps([...steps]);
}
/** One green step: no colour change. */
const GREEN = [{ color: 'green', value: null }];

/**
 * A value mapping of 0 and 1 to a text and a colour.
 * @param {[string, string]} zero text and colour of 0
 * @param {[string, string]} one text and colour of 1
 * @returns {dashboard.ValueMapping[]}
 */
export function zeroOne([zeroText, zeroColor], [oneText, oneColor]) {
  return [
    {
      type: dashboard.MappingType.ValueToText,
      options: { 0: { text: zeroText, color: zeroColor, index: 0 }, 1: { text: oneText, color: oneColor, index: 1 } },
    },
  ];
}
export const PASS_FAIL = zeroOne(['failing', 'red'], ['passing', 'green']);
export const UP_DOWN = zeroOne(['down', 'red'], ['up', 'green']);
export const YES_NO_HEALTHY = zeroOne(['unhealthy', 'red'], ['healthy', 'green']);

// Colours of a validation's time left (page below 1 day, ticket below 7) and of an L1
// validator's runway (page below 7 days, ticket below 30), as the alerts have them.
/** @type {readonly Step[]} */
export const TIME_LEFT_STEPS = [
  { color: 'red', value: null },
  { color: 'orange', value: 86400 },
  { color: 'green', value: 604800 },
];
/** @type {readonly Step[]} */
export const RUNWAY_STEPS = [
  { color: 'red', value: null },
  { color: 'orange', value: 604800 },
  { color: 'green', value: 2592000 },
];

// Field override properties (of a table column or a series).
/** @param {string} u @returns {Property} */
export const unitProp = (u) => ({ id: 'unit', value: u });
/** @type {Property} */
export const colorBg = { id: 'custom.cellOptions', value: { type: common.TableCellDisplayMode.ColorBackground } };
/** @param {readonly Step[]} steps @returns {Property} */
export const thresholdsProp = (steps) => ({ id: 'thresholds', value: { mode: dashboard.ThresholdsMode.Absolute, steps } });
/** @param {dashboard.ValueMapping[]} m @returns {Property} */
export const mappingsProp = (m) => ({ id: 'mappings', value: m });
/** @type {Property} */
export const rightAxis = { id: 'custom.axisPlacement', value: common.AxisPlacement.Right };
/** @type {Property} */
export const dashed = { id: 'custom.lineStyle', value: { fill: 'dash', dash: [10, 10] } };
/** @param {string} name @param {readonly Property[]} properties @returns {Override} */
export const byName = (name, properties) => ({ matcher: { id: 'byName', options: name }, properties });
/** @param {string} regexp @param {readonly Property[]} properties @returns {Override} */
export const byRegexp = (regexp, properties) => ({ matcher: { id: 'byRegexp', options: regexp }, properties });

/**
 * The overrides onto a panel builder.
 * @template {{ overrideByName(name: string, p: dashboard.DynamicConfigValue[]): unknown, overrideByRegexp(r: string, p: dashboard.DynamicConfigValue[]): unknown }} B
 * @param {B} panel
 * @param {readonly Override[]} overrides
 */
function applyOverrides(panel, overrides) {
  for (const o of overrides) {
    if (o.matcher.id === 'byName') panel.overrideByName(o.matcher.options, [...o.properties]);
    else panel.overrideByRegexp(o.matcher.options, [...o.properties]);
  }
  return panel;
}

// ---------------------------------------------------------------------------------------
// Panels

/**
 * A row: a full-width title starting a new line of panels.
 * @param {string} title
 */
export function row(title) {
  return new dashboard.RowBuilder(title).collapsed(false);
}

/**
 * Lines over time, a table legend with the last and highest value.
 * @param {string} title
 * @param {string} description
 * @param {string} unit
 * @param {readonly Query[]} targets
 * @param {Size} size
 * @param {{ min?: number, max?: number, fill?: number, axisLabel?: string, thresholds?: readonly Step[], overrides?: readonly Override[], calcs?: readonly string[] }} [opts]
 */
export function timeseriesPanel(title, description, unit, targets, size, opts = {}) {
  const p = new timeseries.PanelBuilder()
    .title(title)
    .description(description)
    .datasource(DS)
    .height(size.h)
    .span(size.w)
    .unit(unit)
    .drawStyle(common.GraphDrawStyle.Line)
    .lineWidth(1)
    .fillOpacity(opts.fill ?? 10)
    .showPoints(common.VisibilityMode.Never)
    .spanNulls(false)
    .axisLabel(opts.axisLabel ?? '')
    .thresholds(thresholds(opts.thresholds ?? GREEN))
    .legend(
      new common.VizLegendOptionsBuilder()
        .displayMode(common.LegendDisplayMode.Table)
        .placement(common.LegendPlacement.Bottom)
        .showLegend(true)
        .calcs([...(opts.calcs ?? ['lastNotNull', 'max'])]),
    )
    .tooltip(new common.VizTooltipOptionsBuilder().mode(common.TooltipDisplayMode.Multi).sort(common.SortOrder.Descending))
    .targets(withRefIds(targets));
  if (opts.min !== undefined) p.min(opts.min);
  if (opts.max !== undefined) p.max(opts.max);
  return applyOverrides(p, opts.overrides ?? []);
}

/**
 * One big number (the last value), its background coloured by thresholds or mappings.
 * @param {string} title
 * @param {string} description
 * @param {string} unit
 * @param {readonly Query[]} targets
 * @param {Size} size
 * @param {{ mappings?: dashboard.ValueMapping[], thresholds?: readonly Step[] }} [opts]
 */
export function statPanel(title, description, unit, targets, size, opts = {}) {
  return new stat.PanelBuilder()
    .title(title)
    .description(description)
    .datasource(DS)
    .height(size.h)
    .span(size.w)
    .unit(unit)
    .mappings(opts.mappings ?? [])
    .thresholds(thresholds(opts.thresholds ?? GREEN))
    .colorMode(common.BigValueColorMode.Background)
    .graphMode(common.BigValueGraphMode.None)
    .justifyMode(common.BigValueJustifyMode.Auto)
    .orientation(common.VizOrientation.Auto)
    .textMode(common.BigValueTextMode.Auto)
    .reduceOptions(new common.ReduceDataOptionsBuilder().calcs(['lastNotNull']).fields('').values(false))
    .targets(withRefIds(targets));
}

/**
 * A count of the series an expression selects, 0 when it selects none, as a stat of 4 × 4:
 * green at 0, `color` from 1 on (no colour change without one).
 * @param {string} title
 * @param {string} description
 * @param {string} expr the selection, counted as `count(expr) or vector(0)`
 * @param {string} [color]
 */
export function countStat(title, description, expr, color) {
  return statPanel(
    title,
    description,
    'none',
    [target(`count(${expr}) or vector(0)`)],
    { h: 4, w: 4 },
    color === undefined
      ? {}
      : {
          thresholds: [
            { color: 'green', value: null },
            { color, value: 1 },
          ],
        },
  );
}

/**
 * 0/1 series over time as coloured bands (checks, poll success).
 * @param {string} title
 * @param {string} description
 * @param {readonly Query[]} targets
 * @param {Size} size
 * @param {dashboard.ValueMapping[]} [mappings]
 */
export function stateTimelinePanel(title, description, targets, size, mappings = PASS_FAIL) {
  return new statetimeline.PanelBuilder()
    .title(title)
    .description(description)
    .datasource(DS)
    .height(size.h)
    .span(size.w)
    .unit('none')
    .mappings(mappings)
    .colorScheme(new dashboard.FieldColorBuilder().mode(dashboard.FieldColorModeId.Thresholds))
    .thresholds(
      thresholds([
        { color: 'red', value: null },
        { color: 'green', value: 1 },
      ]),
    )
    .fillOpacity(80)
    .lineWidth(0)
    .mergeValues(true)
    .showValue(common.VisibilityMode.Never)
    .alignValue(common.TimelineValueAlignment.Left)
    .rowHeight(0.9)
    .legend(
      new common.VizLegendOptionsBuilder().displayMode(common.LegendDisplayMode.List).placement(common.LegendPlacement.Bottom).showLegend(false),
    )
    .tooltip(new common.VizTooltipOptionsBuilder().mode(common.TooltipDisplayMode.Single).sort(common.SortOrder.None))
    .targets(withRefIds(targets));
}

/**
 * A table of instant queries, reshaped by `transformations`, filterable columns.
 * @param {string} title
 * @param {string} description
 * @param {string} unit
 * @param {readonly Query[]} targets
 * @param {Size} size
 * @param {dashboard.DataTransformerConfig[]} transformations
 * @param {readonly Override[]} [overrides]
 */
export function tablePanel(title, description, unit, targets, size, transformations, overrides = []) {
  const p = new table.PanelBuilder()
    .title(title)
    .description(description)
    .datasource(DS)
    .height(size.h)
    .span(size.w)
    .unit(unit)
    .align(common.FieldTextAlignment.Auto)
    .cellOptions({ type: common.TableCellDisplayMode.Auto })
    .filterable(true)
    .thresholds(thresholds(GREEN))
    .showHeader(true)
    .cellHeight(common.TableCellHeight.Sm)
    .footer(new common.TableFooterOptionsBuilder().show(false).reducer(['sum']))
    .targets(withRefIds(targets))
    .transformations(transformations);
  return applyOverrides(p, overrides);
}

// Table transformations.
/** @returns {dashboard.DataTransformerConfig} the instant queries' frames joined on their labels */
export const merge = () => ({ id: 'merge', options: {} });
/**
 * Columns hidden, ordered and renamed.
 * @param {{ excludeByName?: Record<string, boolean>, indexByName?: Record<string, number>, renameByName?: Record<string, string> }} options
 * @returns {dashboard.DataTransformerConfig}
 */
export const organize = (options) => ({ id: 'organize', options });
/**
 * A matrix: one row per `rowField`, one column per `columnField`.
 * @param {string} columnField
 * @param {string} rowField
 * @returns {dashboard.DataTransformerConfig}
 */
export const matrix = (columnField, rowField) => ({ id: 'groupingToMatrix', options: { columnField, rowField, valueField: 'Value' } });
