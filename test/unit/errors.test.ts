// classifyError: the one place a failure becomes a bounded reason.
import { describe, expect, it } from 'vitest';
import {
  HttpStatusError,
  InvalidResponseError,
  PollError,
  REASONS,
  RequestFailed,
  RpcError,
  classifyError,
  type Reason,
} from '../../src/rpc/errors.js';

const poll = { url: 'http://127.0.0.1:9650', timeoutMs: 5000 };
const url = 'http://127.0.0.1:9650/ext/health';
const coded = (code: string, message = code) => Object.assign(new Error(message), { code });

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

  it('keeps an already classified error', () => {
    const err = new PollError('connect', 'x');
    expect(classifyError(err, poll)).toBe(err);
  });
});
