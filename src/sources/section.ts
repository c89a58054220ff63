// What a source shows people, render-ready: its part of the node's one-line
// summary on the fleet page (`/`) and its sections of the node page
// (/node/<name>). The source builds these from its snapshot; the server lays
// them out and escapes every text. So no file outside sources/ needs to know a
// snapshot's shape, and a new source gets its page section by implementing
// Source.sections, with no change to the server.
//
// These are built when a page is asked for (never per poll or per scrape):
// plain objects, no HTML, no I/O.
import { PRIMARY_NETWORK_ID } from '../config/schema.js';

/** How a value reads at a glance; the page colours it. */
export type Tone = 'ok' | 'warn' | 'bad' | 'dim';

/** One value of a row, with how to show it. */
export type SectionValue =
  /** Plain text. */
  | { readonly text: string; readonly tone?: Tone }
  /** A number (– when undefined), with at most `digits` decimals and an optional unit after it (`%`, `s`). */
  | { readonly number: number | undefined; readonly digits?: number; readonly unit?: string; readonly tone?: Tone }
  /** A moment, as Unix seconds: shown as "5m 2s ago" with the UTC time in a tooltip; "never" when undefined. */
  | { readonly time: number | undefined }
  /** yes / no (– when undefined), coloured ok when it equals `good` (default true), else bad. */
  | { readonly flag: boolean | undefined; readonly good?: boolean }
  /** Text from the node (an error message): kept as written (newlines), cut, shown in the error style; `note` is a warning under it. */
  | { readonly error: string | undefined; readonly note?: string };

/** A row: its label (the first column) and its values, one per further column. */
export interface SectionRow {
  readonly label: string;
  readonly values: readonly SectionValue[];
}

/** One section of the node page: a heading and a table. */
export interface PageSection {
  readonly title: string;
  /** Column heads, the label's first; without columns the rows are a list of label: value. */
  readonly columns?: readonly string[];
  readonly rows: readonly SectionRow[];
  /** Shown instead of the table when there is no row (say why: not answered yet, off on the node …). */
  readonly empty: string;
}

/** Something wrong with the node now, for the fleet page: a name, the node's own text, since when. */
export interface Problem {
  readonly name: string;
  readonly error?: string;
  /** Unix seconds of the first failure, when the node says. */
  readonly sinceSeconds?: number;
}

/** What a source adds to the node's one-line summary on the fleet page; every field optional. */
export interface SummaryPart {
  /** The node's ID (`NodeID-…`), when the source learns it. */
  readonly nodeId?: string;
  /** What is failing now, in the order to show. */
  readonly problems?: readonly Problem[];
  /** Last accepted heights by chain alias (`C`, `P`, `X` …); the fleet page compares them across nodes. */
  readonly heights?: ReadonlyArray<{ readonly chain: string; readonly height: number }>;
  /** What the node is as a validator (the info and platform sources each add theirs; merged). */
  readonly validator?: ValidatorPart;
}

/** The validator column of the fleet page: what costs a validator its reward or its stake. */
export interface ValidatorPart {
  /** The node's uptime as the network sees it (info.uptime, stake-weighted). */
  readonly uptimeRatio?: number;
  /** The uptime its primary-network validation needs for a reward (80 %, or 90 % when it started after Helicon). */
  readonly uptimeRequirement?: number;
  /** info.uptime answered "not a validator". */
  readonly notValidator?: boolean;
  /** Primary-network stake: when it started and ends (Unix seconds); `autoRenew` when it renews itself. */
  readonly stake?: { readonly startSeconds?: number; readonly endSeconds?: number; readonly autoRenew?: boolean };
  /** L1 validators (ACP-77): balance and how long it lasts at the current fee. */
  readonly l1?: ReadonlyArray<{ readonly subnet: string; readonly balanceNavax: number; readonly runwaySeconds?: number }>;
  /** The platform source asked and the node is in no validator set it asked about. */
  readonly inNoSet?: boolean;
  /**
   * The validator sets the node was in within the last 7 days, as this process saw it, and is not in now
   * (platform.lostValidations); present (maybe empty) whenever the platform source asked for the sets.
   */
  readonly noLonger?: ReadonlyArray<{ readonly subnet: string; readonly nodeId: string; readonly lastSeenSeconds: number }>;
  /**
   * info.uptime answers "not a validator" and answered an uptime within the last 7 days (when this process
   * last saw it): the platform source's view, when it is off, of a node that left the primary network's set.
   */
  readonly uptimeLost?: { readonly nodeId?: string; readonly lastSeenSeconds: number };
  /** The node's version (`1.14.2`) and its number for comparing (MAJOR×10⁶ + MINOR×10³ + PATCH). */
  readonly version?: { readonly text: string; readonly number?: number };
  /** Share of the node's peers that run a newer version. */
  readonly peersNewerRatio?: number;
}

/** The validator column's facts as the pages read them: the sources' parts merged, "no longer a validator" decided. */
export type ValidatorFacts = Omit<ValidatorPart, 'uptimeLost'>;

/**
 * The one place a node is decided "no longer a validator" (the pages read `noLonger`, nothing else), as
 * AvalancheGoNoLongerValidator decides it: the platform source's view (platform.lostValidations) whenever it asked
 * for the validator sets; else info.uptime's answer "not a validator" after an uptime within 7 days, once the node is
 * past bootstrapping (until its P-Chain has loaded the set, a restarted node answers so). The node state applies it
 * to the parts its sources gave (scheduler/node-state.ts summary); `bootstrapped`: the node's status says it is past
 * bootstrapping (healthy or unhealthy).
 */
export function validatorFacts(part: ValidatorPart, bootstrapped: boolean): ValidatorFacts {
  const { uptimeLost, ...facts } = part;
  if (facts.noLonger !== undefined || uptimeLost === undefined || !bootstrapped) return facts;
  return { ...facts, noLonger: [{ subnet: PRIMARY_NETWORK_ID, nodeId: uptimeLost.nodeId ?? '', lastSeenSeconds: uptimeLost.lastSeenSeconds }] };
}
