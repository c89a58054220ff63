// The fleet page's one-line words: poll failures in an operator's words, once per kind, and
// the validator column's facts with what puts a reward or a stake at risk.
import { describe, expect, it } from 'vitest';
import type { NodeSummary } from '../../src/scheduler/node-state.js';
import { PRIMARY_NETWORK_ID } from '../../src/config/schema.js';
import { failureSummary, failureWords, fleetVersion, rowState, validatorView } from '../../src/server/fleet-words.js';

const NOW = 1_800_000_000;
const node = (extra: Partial<NodeSummary>): NodeSummary => ({
  name: 'n',
  url: 'http://10.0.0.5:9650',
  failing: [],
  heights: [],
  failures: [],
  sourceCount: 4,
  polls: 1,
  ...extra,
});

describe('failureWords', () => {
  it.each([
    ['connect', 'cannot reach http://10.0.0.5:9650/ext/health: other side closed', 'connection closed by the node'],
    [
      'connect',
      'cannot reach http://10.0.0.5:9650/ext/health: connect ECONNREFUSED 10.0.0.5:9650',
      "connection refused (nothing listens at the node's address and port)",
    ],
    ['connect', 'cannot reach http://node.example:9650/ext/info: getaddrinfo ENOTFOUND node.example', "the node's host name does not resolve"],
    ['timeout', 'no answer from http://10.0.0.5:9650/ext/health within 5000 ms', 'no answer within the timeout'],
    ['timeout', 'no request slot free within the 5000 ms timeout for http://x: …', 'the exporter had no request slot free (its limit, not the node)'],
    ['http_status', 'HTTP 502 from http://x/ext/health: <html>', 'HTTP 502 from the node or its proxy'],
    [
      'http_status',
      "HTTP 404 from http://x/p/ext/health: and from every /ext/index endpoint: http://x/p is not an AvalancheGo node's base URL",
      "HTTP 404: the target's url is not the node's base URL?",
    ],
    ['host_rejected', 'HTTP 403 "invalid host specified"', 'the node rejects this host name (its --http-allowed-hosts)'],
  ])('%s: %s', (reason, message, words) => {
    expect(failureWords(reason, message)).toBe(words);
  });

  it('one line per kind: all sources, or the sources named', () => {
    const closed = 'cannot reach http://x: other side closed';
    expect(
      failureSummary(node({ failures: ['health', 'index', 'info', 'platform'].map((source) => ({ source, reason: 'connect', message: closed })) })),
    ).toEqual(['connection closed by the node, all 4 sources']);
    expect(
      failureSummary(
        node({
          failures: [
            { source: 'info', reason: 'timeout', message: 'no answer from http://x within 2000 ms' },
            { source: 'platform', reason: 'timeout', message: 'no answer from http://x within 2000 ms' },
            { source: 'index', reason: 'http_status', message: 'HTTP 502 from http://x' },
          ],
        }),
      ),
    ).toEqual(['no answer within the timeout (info, platform)', 'HTTP 502 from the node or its proxy (index)']);
  });
});

describe('validatorView', () => {
  const fleet = fleetVersion([node({ validator: { version: { text: '1.14.2', number: 1_014_002 } } })]);
  it.each([
    ['uptime below its requirement', { uptimeRatio: 0.55 }, 'bad', 'uptime 55.0 % < 80 %: no reward'],
    ['uptime just above', { uptimeRatio: 0.82, uptimeRequirement: 0.8 }, 'warn', 'uptime 82.0 % ≥ 80 %'],
    ['stake ending in 29 minutes', { stake: { endSeconds: NOW + 29 * 60 } }, 'bad', 'stake ends in 29m 0s'],
    ['stake ending in 3 days', { stake: { endSeconds: NOW + 3 * 86_400 } }, 'warn', 'stake ends in 3d 0h'],
    [
      'uptime below the 90 % of a validation started after Helicon',
      { uptimeRatio: 0.85, uptimeRequirement: 0.9 },
      'bad',
      'uptime 85.0 % < 90 %: no reward',
    ],
    ['stake that auto-renews', { stake: { endSeconds: NOW + 60, autoRenew: true } }, undefined, 'stake auto-renews'],
    ['L1 balance for 5 days', { l1: [{ subnet: 's', balanceNavax: 1e9, runwaySeconds: 5 * 86_400 }] }, 'warn', 'L1 balance lasts 5d 0h'],
    ['L1 validator inactive', { l1: [{ subnet: 's', balanceNavax: 0 }] }, 'bad', 'L1 validator inactive (balance 0)'],
    [
      'version behind the fleet and its peers',
      { version: { text: '1.13.5', number: 1_013_005 }, peersNewerRatio: 0.92 },
      'warn',
      'v1.13.5 behind: fleet runs 1.14.2, 92 % of peers newer',
    ],
    ['not a validator', { notValidator: true, version: { text: '1.14.2', number: 1_014_002 } }, undefined, 'not a validator'],
  ] as const)('%s', (_what, validator, risk, fact) => {
    const view = validatorView(node({ validator }), fleet, NOW);
    expect(view.risk).toBe(risk);
    expect(view.facts.map((f) => f.text)).toContain(fact);
  });
});

describe('no longer a validator', () => {
  const lost = [{ subnet: PRIMARY_NETWORK_ID, nodeId: 'NodeID-old', lastSeenSeconds: NOW - 60 }];
  it('a fault, ranked at risk above a healthy node, with its node ID changed', () => {
    const n = node({ status: 'healthy', nodeId: 'NodeID-new', validator: { notValidator: true, inNoSet: true, noLonger: lost } });
    const view = validatorView(n, undefined, NOW);
    expect(view.facts[0]).toEqual({ text: 'no longer a validator (primary network): its node ID changed', tone: 'bad' });
    expect(view.facts.map((f) => f.text)).not.toContain('not a validator');
    expect(view.risk).toBe('bad');
    expect(rowState(n, view).rank).toBeLessThan(
      rowState(node({ status: 'healthy' }), validatorView(node({ status: 'healthy' }), undefined, NOW)).rank,
    );
  });

  it("the platform source's view wins over info.uptime's; info.uptime's counts only past bootstrapping", () => {
    const uptimeLost = { nodeId: 'NodeID-old', lastSeenSeconds: NOW - 60 };
    const facts = (extra: Partial<NodeSummary>) => validatorView(node(extra), undefined, NOW).facts.map((f) => f.text);
    expect(facts({ status: 'healthy', validator: { notValidator: true, uptimeLost } })).toContain('no longer a validator (primary network)');
    expect(facts({ status: 'bootstrapping', validator: { notValidator: true, uptimeLost } })).toContain('not a validator');
    expect(facts({ status: 'healthy', validator: { notValidator: true, uptimeLost, noLonger: [] } })).toContain('not a validator');
  });
});
