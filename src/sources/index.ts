// The index source: index.getLastAccepted on {url}/ext/index/<endpoint> for
// each configured endpoint. HTTP 404 means the node runs with indexing off
// (reported, not a failure); "no containers have been accepted" is an empty
// index (reported, not a failure).
import { z } from 'zod';
import type { IndexEndpoint, TargetConfig } from '../config/schema.js';
import { HttpStatusError, InvalidResponseError, PollError, RpcError } from '../rpc/errors.js';
import type { NodeClient } from '../rpc/client.js';
import { parseRfc3339 } from '../util/gotime.js';

export const INDEX_METHOD = 'index.getLastAccepted';
export const EMPTY_INDEX_MESSAGE = 'no containers have been accepted';

export type EndpointSnapshot =
  | { endpoint: IndexEndpoint; state: 'disabled' }
  | { endpoint: IndexEndpoint; state: 'empty' }
  | { endpoint: IndexEndpoint; state: 'ok'; lastIndex: number; timestampSeconds: number }
  | { endpoint: IndexEndpoint; state: 'failed'; error: PollError };

export interface IndexSnapshot {
  endpoints: EndpointSnapshot[];
}

const containerSchema = z.object({
  id: z.string(),
  timestamp: z.string(),
  // json.Uint64: a decimal string on the wire; accept a number as the node's decoder does.
  index: z.union([z.string().regex(/^\d+$/, 'expected a decimal string'), z.number().int().nonnegative()]),
});

/** Pure: the `result` of index.getLastAccepted → last index and accept time. */
export function parseLastAccepted(endpoint: IndexEndpoint, result: unknown): EndpointSnapshot {
  const parsed = containerSchema.safeParse(result);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InvalidResponseError(
      `${INDEX_METHOD} on ${endpoint} returned no container: ${issue.path.join('.') || 'result'}: ${issue.message}`,
    );
  }
  const time = parseRfc3339(parsed.data.timestamp);
  if (!time) {
    throw new InvalidResponseError(`${INDEX_METHOD} on ${endpoint} returned a timestamp that is not RFC 3339: ${JSON.stringify(parsed.data.timestamp)}`);
  }
  return { endpoint, state: 'ok', lastIndex: Number(parsed.data.index), timestampSeconds: time.seconds };
}

async function pollEndpoint(client: NodeClient, endpoint: IndexEndpoint): Promise<EndpointSnapshot> {
  try {
    const { result } = await client.call(`/ext/index/${endpoint}`, INDEX_METHOD, { encoding: 'hex' });
    return parseLastAccepted(endpoint, result);
  } catch (err) {
    if (err instanceof HttpStatusError && err.status === 404) return { endpoint, state: 'disabled' };
    if (err instanceof RpcError && err.rpcMessage === EMPTY_INDEX_MESSAGE) return { endpoint, state: 'empty' };
    throw err;
  }
}

/**
 * Polls every endpoint in parallel. Never rejects: a failed endpoint is in the
 * snapshot with its error, so the others' values are still served.
 */
export async function pollIndex(client: NodeClient, target: TargetConfig): Promise<IndexSnapshot> {
  const endpoints = await Promise.all(
    target.index.endpoints.map((endpoint) =>
      pollEndpoint(client, endpoint).catch(
        (err: unknown): EndpointSnapshot => ({
          endpoint,
          state: 'failed',
          error: err instanceof PollError ? err : new PollError('internal', `unexpected error polling ${endpoint}: ${String(err)}`, { cause: err }),
        }),
      ),
    ),
  );
  return { endpoints };
}
