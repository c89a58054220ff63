// Small typed reads of the node used by the assertions.
import { httpRequest, rpcCall } from './http.js';

interface HealthReply {
  checks: Record<string, { message?: unknown; error?: string }>;
  healthy: boolean;
}

export function healthReport(url: string): Promise<HealthReply> {
  return rpcCall<HealthReply>(url, '/ext/health', 'health.health');
}

/** `checks.<chain>.message.engine.consensus.lastAcceptedHeight`, or undefined while absent. */
export async function chainHeight(url: string, chain: 'C' | 'P' | 'X'): Promise<number | undefined> {
  const report = await healthReport(url);
  const message = report.checks[chain]?.message as { engine?: { consensus?: { lastAcceptedHeight?: number } } | null } | undefined;
  return message?.engine?.consensus?.lastAcceptedHeight;
}

/** The index of the last accepted container, or -1 when the index is empty. */
export async function lastAcceptedIndex(url: string, endpoint: string): Promise<number> {
  const res = await httpRequest(url, {
    method: 'POST',
    path: `/ext/index/${endpoint}`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'index.getLastAccepted', params: { encoding: 'hex' } }),
  });
  const parsed = JSON.parse(res.body) as { result?: { index: string }; error?: { message: string } };
  if (parsed.result) return Number(parsed.result.index);
  if (parsed.error?.message === 'no containers have been accepted') return -1;
  throw new Error(`index.getLastAccepted on ${endpoint}: ${res.body}`);
}
