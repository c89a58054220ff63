// classifyError: the one place a failure becomes a bounded reason.
import { describe, expect, it } from 'vitest';
import {
  CODES,
  HttpStatusError,
  InvalidResponseError,
  NotFoundAtUrlError,
  PHASES,
  PollError,
  REASONS,
  RequestFailed,
  RpcError,
  classifyError,
  failureFacts,
  type Code,
  type FailureFacts,
  type Phase,
  type Reason,
} from '../../src/rpc/errors.js';

const poll = { url: 'http://127.0.0.1:9650', timeoutMs: 5000 };
const url = 'http://127.0.0.1:9650/ext/health';
const coded = (code: string, message = code) => Object.assign(new Error(message), { code });
const facts = (reason: Reason, phase: Phase, code: Code, status?: number): FailureFacts => ({
  reason,
  phase,
  code,
  ...(status !== undefined ? { status } : {}),
});

describe('classifyError', () => {
  it.each<[string, unknown, Reason, RegExp]>([
    ['HTTP 403 "invalid host specified"', new HttpStatusError(403, 'invalid host specified\n', url), 'host_rejected', /--http-allowed-hosts/],
    ['another HTTP 403', new HttpStatusError(403, 'forbidden', url), 'http_status', /^HTTP 403 from .*: forbidden$/],
    ['HTTP 502', new HttpStatusError(502, '<html>Bad Gateway</html>', url), 'http_status', /^HTTP 502/],
    ['a JSON-RPC error', new RpcError(-32000, 'boom', 'health.health'), 'rpc_error', /health\.health: boom/],
    ['an invalid answer', new InvalidResponseError('not JSON'), 'invalid_response', /^not JSON$/],
    [
      'the deadline while waiting for a slot',
      new RequestFailed(url, 'slot', true, new Error('aborted')),
      'timeout',
      /^no request slot free within the 5000 ms timeout/,
    ],
    [
      'the deadline during the exchange',
      new RequestFailed(url, 'exchange', true, new Error('aborted')),
      'timeout',
      /^no answer from .*\/ext\/health within 5000 ms$/,
    ],
    ['connection refused', new RequestFailed(url, 'exchange', false, coded('ECONNREFUSED')), 'connect', /^cannot reach .*\/ext\/health/],
    [
      'undici socket error (code on the cause)',
      new RequestFailed(url, 'exchange', false, Object.assign(new Error('other side closed'), { cause: coded('UND_ERR_SOCKET', 'closed') })),
      'connect',
      /closed$/,
    ],
    [
      'an untrusted certificate',
      new RequestFailed(url, 'exchange', false, coded('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate')),
      'tls',
      /TLS handshake/,
    ],
    ['undici headers timeout', new RequestFailed(url, 'exchange', false, coded('UND_ERR_HEADERS_TIMEOUT')), 'timeout', /timed out/],
    ['an unexpected transport error', new RequestFailed(url, 'exchange', false, new Error('weird')), 'internal', /weird/],
    ['a bug', new TypeError('x is undefined'), 'internal', /^unexpected error polling http:\/\/127\.0\.0\.1:9650: x is undefined$/],
    ['something that is not an Error', 'oops', 'internal', /oops/],
  ])('%s', (_name, err, reason, message) => {
    const classified = classifyError(err, poll);
    expect(classified).toBeInstanceOf(PollError);
    expect(REASONS).toContain(classified.reason);
    expect(classified.reason).toBe(reason);
    expect(classified.message).toMatch(message);
    expect(classified.cause).toBe(err);
  });

  // The facts the pages read (server/fleet-words.ts), decided here with the reason: never read back out of the message.
  it.each<[string, unknown, FailureFacts]>([
    [
      'HTTP 403 "invalid host specified"',
      new HttpStatusError(403, 'invalid host specified\n', url),
      facts('host_rejected', 'answer', 'invalid_host', 403),
    ],
    ['HTTP 502', new HttpStatusError(502, 'bad gateway', url), facts('http_status', 'answer', 'http_status', 502)],
    [
      'HTTP 404 at a URL that is no base URL',
      new NotFoundAtUrlError('404 page not found', url, 'not a base URL'),
      facts('http_status', 'answer', 'not_base_url', 404),
    ],
    ['a JSON-RPC error', new RpcError(-32000, 'request slot ECONNREFUSED', 'health.health'), facts('rpc_error', 'answer', 'rpc_error')],
    ['an invalid answer', new InvalidResponseError('HTTP 404 base URL'), facts('invalid_response', 'answer', 'invalid_answer')],
    ['the deadline while waiting for a slot', new RequestFailed(url, 'slot', true, new Error('aborted')), facts('timeout', 'slot', 'deadline')],
    [
      "the deadline behind the node's own requests",
      new RequestFailed(url, 'queue', true, new Error('aborted')),
      facts('timeout', 'queue', 'deadline'),
    ],
    ['the deadline during the exchange', new RequestFailed(url, 'exchange', true, new Error('aborted')), facts('timeout', 'exchange', 'deadline')],
    ['undici headers timeout', new RequestFailed(url, 'exchange', false, coded('UND_ERR_HEADERS_TIMEOUT')), facts('timeout', 'exchange', 'stalled')],
    [
      'an abort',
      new RequestFailed(url, 'exchange', false, Object.assign(new Error('x'), { name: 'AbortError' })),
      facts('timeout', 'exchange', 'aborted'),
    ],
    ['connection refused', new RequestFailed(url, 'exchange', false, coded('ECONNREFUSED')), facts('connect', 'exchange', 'refused')],
    ['a reset', new RequestFailed(url, 'exchange', false, coded('ECONNRESET')), facts('connect', 'exchange', 'closed')],
    [
      'undici socket error (code on the cause)',
      new RequestFailed(url, 'exchange', false, Object.assign(new Error('x'), { cause: coded('UND_ERR_SOCKET') })),
      facts('connect', 'exchange', 'closed'),
    ],
    ['a name that does not resolve', new RequestFailed(url, 'exchange', false, coded('EAI_AGAIN')), facts('connect', 'exchange', 'unresolved')],
    ['no route', new RequestFailed(url, 'exchange', false, coded('ENETUNREACH')), facts('connect', 'exchange', 'unreachable')],
    [
      "the exporter's socket budget",
      new RequestFailed(url, 'exchange', false, coded('ESOCKETBUDGET')),
      facts('connect', 'exchange', 'out_of_sockets'),
    ],
    ['out of file descriptors', new RequestFailed(url, 'exchange', false, coded('EMFILE')), facts('connect', 'exchange', 'out_of_sockets')],
    ['an untrusted certificate', new RequestFailed(url, 'exchange', false, coded('CERT_HAS_EXPIRED')), facts('tls', 'exchange', 'tls_failed')],
    [
      'malformed HTTP',
      new RequestFailed(url, 'exchange', false, coded('HPE_INVALID_CONSTANT')),
      facts('invalid_response', 'exchange', 'invalid_http'),
    ],
    ['an unexpected transport error', new RequestFailed(url, 'exchange', false, new Error('weird')), facts('internal', 'exporter', 'unexpected')],
    ['a bug', new TypeError('x is undefined'), facts('internal', 'exporter', 'unexpected')],
  ])('facts: %s', (_name, err, expected) => {
    const classified = classifyError(err, poll);
    expect(failureFacts(classified)).toEqual(expected);
    expect(CODES[classified.reason] as readonly string[]).toContain(classified.code);
    expect(PHASES).toContain(classified.phase);
  });

  it("a PollError made with a reason alone has that reason's general code and phase", () => {
    expect(failureFacts(new PollError('connect', 'x'))).toEqual(facts('connect', 'exchange', 'connect_failed'));
    expect(failureFacts(new PollError('internal', 'x'))).toEqual(facts('internal', 'exporter', 'unexpected'));
  });

  it('keeps an already classified error', () => {
    const err = new PollError('connect', 'x');
    expect(classifyError(err, poll)).toBe(err);
  });
});
