// Loopback HTTP helpers for the simulator tests: exact bytes and headers
// (undici.request adds no Accept-Encoding), JSON-RPC calls, and polling with
// a deadline instead of fixed sleeps.

import { request } from 'undici';
import { afterEach, expect } from 'vitest';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../src/simulator/index.js';
import { jsonObject } from '../helpers/assert.js';
import type { ControlReplies, HealthReport, LegacyHealthReport, RpcEnvelope, RpcResults } from './results.js';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export async function http(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  const res = await request(url, {
    method: (init.method ?? 'GET') as 'GET',
    headers: init.headers,
    body: init.body,
  });
  return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
}

/** A POST; contentType null sends none. */
export function post(url: string, body: string, contentType: string | null = 'application/json'): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (contentType !== null) headers['content-type'] = contentType;
  return http(url, { method: 'POST', headers, body });
}

/** A JSON-RPC call; returns the raw reply (the tests compare exact bytes). */
export function rpc(url: string, method: string, params?: unknown, id: unknown = 1): Promise<Reply> {
  const envelope: Record<string, unknown> = { jsonrpc: '2.0', id, method };
  if (params !== undefined) envelope.params = params;
  return post(url, JSON.stringify(envelope));
}

/** The `result` of a successful call, or throws with the error. */
export async function result<M extends keyof RpcResults>(url: string, method: M, params?: unknown): Promise<RpcResults[M]>;
/** Any other method: the caller says what its result is. */
export async function result<T>(url: string, method: string, params?: unknown): Promise<T>;
export async function result(url: string, method: string, params?: unknown): Promise<unknown> {
  const r = await rpc(url, method, params);
  const parsed = JSON.parse(r.body) as { result?: unknown; error?: unknown };
  if (parsed.error !== undefined) throw new Error(`${method}: ${JSON.stringify(parsed.error)}`);
  return parsed.result;
}

/** A parsed JSON body, checked to be an object (its callers type it, the tests assert the rest). */
function objectBody(body: string, what: string): unknown {
  const parsed: unknown = JSON.parse(body);
  jsonObject(parsed, what);
  return parsed;
}

/** A JSON-RPC reply body: the `result` as `method` answers it, or the error. */
export function envelope<M extends keyof RpcResults>(body: string, _method: M): RpcEnvelope<RpcResults[M]> {
  return objectBody(body, 'a JSON-RPC reply') as RpcEnvelope<RpcResults[M]>;
}

/** A JSON body of the simulator's control API (/sim/…), as `kind` describes it. */
export function control<K extends keyof ControlReplies>(body: string, _kind: K): ControlReplies[K] {
  return objectBody(body, 'a control API reply') as ControlReplies[K];
}

/** The exact error envelope a node writes for a -32000 service error. */
export function serviceError(message: string, id = '1'): string {
  return `{"jsonrpc":"2.0","error":{"code":-32000,"message":${JSON.stringify(message).replace(/>/g, '\\u003e')},"data":null},"id":${id}}\n`;
}

/** Polls `probe` until `accept` holds, or fails after `timeoutMs` with the last value seen. */
export async function waitFor<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 5_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await probe();
    if (accept(last)) return last;
    if (Date.now() > deadline) {
      // JSON.stringify gives undefined for undefined (and functions).
      const seen = (JSON.stringify(last) as string | undefined)?.slice(0, 2000);
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${seen ?? 'undefined'}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

const running: RunningSimulator[] = [];

/** Starts a simulator that is closed after the current test. */
export async function simulator(opts: SimulatorOptions = {}): Promise<RunningSimulator> {
  const sim = await startSimulator(opts);
  running.push(sim);
  return sim;
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

/** Parses a health report (checks an object of results, healthy a boolean); the tests assert the rest. */
export function parseReport(json: string): HealthReport {
  return checkedReport(json) as HealthReport;
}

function checkedReport(json: string): unknown {
  const parsed: unknown = JSON.parse(json);
  const { checks, healthy } = jsonObject(parsed, 'a health report');
  jsonObject(checks, 'the checks of a health report');
  if (typeof healthy !== 'boolean') throw new Error(`healthy must be a boolean, got ${JSON.stringify(healthy)}`);
  return parsed;
}

/** Parses a GET health body after checking it ends with one newline. */
export function report(body: string): HealthReport {
  return parseReport(withNewline(body));
}

/** The same for a v1.7 node (go-sundheit results). */
export function legacyReport(body: string): LegacyHealthReport {
  return checkedReport(withNewline(body)) as LegacyHealthReport;
}

function withNewline(body: string): string {
  if (!body.endsWith('}\n')) throw new Error(`health body must end with a newline: ${JSON.stringify(body.slice(-20))}`);
  return body;
}

// vitest types its asymmetric matchers `any`; these are the same matchers typed `unknown`,
// for the expected objects of toEqual.

/** expect.stringMatching(pattern). */
export function matching(pattern: RegExp): unknown {
  return expect.stringMatching(pattern);
}

/** expect.any(Number). */
export function anyNumber(): unknown {
  return expect.any(Number);
}

export const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
