// Shapes of AvalancheGo's JSON values that several sources' schemas share, and
// how a schema's refusal is said in an error. Go's json.Uint32/Uint64 are
// decimal strings on the wire; the node's own decoder also takes numbers.
import { z } from 'zod';
import type { HttpReply } from '../rpc/client.js';
import { uint64Schema } from '../util/uint64.js';

/** A json.Uint64 (or Uint32) as its number: over 2^64-1 (or not finite) is refused, not served as +Inf. */
export const uint = uint64Schema;

/** The first zod issue as `path: message`, for an InvalidResponseError. */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'result'}: ${issue.message}` : 'result: not what was expected';
}

/**
 * The node's answer on a chain's API while that chain bootstraps: AvalancheGo's api/server rejectMiddleware
 * writes `http.Error(w, "API call rejected because chain is not done bootstrapping", 503)`. A state of the
 * node (the health source shows it bootstrapping), not a fault. A 503 without that text (a proxy's) stays a failure.
 */
export function chainNotBootstrapped(reply: Pick<HttpReply, 'status' | 'body'>): boolean {
  return reply.status === 503 && reply.body.includes('chain is not done bootstrapping');
}
