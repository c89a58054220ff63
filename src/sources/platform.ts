// The platform source: the node's own entry in the current validator set of
// the primary network and of each configured subnet or L1
// (platform.getCurrentValidators with `nodeIDs: [<own node ID>]`, never the
// whole set), and the L1 validator fee price (platform.getValidatorFeeState,
// v1.12.2+), from /ext/bc/P. HTTP 503 while the P-Chain bootstraps and a method
// the node's version lacks are states (avalanchego_platform_method_state), not
// poll failures. The own node ID and BLS key come from the info source (it
// `uses` info: from its last poll, or asked by it when it is off or has not
// answered yet); so does the Helicon time (info.upgrades) that decides a
// validation's uptime requirement. platform.getHeight gives the P-Chain
// height, which an L1's ProposerVM view is compared with (proposervm.ts).
import type { Logger } from 'pino';
import { z } from 'zod';
import type { RpcReply } from '../rpc/client.js';
import { InvalidResponseError } from '../rpc/errors.js';
import type { LinesBuilder } from '../metrics/render.js';
import type { PageSection, SectionRow, SummaryPart } from './section.js';
import type { Source, StateWatcher } from './source.js';
import { askAll, decodeMethod, firstIssue, parseFeeState, parseHeight, replyOf, uint, unixSeconds, type Failed } from './wire.js';

// Shared with the L1 set (l1-set.ts), which reads the same two methods.
export { parseFeeState, parseHeight };
import { PRIMARY_NETWORK_ID } from '../config/schema.js';
import { decodeCb58 } from '../config/cb58.js';
import { quote } from '../config/echo.js';
import { configSection, sourceKeys } from '../config/source-section.js';

export const PLATFORM_PATH = '/ext/bc/P';
export const PLATFORM_METHODS = ['platform.getCurrentValidators', 'platform.getValidatorFeeState', 'platform.getHeight'] as const;
export type PlatformMethod = (typeof PLATFORM_METHODS)[number];
export type PlatformMethodState = 'ok' | 'not_bootstrapped' | 'unsupported';

/** The node's entry in one subnet's current validator set. */
export type ValidatorEntry =
  | {
      kind: 'staker';
      weight: number;
      startSeconds: number;
      endSeconds: number;
      potentialReward?: number;
      /** `signer.publicKey`, lower-case hex; absent for a stake registered without a BLS key. */
      registeredKey?: string;
      /** The auto-renew config (ACP-236, v1.15+), inlined in the entry of an auto-renewed validator. */
      autoRenew?: AutoRenew;
    }
  | { kind: 'l1'; weight: number; startSeconds: number; balance: number; registeredKey?: string };

/** An auto-renewed validator's config; start, end and reward then describe the current cycle only. */
export interface AutoRenew {
  /** `nextPeriod`: seconds of the next cycle; 0 = the validator leaves at the end of this one. */
  nextPeriodSeconds: number;
  /** `autoCompoundRewardShares` / 1,000,000. */
  autoCompoundRatio: number;
  /** `restakedValidationRewards`, `restakedDelegateeRewards` (nAVAX), when the node reports them. */
  restakedValidationRewards?: number;
  restakedDelegateeRewards?: number;
}

/** ACP-267: validations that start at or after Helicon need 90 % uptime for rewards, earlier ones 80 %. */
export const UPTIME_REQUIREMENT = { beforeHelicon: 0.8, afterHelicon: 0.9 } as const;

export interface SubnetState {
  subnet: string;
  /** undefined: the node is not a current validator of the subnet. */
  entry?: ValidatorEntry;
}

export interface PlatformSnapshot {
  nodeId: string;
  /** The node's own BLS key (info.getNodeID nodePOP.publicKey), when known. */
  ownKey?: string;
  methods: Partial<Record<PlatformMethod, PlatformMethodState>>;
  /** Subnets answered, the primary network first (none while not bootstrapped). */
  subnets: SubnetState[];
  feePriceNavaxPerSecond?: number;
  /** platform.getHeight: the P-Chain's last accepted height. */
  height?: number;
  /**
   * `heliconTime` of info.upgrades (Unix seconds); null when the node's release has none (no key, no
   * info.upgrades); undefined when unknown (info.upgrades failed): then no requirement is served.
   */
  heliconSeconds?: number | null;
  failure?: unknown;
}

/**
 * How long the pages remember that the node was in a validator set: 7 days, the look-back of the
 * AvalancheGoNoLongerValidator alert (max_over_time(avalanchego_validator[7d]) == 1).
 */
export const NO_LONGER_WINDOW_SECONDS = 7 * 86_400;

/**
 * The longest entry of the platform memory, in characters: a subnet ID (CB58 of 32 bytes and a checksum, at most 50)
 * and a node ID (`NodeID-` and the CB58 of 20 bytes and a checksum, at most 40), both checked against their format
 * (the config's subnets, and info.getNodeID's answer), with a time.
 */
export const PLATFORM_MEMORY_ENTRY_CHARS = 90;

/**
 * What the platform memory of one target holds at most, however its node churns over the 7 days it remembers (node
 * IDs that change at every poll, sets left and joined again): one entry a validator set it asks about (the primary
 * network and each of `platform.subnets`), the set's last node ID and time only. At 1,000 targets asking one L1
 * besides the primary network: 2,000 entries, 180,000 characters.
 */
export function platformMemoryBound(setsAsked: number): { entries: number; chars: number } {
  return { entries: setsAsked, chars: setsAsked * PLATFORM_MEMORY_ENTRY_CHARS };
}

/** What the platform source remembers across polls: each validator set it last saw the node in, under which node ID, when. */
export interface PlatformMemory {
  readonly validated: ReadonlyArray<{ readonly subnet: string; readonly nodeId: string; readonly lastSeenSeconds: number }>;
}

/** A validator set the node was in (seen by this process within NO_LONGER_WINDOW_SECONDS) and is not in now. */
export interface LostValidation {
  readonly subnet: string;
  /** The node ID it validated under (another one than now when the node's staking key changed). */
  readonly nodeId: string;
  readonly lastSeenSeconds: number;
}

const subnetId = z.string({ error: 'expected a subnet ID as a string' }).superRefine((text, ctx) => {
  const decoded = decodeCb58(text);
  if ('error' in decoded || decoded.bytes.length !== 32) {
    const why = 'error' in decoded ? decoded.error : `it holds ${decoded.bytes.length} bytes, an ID holds 32`;
    ctx.addIssue({
      code: 'custom',
      message: `${quote(text)} is not a subnet ID (CB58, e.g. 2v3qLBtRK4VHC1W1JJMgKYPrSzsXEc83DuWBrhhLKRJXJbiRVA): ${why}; copy the ID from platform.getSubnets or the explorer`,
    });
  } else if (text === PRIMARY_NETWORK_ID) {
    ctx.addIssue({ code: 'custom', message: `${PRIMARY_NETWORK_ID} is the primary network, which is always checked: remove it from the list` });
  }
});

/** `subnets` excludes the primary network, which is always checked. */
export const platformConfig = configSection('platform', {
  description: 'The platform source (platform.* on {url}/ext/bc/P).',
  keys: sourceKeys(
    {
      enabled: "Poll the node's own entry in the current validator set (platform.getCurrentValidators with its node ID) and the validator fee price.",
      interval: 'the platform API is polled',
    },
    {
      subnets: z
        .array(subnetId, { error: 'expected a list of subnet IDs, e.g. [2v3qLBtRK4VHC1W1JJMgKYPrSzsXEc83DuWBrhhLKRJXJbiRVA]' })
        .optional()
        .describe('Subnet or L1 IDs (CB58) whose validator entry is checked besides the primary network, which is always checked.'),
    },
  ),
  defaults: { enabled: true, interval: '1m', subnets: [] },
});

export const platform: Source<PlatformSnapshot, PlatformMemory, typeof platformConfig> = {
  name: 'platform',
  config: platformConfig,
  // The node ID to look up, its BLS key and the Helicon time.
  uses: ['info'],
  async poll(ctx) {
    const identity = await ctx.node.use('info', ctx);
    const nodeId = identity.nodeId;
    if (nodeId === undefined)
      throw new InvalidResponseError('info.getNodeID is not available: the node ID to look up in the validator set is unknown');
    // The config refuses the primary network in `subnets`: it is always checked.
    const subnets = [PRIMARY_NETWORK_ID, ...platformConfig.of(ctx.target).subnets];
    const [fee, height, ...validators] = await askAll(
      [
        { method: 'platform.getValidatorFeeState', params: {} },
        { method: 'platform.getHeight', params: {} },
        ...subnets.map((subnetID) => ({ method: 'platform.getCurrentValidators', params: { subnetID, nodeIDs: [nodeId] } })),
      ],
      (request) => ctx.rpc(PLATFORM_PATH, request.method, request.params),
    );
    return parsePlatform({
      nodeId,
      ownKey: identity.blsPublicKey,
      subnets,
      validators,
      fee,
      height,
      heliconSeconds: identity.heliconSeconds,
    });
  },
  failure: (snapshot) => snapshot.failure,
  samples: addPlatformLines,
  watch: watchPlatform,
  remember: rememberPlatform,
  summary: summarizePlatform,
  sections: platformSections,
};

/**
 * Pure: the memory after a poll: the sets the node is in now are stamped with the time and its node
 * ID; a set it left is kept until NO_LONGER_WINDOW_SECONDS after it was last seen in it. A failed poll
 * or a bootstrapping P-Chain (no set answered) changes nothing.
 */
export function rememberPlatform(memory: PlatformMemory | undefined, s: PlatformSnapshot | undefined, nowSeconds: number): PlatformMemory {
  const before = memory?.validated ?? [];
  const nodeId = s?.nodeId ?? '';
  const now = (s?.subnets ?? []).filter((x) => x.entry !== undefined).map((x) => ({ subnet: x.subnet, nodeId, lastSeenSeconds: nowSeconds }));
  const kept = before.filter((v) => !now.some((x) => x.subnet === v.subnet) && nowSeconds - v.lastSeenSeconds <= NO_LONGER_WINDOW_SECONDS);
  if (now.length === 0 && memory && kept.length === before.length) return memory;
  return { validated: [...now, ...kept] };
}

/**
 * Pure, the one place that decides it (the fleet page's validator column and the node page read it): the
 * validator sets this process saw the node in within NO_LONGER_WINDOW_SECONDS that answered now without it.
 * As AvalancheGoNoLongerValidator: avalanchego_validator is 0 now and was 1 within the window. A node whose
 * staking key changed (another node ID), or whose stake ended, lost its reward: a fault, not "not a validator".
 */
export function lostValidations(s: PlatformSnapshot, memory: PlatformMemory | undefined): LostValidation[] {
  return (memory?.validated ?? []).filter((v) => s.subnets.some((x) => x.subnet === v.subnet && x.entry === undefined));
}

/** Seconds an L1 validator's balance lasts at the current fee price; undefined without a price. */
function runway(balance: number, price: number | undefined): number | undefined {
  return price !== undefined && price > 0 ? balance / price : undefined;
}

/** Pure: the platform source's part of the fleet page's line: the stake's end, L1 balances and their runway, the sets the node left. */
export function summarizePlatform(s: PlatformSnapshot, memory?: PlatformMemory): SummaryPart {
  const primary = s.subnets.find((x) => x.subnet === PRIMARY_NETWORK_ID)?.entry;
  const l1 = s.subnets.flatMap((x) => {
    if (x.entry?.kind !== 'l1') return [];
    const r = runway(x.entry.balance, s.feePriceNavaxPerSecond);
    return [{ subnet: x.subnet, balanceNavax: x.entry.balance, ...(r !== undefined ? { runwaySeconds: r } : {}) }];
  });
  return {
    nodeId: s.nodeId,
    validator: {
      ...(primary?.kind === 'staker'
        ? {
            stake: {
              startSeconds: primary.startSeconds,
              endSeconds: primary.endSeconds,
              ...(primary.autoRenew && primary.autoRenew.nextPeriodSeconds > 0 ? { autoRenew: true } : {}),
            },
            ...(uptimeRequirement(primary, s.heliconSeconds) !== undefined
              ? { uptimeRequirement: uptimeRequirement(primary, s.heliconSeconds) }
              : {}),
          }
        : {}),
      ...(l1.length > 0 ? { l1 } : {}),
      // Answered for every subnet asked (none while the P-Chain bootstraps) and in none of them.
      ...(s.subnets.length > 0 && s.subnets.every((x) => x.entry === undefined) ? { inNoSet: true } : {}),
      // Decided whenever the platform source asked for the sets (an empty list while the P-Chain bootstraps):
      // then, as in the alert, info.uptime's view does not count.
      ...(s.methods['platform.getCurrentValidators'] !== undefined ? { noLonger: lostValidations(s, memory) } : {}),
    },
  };
}

const NAVAX_PER_AVAX = 1e9;

/** Pure: the node page's platform section: the node's entry in each validator set asked. */
export function platformSections(s: PlatformSnapshot | undefined, memory?: PlatformMemory): PageSection[] {
  const rows: SectionRow[] = [];
  if (s) {
    const lost = lostValidations(s, memory);
    for (const { subnet, entry } of s.subnets) {
      const name = subnet === PRIMARY_NETWORK_ID ? 'primary network' : `subnet ${subnet}`;
      if (!entry) {
        const was = lost.find((v) => v.subnet === subnet);
        rows.push({
          label: name,
          values: [
            was
              ? {
                  text: `no longer a validator: it was one as ${was.nodeId}${was.nodeId !== s.nodeId ? `, and runs as ${s.nodeId} now (another staking key)` : ''}`,
                  tone: 'bad',
                }
              : { text: 'not a current validator' },
          ],
        });
        if (was) rows.push({ label: `${name}: last seen validating`, values: [{ time: was.lastSeenSeconds }] });
        continue;
      }
      const key = entry.registeredKey === undefined || s.ownKey === undefined ? undefined : entry.registeredKey === s.ownKey;
      if (entry.kind === 'staker') {
        rows.push({ label: `${name}: stake`, values: [{ number: entry.weight / NAVAX_PER_AVAX, digits: 3, unit: 'AVAX' }] });
        rows.push({ label: `${name}: started`, values: [{ time: entry.startSeconds }] });
        rows.push({ label: `${name}: ends`, values: [{ time: entry.endSeconds }] });
        if (entry.autoRenew)
          rows.push({
            label: `${name}: auto-renew`,
            values: [
              entry.autoRenew.nextPeriodSeconds > 0
                ? { text: `yes, next period ${Math.round(entry.autoRenew.nextPeriodSeconds / 86_400)} days`, tone: 'ok' }
                : { text: 'leaves at the end of this period', tone: 'warn' },
            ],
          });
        const requirement = subnet === PRIMARY_NETWORK_ID ? uptimeRequirement(entry, s.heliconSeconds) : undefined;
        if (requirement !== undefined) rows.push({ label: `${name}: uptime its reward needs`, values: [{ number: requirement * 100, unit: '%' }] });
        if (entry.potentialReward !== undefined)
          rows.push({ label: `${name}: potential reward`, values: [{ number: entry.potentialReward / NAVAX_PER_AVAX, digits: 3, unit: 'AVAX' }] });
      } else {
        const r = runway(entry.balance, s.feePriceNavaxPerSecond);
        rows.push({ label: `${name}: L1 validator weight`, values: [{ number: entry.weight }] });
        rows.push({
          label: `${name}: balance`,
          values: [{ number: entry.balance / NAVAX_PER_AVAX, digits: 6, unit: 'AVAX', tone: entry.balance === 0 ? 'bad' : 'ok' }],
        });
        if (r !== undefined)
          rows.push({ label: `${name}: balance lasts`, values: [{ number: r / 86_400, digits: 2, unit: 'days at the current fee' }] });
      }
      if (key !== undefined) rows.push({ label: `${name}: registered BLS key is the node's`, values: [{ flag: key }] });
    }
    if (s.feePriceNavaxPerSecond !== undefined)
      rows.push({ label: 'L1 validator fee', values: [{ number: s.feePriceNavaxPerSecond, digits: 3, unit: 'nAVAX/s' }] });
    for (const [method, state] of Object.entries(s.methods))
      if (state !== 'ok') rows.push({ label: method, values: [{ text: state.replace('_', ' '), tone: 'dim' }] });
  }
  return [{ title: 'Validator (platform API)', rows, empty: 'The platform source has not answered yet, or is off for this node.' }];
}

type Answer = RpcReply | Failed;

export interface PlatformAnswers {
  nodeId: string;
  ownKey?: string;
  /** The subnets asked, in the order of `validators`. */
  subnets: string[];
  validators: Answer[];
  fee: Answer;
  /** platform.getHeight; absent in answers recorded before it was asked. */
  height?: Answer;
  heliconSeconds?: number | null;
}

/** A method's answer: its result, the P-Chain bootstrapping (wire.ts chainNotBootstrapped), or a release without it. */
function platformOutcome(answer: Answer): { state: 'ok'; result: unknown } | { state: 'not_bootstrapped' | 'unsupported' } {
  return decodeMethod(replyOf(answer), ['not_bootstrapped', 'unsupported']);
}

/** Pure: the answers of one poll → the snapshot. */
export function parsePlatform(a: PlatformAnswers): PlatformSnapshot {
  const s: PlatformSnapshot = { nodeId: a.nodeId, methods: {}, subnets: [] };
  if (a.ownKey) s.ownKey = a.ownKey;
  if (a.heliconSeconds !== undefined) s.heliconSeconds = a.heliconSeconds;
  const fail = (error: unknown) => {
    s.failure ??= error;
  };
  // getCurrentValidators: one state for all subnets; `ok` only when every subnet answered.
  const states = new Set<PlatformMethodState | 'failed'>();
  a.subnets.forEach((subnet, i) => {
    const answer = a.validators[i] ?? { failed: new InvalidResponseError(`no answer for subnet ${subnet}`) };
    try {
      const outcome = platformOutcome(answer);
      states.add(outcome.state);
      if (outcome.state !== 'ok') return;
      const entry = parseOwnEntry(outcome.result, a.nodeId);
      s.subnets.push(entry ? { subnet, entry } : { subnet });
    } catch (error) {
      states.add('failed');
      fail(error);
    }
  });
  if (!states.has('failed')) {
    const state = states.has('not_bootstrapped') ? 'not_bootstrapped' : states.has('unsupported') ? 'unsupported' : 'ok';
    s.methods['platform.getCurrentValidators'] = state;
    // While the P-Chain bootstraps nothing is known of any subnet.
    if (state === 'not_bootstrapped') s.subnets = [];
  }
  try {
    const outcome = platformOutcome(a.fee);
    s.methods['platform.getValidatorFeeState'] = outcome.state;
    if (outcome.state === 'ok') s.feePriceNavaxPerSecond = parseFeeState(outcome.result);
  } catch (error) {
    fail(error);
  }
  if (a.height) {
    try {
      const outcome = platformOutcome(a.height);
      s.methods['platform.getHeight'] = outcome.state;
      if (outcome.state === 'ok') s.height = parseHeight(outcome.result);
    } catch (error) {
      fail(error);
    }
  }
  return s;
}

const key = z.string().regex(/^0x[0-9a-fA-F]+$/, 'expected 0x-hex');

const stakerSchema = z.object({
  nodeID: z.string(),
  startTime: unixSeconds,
  endTime: unixSeconds,
  // v1.7 reports stakeAmount instead of weight.
  weight: uint.optional(),
  stakeAmount: uint.optional(),
  potentialReward: uint.optional(),
  signer: z.object({ publicKey: key }).nullish(),
  // ACP-236 (v1.15+): *AutoRenewedConfig inlined; absent for fixed-term validators.
  nextPeriod: uint.optional(),
  autoCompoundRewardShares: uint.optional(),
  restakedValidationRewards: uint.optional(),
  restakedDelegateeRewards: uint.optional(),
});

const l1Schema = z.object({
  nodeID: z.string(),
  startTime: unixSeconds,
  weight: uint,
  publicKey: key.optional(),
  balance: uint,
});

const validatorsSchema = z.object({ validators: z.array(z.unknown()).nullable() });

function invalid(what: string): InvalidResponseError {
  return new InvalidResponseError(`platform.getCurrentValidators returned ${what}`);
}

/**
 * Pure: the `result` of getCurrentValidators asked for one node ID → that
 * node's entry, or undefined when it is not a current validator (an empty
 * list). An L1 converted from a subnet may list a legacy staker and the L1
 * entry: the L1 entry wins.
 */
export function parseOwnEntry(result: unknown, nodeId: string): ValidatorEntry | undefined {
  const r = validatorsSchema.safeParse(result);
  if (!r.success) throw invalid('no validators list');
  let found: ValidatorEntry | undefined;
  for (const raw of r.data.validators ?? []) {
    if (!raw || typeof raw !== 'object' || (raw as { nodeID?: unknown }).nodeID !== nodeId) continue;
    // The L1 shape has a balance and no end time.
    if ('balance' in raw && !('endTime' in raw)) {
      const v = l1Schema.safeParse(raw);
      if (!v.success) throw invalid(`an L1 validator entry it cannot read: ${firstIssue(v.error)}`);
      return {
        kind: 'l1',
        weight: v.data.weight,
        startSeconds: v.data.startTime,
        balance: v.data.balance,
        ...(v.data.publicKey ? { registeredKey: v.data.publicKey.toLowerCase() } : {}),
      };
    }
    const v = stakerSchema.safeParse(raw);
    if (!v.success) throw invalid(`a validator entry it cannot read: ${firstIssue(v.error)}`);
    const weight = v.data.weight ?? v.data.stakeAmount;
    if (weight === undefined) throw invalid('a validator entry without weight');
    const staker: ValidatorEntry = {
      kind: 'staker',
      weight,
      startSeconds: v.data.startTime,
      endSeconds: v.data.endTime,
      ...(v.data.potentialReward !== undefined ? { potentialReward: v.data.potentialReward } : {}),
      ...(v.data.signer?.publicKey ? { registeredKey: v.data.signer.publicKey.toLowerCase() } : {}),
    };
    if (v.data.nextPeriod !== undefined) staker.autoRenew = autoRenewOf(v.data);
    found = staker;
  }
  return found;
}

/** The auto-renew config of an entry that carries `nextPeriod`. */
function autoRenewOf(d: z.infer<typeof stakerSchema>): AutoRenew {
  const shares = d.autoCompoundRewardShares ?? 0;
  if (shares > 1_000_000) throw invalid(`autoCompoundRewardShares ${shares}, more than 1,000,000 (100 %)`);
  return {
    nextPeriodSeconds: d.nextPeriod ?? 0,
    autoCompoundRatio: shares / 1_000_000,
    ...(d.restakedValidationRewards !== undefined ? { restakedValidationRewards: d.restakedValidationRewards } : {}),
    ...(d.restakedDelegateeRewards !== undefined ? { restakedDelegateeRewards: d.restakedDelegateeRewards } : {}),
  };
}

/** Pure: the uptime requirement of the node's primary-network validation, or undefined when the Helicon time is unknown. */
export function uptimeRequirement(entry: ValidatorEntry, heliconSeconds: number | null | undefined): number | undefined {
  if (heliconSeconds === undefined) return undefined;
  return heliconSeconds !== null && entry.startSeconds >= heliconSeconds ? UPTIME_REQUIREMENT.afterHelicon : UPTIME_REQUIREMENT.beforeHelicon;
}

function addPlatformLines(b: LinesBuilder, s: PlatformSnapshot | undefined): void {
  if (!s) return;
  for (const { subnet, entry } of s.subnets) {
    const labels = { subnet };
    b.add('avalanchego_validator', entry ? 1 : 0, labels);
    if (!entry) continue;
    b.add('avalanchego_validator_start_timestamp_seconds', entry.startSeconds, labels);
    if (entry.kind === 'staker') b.add('avalanchego_validator_end_timestamp_seconds', entry.endSeconds, labels);
    b.add('avalanchego_validator_weight', entry.weight, labels);
    if (subnet === PRIMARY_NETWORK_ID && entry.kind === 'staker') {
      b.add('avalanchego_validator_potential_reward_navax', entry.potentialReward);
      b.add('avalanchego_validator_uptime_requirement_ratio', uptimeRequirement(entry, s.heliconSeconds), labels);
      const renew = entry.autoRenew;
      b.add('avalanchego_validator_auto_renew', renew && renew.nextPeriodSeconds > 0 ? 1 : 0, labels);
      if (renew && renew.nextPeriodSeconds > 0) {
        b.add('avalanchego_validator_next_period_seconds', renew.nextPeriodSeconds, labels);
        b.add('avalanchego_validator_auto_compound_reward_ratio', renew.autoCompoundRatio, labels);
      }
      b.add('avalanchego_validator_restaked_validation_reward_navax', renew?.restakedValidationRewards, labels);
      b.add('avalanchego_validator_restaked_delegatee_reward_navax', renew?.restakedDelegateeRewards, labels);
    }
    if (entry.registeredKey && s.ownKey) b.add('avalanchego_validator_registered_key_match', entry.registeredKey === s.ownKey ? 1 : 0, labels);
    if (entry.kind === 'l1') {
      b.add('avalanchego_l1_validator_balance_navax', entry.balance, labels);
      b.add('avalanchego_l1_validator_active', entry.balance > 0 ? 1 : 0, labels);
    }
  }
  b.add('avalanchego_validator_fee_price_navax_per_second', s.feePriceNavaxPerSecond);
  b.add('avalanchego_platform_height', s.height);
  for (const method of PLATFORM_METHODS) {
    const state = s.methods[method];
    if (state) b.add('avalanchego_platform_method_state', 1, { method, state });
  }
}

/** Logs a subnet's validator status changing (joined, left, L1 balance at 0) and the P-Chain bootstrapping, once each. */
function watchPlatform(log: Logger): StateWatcher<PlatformSnapshot> {
  const status = new Map<string, string>();
  let bootstrapping = false;
  return {
    observe(s) {
      if (!s) return;
      const nowBootstrapping = s.methods['platform.getCurrentValidators'] === 'not_bootstrapped';
      if (nowBootstrapping !== bootstrapping) {
        bootstrapping = nowBootstrapping;
        log.info(nowBootstrapping ? 'P-Chain is bootstrapping (HTTP 503): no validator series until it is done' : 'P-Chain API answers again');
      }
      for (const { subnet, entry } of s.subnets) {
        const now = !entry ? 'not a validator' : entry.kind === 'l1' && entry.balance === 0 ? 'inactive L1 validator (balance 0)' : 'validator';
        const before = status.get(subnet);
        status.set(subnet, now);
        if (before !== undefined && before !== now) log.warn({ subnet, nodeId: s.nodeId, was: before }, `validator status changed: ${now}`);
      }
    },
  };
}
