// The L1 set's pure parts: the answers' parsers (subnet-evm's CurrentValidator: plain numbers, uptimePercentage
// 0–100), the page's rows worst first, and the share of weight at risk as AvalancheGoL1WeightAtRisk counts it.
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
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

  it('gives a member still in the set the strings of the last read: one copy of its IDs however many polls serve it', () => {
    // Strings are compared by content in JavaScript: which objects hold an ID is read from a heap snapshot, where
    // each string object is a node (V8 writes it after a full collection: what is left is held).
    const ids = Array.from({ length: 50 }, () => randomBytes(24).toString('hex'));
    const nodeIds = ids.map((id, i) => (i % 10 === 0 ? `NodeID-moved-${id}` : `NodeID-${id}`));
    const answer = (moved: boolean) =>
      JSON.stringify({
        validators: ids.map((id, i) => ({
          validationID: id,
          nodeID: moved && i % 10 === 0 ? `NodeID-new-${id}` : nodeIds[i],
          weight: String(100 + i),
          startTime: '1',
          balance: '5',
        })),
      });
    const first = parseL1Set(JSON.parse(answer(false)));
    const second = parseL1Set(JSON.parse(answer(true)), new Map(first.map((m) => [m.validationId, m])));
    const unrelated = parseL1Set(JSON.parse(answer(false)));
    expect(second.map((m) => m.validationId)).toEqual(first.map((m) => m.validationId));
    expect(second.filter((m) => m.nodeId.startsWith('NodeID-new-'))).toHaveLength(5);

    const file = join(tmpdir(), `l1-set-strings-${process.pid}.heapsnapshot`);
    let copies: Map<string, number>;
    try {
      writeHeapSnapshot(file);
      const snap = JSON.parse(readFileSync(file, 'utf8')) as {
        snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
        nodes: number[];
        strings: string[];
      };
      const fields = snap.snapshot.meta.node_fields;
      const [width, typeAt, nameAt] = [fields.length, fields.indexOf('type'), fields.indexOf('name')];
      const stringType = snap.snapshot.meta.node_types[0].indexOf('string');
      const wanted = new Set([...ids, ...nodeIds]);
      copies = new Map();
      for (let i = 0; i < snap.nodes.length; i += width) {
        if (snap.nodes[i + typeAt] !== stringType) continue;
        const text = snap.strings[snap.nodes[i + nameAt] ?? 0] ?? '';
        if (wanted.has(text)) copies.set(text, (copies.get(text) ?? 0) + 1);
      }
    } finally {
      rmSync(file, { force: true });
    }
    // Each ID: the test's own, the first read's (which the second read took), the unrelated read's: 3, not 4. A node
    // ID that changed is the second read's own; the one it had is held by the first and the unrelated read, and the test.
    for (const id of ids) expect(copies.get(id), id).toBe(3);
    for (const id of nodeIds) expect(copies.get(id), id).toBe(3);
    expect([first, second, unrelated].every((s) => s.length === ids.length)).toBe(true);
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
