// When the end of a validator's stake needs a person: the windows of the shipped
// AvalancheGoValidatorStakeExpiring alerts (deploy/prometheus/avalanchego-alerts.yml,
// docs/runbook.md), written once here for the status pages, so that a page never
// paints red what the rules deliberately leave alone (a 12 h Fuji stake ends within a
// day from its first minute). test/unit/stake-expiry.test.ts checks these values
// against the rules file and the runbook.

const HOUR = 3_600;
const DAY = 24 * HOUR;

export interface StakeExpiryWindow {
  /** The `window` label of the alert. */
  readonly label: string;
  /** The alert fires when the stake ends within this many seconds … */
  readonly withinSeconds: number;
  /** … and it lasts (start to end) at least this long: MIN_STAKE_WINDOWS × the window. */
  readonly minStakeSeconds: number;
  readonly severity: 'warning' | 'critical';
}

/**
 * A window applies only to stakes at least this many times its length: a 12 h stake (Fuji's minimum since
 * ACP-273; 48 h on Mainnet) is paged by the 1 h window, not from its first minute by the 1 d one.
 */
export const MIN_STAKE_WINDOWS = 2;

const window = (label: string, withinSeconds: number, severity: StakeExpiryWindow['severity']): StakeExpiryWindow => ({
  label,
  withinSeconds,
  minStakeSeconds: MIN_STAKE_WINDOWS * withinSeconds,
  severity,
});

/** The rule's three windows, widest first. */
export const STAKE_EXPIRY_WINDOWS: readonly StakeExpiryWindow[] = [
  window('7d', 7 * DAY, 'warning'),
  window('1d', DAY, 'critical'),
  window('1h', HOUR, 'critical'),
];

/**
 * The windows a stake is in now, as the alert decides it (the most severe, narrowest last), or none: a stake that
 * renews itself (ACP-236, `avalanchego_validator_auto_renew` 1) is left out, and so is one whose start is unknown
 * (the rule needs both timestamps).
 */
export function stakeExpiry(
  stake: { readonly startSeconds?: number; readonly endSeconds: number; readonly autoRenew?: boolean },
  nowSeconds: number,
): StakeExpiryWindow | undefined {
  if (stake.autoRenew || stake.startSeconds === undefined) return undefined;
  const left = stake.endSeconds - nowSeconds;
  const length = stake.endSeconds - stake.startSeconds;
  let hit: StakeExpiryWindow | undefined;
  for (const w of STAKE_EXPIRY_WINDOWS) if (left < w.withinSeconds && length >= w.minStakeSeconds) hit = w;
  return hit;
}
