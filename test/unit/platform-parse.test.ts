// The platform source's pure parsers over fixture answers
// (test/fixtures/platform, written from vms/platformvm of each release): the
// node's own entry per subnet, L1 balances, the fee price, the states
// (bootstrapping, methods an old node lacks) and the lines they give.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RpcReply } from '../../src/rpc/client.js';
import { defined } from '../helpers/assert.js';
import { HttpStatusError, InvalidResponseError, RpcError } from '../../src/rpc/errors.js';
import { LinesBuilder } from '../../src/metrics/render.js';
import { renderNodes } from '../../src/metrics/scrape.js';
import { PRIMARY_NETWORK_ID } from '../../src/config/schema.js';
import { parseFeeState, parseOwnEntry, parsePlatform, platform, type PlatformAnswers } from '../../src/sources/platform.js';

const body = (file: string) => readFileSync(new URL(`../fixtures/platform/${file}`, import.meta.url), 'utf8');
const result = (file: string) => (JSON.parse(body(file)) as { result: unknown }).result;
const reply = (method: string, text: string, status = 200): RpcReply => ({
  url: 'http://127.0.0.1:9650/ext/bc/P',
  status,
  headers: {},
  body: text,
  method,
  id: 1,
});
const validators = (file: string) => reply('platform.getCurrentValidators', body(file));
const fee = (file = 'getValidatorFeeState-v1.14.2.json') => reply('platform.getValidatorFeeState', body(file));
const NOT_BOOTSTRAPPED = 'API call rejected because chain is not done bootstrapping\n';

const NODE = 'NodeID-FQWBUVv46nR5YiaYabXhHvBQDpBVjRCEd';
const KEY = '0x8897ae6e090e8f7a47922c610e6120861a8daf5e83826f1030f9e8626a03ab3a2700e173c9d362a5ebb79cccda482f98';
const L1 = '2v3qLBtRK4VHC1W1JJMgKYPrSzsXEc83DuWBrhhLKRJXJbiRVA';

function answers(over: Partial<PlatformAnswers> = {}): PlatformAnswers {
  return {
    nodeId: NODE,
    ownKey: KEY,
    subnets: [PRIMARY_NETWORK_ID, L1],
    validators: [validators('getCurrentValidators-primary-v1.14.2.json'), validators('getCurrentValidators-l1-v1.14.2.json')],
    fee: fee(),
    ...over,
  };
}

function lines(snapshot: ReturnType<typeof parsePlatform> | undefined): string {
  const b = new LinesBuilder('n1');
  platform.samples(b, snapshot);
  return renderNodes([[b.build()]])
    .toString()
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .join('\n');
}

describe('parseOwnEntry', () => {
  it('a primary-network validator: weight, start, end, reward and the registered key', () => {
    const e = parseOwnEntry(result('getCurrentValidators-primary-v1.14.2.json'), NODE);
    expect(e).toEqual({
      kind: 'staker',
      weight: 173084000000000,
      startSeconds: 1791807659,
      endSeconds: 1814993778,
      potentialReward: 8907922230774,
      registeredKey: KEY,
    });
  });

  it('an L1 validator: weight, start and balance, no end time', () => {
    expect(parseOwnEntry(result('getCurrentValidators-l1-v1.14.2.json'), NODE)).toMatchObject({
      kind: 'l1',
      weight: 89,
      startSeconds: 1793990680,
      registeredKey: KEY,
    });
    expect(parseOwnEntry(result('getCurrentValidators-l1-inactive-v1.14.2.json'), NODE)).toMatchObject({ kind: 'l1', balance: 0 });
  });

  it('a converted L1 listing a legacy staker and the L1 entry: the L1 entry wins', () => {
    expect(parseOwnEntry(result('getCurrentValidators-converted-l1-v1.14.2.json'), NODE)).toMatchObject({
      kind: 'l1',
      weight: 30,
      balance: 2_000_000_000,
    });
  });

  it('v1.7.3: stakeAmount instead of weight, no signer', () => {
    const e = parseOwnEntry(result('getCurrentValidators-primary-v1.7.3.json'), NODE);
    expect(e).toMatchObject({ kind: 'staker', weight: 173084000000000 });
    expect(e && 'registeredKey' in e).toBe(false);
  });

  it('an empty list, or only other node IDs: not a validator', () => {
    expect(parseOwnEntry(result('getCurrentValidators-not-validator-v1.14.2.json'), NODE)).toBeUndefined();
    expect(parseOwnEntry(result('getCurrentValidators-primary-v1.14.2.json'), 'NodeID-8skUmH5FFNJ4pJVxQGerz7TgZEVbBbLi7')).toBeUndefined();
    expect(parseOwnEntry({ validators: null }, NODE)).toBeUndefined();
  });

  it.each([
    ['no list', {}],
    ['a staker without endTime', result('getCurrentValidators-entry-without-end.json')],
    ['a weight that is not a number', { validators: [{ nodeID: NODE, startTime: '1', endTime: '2', weight: 'heavy' }] }],
  ])('rejects %s', (_name, value) => {
    expect(() => parseOwnEntry(value, NODE)).toThrow(InvalidResponseError);
  });
});

describe('parseFeeState', () => {
  it('price, a plain number', () => {
    expect(parseFeeState(result('getValidatorFeeState-v1.14.2.json'))).toBe(512);
    expect(() => parseFeeState({ excess: 0 })).toThrow(/no price/);
  });
});

describe('parsePlatform and its lines', () => {
  it('a primary-network and L1 validator with a matching key', () => {
    const s = parsePlatform(answers());
    expect(s.failure).toBeUndefined();
    const l1 = defined(defined(s.subnets[1], 'the L1 subnet').entry, 'the L1 entry');
    expect(lines(s)).toBe(
      [
        `avalanchego_validator{node="n1",subnet="${PRIMARY_NETWORK_ID}"} 1`,
        `avalanchego_validator{node="n1",subnet="${L1}"} 1`,
        `avalanchego_validator_start_timestamp_seconds{node="n1",subnet="${PRIMARY_NETWORK_ID}"} 1791807659`,
        `avalanchego_validator_start_timestamp_seconds{node="n1",subnet="${L1}"} 1793990680`,
        `avalanchego_validator_end_timestamp_seconds{node="n1",subnet="${PRIMARY_NETWORK_ID}"} 1814993778`,
        `avalanchego_validator_weight{node="n1",subnet="${PRIMARY_NETWORK_ID}"} 173084000000000`,
        `avalanchego_validator_weight{node="n1",subnet="${L1}"} 89`,
        'avalanchego_validator_potential_reward_navax{node="n1"} 8907922230774',
        `avalanchego_validator_registered_key_match{node="n1",subnet="${PRIMARY_NETWORK_ID}"} 1`,
        `avalanchego_validator_registered_key_match{node="n1",subnet="${L1}"} 1`,
        `avalanchego_l1_validator_balance_navax{node="n1",subnet="${L1}"} ${l1.kind === 'l1' ? l1.balance : -1}`,
        `avalanchego_l1_validator_active{node="n1",subnet="${L1}"} 1`,
        'avalanchego_validator_fee_price_navax_per_second{node="n1"} 512',
        'avalanchego_platform_method_state{node="n1",method="platform.getCurrentValidators",state="ok"} 1',
        'avalanchego_platform_method_state{node="n1",method="platform.getValidatorFeeState",state="ok"} 1',
        `avalanchego_validator_auto_renew{node="n1",subnet="${PRIMARY_NETWORK_ID}"} 0`,
      ].join('\n'),
    );
  });

  const HELICON = 1790089200;
  const only = (text: string, re: RegExp) =>
    text
      .split('\n')
      .filter((l) => re.test(l))
      .join('\n');

  it('v1.15 auto-renewed validator: auto_renew 1, next period, compound share, the 90 % requirement, the P-Chain height', () => {
    const s = parsePlatform(
      answers({
        subnets: [PRIMARY_NETWORK_ID],
        validators: [validators('getCurrentValidators-auto-renewed-v1.15.0.json')],
        height: reply('platform.getHeight', body('getHeight-v1.15.0.json')),
        heliconSeconds: HELICON,
      }),
    );
    expect(s.failure).toBeUndefined();
    expect(only(lines(s), /requirement|auto_|next_period|restaked|platform_height|end_timestamp/)).toBe(
      [
        `avalanchego_validator_end_timestamp_seconds{node="n1",subnet="${PRIMARY_NETWORK_ID}"} 1793017259`,
        'avalanchego_platform_height{node="n1"} 24819733',
        `avalanchego_validator_uptime_requirement_ratio{node="n1",subnet="${PRIMARY_NETWORK_ID}"} 0.9`,
        `avalanchego_validator_auto_renew{node="n1",subnet="${PRIMARY_NETWORK_ID}"} 1`,
        `avalanchego_validator_next_period_seconds{node="n1",subnet="${PRIMARY_NETWORK_ID}"} 1209600`,
        `avalanchego_validator_auto_compound_reward_ratio{node="n1",subnet="${PRIMARY_NETWORK_ID}"} 0.5`,
      ].join('\n'),
    );
    expect(lines(s)).toContain('avalanchego_platform_method_state{node="n1",method="platform.getHeight",state="ok"} 1');
  });

  it('nextPeriod "0": the validator leaves at the cycle end, auto_renew 0 and no cycle series', () => {
    const s = parsePlatform(
      answers({
        subnets: [PRIMARY_NETWORK_ID],
        validators: [validators('getCurrentValidators-auto-renew-exiting-v1.15.0.json')],
        heliconSeconds: HELICON,
      }),
    );
    const text = lines(s);
    expect(text).toContain(`avalanchego_validator_auto_renew{node="n1",subnet="${PRIMARY_NETWORK_ID}"} 0`);
    expect(text).not.toMatch(/next_period|auto_compound/);
  });

  it('restaked rewards, when the node reports them', () => {
    const raw = JSON.parse(body('getCurrentValidators-auto-renewed-v1.15.0.json')) as { result: { validators: Array<Record<string, unknown>> } };
    Object.assign(defined(raw.result.validators[0], 'the entry'), { restakedValidationRewards: '1200000000', restakedDelegateeRewards: '34000000' });
    const s = parsePlatform(answers({ subnets: [PRIMARY_NETWORK_ID], validators: [reply('platform.getCurrentValidators', JSON.stringify(raw))] }));
    expect(only(lines(s), /restaked/)).toBe(
      [
        `avalanchego_validator_restaked_validation_reward_navax{node="n1",subnet="${PRIMARY_NETWORK_ID}"} 1200000000`,
        `avalanchego_validator_restaked_delegatee_reward_navax{node="n1",subnet="${PRIMARY_NETWORK_ID}"} 34000000`,
      ].join('\n'),
    );
  });

  it.each([
    ['started after Helicon', HELICON, 0.9],
    ['started before Helicon', 1791807659 + 1, 0.8],
    ['started exactly at Helicon', 1791807659, 0.9],
    ['a release without Helicon', null, 0.8],
  ] as const)('uptime requirement: %s → %s', (_name, helicon, ratio) => {
    const s = parsePlatform(answers({ heliconSeconds: helicon }));
    expect(lines(s)).toContain(`avalanchego_validator_uptime_requirement_ratio{node="n1",subnet="${PRIMARY_NETWORK_ID}"} ${ratio}`);
  });

  it('the Helicon time unknown (info.upgrades failed): no requirement series, the rules fall back to 0.8', () => {
    expect(lines(parsePlatform(answers()))).not.toContain('requirement');
  });

  it('platform.getHeight: 503 while the P-Chain bootstraps is a state; a release without it too', () => {
    const s = parsePlatform(answers({ height: reply('platform.getHeight', NOT_BOOTSTRAPPED, 503) }));
    expect(s.methods['platform.getHeight']).toBe('not_bootstrapped');
    expect(s.failure).toBeUndefined();
    const missing = parsePlatform(
      answers({
        height: reply('platform.getHeight', body('getValidatorFeeState-method-not-found-v1.10.19.json').replace('getValidatorFeeState', 'getHeight')),
      }),
    );
    expect(missing.methods['platform.getHeight']).toBe('unsupported');
    const bad = parsePlatform(answers({ height: reply('platform.getHeight', '{"jsonrpc":"2.0","result":{"height":"tall"},"id":1}') }));
    expect(bad.failure).toBeInstanceOf(InvalidResponseError);
  });

  it('autoCompoundRewardShares above 1,000,000 is not a share', () => {
    const raw = body('getCurrentValidators-auto-renewed-v1.15.0.json').replace(
      '"autoCompoundRewardShares":"500000"',
      '"autoCompoundRewardShares":"2000000"',
    );
    expect(() => parseOwnEntry((JSON.parse(raw) as { result: unknown }).result, NODE)).toThrow(/more than 1,000,000/);
  });

  it('not a validator any more: avalanchego_validator 0 and nothing else per subnet', () => {
    const s = parsePlatform(answers({ subnets: [PRIMARY_NETWORK_ID], validators: [validators('getCurrentValidators-not-validator-v1.14.2.json')] }));
    const text = lines(s);
    expect(text).toContain(`avalanchego_validator{node="n1",subnet="${PRIMARY_NETWORK_ID}"} 0`);
    expect(text).not.toContain('end_timestamp');
    expect(text).not.toContain('key_match');
  });

  it('a registered key that is not the node’s: key match 0; the node’s key unknown: no key-match series', () => {
    expect(lines(parsePlatform(answers({ ownKey: '0x' + 'ab'.repeat(48) })))).toContain(
      `avalanchego_validator_registered_key_match{node="n1",subnet="${PRIMARY_NETWORK_ID}"} 0`,
    );
    const withoutKey = answers();
    delete withoutKey.ownKey;
    expect(lines(parsePlatform(withoutKey))).not.toContain('key_match');
  });

  it('an inactive L1 validator: balance 0, active 0', () => {
    const s = parsePlatform(
      answers({ validators: [validators('getCurrentValidators-primary-v1.14.2.json'), validators('getCurrentValidators-l1-inactive-v1.14.2.json')] }),
    );
    expect(lines(s)).toContain(`avalanchego_l1_validator_balance_navax{node="n1",subnet="${L1}"} 0`);
    expect(lines(s)).toContain(`avalanchego_l1_validator_active{node="n1",subnet="${L1}"} 0`);
  });

  it('HTTP 503 while the P-Chain bootstraps: state not_bootstrapped, no validator series, not a failure', () => {
    const s = parsePlatform(
      answers({
        validators: [reply('platform.getCurrentValidators', NOT_BOOTSTRAPPED, 503), reply('platform.getCurrentValidators', NOT_BOOTSTRAPPED, 503)],
        fee: reply('platform.getValidatorFeeState', NOT_BOOTSTRAPPED, 503),
      }),
    );
    expect(s.failure).toBeUndefined();
    expect(lines(s)).toBe(
      [
        'avalanchego_platform_method_state{node="n1",method="platform.getCurrentValidators",state="not_bootstrapped"} 1',
        'avalanchego_platform_method_state{node="n1",method="platform.getValidatorFeeState",state="not_bootstrapped"} 1',
      ].join('\n'),
    );
  });

  it("a 503 without the bootstrapping text (a proxy's) is a failure, not the P-Chain bootstrapping: wire.ts's rule, as every source's", () => {
    const proxy = '<html><body>503 Service Unavailable</body></html>';
    const s = parsePlatform(
      answers({
        validators: [reply('platform.getCurrentValidators', proxy, 503), reply('platform.getCurrentValidators', proxy, 503)],
        fee: reply('platform.getValidatorFeeState', proxy, 503),
        height: reply('platform.getHeight', proxy, 503),
      }),
    );
    expect(s.failure).toBeInstanceOf(HttpStatusError);
    expect((s.failure as HttpStatusError).status).toBe(503);
    expect(s.methods).toEqual({});
    expect(lines(s)).not.toContain('not_bootstrapped');
  });

  it('v1.10.19 lacks getValidatorFeeState: state unsupported, no price, the validators still served', () => {
    const s = parsePlatform(
      answers({
        subnets: [PRIMARY_NETWORK_ID],
        validators: [validators('getCurrentValidators-primary-v1.14.2.json')],
        fee: fee('getValidatorFeeState-method-not-found-v1.10.19.json'),
      }),
    );
    expect(s.failure).toBeUndefined();
    expect(lines(s)).toContain('avalanchego_platform_method_state{node="n1",method="platform.getValidatorFeeState",state="unsupported"} 1');
    expect(lines(s)).not.toContain('fee_price');
    expect(lines(s)).toContain(`avalanchego_validator{node="n1",subnet="${PRIMARY_NETWORK_ID}"} 1`);
  });

  it.each([
    ['a subnet request that fails', { validators: [validators('getCurrentValidators-primary-v1.14.2.json'), { failed: new Error('reset') }] }, Error],
    [
      'another HTTP status',
      { validators: [validators('getCurrentValidators-primary-v1.14.2.json'), reply('platform.getCurrentValidators', 'bad gateway', 502)] },
      HttpStatusError,
    ],
    [
      'another JSON-RPC error',
      { fee: reply('platform.getValidatorFeeState', '{"jsonrpc":"2.0","error":{"code":-32000,"message":"closed"},"id":1}') },
      RpcError,
    ],
  ])('%s fails the poll; the rest is served', (_name, over, type) => {
    const s = parsePlatform(answers(over));
    expect(s.failure).toBeInstanceOf(type);
    expect(platform.failure?.(s)).toBe(s.failure);
    expect(lines(s)).toContain(`avalanchego_validator{node="n1",subnet="${PRIMARY_NETWORK_ID}"} 1`);
  });
});
