// Each source renders its own node-page section through Source.sections (pure, from its snapshot):
// the rows a person reads, and what an empty section says.
import { describe, expect, it } from 'vitest';
import { PRIMARY_NETWORK_ID } from '../../src/config/schema.js';
import { evm, evmSections } from '../../src/sources/evm.js';
import { info, infoSections, rememberInfo, summarizeInfo } from '../../src/sources/info.js';
import {
  NO_LONGER_WINDOW_SECONDS,
  lostValidations,
  platform,
  platformSections,
  rememberPlatform,
  summarizePlatform,
  type PlatformSnapshot,
} from '../../src/sources/platform.js';
import { proposerSections, proposervm } from '../../src/sources/proposervm.js';
import type { PageSection } from '../../src/sources/section.js';

/** label → the values' texts, for assertions. */
function table(sections: PageSection[]): Record<string, string> {
  return Object.fromEntries(
    sections.flatMap((s) =>
      s.rows.map((r) => [
        r.label,
        r.values
          .map((v) =>
            'text' in v
              ? v.text
              : 'number' in v
                ? String(v.number)
                : 'time' in v
                  ? `t=${v.time}`
                  : 'error' in v
                    ? `error: ${v.error}`
                    : String(v.flag),
          )
          .join(' | '),
      ]),
    ),
  );
}

describe('source sections', () => {
  it('every source with data for people has its hooks', () => {
    for (const s of [info, platform, evm, proposervm]) expect(typeof s.sections, s.name).toBe('function');
  });

  it('info: version against the peers, uptime, not a validator', () => {
    const rows = table(
      infoSections({
        methods: { 'info.uptime': 'ok' },
        nodeId: 'NodeID-abc',
        version: { text: '1.13.5', parts: [1, 13, 5] },
        uptime: { rewardingStakeRatio: 0.4, weightedAverageRatio: 0.55 },
        peers: { total: 10, byMinor: [{ version: '1.14', count: 9 }], newerRatio: 0.92 },
      }),
    );
    expect(rows['version']).toBe('1.13.5 · 92 % of its peers run a newer version');
    expect(rows['uptime (stake-weighted, as the network sees it)']).toBe('55.00000000000001');
    expect(table(infoSections({ methods: { 'info.uptime': 'not_validator' } }))['uptime']).toBe('not a validator (info.uptime)');
    expect(infoSections(undefined)[0]?.empty).toMatch(/not answered yet/);
    expect(summarizeInfo({ methods: {}, uptime: { rewardingStakeRatio: 1, weightedAverageRatio: 0.99 } }).validator).toEqual({ uptimeRatio: 0.99 });
  });

  it('platform: the stake, its end and auto-renew, the requirement, an L1 balance and its runway', () => {
    const snapshot = {
      nodeId: 'NodeID-abc',
      methods: {},
      heliconSeconds: null,
      feePriceNavaxPerSecond: 1000,
      subnets: [
        {
          subnet: PRIMARY_NETWORK_ID,
          entry: {
            kind: 'staker' as const,
            weight: 2e12,
            startSeconds: 100,
            endSeconds: 2000,
            autoRenew: { nextPeriodSeconds: 14 * 86_400, autoCompoundRatio: 0 },
          },
        },
        { subnet: 'L1xyz', entry: { kind: 'l1' as const, weight: 5, startSeconds: 100, balance: 86_400_000 } },
      ],
    };
    const rows = table(platformSections(snapshot));
    expect(rows['primary network: stake']).toBe('2000');
    expect(rows['primary network: ends']).toBe('t=2000');
    expect(rows['primary network: auto-renew']).toBe('yes, next period 14 days');
    expect(rows['primary network: uptime its reward needs']).toBe('80');
    expect(rows['subnet L1xyz: balance lasts']).toBe('1');
    expect(summarizePlatform(snapshot).validator).toEqual({
      stake: { startSeconds: 100, endSeconds: 2000, autoRenew: true },
      uptimeRequirement: 0.8,
      l1: [{ subnet: 'L1xyz', balanceNavax: 86_400_000, runwaySeconds: 86_400 }],
    });
    expect(summarizePlatform({ nodeId: 'NodeID-abc', methods: {}, subnets: [{ subnet: PRIMARY_NETWORK_ID }] }).validator).toEqual({ inNoSet: true });
  });

  it('evm and proposervm: a row per chain, the failure in the node page', () => {
    expect(
      table(
        evmSections({
          chains: [
            { chain: 'C', state: 'ok', executedHeight: 42 },
            { chain: 'L1', state: 'failed', error: new Error('no answer') },
          ],
        }),
      ),
    ).toEqual({
      C: '42',
      L1: 'error: no answer',
    });
    expect(
      table(
        proposerSections({
          chains: [
            { chain: 'C', state: 'ok', epoch: { number: 7, startSeconds: 10, pChainHeight: 99 } },
            { chain: 'X', state: 'unsupported' },
          ],
        }),
      ),
    ).toEqual({ C: '7 | t=10 | 99', X: "the node's release has no proposervm.getCurrentEpoch" });
    expect(evmSections(undefined)[0]?.empty).toMatch(/not answered yet/);
  });

  it('platform: a node that was a validator and is not now (its node ID changed) is "no longer a validator"', () => {
    const staker = { kind: 'staker' as const, weight: 2e12, startSeconds: 100, endSeconds: 1e10 };
    const L1 = 'L1xyz';
    const asked = { 'platform.getCurrentValidators': 'ok' as const };
    const before: PlatformSnapshot = {
      nodeId: 'NodeID-old',
      methods: asked,
      subnets: [
        { subnet: PRIMARY_NETWORK_ID, entry: staker },
        { subnet: L1, entry: { kind: 'l1', weight: 5, startSeconds: 100, balance: 1 } },
      ],
    };
    const after: PlatformSnapshot = { nodeId: 'NodeID-new', methods: asked, subnets: [{ subnet: PRIMARY_NETWORK_ID }, { subnet: L1 }] };
    let memory = rememberPlatform(undefined, before, 1000);
    // A failed poll, and the P-Chain bootstrapping (no set answered), forget nothing.
    expect(rememberPlatform(memory, undefined, 1010)).toBe(memory);
    expect(rememberPlatform(memory, { ...after, methods: { 'platform.getCurrentValidators': 'not_bootstrapped' }, subnets: [] }, 1020)).toBe(memory);
    memory = rememberPlatform(memory, after, 1030);
    const lost = lostValidations(after, memory);
    expect(lost).toEqual([
      { subnet: PRIMARY_NETWORK_ID, nodeId: 'NodeID-old', lastSeenSeconds: 1000 },
      { subnet: L1, nodeId: 'NodeID-old', lastSeenSeconds: 1000 },
    ]);
    expect(summarizePlatform(after, memory).validator?.noLonger).toEqual(lost);
    const rows = table(platformSections(after, memory));
    expect(rows['primary network']).toBe('no longer a validator: it was one as NodeID-old, and runs as NodeID-new now (another staking key)');
    expect(rows['primary network: last seen validating']).toBe('t=1000');
    // Never seen validating: "not a validator", no fault; the same after the 7 days of the alert's look-back.
    expect(lostValidations(after, rememberPlatform(undefined, after, 1000))).toEqual([]);
    expect(table(platformSections(after, undefined))['primary network']).toBe('not a current validator');
    expect(lostValidations(after, rememberPlatform(memory, after, 1000 + NO_LONGER_WINDOW_SECONDS + 1))).toEqual([]);
    // A validator again: nothing lost.
    expect(lostValidations(before, rememberPlatform(memory, before, 2000))).toEqual([]);
    // Asked while the P-Chain bootstraps: decided (nothing lost), so info.uptime's view does not count.
    expect(
      summarizePlatform({ nodeId: 'NodeID-new', methods: { 'platform.getCurrentValidators': 'not_bootstrapped' }, subnets: [] }, memory).validator
        ?.noLonger,
    ).toEqual([]);
  });

  it('info: "not a validator" after an uptime within 7 days says so (the view without the platform source)', () => {
    const ok = { methods: { 'info.uptime': 'ok' as const }, nodeId: 'NodeID-old', uptime: { rewardingStakeRatio: 1, weightedAverageRatio: 1 } };
    const gone = { methods: { 'info.uptime': 'not_validator' as const }, nodeId: 'NodeID-new' };
    const memory = rememberInfo(rememberInfo(undefined, ok, 1000), undefined, 1010);
    expect(summarizeInfo(gone, memory).validator?.uptimeLost).toEqual({ nodeId: 'NodeID-old', lastSeenSeconds: 1000 });
    expect(summarizeInfo(gone, rememberInfo(undefined, gone, 1000)).validator?.uptimeLost).toBeUndefined();
    expect(summarizeInfo(gone, rememberInfo(memory, gone, 1000 + 7 * 86_400 + 1)).validator?.uptimeLost).toBeUndefined();
  });
});
