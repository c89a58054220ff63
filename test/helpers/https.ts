// One request to the exporter over HTTP or HTTPS with node:https, so a test can
// give a CA, a client certificate and basic auth, and read status and headers.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface RequestOptions {
  method?: string;
  ca?: string;
  cert?: string;
  key?: string;
  auth?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** The client's own address (another loopback address, 127.0.0.2, is another client). */
  localAddress?: string;
}

export function get(url: string, options: RequestOptions = {}): Promise<Answer> {
  const u = new URL(url);
  const request = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      u,
      {
        method: options.method ?? 'GET',
        agent: false,
        ...(options.ca ? { ca: options.ca } : {}),
        ...(options.cert ? { cert: options.cert, key: options.key } : {}),
        ...(options.auth ? { auth: options.auth } : {}),
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
        headers: options.headers ?? {},
        timeout: options.timeoutMs ?? 10_000,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} within ${options.timeoutMs ?? 10_000} ms`)));
    req.on('error', reject);
    req.end();
  });
}
