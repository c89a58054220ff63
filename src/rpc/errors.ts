// Typed poll errors. `reason` is a stable code, used as the bounded `reason`
// label of avalanchego_exporter_poll_errors_total: keep the set small and fixed.

export const REASONS = [
  'timeout',
  'connect',
  'tls',
  'host_rejected',
  'http_status',
  'rpc_error',
  'invalid_response',
  'internal',
] as const;
export type Reason = (typeof REASONS)[number];

export class PollError extends Error {
  constructor(
    readonly reason: Reason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PollError';
  }
}

export class HttpStatusError extends PollError {
  constructor(
    readonly status: number,
    readonly body: string,
    url: string,
  ) {
    const rejectedHost = status === 403 && body.trim() === 'invalid host specified';
    super(
      rejectedHost ? 'host_rejected' : 'http_status',
      rejectedHost
        ? `HTTP 403 "invalid host specified" from ${url}: the node rejects this host name; add it to the node's --http-allowed-hosts or address the node by IP`
        : `HTTP ${status} from ${url}: ${snippet(body)}`,
    );
    this.name = 'HttpStatusError';
  }
}

export class RpcError extends PollError {
  constructor(
    readonly code: number,
    readonly rpcMessage: string,
    method: string,
  ) {
    super('rpc_error', `JSON-RPC error ${code} from ${method}: ${rpcMessage}`);
    this.name = 'RpcError';
  }
}

export class InvalidResponseError extends PollError {
  constructor(message: string) {
    super('invalid_response', message);
    this.name = 'InvalidResponseError';
  }
}

/** The first 200 characters of a body, on one line, for error messages. */
export function snippet(body: string): string {
  const flat = body.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat || '(empty body)';
}

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'EPROTO',
]);

/** Maps anything a poll can throw to a PollError with a reason. */
export function classifyError(err: unknown, context: { url: string; timeoutMs: number; timedOut: boolean }): PollError {
  if (err instanceof PollError) return err;
  if (context.timedOut) {
    return new PollError('timeout', `no answer from ${context.url} within ${context.timeoutMs} ms`, { cause: err });
  }
  const e = err as { code?: string; name?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e?.code ?? e?.cause?.code;
  // undici repeats the cause's text in its own message: say it once.
  const detail = e?.cause?.message ?? e?.message ?? String(err);
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new PollError('timeout', `timed out talking to ${context.url}: ${detail}`, { cause: err });
  }
  if (code && (TLS_CODES.has(code) || code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || code.startsWith('ERR_OSSL') || code.includes('CERT'))) {
    return new PollError('tls', `TLS handshake with ${context.url} failed (${code}): ${detail}`, { cause: err });
  }
  if (
    code &&
    ['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'].includes(code)
  ) {
    return new PollError('connect', `cannot reach ${context.url}: ${detail}`, { cause: err });
  }
  if (e?.name === 'AbortError') {
    return new PollError('timeout', `request to ${context.url} aborted: ${detail}`, { cause: err });
  }
  return new PollError('internal', `unexpected error polling ${context.url}: ${detail}`, { cause: err });
}
