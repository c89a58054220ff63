// The fleet page's one-line words: poll failures in an operator's words, once per kind, and
// the validator column's facts with what puts a reward or a stake at risk.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import {
  HttpStatusError,
  InvalidResponseError,
  NotFoundAtUrlError,
  RequestFailed,
  RpcError,
  classifyError,
  failureFacts,
} from '../../src/rpc/errors.js';
import type { NodeSummary } from '../../src/scheduler/node-state.js';
import { validatorFacts, type ValidatorPart } from '../../src/sources/section.js';
import { PRIMARY_NETWORK_ID } from '../../src/config/schema.js';
import { failureSummary, failureWords, fleetVersion, rowState, validatorView } from '../../src/server/fleet-words.js';

const NOW = 1_800_000_000;
const YEAR = 365 * 86_400;
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

const URL_ = 'http://10.0.0.5:9650/ext/health';
const coded = (code: string, message: string) => Object.assign(new Error(message), { code });
const failed = (phase: 'slot' | 'queue' | 'exchange', deadline: boolean, cause: unknown) => new RequestFailed(URL_, phase, deadline, cause);
/** A failure as the pages get it: classified once (rpc/errors.ts), then its facts and message. */
const failure = (source: string, err: unknown) => {
  const e = classifyError(err, { url: 'http://10.0.0.5:9650', timeoutMs: 5000 });
  return { source, message: e.message, ...failureFacts(e) };
};

describe('failureWords', () => {
  it.each<[string, unknown, string]>([
    ['connect: other side closed', failed('exchange', false, coded('UND_ERR_SOCKET', 'other side closed')), 'connection closed by the node'],
    [
      'connect: ECONNREFUSED',
      failed('exchange', false, coded('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.5:9650')),
      "connection refused (nothing listens at the node's address and port)",
    ],
    [
      'connect: ENOTFOUND',
      failed('exchange', false, coded('ENOTFOUND', 'getaddrinfo ENOTFOUND node.example')),
      "the node's host name does not resolve",
    ],
    ['connect: EHOSTUNREACH', failed('exchange', false, coded('EHOSTUNREACH', 'connect EHOSTUNREACH 10.0.0.5:9650')), "no route to the node's host"],
    [
      'connect: the socket budget',
      failed('exchange', false, coded('ESOCKETBUDGET', 'no socket left')),
      'the exporter is out of sockets (its limit, not the node)',
    ],
    ['connect: ECONNRESET', failed('exchange', false, coded('ECONNRESET', 'read ECONNRESET')), 'connection closed by the node'],
    ['timeout on the wire', failed('exchange', true, new Error('aborted')), 'no answer within the timeout'],
    ["timeout behind the node's own requests", failed('queue', true, new Error('aborted')), 'no answer within the timeout'],
    [
      'timeout waiting for a request slot',
      failed('slot', true, new Error('aborted')),
      'the exporter had no request slot free (its limit, not the node)',
    ],
    ['HTTP 502', new HttpStatusError(502, '<html>', URL_), 'HTTP 502 from the node or its proxy'],
    [
      'HTTP 404 on health and every index endpoint',
      new NotFoundAtUrlError('404 page not found', URL_, "and from every /ext/index endpoint: http://x/p is not an AvalancheGo node's base URL"),
      "HTTP 404: the target's url is not the node's base URL?",
    ],
    // The node's text says "base URL" and "request slot": the words follow what failed, not what the node wrote.
    [
      'a proxy 404 page that talks of base URLs',
      new HttpStatusError(404, 'check the base URL of your request slot', URL_),
      'HTTP 404 from the node or its proxy',
    ],
    [
      'HTTP 403 "invalid host specified"',
      new HttpStatusError(403, 'invalid host specified', URL_),
      'the node rejects this host name (its --http-allowed-hosts)',
    ],
    [
      'a TLS failure',
      failed('exchange', false, coded('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate')),
      'TLS handshake failed (certificate or protocol)',
    ],
    ['a JSON-RPC error', new RpcError(-32000, 'no request slot, ECONNREFUSED', 'health.health'), 'the node answered with an error'],
    ['an invalid answer', new InvalidResponseError('not JSON'), 'an answer that is not what the API returns'],
    ['a bug', new TypeError('x is undefined'), 'an error in the exporter (see its log)'],
  ])('%s', (_name, err, words) => {
    expect(failureWords(failure('health', err))).toBe(words);
  });

  it('one line per kind: all sources, or the sources named', () => {
    const closed = failed('exchange', false, coded('UND_ERR_SOCKET', 'other side closed'));
    expect(failureSummary(node({ failures: ['health', 'index', 'info', 'platform'].map((source) => failure(source, closed)) }))).toEqual([
      'connection closed by the node, all 4 sources',
    ]);
    const timeout = failed('exchange', true, new Error('aborted'));
    expect(
      failureSummary(
        node({
          failures: [failure('info', timeout), failure('platform', timeout), failure('index', new HttpStatusError(502, 'bad gateway', URL_))],
        }),
      ),
    ).toEqual(['no answer within the timeout (info, platform)', 'HTTP 502 from the node or its proxy (index)']);
  });
});

describe('the pages read facts, not messages', () => {
  // rpc/errors.ts classifyError decides what failed (reason, phase, code, status); server/ never reads it back out of a
  // message's text. A regular expression run over anything named like a message, an error or a failure is refused.
  const SERVER = 'src/server';
  const TEXTUAL = /message|error|err\b|failure|reason|detail/i;

  it('no regular expression in src/server/ runs over an error or its message', () => {
    const found: string[] = [];
    for (const name of readdirSync(SERVER).filter((f) => f.endsWith('.ts'))) {
      const file = join(SERVER, name);
      const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const isRegex = (n: ts.Node | undefined) =>
        n !== undefined && (ts.isRegularExpressionLiteral(n) || (ts.isNewExpression(n) && n.expression.getText(source) === 'RegExp'));
      const visit = (n: ts.Node): void => {
        if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression)) {
          const method = n.expression.name.text;
          const receiver = n.expression.expression;
          // regex.test(text), regex.exec(text); text.match(regex), text.replace(regex, …), text.search(regex), text.split(regex)
          const subject =
            (method === 'test' || method === 'exec') && isRegex(receiver)
              ? n.arguments[0]
              : ['match', 'matchAll', 'replace', 'replaceAll', 'search', 'split'].includes(method) && isRegex(n.arguments[0])
                ? receiver
                : undefined;
          if (subject && TEXTUAL.test(subject.getText(source))) {
            found.push(`${file}:${source.getLineAndCharacterOfPosition(n.getStart()).line + 1}: ${n.getText(source).slice(0, 80)}`);
          }
        }
        ts.forEachChild(n, visit);
      };
      visit(source);
    }
    expect(found).toEqual([]);
  });
});

describe('validatorView', () => {
  const fleet = fleetVersion([node({ validator: { version: { text: '1.14.2', number: 1_014_002 } } })]);
  it.each([
    ['uptime below its requirement', { uptimeRatio: 0.55 }, 'bad', 'uptime 55.0 % < 80 %: no reward'],
    ['uptime just above', { uptimeRatio: 0.82, uptimeRequirement: 0.8 }, 'warn', 'uptime 82.0 % ≥ 80 %'],
    ['stake of a year ending in 29 minutes', { stake: { startSeconds: NOW - YEAR, endSeconds: NOW + 29 * 60 } }, 'bad', 'stake ends in 29m 0s'],
    ['stake of a year ending in 3 days', { stake: { startSeconds: NOW - YEAR, endSeconds: NOW + 3 * 86_400 } }, 'warn', 'stake ends in 3d 0h'],
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

describe("a stake's end, as the stake-expiry alert decides it (metrics/stake-expiry.ts)", () => {
  const H = 3_600;
  const stake = (lengthSeconds: number, leftSeconds: number) =>
    node({ status: 'healthy', validator: { stake: { startSeconds: NOW + leftSeconds - lengthSeconds, endSeconds: NOW + leftSeconds } } });
  it.each<[string, number, number, 'bad' | 'warn' | undefined, string]>([
    // Fuji's 12 h minimum (ACP-273): the 1 d window needs a stake of 2 d, so only the last hour is a risk.
    ['a 12 h stake in its first minute', 12 * H, 12 * H - 60, undefined, 'healthy'],
    ['a 12 h stake with 2 h left', 12 * H, 2 * H, undefined, 'healthy'],
    ['a 12 h stake in its last hour', 12 * H, 59 * 60, 'bad', 'at risk'],
    // Mainnet's 48 h minimum: the 1 d window applies (2 d ≥ 2 × 1 d), the 7 d one does not (it needs 14 d).
    ['a 48 h stake in its first minute', 48 * H, 48 * H - 60, undefined, 'healthy'],
    ['a 48 h stake with 25 h left', 48 * H, 25 * H, undefined, 'healthy'],
    ['a 48 h stake with 23 h left', 48 * H, 23 * H, 'bad', 'at risk'],
    ['a 14 d stake with 6 days left', 14 * 24 * H, 6 * 24 * H, 'warn', 'at risk'],
    ['a 13 d stake with 6 days left', 13 * 24 * H, 6 * 24 * H, undefined, 'healthy'],
  ])('%s', (_what, length, left, risk, state) => {
    const n = stake(length, left);
    const view = validatorView(n, undefined, NOW);
    expect(view.risk).toBe(risk);
    expect(view.facts).toContainEqual({ text: expect.stringMatching(/^stake ends in /) as string, tone: risk ?? 'dim' });
    expect(rowState(n, view).text).toBe(state);
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
    // As the node state gives it to the pages: the sources' parts, with "no longer a validator" decided once.
    const facts = ({ status, validator }: { status: NodeSummary['status']; validator: ValidatorPart }) =>
      validatorView(node({ status, validator: validatorFacts(validator, status === 'healthy' || status === 'unhealthy') }), undefined, NOW).facts.map(
        (f) => f.text,
      );
    expect(facts({ status: 'healthy', validator: { notValidator: true, uptimeLost } })).toContain('no longer a validator (primary network)');
    expect(facts({ status: 'bootstrapping', validator: { notValidator: true, uptimeLost } })).toContain('not a validator');
    expect(facts({ status: 'healthy', validator: { notValidator: true, uptimeLost, noLonger: [] } })).toContain('not a validator');
  });
});
