// @ts-check
// What every dashboard shares: the datasource reference, the selectors, the variables and
// the dashboard's settings, through Grafana's typed builders (@grafana/grafana-foundation-sdk).
//
// The dashboards are Grafana's classic JSON model (DashboardBuilder, schemaVersion 42), not
// the v2 schema (dashboardv2): file provisioning, dashboard-linter and every Grafana from 10.x
// read the classic model, and the v2 one needs Grafana 12 with a feature flag.
import * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';

/** @typedef {dashboard.RowBuilder | import('@grafana/grafana-foundation-sdk/cog').Builder<dashboard.Panel>} PanelOrRow */

/** Every panel, query and variable reads the Prometheus picked in the `datasource` variable. */
export const DS = { type: 'prometheus', uid: '${datasource}' };

// Selector fragments: the job and instance variables are what Grafana's dashboard-linter
// expects on every selector, node is the exporter's own target label.
/** Per-node series. */
export const FLEET = 'job=~"$job", instance=~"$instance", node=~"$node"';
/** The exporter's own series (no node label). */
export const EXP = 'job=~"$job", instance=~"$instance"';

export const PRIMARY_NETWORK = '11111111111111111111111111111111LpoYY';

function datasourceVar() {
  return new dashboard.DatasourceVariableBuilder('datasource')
    .label('Data source')
    .type('prometheus')
    .hide(dashboard.VariableHide.DontHide)
    .multi(false)
    .includeAll(false)
    .regex('');
}

/**
 * A query variable over label_values(); refreshed on time range change, as dashboard-linter wants.
 * @param {string} name
 * @param {string} label
 * @param {string} query
 * @param {{ multi?: boolean, includeAll?: boolean }} [options]
 */
export function queryVar(name, label, query, { multi = true, includeAll = true } = {}) {
  const v = new dashboard.QueryVariableBuilder(name)
    .label(label)
    .datasource(DS)
    .definition(query)
    .query({ query, refId: `${name}-query` })
    .hide(dashboard.VariableHide.DontHide)
    .multi(multi)
    .includeAll(includeAll)
    .refresh(dashboard.VariableRefresh.OnTimeRangeChanged)
    .regex('')
    .sort(dashboard.VariableSort.AlphabeticalAsc);
  return includeAll ? v.allValue('.+') : v;
}

/**
 * The datasource, job, instance and node variables every dashboard starts with.
 * @param {{ multi?: boolean, includeAll?: boolean }} [nodeOptions]
 */
export function nodeVariables(nodeOptions = {}) {
  return [
    datasourceVar(),
    queryVar('job', 'Job', 'label_values(avalanchego_up, job)'),
    queryVar('instance', 'Instance', 'label_values(avalanchego_up{job=~"$job"}, instance)'),
    queryVar('node', 'Node', 'label_values(avalanchego_up{job=~"$job", instance=~"$instance"}, node)', nodeOptions),
  ];
}

/**
 * A link to the other AvalancheGo dashboards, keeping the variables and the time range.
 * @param {string} title
 */
export function dashboardsLink(title) {
  return new dashboard.DashboardLinkBuilder(title)
    .type(dashboard.DashboardLinkType.Dashboards)
    .tags(['avalanchego'])
    .asDropdown(false)
    .includeVars(true)
    .keepTime(true);
}

/**
 * A dashboard: read-only (changes go through grafana/build.mjs), UTC, the last 6 hours,
 * refreshed every 30s, shared crosshair. `panels` are rows and panels in display order; the
 * builder lays them out left to right, a new line when 24 columns are full, a row at the
 * start of a line.
 * @param {{
 *   uid: string,
 *   title: string,
 *   description: string,
 *   panels: readonly PanelOrRow[],
 *   variables: ReadonlyArray<import('@grafana/grafana-foundation-sdk/cog').Builder<dashboard.VariableModel>>,
 *   links: ReadonlyArray<dashboard.DashboardLinkBuilder>,
 * }} d
 * @returns {dashboard.Dashboard}
 */
export function buildDashboard({ uid, title, description, panels, variables, links }) {
  const b = new dashboard.DashboardBuilder(title)
    .uid(uid)
    .description(description)
    .tags(['avalanchego', 'avalanchego-exporter'])
    .readonly()
    .tooltip(dashboard.DashboardCursorSync.Crosshair)
    .time({ from: 'now-6h', to: 'now' })
    .timezone('utc')
    .refresh('30s')
    .version(1)
    .fiscalYearStartMonth(0)
    .liveNow(false)
    .weekStart('')
    .variables([...variables])
    .links([...links]);
  for (const p of panels) {
    if (p instanceof dashboard.RowBuilder) b.withRow(p);
    else b.withPanel(p);
  }
  const built = b.build();
  // The SDK's DashboardLinkBuilder always sets placement: "inControlsMenu", which Grafana 12
  // shows inside the dashboard controls menu instead of in the bar above the panels; the
  // builder cannot leave it unset (the schema's default, the bar), so it is removed here.
  for (const l of built.links ?? []) delete l.placement;
  // Panel ids 1, 2, … in display order (rows included), unique within the dashboard.
  (built.panels ?? []).forEach((p, i) => (p.id = i + 1));
  return built;
}
