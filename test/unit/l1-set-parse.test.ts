// The L1 set's pure parts: the answers' parsers (subnet-evm's CurrentValidator: plain numbers, uptimePercentage
// 0–100), the page's rows worst first, and the share of weight at risk as AvalancheGoL1WeightAtRisk counts it.
import { describe, expect, it } from 'vitest';
import { l1Rows, parseBlockchains, parseChainValidators, parseL1Set, weightAtRisk, type L1SetSnapshot, type Seen } from '../../src/sources/l1-set.js';

const member = (id: string, weight: number, balance: number) => ({ validationId: id, nodeId: `NodeID-${id}`, weight, balance, startSeconds: 1 });

describe('parsers', () => {
  it('reads the L1 entries of the set, heaviest first, and skips legacy stakers', () => {
    const set = parseL1Set({
      validators: [
        { nodeID: 'NodeID-a', weight: '10', startTime: '5', validationID: 'va', balance: '7', minNonce: '0' },
        { txID: 't', nodeID: 'NodeID-s', weight: '2000', startTime: '1', endTime: '9' },
        { nodeID: 'NodeID-b', weight: '30', startTime: '5', validationID: 'vb', balance: '0', minNonce: '0' },
      ],
    });
    expect(set.map((m) => [m.validationId, m.weight, m.balance])).toEqual([
      ['vb', 30, 0],
      ['va', 10, 7],
    ]);
    expect(() => parseL1Set({ validators: [{ nodeID: 'n', validationID: 'v', weight: 'x', startTime: '1', balance: '1' }] })).toThrow(/weight/);
    expect(() => parseL1Set({})).toThrow(/no validators list/);
  });

  it("reads subnet-evm's validators.getCurrentValidators: isConnected, uptimePercentage 0-100 as a ratio", () => {
    const seen = parseChainValidators({
      validators: [
        {
          validationID: 'va',
          nodeID: 'NodeID-a',
          weight: 10,
          startTimestamp: 5,
          isActive: true,
          isL1Validator: true,
          isConnected: false,
          uptimePercentage: 87.5,
          uptimeSeconds: 3,
        },
      ],
    });
    expect(seen.get('va')).toEqual({ connected: false, uptimeRatio: 0.875 });
    expect(() => parseChainValidators({ validators: [{ validationID: 'v', nodeID: 'n', isConnected: true, uptimePercentage: 150 }] })).toThrow(
      /uptimePercentage/,
    );
  });

  it('reads platform.getBlockchains', () => {
    expect(parseBlockchains({ blockchains: [{ id: 'c', name: 'dispatch', subnetID: 's', vmID: 'v' }] })).toEqual([
      { id: 'c', name: 'dispatch', subnetId: 's' },
    ]);
    expect(() => parseBlockchains({ blockchains: [{ id: 1 }] })).toThrow(/getBlockchains/);
  });
});

describe('rows and weight at risk', () => {
  const views = (conn: Array<Record<string, boolean>>) =>
    conn.map((c, i) => ({
      node: `v${i}`,
      state: 'ok' as const,
      seen: new Map<string, Seen>(Object.entries(c).map(([k, v]) => [k, { connected: v, uptimeRatio: 1 }])),
    }));
  const snap = (vantages: L1SetSnapshot['vantages']): L1SetSnapshot => ({
    subnet: 's',
    from: 'v0',
    feePriceNavaxPerSecond: 1,
    maxValidators: 10,
    validators: [member('big', 50, 1e9), member('mid', 30, 1e9), member('low', 15, 1000), member('out', 5, 0)],
    vantages,
  });

  it('puts the worst first: inactive, down, short runway, then the rest heaviest first', () => {
    const s = snap(views([{ mid: false }, { mid: false }, { mid: true }]));
    expect(l1Rows(s).map((r) => [r.member.validationId, r.down])).toEqual([
      ['out', false],
      ['mid', true],
      ['low', false],
      ['big', false],
    ]);
  });

  it('one vantage of three missing a validator is that vantage, not the validator', () => {
    const s = snap(views([{ big: false }, { big: true }, { big: true }]));
    expect(l1Rows(s).find((r) => r.member.validationId === 'big')?.down).toBe(false);
    // Inactive (5) and a runway under 24 h (15) are at risk: 20 of 100.
    expect(weightAtRisk(s)).toBeCloseTo(0.2);
    // Two of three see it down: its 50 more.
    expect(weightAtRisk(snap(views([{ big: false }, { big: false }, { big: true }])))).toBeCloseTo(0.7);
  });
});
