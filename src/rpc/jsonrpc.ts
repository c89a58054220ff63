// Pure decoding of a JSON-RPC 2.0 answer (no I/O): the envelope, its `result`
// or its `error`. Sources call these from their parsers.
import type { RpcReply } from './client.js';
import { HttpStatusError, InvalidResponseError, RpcError, snippet } from './errors.js';

export type RpcOutcome = { ok: true; result: unknown } | { ok: false; code: number; message: string };

/**
 * The outcome of a JSON-RPC request: its result or its error object. Throws
 * HttpStatusError when the status is not 200, InvalidResponseError when the
 * body is not a JSON-RPC 2.0 answer to this request.
 */
export function decodeRpc(reply: RpcReply): RpcOutcome {
  const { method, url, body } = reply;
  if (reply.status !== 200) throw new HttpStatusError(reply.status, body, url);
  let envelope: unknown;
  try {
    envelope = JSON.parse(body);
  } catch {
    throw new InvalidResponseError(`${method} at ${url} answered with a body that is not JSON: ${snippet(body)}`);
  }
  if (!envelope || typeof envelope !== 'object' || Array.isArray(envelope)) {
    throw new InvalidResponseError(`${method} at ${url} answered with JSON that is not a JSON-RPC response: ${snippet(body)}`);
  }
  const env = envelope as { jsonrpc?: unknown; id?: unknown; result?: unknown; error?: unknown };
  if (env.error !== undefined && env.error !== null) {
    const e = env.error as { code?: unknown; message?: unknown };
    return {
      ok: false,
      code: typeof e.code === 'number' ? e.code : 0,
      message: typeof e.message === 'string' ? e.message : shown(env.error),
    };
  }
  if (env.jsonrpc !== '2.0' || !('result' in env)) {
    throw new InvalidResponseError(`${method} at ${url} answered without a JSON-RPC 2.0 result: ${snippet(body)}`);
  }
  if (env.id !== reply.id) {
    throw new InvalidResponseError(`${method} at ${url} answered with id ${shown(env.id)}, expected ${reply.id}`);
  }
  return { ok: true, result: env.result };
}

/** A node's value for a message, bounded; a value nested too deeply to stringify is said so, not thrown. */
function shown(value: unknown): string {
  try {
    // undefined for undefined and functions, whatever its declared type says.
    const json = JSON.stringify(value) as string | undefined;
    return snippet(json ?? String(value));
  } catch {
    return '(a value nested too deeply to show)';
  }
}

/** gorilla/rpc's error for a method or service the node does not have (an older version, an API turned off). */
const METHOD_NOT_FOUND = /^rpc: can't find (method|service) /;

/** Whether a JSON-RPC error message says the node has no such method or service: a state of the node, not a failure. */
export function isMethodNotFound(message: string): boolean {
  return METHOD_NOT_FOUND.test(message);
}

/** The `result` of a JSON-RPC request; its error object is thrown as RpcError. */
export function rpcResult(reply: RpcReply): unknown {
  const outcome = decodeRpc(reply);
  if (!outcome.ok) throw new RpcError(outcome.code, outcome.message, reply.method);
  return outcome.result;
}

/** A response header's single value (the first when repeated). */
export function header(reply: { headers: RpcReply['headers'] }, name: string): string | undefined {
  const value = reply.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
