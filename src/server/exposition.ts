// Sends an exposition body in chunks: the event loop runs between chunks (polls
// keep their schedule while a large fleet is scraped), a slow client is waited
// for instead of buffered for, a client that goes away stops the rendering,
// and the body is gzipped when the scraper accepts it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { constants, createGzip } from 'node:zlib';

/** Whether an Accept-Encoding header accepts gzip (`gzip` or `*` with a non-zero q). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  let star = false;
  for (const part of header.split(',')) {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const accepted = q === undefined || Number(q.slice(2)) > 0;
    if (coding === 'gzip' || coding === 'x-gzip') return accepted;
    if (coding === '*') star = accepted;
  }
  return star;
}

async function* yielding(first: Buffer, rest: Iterable<Buffer>): AsyncGenerator<Buffer> {
  yield first;
  for (const chunk of rest) {
    yield chunk;
    await nextTurn();
  }
}

/**
 * Streams `head` then every chunk of `body` (rendered lazily, one chunk at a
 * time) as a 200 with `contentType`. gzip at the fastest level: the text is
 * repetitive enough that it compresses about tenfold at little CPU, off the
 * event loop (zlib runs on the thread pool).
 */
export async function sendChunked(
  req: IncomingMessage,
  res: ServerResponse,
  contentType: string,
  head: Buffer,
  body: Iterable<Buffer>,
): Promise<void> {
  const gzip = acceptsGzip(req.headers['accept-encoding']);
  res.statusCode = 200;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Vary', 'Accept-Encoding');
  if (gzip) res.setHeader('Content-Encoding', 'gzip');
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const source = Readable.from(yielding(head, body), { objectMode: false });
  try {
    if (gzip) await pipeline(source, createGzip({ level: constants.Z_BEST_SPEED }), res);
    else await pipeline(source, res);
  } catch (err) {
    // The scraper went away (timeout, cancelled scrape): nothing to answer.
    if ((err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE' || res.destroyed) return;
    throw err;
  }
}
