// The plans of the detection report (scripts/detection.mjs → docs/detection.md): what each
// simulator scenario should give after inhibition, the healthy fleet with blips, and the
// report's text. The harness that runs them is detection-harness.ts.
import { SCENARIOS } from '../../src/simulator/index.js';
import { SOURCES } from '../../src/sources/registry.js';
import { defined } from '../helpers/assert.js';
import { POLL_INTERVAL_S, type NodePlan, type RunResult, type Summary } from './detection-harness.js';

export interface Fault {
  scenario: string;
  /** How long the fault is held (compressed seconds; default FAULT_SECONDS). */
  holdSeconds?: number;
  /**
   * When the fault starts (compressed seconds; default 0): a fault whose page holds back alerts of other faults of its
   * batch (an L1's weight at risk holds back its validators' tickets) starts after their notifications are sent.
   */
  startSeconds?: number;
  /** Exporter sources the alert is computed from: without them the fault cannot be detected yet. */
  sources?: string[];
  /** What Alertmanager should send for it: pages, tickets, and the alert that names the cause. */
  expect: { pages: number; tickets: number; alert?: string };
  why: string;
  /**
   * The node runs the scenario from its start instead of switching to it at 0: a release the
   * node has always run, not a change (a v1.14 L1 validator "switched" to v1.10.15 would lose
   * its L1 entry, which no real node does: a pre-Etna release cannot follow an L1's P-Chain).
   */
  fromStart?: boolean;
}

/** How long a fault is held, and the time after the longest hold that watches the recovery, compressed seconds. */
export const FAULT_SECONDS = 50 * 60;
export const RECOVERY_SECONDS = 20 * 60;
export const BLIP_RUN_SECONDS = 60 * 60;

export const FAULTS: Fault[] = [
  { scenario: 'healthy', expect: { pages: 0, tickets: 0 }, why: 'control' },
  {
    scenario: 'starting',
    expect: { pages: 0, tickets: 1, alert: 'AvalancheGoNodeNeverReady' },
    why: 'held: the readiness check never runs; no peers meanwhile is not a fault of its own',
  },
  { scenario: 'bootstrapping', expect: { pages: 0, tickets: 0 }, why: 'routine; AvalancheGoBootstrapTooLong needs 12h' },
  {
    scenario: 'stalled-chain',
    expect: { pages: 1, tickets: 0, alert: 'AvalancheGoChainStalled' },
    why: 'root cause of the piled-up blocks, the failing chain check and the lag',
  },
  { scenario: 'peers-dropping', expect: { pages: 1, tickets: 0, alert: 'AvalancheGoTooFewPeers' }, why: 'no peers: stake, chains and health follow' },
  {
    scenario: 'disk-filling',
    expect: { pages: 1, tickets: 0, alert: 'AvalancheGoDiskSpaceLow' },
    why: 'falls past 10% and 5% within seconds (the critical level inhibits the warning), and below 3% 15m later: the node shuts itself down, and its NodeDown is held back',
  },
  { scenario: 'router-overload', expect: { pages: 1, tickets: 0, alert: 'AvalancheGoRouterOverloaded' }, why: 'explains the failing router check' },
  {
    scenario: 'flapping',
    expect: { pages: 0, tickets: 1, alert: 'AvalancheGoHealthCheckFlapping' },
    why: 'a check failing and recovering every minute',
  },
  {
    scenario: 'slow',
    expect: { pages: 1, tickets: 0, alert: 'AvalancheGoNodeDown' },
    why: "4s answers exceed the run's 1.5s poll timeout: the exporter cannot read the node",
  },
  { scenario: 'down', expect: { pages: 1, tickets: 0, alert: 'AvalancheGoNodeDown' }, why: 'inhibits every other alert of the node' },
  { scenario: 'garbage', expect: { pages: 1, tickets: 0, alert: 'AvalancheGoNodeDown' }, why: 'no valid health report' },
  { scenario: 'old-version', fromStart: true, expect: { pages: 0, tickets: 0 }, why: 'a healthy node that runs v1.10.15' },
  {
    scenario: 'old-version-v1.7',
    fromStart: true,
    expect: { pages: 1, tickets: 0, alert: 'AvalancheGoNodeUnhealthy' },
    why: "a node that runs v1.7.3: its C check fails (block processing 41.5s), which only the node's health tells",
  },
  // Validators (every node of the run validates the primary network and an L1).
  {
    scenario: 'uptime-dropping',
    sources: ['info', 'platform'],
    expect: { pages: 1, tickets: 0, alert: 'AvalancheGoUptimeBelowRewardThreshold' },
    why: 'perceived uptime falls to 55%',
  },
  {
    scenario: 'stake-expiring',
    sources: ['info', 'platform'],
    expect: { pages: 1, tickets: 0, alert: 'AvalancheGoValidatorStakeExpiring' },
    why: 'the stake ends in 30 wall-clock minutes: less than a (compressed) day',
  },
  {
    scenario: 'l1-balance-draining',
    sources: ['info', 'platform'],
    expect: { pages: 1, tickets: 0, alert: 'AvalancheGoL1ValidatorInactive' },
    why: 'the balance reaches 0 within seconds',
  },
  {
    scenario: 'node-id-changed',
    sources: ['info', 'platform'],
    expect: { pages: 1, tickets: 0, alert: 'AvalancheGoNoLongerValidator' },
    why: 'a restart with another staking key: out of the primary network and the L1, one page for both',
  },
  {
    scenario: 'version-behind',
    sources: ['info', 'platform'],
    holdSeconds: 80 * 60,
    expect: { pages: 0, tickets: 1, alert: 'AvalancheGoNodeVersionBehindPeers' },
    why: 'held 80m: the peers alert needs 1h, the fleet alert 6h',
  },
  // AvalancheGo v1.15.0 (Helicon): each runs the v1.15.0 release from its start (a switch from
  // v1.14.2 would be a restart with another binary, not the fault).
  {
    scenario: 'helicon-uptime',
    fromStart: true,
    sources: ['info', 'platform'],
    expect: { pages: 1, tickets: 0, alert: 'AvalancheGoUptimeBelowRewardThreshold' },
    why: 'a validation started after Helicon falls to 86%: below 92% (its 90% + 2) it pages; with the old 80% (82%, 85%) nothing would fire',
  },
  {
    scenario: 'auto-renewed',
    fromStart: true,
    sources: ['info', 'platform'],
    expect: { pages: 0, tickets: 0 },
    why: 'its cycle ends 1 wall-clock minute in (inside every expiry window) and renews: auto_renew 1 keeps the expiry alerts silent',
  },
  {
    scenario: 'auto-renew-exiting',
    fromStart: true,
    sources: ['info', 'platform'],
    expect: { pages: 1, tickets: 0, alert: 'AvalancheGoValidatorStakeExpiring' },
    why: 'nextPeriod "0": the validator leaves at its cycle end, 30 wall-clock minutes away, less than a (compressed) day',
  },
  {
    scenario: 'auto-renewed-at-risk',
    fromStart: true,
    sources: ['info', 'platform'],
    expect: { pages: 1, tickets: 0, alert: 'AvalancheGoAutoRenewedValidatorAtRisk' },
    why: 'an auto-renewed validator falls to 86 % of its 90 % with its cycle ending within a day: one page, its uptime alert held back and in the same group',
  },
  {
    scenario: 'c-chain-execution-lag',
    fromStart: true,
    sources: ['evm'],
    expect: { pages: 1, tickets: 0, alert: 'AvalancheGoChainExecutionBacklog' },
    why: 'the C-Chain executes a third of a block a second less than it accepts: eth_blockNumber falls further behind',
  },
  {
    scenario: 'l1-proposer-view-frozen',
    fromStart: true,
    sources: ['proposervm', 'platform'],
    expect: { pages: 1, tickets: 0, alert: 'AvalancheGoL1ProposerViewFrozen' },
    why: "the L1's epoch keeps its P-Chain height and the L1 its height: the frozen view pages and holds back the L1's ChainStalled",
  },
  {
    scenario: 'c-chain-flapping',
    fromStart: true,
    expect: { pages: 0, tickets: 1, alert: 'AvalancheGoHealthCheckFlapping' },
    why: 'avalanchego #6010: the C check fails "block processing too long" for a minute every 8 minutes',
  },
  // Churn (the soak's): a restart that tracks one more L1's chain, and a validation the L1's manager removes.
  {
    scenario: 'chain-added',
    expect: { pages: 0, tickets: 0 },
    why: "routine: a restart that tracks another L1's chain, a check name the exporter has not seen, bootstrapped within seconds",
  },
  {
    scenario: 'l1-validator-removed',
    sources: ['info', 'platform'],
    expect: { pages: 1, tickets: 0, alert: 'AvalancheGoNoLongerValidator' },
    why: "the L1's validator manager sets the node's weight to 0: out of the L1's set, still a primary-network validator",
  },
  // The L1 as a whole (`l1s:`): every node validates the fleet's L1, which four validators of other operators share.
  {
    scenario: 'l1-validator-stopped',
    expect: { pages: 0, tickets: 1, alert: 'AvalancheGoL1ValidatorDown' },
    why: "another operator's validator of the L1 (3 % of its weight) is seen disconnected by every vantage: a ticket for it; its weight is not at risk, so no page",
  },
  {
    scenario: 'l1-halted',
    startSeconds: 15 * 60,
    holdSeconds: 35 * 60,
    expect: { pages: 1, tickets: 0, alert: 'AvalancheGoL1WeightAtRisk' },
    why: "two validators of other operators, 27.6 % of the L1's weight, seen disconnected by every vantage: one page for the L1, their L1ValidatorDown held back; from 15m (held 35m), after the other L1 faults of its batch have notified, since it holds back every ticket of the L1",
  },
  {
    scenario: 'c-chain-executor-dead',
    fromStart: true,
    expect: { pages: 1, tickets: 0, alert: 'AvalancheGoChainExecutorDead' },
    why: "v1.15.1: the C check fails `saexec.Executor unhealthy due to block N`: it pages at once and holds back the node's NodeUnhealthy and the C-Chain's execution backlog",
  },
];

/** The length of a fault run: the longest hold, then the recovery. */
export const faultRunSeconds = (faults: Fault[] = FAULTS): number =>
  Math.max(...faults.map((f) => (f.startSeconds ?? 0) + (f.holdSeconds ?? FAULT_SECONDS))) + RECOVERY_SECONDS;

/** The simulator's scenarios that FAULTS does not plan (new ones must be added above). */
export const unplanned = (): string[] => SCENARIOS.filter((s) => !FAULTS.some((f) => f.scenario === s));

/** One node per fault, switched at the start and back to healthy after its hold, and a spare healthy node. */
export function faultFleet(faults: Fault[] = FAULTS, holdSeconds?: number): NodePlan[] {
  return [
    ...faults.map((f): NodePlan => {
      if (f.scenario === 'healthy') return { label: f.scenario, steps: [] };
      const hold = holdSeconds ?? f.holdSeconds ?? FAULT_SECONDS;
      if (f.fromStart) return { label: f.scenario, initial: f.scenario, steps: [[hold, 'healthy']], recoveryAt: hold };
      const start = f.startSeconds ?? 0;
      return {
        label: f.scenario,
        steps: [
          [start, f.scenario],
          [start + hold, 'healthy'],
        ],
        recoveryAt: start + hold,
      };
    }),
    { label: 'healthy (fleet)', steps: [] },
  ];
}

/** A healthy fleet with blips: two short flaps, one slow poll, one restart (down, starting, bootstrapping). */
export function blipFleet(speedup = 20): NodePlan[] {
  return [
    { label: 'healthy', steps: [] },
    { label: 'healthy', steps: [] },
    {
      label: 'short flaps (2m, twice)',
      steps: [
        [600, 'flapping'],
        [720, 'healthy'],
        [2400, 'flapping'],
        [2520, 'healthy'],
      ],
    },
    // One poll interval of the run in compressed seconds.
    {
      label: 'one slow poll',
      steps: [
        [1200, 'slow'],
        [1200 + POLL_INTERVAL_S * speedup, 'healthy'],
      ],
    },
    {
      label: 'one restart (down 1m, starting 30s, bootstrapping 90s)',
      steps: [
        [1800, 'down'],
        [1860, 'starting'],
        [1890, 'bootstrapping'],
        [1980, 'healthy'],
      ],
    },
  ];
}

// ---------------------------------------------------------------------------------------
// The report

export function fmt(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return '–';
  // Before the start: a node that runs its fault from its start may page before it.
  if (seconds < 0) return `−${fmt(-seconds)}`;
  const s = Math.round(seconds);
  const m = Math.floor(s / 60);
  return m === 0 ? `${s}s` : `${m}m${s % 60 ? ` ${String(s % 60).padStart(2, '0')}s` : ''}`;
}

const cell = (xs: string[]): string => (xs.length ? xs.join('<br>') : '–');

/** The sources a fault needs that this build of the exporter does not have (src/sources/registry.ts). */
export const missingSources = (f: Fault): string[] => (f.sources ?? []).filter((n) => !SOURCES.some((x) => x.name === n));

/** A page's target is the alert's `for:` plus two scrape intervals; a ticket also waits for its group (TICKET_GROUP_WAIT). */
export const TICKET_GROUP_WAIT = 120;

export function meets(f: Fault, s: Summary): { ok: boolean; why: string } {
  const misses: string[] = [];
  const missing = missingSources(f);
  if (missing.length)
    return {
      ok: false,
      why: `not measurable yet: the exporter has no ${missing.join(' or ')} source (src/sources/registry.ts), so no alert can fire`,
    };
  if (s.pages !== f.expect.pages) misses.push(`${s.pages} pages, expected ${f.expect.pages}`);
  if (s.tickets !== f.expect.tickets) misses.push(`${s.tickets} tickets, expected ${f.expect.tickets}`);
  const { alert } = f.expect;
  if (alert && !s.notified.some((n) => n.startsWith(alert.replace(/^AvalancheGo/, '')))) misses.push(`not notified by ${alert}`);
  const target = s.latencyTarget === undefined ? undefined : s.latencyTarget + (f.expect.pages ? 0 : TICKET_GROUP_WAIT);
  if (s.latency !== undefined && target !== undefined && s.latency > target)
    misses.push(`notified ${fmt(s.latency)} after the condition held, target ${fmt(target)}`);
  return { ok: misses.length === 0, why: misses.join('; ') };
}

interface Harness {
  summarize: (n: RunResult['nodes'][number], scrapeSeconds: number, evalDelaySeconds?: number) => Summary;
}

// ---------------------------------------------------------------------------------------
// Merging a run of a few scenarios (--only) into the report: their rows are replaced (or added, for a scenario
// that has none yet, in FAULTS order), every other row, the header, the figures of the run and the blips are
// kept from the report as it was, and a note under the header says which rows a later run made, and its figures.

/** A row of a report's table: its text and what its last cell says. */
interface Row {
  scenario: string;
  text: string;
  ok: boolean;
  blocked: boolean;
  /** Why it misses its target (the last cell's words after `**no**: `). */
  why: string;
}

const ROW = /^\| `([^`]+)` \|/;

/** The rows of the fault table of a part of the report (the Prometheus part, or the VictoriaMetrics section), by scenario. */
export function tableRows(part: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of part.split('\n')) {
    const m = ROW.exec(line);
    if (m?.[1] && !rows.has(m[1])) rows.set(m[1], line);
  }
  return rows;
}

/** A row of this run: the scenario, its `cells` (given its latency target), and whether it meets the target. */
function freshRow(f: Fault, s: Summary, cells: (target: number | undefined) => string[]): Row {
  const m = meets(f, s);
  const target = s.latencyTarget === undefined ? undefined : s.latencyTarget + (f.expect.pages ? 0 : TICKET_GROUP_WAIT);
  const blocked = missingSources(f).length > 0;
  const verdict = m.ok ? 'yes' : blocked ? `n/a: ${m.why}` : `**no**: ${m.why}`;
  return { scenario: f.scenario, ok: m.ok, blocked, why: m.why, text: `| \`${f.scenario}\` | ${cells(target).join(' | ')} | ${verdict} |` };
}

function keptRow(f: Fault, text: string): Row {
  const last =
    text
      .replace(/\s*\|\s*$/, '')
      .split(' | ')
      .pop() ?? '';
  const no = /^\*\*no\*\*: (.*)$/.exec(last);
  return { scenario: f.scenario, text, ok: last === 'yes', blocked: missingSources(f).length > 0, why: no?.[1] ?? '' };
}

/** The rows of the table: this run's, then (merging) the previous report's for the scenarios this run did not run, in FAULTS order. */
function mergedRows(fresh: Row[], previous: string | undefined): Row[] {
  if (previous === undefined) return fresh;
  const kept = tableRows(previous);
  const byScenario = new Map(fresh.map((r) => [r.scenario, r]));
  return FAULTS.flatMap((f) => {
    const row = byScenario.get(f.scenario);
    if (row) return [row];
    const text = kept.get(f.scenario);
    return text === undefined ? [] : [keptRow(f, text)];
  });
}

/** The lines of a part from the first that starts with `start` to the blank line after it (none when absent). */
function paragraphOf(part: string, start: string): string[] {
  const lines = part.split('\n');
  const i = lines.findIndex((l) => l.startsWith(start));
  if (i < 0) return [];
  const j = lines.findIndex((l, k) => k > i && l.trim() === '');
  return lines.slice(i, j < 0 ? undefined : j);
}

/** The lines of a part from the heading `from` up to (not including) the heading `to`, blank lines at the end dropped. */
function sectionOf(part: string, from: string, to: string): string[] {
  const lines = part.split('\n');
  const i = lines.indexOf(from);
  const j = lines.indexOf(to);
  if (i < 0 || j <= i) return [];
  const out = lines.slice(i, j);
  while (out.length && out[out.length - 1]?.trim() === '') out.pop();
  return out;
}

export const RERUN_NOTE = "Rows run again since, each by a run of a few scenarios (`--only`), with that run's own figures:";
const NOTE = /^- ((?:`[^`]+`(?:, )?)+): (.*)$/;

/**
 * The header of a merged part: the previous one's "Generated by" lines (to the blank line after them), and the
 * notes of the runs of a few scenarios since, this one's last; a scenario run again leaves the older notes.
 */
function mergedHeader(previous: string, generatedPrefix: string, note: { scenarios: string[]; text: string }): string[] {
  const generated = paragraphOf(previous, generatedPrefix);
  const notes: string[] = [];
  const lines = previous.split('\n');
  const at = lines.indexOf(RERUN_NOTE);
  if (at >= 0) {
    for (const line of lines.slice(at + 1)) {
      const m = NOTE.exec(line);
      if (!m?.[1]) break;
      const left = [...m[1].matchAll(/`([^`]+)`/g)].map((x) => x[1] ?? '').filter((sc) => !note.scenarios.includes(sc));
      if (left.length) notes.push(`- ${left.map((sc) => `\`${sc}\``).join(', ')}: ${m[2] ?? ''}`);
    }
  }
  notes.push(`- ${note.scenarios.map((sc) => `\`${sc}\``).join(', ')}: ${note.text}`);
  return [...generated, '', RERUN_NOTE, ...notes];
}

/** The figures of a run, in one sentence (a note of a run of a few scenarios). */
function runFigures(st: RunResult['stats']): string {
  return (
    `${st.scrapes} scrapes of the exporter, ${st.failedScrapes} failed (slowest ${st.slowestScrapeSeconds.toFixed(2)}s real); ${Math.round(st.failedPolls)} failed polls of the nodes` +
    (st.polls === undefined
      ? ''
      : `; ${Math.round(st.polls)} polls begun, ${Math.round(st.skippedPolls ?? 0)} skipped as saturated (${((100 * (st.skippedPolls ?? 0)) / Math.max(1, st.polls)).toFixed(2)} %), ${(100 * (st.worstSkipRatio10m ?? 0)).toFixed(2)} % in the worst 10 minutes`)
  );
}

const stamp = (d: Date): string => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** The scenarios FAULTS plans that have no row in a part of the report. */
const unrunOn = (rows: Row[]): string[] => FAULTS.map((f) => f.scenario).filter((sc) => !rows.some((r) => r.scenario === sc));

/** The simulator's scenarios without a row: not planned in FAULTS, or planned and never run into this report. */
function notRunLine(rows: Row[]): string {
  const unplannedNow = unplanned();
  const unrun = unrunOn(rows);
  const parts = [
    ...(unplannedNow.length
      ? [
          `${unplannedNow.map((m) => `\`${m}\``).join(', ')} (scenarios of the simulator that this report does not plan yet; add them to \`FAULTS\` in \`test/rules/detection-plans.ts\`)`,
        ]
      : []),
    ...(unrun.length
      ? [
          `${unrun.map((m) => `\`${m}\``).join(', ')} (planned, not run yet: \`node scripts/detection.mjs --only=${unrun.join(',')}\` adds their rows)`,
        ]
      : []),
  ];
  return parts.length
    ? `Not run: ${parts.join('; ')}.`
    : `These are all the simulator's scenarios (${SCENARIOS.length}), the validator ones included.`;
}

export function renderReport(r: {
  faultRun: RunResult;
  blipRun?: RunResult;
  faults: Fault[];
  harness: Harness;
  started: Date;
  command: string;
  /** The Prometheus part of the report this run of a few scenarios (--only) is merged into. */
  previous?: string;
}): string {
  const { faultRun, blipRun, harness, previous } = r;
  const k = faultRun.speedup;
  const lines: string[] = [];
  const fresh = r.faults.map((f, i): Row => {
    const s = harness.summarize(defined(faultRun.nodes[i], `the result of the node of ${f.scenario}`), faultRun.scrapeSeconds);
    const expected =
      f.expect.pages || f.expect.tickets
        ? `${f.expect.pages ? `1 page` : '1 ticket'}: ${defined(f.expect.alert, `the alert of ${f.scenario}`).replace(/^AvalancheGo/, '')} (${f.why})`
        : `nothing (${f.why})`;
    return freshRow(f, s, (target) => [
      expected,
      String(s.pages),
      String(s.tickets),
      String(s.notifications),
      cell(s.notified),
      fmt(s.firstNotificationAt),
      s.latency === undefined ? '–' : `${fmt(s.latency)} (${fmt(target)})`,
      cell(s.fired),
      cell(s.inhibited),
      `${fmt(s.resolvedAfter)} (${fmt(s.resolvedNotificationAfter)})`,
    ]);
  });
  const rows = mergedRows(fresh, previous);
  const blocked = rows.filter((x) => x.blocked);
  const missed = rows.filter((x) => !x.ok && !x.blocked);
  const faultOf = (x: Row): Fault =>
    defined(
      FAULTS.find((f) => f.scenario === x.scenario),
      `the plan of ${x.scenario}`,
    );
  lines.push(
    '# Detection quality',
    '',
    ...(previous === undefined
      ? [
          `Generated by \`${r.command}\` on ${stamp(r.started)}`,
          `(${faultRun.versions.engine}; ${faultRun.versions.alertmanager}). Do not edit: run the script again.`,
        ]
      : mergedHeader(previous, 'Generated by ', {
          scenarios: r.faults.map((f) => f.scenario),
          text: `\`${r.command}\` on ${stamp(r.started)} (${faultRun.versions.engine}; ${faultRun.versions.alertmanager}); that run: ${runFigures(faultRun.stats)}.`,
        })),
    '',
    'Every simulator scenario runs on its own node of a simulated fleet (in batches of a few nodes, each with its own',
    'stack, and a spare healthy node), polled by the exporter, scraped by a',
    'real Prometheus with the shipped rules ([`deploy/prometheus/`](../deploy/prometheus/)), which alerts a real',
    'Alertmanager with the shipped configuration ([`deploy/alertmanager/alertmanager.yml`](../deploy/alertmanager/alertmanager.yml)).',
    'A webhook receiver on loopback records every notification Alertmanager sends. A **page** is a notification',
    'group of the `pager` receiver (critical), a **ticket** one of the `tickets` receiver (warning; one group per',
    'node): a paging or ticketing service keys its incident by the group, so a later notification of the same',
    'group (another alert joining it) updates the incident rather than opening one. **Notifications** counts every',
    'firing notification sent, updates included. The same faults on VictoriaMetrics (its server and vmalert in place of',
    'Prometheus) are in the section [VictoriaMetrics](#victoriametrics).',
    '',
    '## Compressed time',
    '',
    `Time runs ${k} times faster than in production, and **every time below is in production time**`,
    `(real seconds × ${k}):`,
    '',
    `- the simulator runs with \`--time-scale=${k}\` (heights, disk, peers, uptime, balances, scenario timelines), every node`,
    '  a validator of the primary network and of an L1 (`--validators=all --track-l1`);',
    `- the exporter polls health, indexes and the executed height every ${POLL_INTERVAL_S}s, info, platform and the L1's ProposerVM epoch every 3s (timeout 1.5s); Prometheus scrapes and`,
    `  evaluates every 1s: one scrape interval is ${k}s;`,
    `- the rules run from a copy in which every \`for:\`, range window and offset is divided by ${k} (at least 2s):`,
    `  \`for: 5m\` becomes \`for: ${Math.round(300 / k)}s\`, \`[10m]\` becomes \`[${Math.round(600 / k)}s]\`; the thresholds that compare wall-clock`,
    `  time (node timestamps, stake end times, fee prices are real time) are divided too: IndexStale's 1800s,`,
    "  BootstrapTooLong's 12h, DiskFillingUp's 24h horizon, the stake-expiry windows (7d, 1d, 1h), the L1 runways (30d, 7d);",
    `- the Alertmanager configuration runs from a copy with \`group_wait\`, \`group_interval\`, \`repeat_interval\` and`,
    `  \`resolve_timeout\` divided by ${k}, and every webhook sent to the loopback receiver.`,
    '',
    `Each fault starts at 0 (a node that runs an old release runs it from its start) and is held for ${fmt(FAULT_SECONDS)} (unless its row says otherwise); then the node is healthy`,
    `again and the run watches the recovery until ${fmt(previous === undefined ? faultRun.durationSeconds : faultRunSeconds())}. **Latency** is from the notified alert's condition`,
    "becoming true (Prometheus's `activeAt`) to the notification; the target of a page is the alert's `for:` plus two scrape",
    `intervals (${fmt(2 * faultRun.scrapeSeconds)} here), of a ticket also the tickets' \`group_wait\` (${fmt(TICKET_GROUP_WAIT)}). **Resolved** is from the recovery to the last alert of the node`,
    'resolving in Prometheus / to the last resolved notification.',
    '',
    '## Faults',
    '',
    (missed.length === 0
      ? `Every scenario that this build can detect meets its target (${rows.length - blocked.length} of ${rows.length}): each fault gives exactly one page (or one ticket for a warning-level fault), within \`for:\` plus two scrape intervals.`
      : `${rows.length - blocked.length - missed.length} of ${rows.length - blocked.length} scenarios that this build can detect meet their target; ${missed.map((x) => `**${x.scenario}** misses it (${x.why})`).join('; ')}.`) +
      (blocked.length
        ? ` Not measurable yet: ${blocked.map((x) => `\`${x.scenario}\``).join(', ')}: their alerts read the exporter's ${[...new Set(blocked.flatMap((x) => missingSources(faultOf(x))))].join(' and ')} sources, which this build does not have yet (\`src/sources/registry.ts\` lists ${SOURCES.map((x) => x.name).join(' and ')}); they ran, and raised nothing.`
        : ''),
    '',
    '| Scenario | Expected | Pages | Tickets | Notifications | Sent for | First notification | Latency (target) | Alerts that fired | Held back by inhibition | Resolved (notification) | Meets target |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((x) => x.text),
    '',
    notRunLine(rows),
  );
  const st = faultRun.stats;
  const figures = previous === undefined ? [] : paragraphOf(previous, 'The run itself:');
  lines.push(
    '',
    ...(figures.length
      ? figures
      : [
          `The run itself: ${st.scrapes} scrapes of the exporter, ${st.failedScrapes} failed (slowest ${st.slowestScrapeSeconds.toFixed(2)}s real);`,
          `${Math.round(st.failedPolls)} failed polls of the nodes, most of them the faults' own (\`down\`, \`slow\`, \`garbage\`). A failed scrape or a`,
          "timed-out poll is the machine running late: the figures of an overloaded run are not the rules' (run the script on a quiet machine).",
          st.polls === undefined
            ? ''
            : `The exporter's own saturation: ${Math.round(st.polls)} polls begun, ${Math.round(st.skippedPolls ?? 0)} skipped as saturated (${((100 * (st.skippedPolls ?? 0)) / Math.max(1, st.polls)).toFixed(2)} %), ${(100 * (st.worstSkipRatio10m ?? 0)).toFixed(2)} % in the worst 10 minutes: \`AvalancheGoExporterSaturated\` pages from 10 % for 15 minutes (docs/runbook.md).`,
        ]),
  );
  const keptBlips = blipRun || previous === undefined ? [] : sectionOf(previous, '## A healthy fleet with blips', '## Inhibition and grouping');
  if (keptBlips.length) lines.push('', ...keptBlips);
  if (blipRun) {
    const blips = blipRun.nodes.map((n) => ({ n, s: harness.summarize(n, blipRun.scrapeSeconds) }));
    const total = blips.reduce((t, b) => t + b.s.notifications, 0);
    lines.push(
      '',
      '## A healthy fleet with blips',
      '',
      `Five nodes for ${fmt(blipRun.durationSeconds)}: ${total === 0 ? '**0 notifications**, as targeted' : `**${total} notifications**, target 0`}.`,
      '',
      '| Node | Blips (production time from the start) | Notifications | Alerts that fired (none sent unless listed under notifications) |',
      '|---|---|---|---|',
      ...blips.map(
        ({ n, s }) =>
          `| ${n.plan.label} | ${n.plan.steps.map(([at, sc]) => `${fmt(at)} ${sc}`).join(', ') || '–'} | ${s.notifications ? cell(s.notified) : '0'} | ${cell(s.fired)} |`,
      ),
    );
  }
  lines.push(
    '',
    '## Inhibition and grouping',
    '',
    'From [`deploy/alertmanager/alertmanager.yml`](../deploy/alertmanager/alertmanager.yml); each rule is checked against a real',
    'Alertmanager by `test/rules/detection-inhibit.test.ts`, and this run by `test/rules/detection.test.ts` on a short',
    'run of a few scenarios.',
    '',
    '- `ExporterAbsent` inhibits every other alert; `NodeDown` every other alert of its node but `DiskSpaceLow`.',
    '- `ChainStalled` inhibits `TooManyProcessingBlocks`, `BlockProcessingTooLong`, `NodeUnhealthy`, `ChainBehindFleet` and `IndexStale` of its node.',
    '- `TooFewPeers` (critical, no peer) inhibits `ConnectedStakeLow`, `SendFailRatioHigh`, `ChainStalled`, `ChainBehindFleet`, `IndexStale`, `NodeUnhealthy`, `HealthCheckFlapping`, `UptimeBelowRewardThreshold` and `AutoRenewedValidatorAtRisk` of its node.',
    '- `ConnectedStakeLow` (critical) inhibits `ChainStalled`, `ChainBehindFleet` and `IndexStale` of its node.',
    '- `ConnectedStakeLow` (either level) inhibits `UptimeBelowRewardThreshold` and `AutoRenewedValidatorAtRisk` of its node: the uptime the network perceives (`info.uptime`) counts every validator the node is not connected to as 0.',
    '- `AutoRenewedValidatorAtRisk` inhibits `UptimeBelowRewardThreshold` of its node, and both page in one group of the node: a validator below its requirement is one incident.',
    "- `DiskSpaceLow` inhibits `DiskFillingUp` of its node, and at the critical level `NodeDown`: a node shuts itself down below 3% of free disk, and the critical `DiskSpaceLow` keeps firing while the node is down (on its last reading), so the disk's page stays the incident.",
    "- Every alert whose condition fails one of the node's own checks (processing blocks and time, stake at the critical level, peers, send failures, router, disk, BLS key, unknown upgrade) inhibits `NodeUnhealthy` of its node: `NodeUnhealthy` pages only for a failing check no other alert explains.",
    "- **Alertmanager 0.30.0 to 0.34.0** keep one source alert per inhibit rule and node (the one updated last) and release the target when that one resolves, however many others still fire (fixed in 0.34.1, [prometheus/alertmanager#5542](https://github.com/prometheus/alertmanager/pull/5542)). So `ConnectedStakeLow` holds `NodeUnhealthy` back at its critical level only (below 80 %, where the node's own chain checks fail): stake lost at once fires both levels, the warning resolves 2m before the critical (`keep_firing_for`), and on 0.31.1 that let `NodeUnhealthy` page for nodes taken out of the targets during the incident (the likely cause of the real `isolated` drill's control pages in CI; `test/rules/detection-inhibit.test.ts` shows the release on a real Alertmanager). Where two sources of one rule fire for a node (two chains, two alerts) and one resolves first, these releases still let the target go until another source is sent again (Prometheus resends every minute): run 0.34.1 or later, or 0.29 or earlier.",
    '- The critical level of an alert inhibits its warning level for the same subject.',
    '- Pages are grouped per alert and node (two chains of a node stalling page once) and wait 10s; tickets are grouped per node and wait 2m, so a warning overtaken by its critical level within 2m (a disk falling fast) never opens a ticket.',
    "- `ConnectedStakeLow` is grouped by the node's network (`network_id`), not the node or the chain: a network that loses quorum is one notification naming its nodes (`test/rules/alertmanager-grouping.test.ts`).",
    '',
    'The rules make the rest: a bootstrapping node (its `bootstrapped` check failing or not yet run) raises only',
    '`NodeNeverReady`, `BootstrapTooLong`, `NodeDown` and the disk alerts; `TooManyProcessingBlocks` and',
    '`BlockProcessingTooLong` fire only while the chain still advances (a slow node), so a stall pages once, as',
    '`ChainStalled`, whose `for:` (2m) makes it fire before the failing chain check turns into `NodeUnhealthy`, and',
    'which keeps firing 2m after its condition clears (`keep_firing_for`): one missed scrape neither pages the stall twice',
    'nor lets the alerts it inhibits page meanwhile (an earlier run of this report saw exactly that).',
    '',
  );
  return lines.join('\n');
}

/** The markers around the VictoriaMetrics section of docs/detection.md (a run of one engine keeps the other's part). */
export const VM_SECTION = { start: '<!-- victoriametrics:start -->', end: '<!-- victoriametrics:end -->' };

/**
 * The section "VictoriaMetrics" of the report: the same faults and blips run through the
 * single-node server and vmalert (detection-harness.ts, engine 'victoriametrics'), each
 * scenario's outcome beside the Prometheus run's when there is one.
 */
export function renderVmSection(r: {
  faultRun: RunResult;
  blipRun?: RunResult;
  /** The Prometheus run of the same faults, for the comparison column. */
  promRun?: RunResult;
  faults: Fault[];
  harness: Harness;
  started: Date;
  command: string;
  /** The VictoriaMetrics section this run of a few scenarios (--only) is merged into. */
  previous?: string;
}): string {
  const { faultRun, blipRun, promRun, harness, previous } = r;
  const k = faultRun.speedup;
  const delay = faultRun.evalDelaySeconds;
  const fresh = r.faults.map((f, i): Row => {
    const s = harness.summarize(defined(faultRun.nodes[i], `the result of the node of ${f.scenario}`), faultRun.scrapeSeconds, delay);
    const p =
      promRun &&
      harness.summarize(defined(promRun.nodes[i], `the Prometheus result of ${f.scenario}`), promRun.scrapeSeconds, promRun.evalDelaySeconds);
    const same = p && p.pages === s.pages && p.tickets === s.tickets && cell(p.notified) === cell(s.notified);
    const onProm = !p
      ? '–'
      : same
        ? `same; latency ${p.latency === undefined ? '–' : fmt(p.latency)}`
        : `${p.pages} pages, ${p.tickets} tickets: ${cell(p.notified)}`;
    return freshRow(f, s, (target) => [
      String(s.pages),
      String(s.tickets),
      String(s.notifications),
      cell(s.notified),
      s.latency === undefined ? '–' : `${fmt(s.latency)} (${fmt(target)})`,
      onProm,
      cell(s.fired),
      cell(s.inhibited),
      `${fmt(s.resolvedAfter)} (${fmt(s.resolvedNotificationAfter)})`,
    ]);
  });
  const rows = mergedRows(fresh, previous);
  const blocked = rows.filter((x) => x.blocked);
  const missed = rows.filter((x) => !x.ok && !x.blocked);
  const lines: string[] = [
    VM_SECTION.start,
    '## VictoriaMetrics',
    '',
    ...(previous === undefined
      ? [`Generated by \`${r.command}\` on ${stamp(r.started)}`, `(${faultRun.versions.engine}; ${faultRun.versions.alertmanager}).`]
      : mergedHeader(previous, 'Generated by ', {
          scenarios: r.faults.map((f) => f.scenario),
          text: `\`${r.command}\` on ${stamp(r.started)} (${faultRun.versions.engine}; ${faultRun.versions.alertmanager}); that run: ${runFigures(faultRun.stats)}.`,
        })),
    '',
    'The same faults and blips, the same compressed time and the same Alertmanager configuration, with VictoriaMetrics as',
    '[`docs/victoriametrics.md`](victoriametrics.md) deploys it in place of Prometheus: the single-node server scrapes the',
    `exporter every 1s (${k}s here), and vmalert evaluates the same rule files every 1s against it, writes the recording`,
    "rules' results back to it and alerts the Alertmanager, with `-disableAlertgroupLabel` and an `-external.label`. vmalert queries each evaluation",
    `\`-rule.evalDelay\` back (the default 30s, the server's \`-search.latencyOffset\` default: the server answers for the last`,
    `30s as of 30s ago, while samples still arrive), both divided by ${k}, and aligns the query time down to the evaluation`,
    "interval (the default, `eval_alignment`). So its alerts start from data 30s to 50s old, and a page's target here is",
    `\`for:\` plus two scrape intervals plus the evaluation delay (${fmt(2 * faultRun.scrapeSeconds + delay)} in all). The server makes new samples searchable`,
    'within 2 real seconds, 40s here: more than the compressed delay, so a query may miss the newest sample and read the one',
    'before, as production (30s of delay for at most 2s) never does.',
    '',
    (missed.length === 0
      ? `Every scenario that this build can detect meets its target on VictoriaMetrics too (${rows.length - blocked.length} of ${rows.length}).`
      : `${rows.length - blocked.length - missed.length} of ${rows.length - blocked.length} scenarios that this build can detect meet their target on VictoriaMetrics; ${missed.map((x) => `**${x.scenario}** misses it (${x.why})`).join('; ')}.`) +
      (blocked.length ? ` Not measurable yet: ${blocked.map((x) => `\`${x.scenario}\``).join(', ')}.` : '') +
      (unrunOn(rows).length
        ? ` No row yet: ${unrunOn(rows)
            .map((sc) => `\`${sc}\``)
            .join(', ')} (\`node scripts/detection.mjs --engine=victoriametrics --only=${unrunOn(rows).join(',')}\` adds them).`
        : ''),
    '',
    '| Scenario | Pages | Tickets | Notifications | Sent for | Latency (target) | On Prometheus | Alerts that fired | Held back by inhibition | Resolved (notification) | Meets target |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((x) => x.text),
  ];
  const st = faultRun.stats;
  const figures = previous === undefined ? [] : paragraphOf(previous, 'The run itself:');
  lines.push(
    '',
    ...(figures.length
      ? figures
      : [
          `The run itself: ${st.scrapes} scrapes of the exporter, ${st.failedScrapes} failed (slowest ${st.slowestScrapeSeconds.toFixed(2)}s real); ${Math.round(st.failedPolls)} failed polls of the nodes.`,
        ]),
  );
  const keptBlips = blipRun || previous === undefined ? [] : paragraphOf(previous, 'A healthy fleet with blips');
  if (keptBlips.length) lines.push('', ...keptBlips.filter((l) => l !== VM_SECTION.end));
  if (blipRun) {
    const blips = blipRun.nodes.map((n) => ({ n, s: harness.summarize(n, blipRun.scrapeSeconds, blipRun.evalDelaySeconds) }));
    const total = blips.reduce((t, b) => t + b.s.notifications, 0);
    const fired = blips.filter(({ s }) => s.fired.length > 0);
    lines.push(
      '',
      `A healthy fleet with blips (the five nodes above, ${fmt(blipRun.durationSeconds)}): ${total === 0 ? '**0 notifications**, as targeted' : `**${total} notifications**, target 0: ${blips.flatMap(({ n, s }) => s.notified.map((x) => `${n.plan.label}: ${x}`)).join('; ')}`}.` +
        (fired.length
          ? ` Alerts that fired without a notification: ${fired.map(({ n, s }) => `${n.plan.label}: ${s.fired.join(', ')}`).join('; ')}.`
          : ''),
    );
  }
  lines.push(VM_SECTION.end, '');
  return lines.join('\n');
}
