// The `l1s:` list: its keys checked at load with file:line errors, its defaults, and /config showing it.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/load.js';
import { parseConfigText } from '../../src/sources/registry.js';
import { configYaml } from '../../src/server/config-page.js';
import { vantagesOf } from '../../src/scheduler/l1-poller.js';
import { defined } from '../helpers/assert.js';

const SUBNET = '2v3qLBtRK4VHC1W1JJMgKYPrSzsXEc83DuWBrhhLKRJXJbiRVA';
const CHAIN = '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5';
const TARGETS = `targets:
  - name: a
    url: http://127.0.0.1:9650
  - name: b
    url: http://127.0.0.1:9652
`;

function problems(text: string): string[] {
  try {
    parseConfigText(text, 'c.yaml', {});
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems.map((p) => `${p.line}:${p.column}: ${p.path.join('.')}: ${p.message}`);
  }
  throw new Error('the config was accepted');
}

describe('l1s', () => {
  it('takes an L1 with its defaults: 1m, 1000 validators, vantages decided by the targets', () => {
    const config = parseConfigText(`${TARGETS}l1s:\n  - subnet: ${SUBNET}\n`, 'c.yaml', {});
    expect(config.l1s).toEqual([{ subnet: SUBNET, intervalMs: 60_000, maxValidators: 1000 }]);
    expect(parseConfigText(TARGETS, 'c.yaml', {}).l1s).toBeUndefined();
  });

  it('takes every key, and /config writes them as the file does', () => {
    const text = `${TARGETS}l1s:\n  - subnet: ${SUBNET}\n    name: my-l1\n    chain: ${CHAIN}\n    interval: 30s\n    max_validators: 5\n    vantages: [b, a, b]\n`;
    const config = parseConfigText(text, 'c.yaml', {});
    expect(config.l1s).toEqual([{ subnet: SUBNET, name: 'my-l1', chain: CHAIN, intervalMs: 30_000, maxValidators: 5, vantages: ['b', 'a'] }]);
    expect(configYaml(config)).toContain(
      `l1s:\n  - subnet: ${SUBNET}\n    name: my-l1\n    chain: ${CHAIN}\n    interval: 30s\n    max_validators: 5\n    vantages:\n      - b\n      - a\n`,
    );
  });

  it.each([
    [
      'a subnet ID that is not CB58',
      `  - subnet: ${SUBNET.slice(0, -1)}a\n`,
      [
        `7:13: l1s.0.subnet: "${SUBNET.slice(0, -1)}a" is not a subnet ID (CB58, e.g. ${SUBNET}): its checksum does not match (a character is wrong or missing); copy the ID from platform.getSubnets or the explorer`,
      ],
    ],
    [
      'a chain ID that is not CB58',
      `  - subnet: ${SUBNET}\n    chain: C\n`,
      [
        `8:12: l1s.0.chain: "C" is not a blockchain ID (CB58, e.g. ${CHAIN}): too short to hold an ID and its checksum; copy the ID from platform.getBlockchains`,
      ],
    ],
    [
      'the primary network',
      '  - subnet: 11111111111111111111111111111111LpoYY\n',
      ["7:13: l1s.0.subnet: 11111111111111111111111111111111LpoYY is the primary network, not an L1: give the L1's subnet ID"],
    ],
    ['no validators kept', `  - subnet: ${SUBNET}\n    max_validators: 0\n`, ['8:21: l1s.0.max_validators: must be at least 1']],
    [
      'an unknown key',
      `  - subnet: ${SUBNET}\n    vantage: [a]\n`,
      ['8:14: l1s.0: unknown key "vantage" (did you mean "vantages"?); known keys here: subnet, name, chain, interval, max_validators, vantages'],
    ],
    [
      'a vantage that is no target, a subnet twice, an interval not longer than the timeout',
      `  - subnet: ${SUBNET}\n    vantages: [c]\n  - subnet: ${SUBNET}\n    interval: 5s\n`,
      [
        '8:16: l1s.0.vantages.0: "c" is not the name of a target: list target names, or leave vantages out to use the targets whose platform.subnets lists the subnet',
        `9:13: l1s.1.subnet: subnet ${SUBNET} is listed twice (also l1s[0]): list each L1 once`,
        "10:15: l1s.1.interval: the L1's interval (5s) must be longer than the timeout of its vantages (5s): a poll must end before the next one is due; lengthen interval",
      ],
    ],
  ])('refuses %s, saying where and how to fix it', (_, l1s, expected) => {
    expect(problems(`${TARGETS}l1s:\n${l1s}`)).toEqual(expected);
  });

  it('takes as vantages the targets whose platform.subnets lists the subnet, unless vantages names them', () => {
    const text = `targets:
  - name: a
    url: http://127.0.0.1:9650
    platform: { subnets: [${SUBNET}] }
  - name: b
    url: http://127.0.0.1:9652
  - name: c
    url: http://127.0.0.1:9654
    platform: { subnets: [${SUBNET}], enabled: false }
  - name: d
    url: http://127.0.0.1:9656
    platform: { subnets: [${SUBNET}] }
l1s:
  - subnet: ${SUBNET}
  - subnet: ${CHAIN}
    vantages: [b, d]
`;
    const config = parseConfigText(text, 'c.yaml', {});
    const polled = new Map(config.targets.map((t) => [t.name, t]));
    const [first, second] = config.l1s ?? [];
    expect(vantagesOf(defined(first, 'the first L1'), config.targets, polled)).toEqual(['a', 'd']);
    expect(vantagesOf(defined(second, 'the second L1'), config.targets, polled)).toEqual(['b', 'd']);
    // Only the targets this replica polls (its shard's).
    polled.delete('d');
    expect(vantagesOf(defined(first, 'the first L1'), config.targets, polled)).toEqual(['a']);
  });
});
