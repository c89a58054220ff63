// The info and platform parsers over every info.* and platform.* answer
// recorded from real AvalancheGo nodes (test/fixtures/real/<version>/, the
// lone node and the five-node local network with its L1): each answer is an
// outcome the sources understand, never a failure.
import { describe, expect, it } from 'vitest';
import { recordings, type Recording } from '../helpers/recordings.js';
import { defined } from '../helpers/assert.js';
import type { RpcReply } from '../../src/rpc/client.js';
import { decodeRpc } from '../../src/rpc/jsonrpc.js';
import {
  INFO_METHODS,
  methodOutcome,
  parseNodeId,
  parseNodeVersion,
  parseNetworkId,
  parsePeers,
  parseUpgrades,
  parseUptime,
} from '../../src/sources/info.js';
import { parseFeeState, parseOwnEntry } from '../../src/sources/platform.js';

const request = (r: Recording) => {
  try {
    return JSON.parse(r.request.body ?? '') as { id?: number; method?: string; params?: { nodeIDs?: string[] } };
  } catch {
    return {};
  }
};
const reply = (r: Recording): RpcReply => ({
  url: `http://127.0.0.1:9650${r.request.path}`,
  status: r.status,
  headers: r.headers,
  body: r.body,
  method: defined(request(r).method, `${r.request.path}: the method asked`),
  id: request(r).id ?? 1,
});
/** The one node ID a getCurrentValidators request asked about. */
const askedNodeId = (r: Recording): string => defined(request(r).params?.nodeIDs?.[0], `${r.request.path}: the node ID asked`);

const all = recordings();
const infoCases = all.filter(([, r]) => (INFO_METHODS as readonly string[]).includes(request(r).method ?? '') && r.status === 200);
const ownEntryCases = all.filter(
  ([, r]) => request(r).method === 'platform.getCurrentValidators' && request(r).params?.nodeIDs?.length === 1 && decodeRpc(reply(r)).ok,
);
const feeCases = all.filter(([, r]) => request(r).method === 'platform.getValidatorFeeState');

describe('real info answers', () => {
  it('were recorded', () => {
    expect(infoCases.length).toBeGreaterThanOrEqual(30);
  });

  it.each(infoCases)('%s', (_path, r) => {
    const method = defined(request(r).method, 'the method asked');
    const outcome = methodOutcome(reply(r));
    if (outcome.state !== 'ok') {
      // The two states, and only where they belong.
      expect(outcome.state === 'not_validator' ? method : outcome.state).toBe(outcome.state === 'not_validator' ? 'info.uptime' : 'unsupported');
      return;
    }
    const parse: Record<string, (x: unknown) => unknown> = {
      'info.getNodeID': parseNodeId,
      'info.getNodeVersion': parseNodeVersion,
      'info.getNetworkID': parseNetworkId,
      'info.uptime': parseUptime,
      'info.upgrades': parseUpgrades,
      'info.peers': parsePeers,
    };
    const parser = defined(parse[method], `the parser of ${method}`);
    expect(() => parser(outcome.result)).not.toThrow();
  });

  it('the non-validator of the local network is in state not_validator; info.upgrades is unsupported before v1.11', () => {
    const nonValidator = defined(
      all.find(([p]) => p.endsWith('local-network/non-validator-info-uptime.json')),
      "the non-validator's info.uptime",
    );
    expect(methodOutcome(reply(nonValidator[1])).state).toBe('not_validator');
    const upgrades = defined(
      all.find(([p]) => p === 'v1.10.19/info-upgrades.json'),
      'v1.10.19/info-upgrades.json',
    );
    expect(methodOutcome(reply(upgrades[1])).state).toBe('unsupported');
    const version = defined(
      all.find(([p]) => p === 'v1.14.2/info-getNodeVersion.json'),
      'v1.14.2/info-getNodeVersion.json',
    );
    expect(parseNodeVersion((JSON.parse(version[1].body) as { result: unknown }).result)).toEqual({ text: '1.14.2', parts: [1, 14, 2] });
  });
});

describe('real getCurrentValidators answers for one node ID', () => {
  it.each(ownEntryCases)('%s', (_path, r) => {
    const nodeId = askedNodeId(r);
    expect(() => parseOwnEntry((decodeRpc(reply(r)) as { result: unknown }).result, nodeId)).not.toThrow();
  });

  it('an L1 validator of the local network, active and inactive; a legacy subnet validator; the primary network', () => {
    const entry = (suffix: string) => {
      const [, r] = defined(
        all.find(([p]) => p.endsWith(`v1.14.2/local-network/${suffix}`)),
        `v1.14.2/local-network/${suffix}`,
      );
      return parseOwnEntry((decodeRpc(reply(r)) as { result: unknown }).result, askedNodeId(r));
    };
    expect(entry('platform-getCurrentValidators-l1.json')).toMatchObject({ kind: 'l1', weight: 100 });
    expect(entry('platform-getCurrentValidators-l1-inactive.json')).toMatchObject({ kind: 'l1', balance: 0 });
    expect(entry('platform-getCurrentValidators-subnet.json')).toMatchObject({ kind: 'staker', weight: 100 });
    expect(entry('platform-getCurrentValidators-own.json')).toMatchObject({
      kind: 'staker',
      registeredKey: expect.stringMatching(/^0x[0-9a-f]{96}$/) as unknown,
    });
    expect(entry('non-validator-platform-getCurrentValidators-own.json')).toBeUndefined();
  });

  it('every entry of the whole-set answers of every release parses, whichever node it is', () => {
    const whole = all.filter(([p, r]) => p.includes('getCurrentValidators-all') && r.status === 200);
    let entries = 0;
    for (const [, r] of whole) {
      const result = (decodeRpc(reply(r)) as { result: { validators: Array<{ nodeID: string }> } }).result;
      for (const v of result.validators) {
        expect(parseOwnEntry(result, v.nodeID)).toBeDefined();
        entries++;
      }
    }
    expect(entries).toBeGreaterThan(0);
  });
});

describe('real getValidatorFeeState answers', () => {
  it.each(feeCases)('%s', (_path, r) => {
    const outcome = decodeRpc(reply(r));
    if (outcome.ok) expect(parseFeeState(outcome.result)).toBeGreaterThanOrEqual(0);
    else expect(outcome.message).toBe('rpc: can\'t find method "platform.GetValidatorFeeState"');
  });
});
