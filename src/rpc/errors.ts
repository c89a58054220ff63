// What can go wrong talking to a node, and the one function that maps it to a
// bounded `reason` (the label of avalanchego_exporter_poll_errors_total).
// The transport and the parsers throw the typed errors below, which only state
// facts; classifyError, called once at the poll boundary, decides the reason,
// and with it the failure's phase and code: values the pages read, so that no
// one reads a fact back out of a message's text.
import { oneLine, shorten, truncate } from '../util/text.js';

export const REASONS = ['timeout', 'connect', 'tls', 'host_rejected', 'http_status', 'rpc_error', 'invalid_response', 'internal'] as const;
export type Reason = (typeof REASONS)[number];

/**
 * Where a poll failed: waiting for one of the exporter's own request slots (`slot`: its cap, or an origin other
 * nodes share, so the exporter's limit), waiting for a connection to a node alone on its origin behind the node's
 * own unanswered requests (`queue`), talking to the node (`exchange`: connecting, TLS, sending, reading), in what
 * the node answered (`answer`: its status or its body), or in the exporter's own code (`exporter`).
 */
export const PHASES = ['slot', 'queue', 'exchange', 'answer', 'exporter'] as const;
export type Phase = (typeof PHASES)[number];

/**
 * What failed, within its reason (the first code of each reason is its general one). Decided with the reason, in
 * classifyError; bounded (never a label today, but never free text either).
 */
export const CODES = {
  timeout: ['deadline', 'stalled', 'aborted'],
  connect: ['connect_failed', 'refused', 'unresolved', 'unreachable', 'closed', 'out_of_sockets'],
  tls: ['tls_failed'],
  host_rejected: ['invalid_host'],
  http_status: ['http_status', 'not_base_url'],
  rpc_error: ['rpc_error'],
  invalid_response: ['invalid_answer', 'invalid_http'],
  internal: ['unexpected'],
} as const satisfies Record<Reason, readonly [string, ...string[]]>;
export type Code = (typeof CODES)[Reason][number];

/** A classified failure as values: what the pages read (its message is for people, never parsed). */
export interface FailureFacts {
  readonly reason: Reason;
  readonly phase: Phase;
  readonly code: Code;
  /** The HTTP status the node answered with (`http_status`, `host_rejected`). */
  readonly status?: number;
}

/** The longest poll error message kept (logs, the landing page): an 8 MB error text from a node is cut here. */
export const MAX_POLL_ERROR_CHARS = 1024;

/** A reason's phase when classifyError does not say: where that reason happens. */
const DEFAULT_PHASE: Record<Reason, Phase> = {
  timeout: 'exchange',
  connect: 'exchange',
  tls: 'exchange',
  host_rejected: 'answer',
  http_status: 'answer',
  rpc_error: 'answer',
  invalid_response: 'answer',
  internal: 'exporter',
};

/** A classified poll failure: a bounded reason, its phase and code, and a message that says what happened and where. */
export class PollError extends Error implements FailureFacts {
  readonly phase: Phase;
  readonly code: Code;
  readonly status?: number;

  constructor(
    readonly reason: Reason,
    message: string,
    options: { cause?: unknown; phase?: Phase; code?: Code; status?: number } = {},
  ) {
    // A node's text reaches the message (an error message, a snippet): bound it for logs and pages.
    super(truncate(message, MAX_POLL_ERROR_CHARS), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PollError';
    this.phase = options.phase ?? DEFAULT_PHASE[reason];
    this.code = options.code ?? CODES[reason][0];
    if (options.status !== undefined) this.status = options.status;
  }
}

/** The facts of a failure, without its message and cause (kept per source: the cause may hold a node's whole body). */
export function failureFacts(e: FailureFacts): FailureFacts {
  return { reason: e.reason, phase: e.phase, code: e.code, ...(e.status !== undefined ? { status: e.status } : {}) };
}

/** No HTTP answer: the slot wait or the exchange failed (refused, reset, TLS, the poll's deadline …). */
export class RequestFailed extends Error {
  constructor(
    readonly url: string,
    /**
     * `slot`: still waiting for a request slot (the process-wide cap, or an origin other nodes share); `queue`: waiting
     * for a connection of a node alone on its origin, behind its own unanswered requests; `hanging`: waiting for a slot
     * of the hanging nodes' share, the node's last request having hung; `exchange`: talking to the node.
     */
    readonly phase: 'slot' | 'queue' | 'hanging' | 'exchange',
    /** The poll's deadline had passed when the request failed. */
    readonly deadlineExceeded: boolean,
    cause: unknown,
  ) {
    super(`request to ${url} failed`, { cause });
    this.name = 'RequestFailed';
  }
}

/** An HTTP answer with a status the request does not accept. */
export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    readonly url: string,
  ) {
    super(`HTTP ${status} from ${url}: ${snippet(body)}`);
    this.name = 'HttpStatusError';
  }
}

/**
 * HTTP 404 where the node's APIs should be: the target's URL is not the node's base URL (an API
 * path pasted as the URL, a wrong proxy prefix), or the node has those APIs off. The message
 * says which is more likely; the reason stays `http_status`.
 */
export class NotFoundAtUrlError extends HttpStatusError {
  constructor(body: string, url: string, explanation: string) {
    super(404, body, url);
    this.message = `HTTP 404 from ${url}: ${explanation}`;
    this.name = 'NotFoundAtUrlError';
  }
}

/** A JSON-RPC `error` object in the answer. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    readonly rpcMessage: string,
    readonly method: string,
  ) {
    super(`JSON-RPC error ${code} from ${method}: ${rpcMessage}`);
    this.name = 'RpcError';
  }
}

/** An answer that is not what the method returns (not JSON, not JSON-RPC, a result of the wrong shape …). */
export class InvalidResponseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidResponseError';
  }
}

/** The first 200 characters of a body, on one line, for error messages. */
export function snippet(body: string): string {
  return shorten(oneLine(body).trim(), 200) || '(empty body)';
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

/** The transport's codes of a connection that failed, and what each says. */
const CONNECT_CODES: ReadonlyMap<string, Code> = new Map<string, Code>([
  ['ECONNREFUSED', 'refused'],
  ['ECONNRESET', 'closed'],
  ['EPIPE', 'closed'],
  ['UND_ERR_SOCKET', 'closed'],
  ['UND_ERR_CLOSED', 'closed'],
  ['ENOTFOUND', 'unresolved'],
  ['EAI_AGAIN', 'unresolved'],
  ['EHOSTUNREACH', 'unreachable'],
  ['ENETUNREACH', 'unreachable'],
  // The socket budget (rpc/sockets.ts Dispatchers): out of file descriptors, or the exporter's own cap.
  ['EMFILE', 'out_of_sockets'],
  ['ENFILE', 'out_of_sockets'],
  ['ESOCKETBUDGET', 'out_of_sockets'],
]);

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** The node's answer is not valid HTTP (undici's parser: malformed, oversized headers, a length that lies). */
const INVALID_HTTP_CODES = new Set(['UND_ERR_HEADERS_OVERFLOW', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'UND_ERR_RES_EXCEEDED_MAX_SIZE']);

/** What the poll boundary knows about the poll: the node's base URL and the poll's timeout. */
export interface PollFacts {
  url: string;
  timeoutMs: number;
}

/**
 * Maps anything a poll can throw to a PollError with a bounded reason. The
 * only place a reason is decided.
 */
export function classifyError(err: unknown, poll: PollFacts): PollError {
  if (err instanceof PollError) return err;
  if (err instanceof HttpStatusError) {
    const { status } = err;
    // AvalancheGo's answer to a Host header outside --http-allowed-hosts.
    if (status === 403 && err.body.trim() === 'invalid host specified') {
      return new PollError(
        'host_rejected',
        `HTTP 403 "invalid host specified" from ${err.url}: the node rejects this host name; add it to the node's --http-allowed-hosts or address the node by IP`,
        { cause: err, code: 'invalid_host', status },
      );
    }
    const code = err instanceof NotFoundAtUrlError ? 'not_base_url' : 'http_status';
    return new PollError('http_status', err.message, { cause: err, code, status });
  }
  if (err instanceof RpcError) return new PollError('rpc_error', err.message, { cause: err });
  if (err instanceof InvalidResponseError) return new PollError('invalid_response', err.message, { cause: err });
  if (err instanceof RequestFailed) return classifyRequestFailure(err, poll.timeoutMs);
  const detail = err instanceof Error ? err.message : String(err);
  return new PollError('internal', `unexpected error polling ${poll.url}: ${detail}`, { cause: err });
}

function classifyRequestFailure(err: RequestFailed, timeoutMs: number): PollError {
  const { url } = err;
  // Waiting in the hanging nodes' share is waiting behind the node's own unanswered request: its queue.
  const phase: Phase = err.phase === 'hanging' ? 'queue' : err.phase;
  if (err.deadlineExceeded) {
    if (err.phase === 'hanging') {
      return new PollError(
        'timeout',
        `no answer from ${url} within ${timeoutMs} ms: the node had not answered its last request either, and this one waited its turn among the requests of nodes that do not answer`,
        { cause: err, phase, code: 'deadline' },
      );
    }
    const facts = { cause: err, phase, code: 'deadline' } as const;
    if (phase === 'slot') {
      return new PollError(
        'timeout',
        `no request slot free within the ${timeoutMs} ms timeout for ${url}: scheduler.max_concurrent_requests requests were in flight; raise it or poll less often`,
        facts,
      );
    }
    if (phase === 'queue') {
      return new PollError(
        'timeout',
        `no answer from ${url} within ${timeoutMs} ms: the node had not answered the requests ahead of this one, which held every connection to it`,
        facts,
      );
    }
    return new PollError('timeout', `no answer from ${url} within ${timeoutMs} ms`, facts);
  }
  const cause = err.cause as { code?: string; name?: string; message?: string; cause?: { code?: string; message?: string } } | undefined;
  const code = cause?.code ?? cause?.cause?.code;
  // undici repeats the cause's text in its own message: say it once.
  const detail = cause?.cause?.message ?? cause?.message ?? String(err.cause);
  if (code !== undefined && TIMEOUT_CODES.has(code)) {
    return new PollError('timeout', `timed out talking to ${url}: ${detail}`, { cause: err, phase, code: 'stalled' });
  }
  if (code !== undefined && (TLS_CODES.has(code) || /^ERR_(TLS|SSL|OSSL)/.test(code) || code.includes('CERT'))) {
    return new PollError('tls', `TLS handshake with ${url} failed (${code}): ${detail}`, { cause: err, phase });
  }
  const connect = code === undefined ? undefined : CONNECT_CODES.get(code);
  if (connect !== undefined) return new PollError('connect', `cannot reach ${url}: ${detail}`, { cause: err, phase, code: connect });
  if (cause?.name === 'HTTPParserError' || (code !== undefined && (INVALID_HTTP_CODES.has(code) || code.startsWith('HPE_')))) {
    return new PollError('invalid_response', `${url} answered with something that is not valid HTTP (${code ?? cause?.name}): ${detail}`, {
      cause: err,
      phase,
      code: 'invalid_http',
    });
  }
  if (cause?.name === 'AbortError') return new PollError('timeout', `request to ${url} aborted: ${detail}`, { cause: err, phase, code: 'aborted' });
  return new PollError('internal', `unexpected error requesting ${url}: ${detail}`, { cause: err });
}
