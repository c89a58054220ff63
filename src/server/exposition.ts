// Sends an exposition body in chunks: the event loop runs between chunks (polls
// keep their schedule while a large fleet is scraped), a slow client is waited
// for instead of buffered for, scrapes at the same time share one render
// (single flight) and are capped (503 past --web.max-requests), and the body is
// gzipped when the scraper accepts it.
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

/**
 * One render shared by the scrapes that come while it runs (single flight):
 * 20 or 200 scrapers at once cost one render, not one each. The render runs at
 * its own pace, yielding to polls between chunks; each scrape reads the chunks
 * made so far and waits for the next. The chunks are new buffers (render.ts),
 * kept until the render is done and its last reader has them, then let go: a
 * finished render is never joined (ScrapeGate starts a new one), so nothing
 * holds the last exposition between scrapes (at 10,000 nodes, 80 MiB that the
 * process would otherwise keep resident from one scrape to the next).
 */
export class SharedRender {
  private chunks: Buffer[] = [];
  private readers = 0;
  private done = false;
  private failure: Error | undefined = undefined;
  private wake: (() => void) | undefined = undefined;
  private more: Promise<void> | undefined = undefined;

  constructor(head: Promise<Buffer>, body: () => Iterable<Buffer>) {
    void this.run(head, body);
  }

  get finished(): boolean {
    return this.done;
  }

  /** Bytes of chunks held for readers (0 once the render is done and no scrape reads it). */
  get heldBytes(): number {
    let bytes = 0;
    for (const c of this.chunks) bytes += c.length;
    return bytes;
  }

  /** Done and read by nobody: the chunks go (new readers never come to a finished render). */
  private letGoIfIdle(): void {
    if (this.done && this.readers === 0) this.chunks = [];
  }

  private async run(head: Promise<Buffer>, body: () => Iterable<Buffer>): Promise<void> {
    try {
      this.push(await head);
      for (const chunk of body()) {
        this.push(chunk);
        await nextTurn();
      }
    } catch (err) {
      this.failure = err instanceof Error ? err : new Error('the render failed', { cause: err });
    }
    this.done = true;
    this.signal();
    this.letGoIfIdle();
  }

  private push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.signal();
  }

  private signal(): void {
    const wake = this.wake;
    this.wake = undefined;
    this.more = undefined;
    wake?.();
  }

  /** The render's chunks as they come. */
  async *read(): AsyncGenerator<Buffer> {
    this.readers++;
    try {
      let i = 0;
      for (;;) {
        if (i < this.chunks.length) {
          yield this.chunks[i++] as Buffer;
          continue;
        }
        if (this.done) {
          if (this.failure) throw this.failure;
          return;
        }
        await (this.more ??= new Promise<void>((resolve) => (this.wake = resolve)));
      }
    } finally {
      // Also when the scraper goes away mid-answer (the stream returns the generator).
      this.readers--;
      this.letGoIfIdle();
    }
  }
}

/**
 * /metrics: at most `maxScrapes` served at once (503 past it, as node_exporter's
 * --web.max-requests), and the scrapes in flight share one render.
 */
export class ScrapeGate {
  private serving = 0;
  private current: SharedRender | undefined = undefined;

  constructor(
    readonly maxScrapes: number,
    private readonly render: () => SharedRender,
  ) {}

  /** The render to send, or undefined when `maxScrapes` scrapes are being served (answer 503). */
  enter(): SharedRender | undefined {
    if (this.maxScrapes > 0 && this.serving >= this.maxScrapes) return undefined;
    this.serving++;
    if (!this.current || this.current.finished) this.current = this.render();
    return this.current;
  }

  leave(): void {
    this.serving--;
  }
}

/** Sends a shared render's chunks as a 200 (gzipped when accepted): sendChunked's answer, from a SharedRender. */
export async function sendShared(req: IncomingMessage, res: ServerResponse, contentType: string, render: SharedRender): Promise<void> {
  const gzip = acceptsGzip(req.headers['accept-encoding']);
  res.statusCode = 200;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Vary', 'Accept-Encoding');
  if (gzip) res.setHeader('Content-Encoding', 'gzip');
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const source = Readable.from(render.read(), { objectMode: false });
  try {
    if (gzip) await pipeline(source, createGzip({ level: constants.Z_BEST_SPEED }), res);
    else await pipeline(source, res);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE' || res.destroyed) return;
    throw err;
  }
}
