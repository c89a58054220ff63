// Shapes of AvalancheGo's JSON values that several sources' schemas share, and
// how a schema's refusal is said in an error. Go's json.Uint32/Uint64 are
// decimal strings on the wire; the node's own decoder also takes numbers.
import { z } from 'zod';

/** A json.Uint64 (or Uint32): a decimal string, or a non-negative integer. */
export const uint = z.union([z.string().regex(/^\d+$/, 'expected a decimal string'), z.number().int().nonnegative()]);

/** The first zod issue as `path: message`, for an InvalidResponseError. */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'result'}: ${issue.message}` : 'result: not what was expected';
}
