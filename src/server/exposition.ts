// Sends an exposition body in chunks: the event loop runs between chunks (polls
// keep their schedule while a large fleet is scraped), a slow client is waited
// for instead of buffered for, scrapes at the same time share one render
// (single flight) made as they send it, and are capped (503 past
// --web.max-requests), and the body is gzipped when the scraper accepts it.
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

/** Where one scrape is in a render: the number of the next chunk it sends. */
interface Cursor {
  at: number;
}

/**
 * One render shared by the scrapes that come while it starts (single flight):
 * 20 or 200 scrapers at once cost one render, not one each. The render is made
 * as its readers ask for it (the fastest reader pulls the next chunk, then
 * lets the event loop run before the next, so polls keep their schedule), and
 * a chunk is let go once every reader has sent it. A scrape that keeps pace
 * holds a chunk or two, not the whole exposition: holding it whole (80 MiB at
 * 10,000 nodes) left the process's allocator about 100 MiB larger for good
 * (the A/B at 10,000 nodes: 387 → 479 MiB resident between scrapes).
 *
 * A scrape joins a render until the render has let its first chunk go; one
 * that comes later joins the next render, which starts when this one has made
 * its last chunk (ScrapeGate). So one render runs at a time, however many
 * scrapes come, and a render that every reader left ends at once.
 */
export class SharedRender {
  /** chunks[i] is chunk number base + i; the head (the exporter's own series) is chunk 0. */
  private chunks: Buffer[] = [];
  private base = 0;
  private readonly cursors = new Set<Cursor>();
  private body: Iterator<Buffer> | undefined = undefined;
  private started = false;
  private ready = false;
  private done = false;
  private failure: Error | undefined = undefined;
  private wake: (() => void) | undefined = undefined;
  private more: Promise<void> | undefined = undefined;
  private endedResolve!: () => void;
  /** Resolves once the render has made its last chunk (or failed, or every reader left it). */
  readonly ended: Promise<void> = new Promise<void>((resolve) => (this.endedResolve = resolve));

  /**
   * @param head the exporter's own series, asked for when the render starts
   * @param body the fleet's chunks, asked for once the head is there (the fleet's lines as they are then)
   */
  constructor(
    private readonly head: () => Promise<Buffer>,
    private readonly makeBody: () => Iterable<Buffer>,
  ) {}

  /** Starts the render (once): its readers get the head, then the body as they ask for it. */
  start(): void {
    if (this.started) return;
    this.started = true;
    if (this.done) return;
    this.head().then(
      (head) => {
        if (this.done) return;
        try {
          this.body = this.makeBody()[Symbol.iterator]();
        } catch (err) {
          this.fail(err);
          return;
        }
        this.chunks.push(head);
        this.ready = true;
        this.signal();
      },
      (err: unknown) => this.fail(err),
    );
  }

  get finished(): boolean {
    return this.done;
  }

  /** A new scrape may join: the render has not ended and still holds its first chunk. */
  get joinable(): boolean {
    return !this.done && this.base === 0;
  }

  /** Bytes of chunks held for readers. */
  get heldBytes(): number {
    let bytes = 0;
    for (const c of this.chunks) bytes += c.length;
    return bytes;
  }

  private fail(err: unknown): void {
    this.failure = err instanceof Error ? err : new Error('the render failed', { cause: err });
    this.end();
  }

  private end(): void {
    if (this.done) return;
    this.done = true;
    this.endedResolve();
    this.signal();
  }

  private signal(): void {
    const wake = this.wake;
    this.wake = undefined;
    this.more = undefined;
    wake?.();
  }

  /** Lets go the chunks every reader has sent (all of them once nobody reads). */
  private trim(): void {
    let least = Infinity;
    for (const c of this.cursors) if (c.at < least) least = c.at;
    const drop = least === Infinity ? this.chunks.length : Math.min(this.chunks.length, least - this.base);
    if (drop <= 0) return;
    this.chunks.splice(0, drop);
    this.base += drop;
  }

  /** The next chunk of the body into `chunks`, or the render's end. */
  private produce(): void {
    try {
      const next = (this.body as Iterator<Buffer>).next();
      if (next.done) this.end();
      else this.chunks.push(next.value);
    } catch (err) {
      this.fail(err);
    }
  }

  /**
   * A reader of the render: its chunks, from the first, as it sends them, and
   * close() for when it is done or goes away (idempotent; also before its
   * stream asked for a chunk, when the generator's own cleanup never runs).
   * The reader is counted from this call, so the chunks are kept for it while
   * its stream gets going.
   */
  reader(): { chunks: AsyncGenerator<Buffer>; close: () => void } {
    const cursor: Cursor = { at: this.base };
    this.cursors.add(cursor);
    const close = (): void => {
      if (!this.cursors.delete(cursor)) return;
      this.trim();
      if (this.cursors.size === 0 && !this.done) {
        // Nobody reads it any more: it ends here, and the next render may start.
        this.body?.return?.();
        this.end();
      }
    };
    return { chunks: this.stream(cursor, close), close };
  }

  /** The render's chunks for one reader that reads them to the end (or returns the generator once started). */
  read(): AsyncGenerator<Buffer> {
    return this.reader().chunks;
  }

  private async *stream(cursor: Cursor, close: () => void): AsyncGenerator<Buffer> {
    try {
      for (;;) {
        const i = cursor.at - this.base;
        if (i < this.chunks.length) {
          const chunk = this.chunks[i] as Buffer;
          cursor.at++;
          this.trim();
          yield chunk;
          // The event loop runs between two chunks of a scrape: polls keep their schedule.
          await nextTurn();
          continue;
        }
        if (this.done) {
          if (this.failure) throw this.failure;
          return;
        }
        if (this.ready) {
          this.produce();
          continue;
        }
        await (this.more ??= new Promise<void>((resolve) => (this.wake = resolve)));
      }
    } finally {
      close();
    }
  }
}

/**
 * /metrics: at most `maxScrapes` served at once (503 past it, as node_exporter's
 * --web.max-requests); a scrape joins the render under way while it may
 * (SharedRender.joinable), else the next one, which starts when the one under
 * way has made its last chunk: one render at a time.
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
    const under = this.current;
    if (under?.joinable) return under;
    const next = this.render();
    this.current = next;
    if (under && !under.finished) void under.ended.then(() => next.start());
    else next.start();
    return next;
  }

  leave(): void {
    this.serving--;
  }

  /** Scrapes being served, and the bytes the current render holds for them (the debug state endpoint). */
  get held(): { serving: number; heldBytes: number } {
    return { serving: this.serving, heldBytes: this.current?.heldBytes ?? 0 };
  }
}

/** Sends a shared render's chunks as a 200 (gzipped when accepted): sendChunked's answer, from a SharedRender. */
export async function sendShared(req: IncomingMessage, res: ServerResponse, contentType: string, render: SharedRender): Promise<void> {
  const gzip = acceptsGzip(req.headers['accept-encoding']);
  res.statusCode = 200;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Vary', 'Accept-Encoding');
  if (gzip) res.setHeader('Content-Encoding', 'gzip');
  // Counted as a reader at once (in the tick the gate gave the render), so the render keeps its chunks for it.
  const reader = render.reader();
  if (req.method === 'HEAD') {
    reader.close();
    res.end();
    return;
  }
  const source = Readable.from(reader.chunks, { objectMode: false });
  try {
    if (gzip) await pipeline(source, createGzip({ level: constants.Z_BEST_SPEED }), res);
    else await pipeline(source, res);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE' || res.destroyed) return;
    throw err;
  } finally {
    // A scraper gone before its stream asked for a chunk: the generator's own cleanup never ran.
    reader.close();
  }
}
