// Raw HTTP for recording and comparing node answers byte for byte. node:http rather than
// fetch: fetch forbids setting the Host header, which the 403 case needs.
import { request } from 'node:http';

export interface RawRequest {
  method: string;
  /** Path and query, e.g. `/ext/health?tag=X`. */
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface RawResponse {
  status: number;
  /** Lower-case header names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** The body exactly as received, decoded as UTF-8. */
  body: string;
}

export function httpRequest(baseUrl: string, req: RawRequest, timeoutMs = 10_000): Promise<RawResponse> {
  const url = new URL(req.path, baseUrl);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...req.headers };
    if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
    const r = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: req.method,
        headers,
        // A fresh connection per request: no keep-alive state between recorded cases.
        agent: false,
        signal: AbortSignal.timeout(timeoutMs),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const out: Record<string, string> = {};
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
          }
          resolve({ status: res.statusCode ?? 0, headers: out, body: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    r.on('error', reject);
    if (req.body !== undefined) r.write(req.body);
    r.end();
  });
}

let nextId = 1;

/** A JSON-RPC 2.0 POST request as the exporter sends it. */
export function rpcRequest(path: string, method: string, params?: unknown, id: number = nextId++): RawRequest {
  const envelope: Record<string, unknown> = { jsonrpc: '2.0', id, method };
  if (params !== undefined) envelope.params = params;
  return {
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(envelope),
  };
}

/** POSTs a JSON-RPC call and returns `result`, throwing on an `error` member. */
export async function rpcCall<T>(baseUrl: string, path: string, method: string, params?: unknown): Promise<T> {
  const res = await httpRequest(baseUrl, rpcRequest(path, method, params));
  if (res.status !== 200) throw new Error(`${method} on ${path}: HTTP ${res.status}: ${res.body}`);
  const parsed = JSON.parse(res.body) as { result?: T; error?: { code: number; message: string } };
  if (parsed.error) throw new Error(`${method} on ${path}: ${parsed.error.code} ${parsed.error.message}`);
  return parsed.result as T;
}
