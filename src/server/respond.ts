// Small answers every route group gives the same way: 405 with the Allow header, and plain text.
import type { ServerResponse } from 'node:http';
import type { Request, Response } from 'express';

/** The methods a path takes (HEAD with GET), and the 405 answer to any other, with the Allow header. */
export function allows(allowed: readonly string[], method: string | undefined): boolean {
  return method !== undefined && (allowed.includes(method) || (method === 'HEAD' && allowed.includes('GET')));
}

/** The text of a 405 answer. */
export function notAllowedText(method: string | undefined, path: string, allowed: readonly string[]): string {
  return `method ${method ?? ''} not allowed on ${path}; use ${allowed.join(' or ')}\n`;
}

/** Express middleware: other methods on a known path get 405 and the Allow header. */
export function only(allowed: readonly string[]) {
  return (req: Request, res: Response, next: () => void) => {
    if (allows(allowed, req.method)) {
      next();
      return;
    }
    res
      .set('Allow', allowed.join(', '))
      .status(405)
      .type('text/plain')
      .send(notAllowedText(req.method, req.path, allowed));
  };
}

/** A plain-text answer written with Node's own API (no framework on the /probe path). */
export function plain(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...headers, 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}
