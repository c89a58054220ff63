// What a web config asks of every request before it reaches an endpoint: the
// rate limit, the extra response headers, and basic authentication.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import bcrypt from 'bcryptjs';
import type { WebConfig } from './config.js';

/**
 * Compared against when the user is unknown, so that an unknown user costs the
 * same time as a wrong password (no user enumeration by timing). The hash of a
 * random password nobody knows, cost 10 like htpasswd's usual.
 */
const UNKNOWN_USER_HASH = '$2b$10$UQNxG8QbOtfmSyj7Oyl8xObAAwA4BUoUJg9VdhcFQYEiys1aedvX.';

/** bcrypt checks waiting their turn before new ones are refused with 429. */
export const MAX_PENDING_BCRYPT = 32;
/**
 * bcrypt checks one client address may have waiting. A flood of wrong
 * passwords from one address fills its own share, not the queue: other users
 * (whose password is not cached yet) keep getting in.
 */
export const MAX_PENDING_BCRYPT_PER_ADDRESS = 4;

interface Verified {
  hash: string;
  /** SHA-256 of the password bcrypt accepted for this hash. */
  digest: Buffer;
}

/** Parses `Authorization: Basic base64(user:password)`; undefined when absent or malformed. */
export function parseBasicAuth(header: string | undefined): { user: string; password: string } | undefined {
  if (!header) return undefined;
  const m = /^basic +([A-Za-z0-9+/=]+) *$/i.exec(header);
  if (!m) return undefined;
  const text = Buffer.from(m[1] ?? '', 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0) return undefined;
  return { user: text.slice(0, colon), password: text.slice(colon + 1) };
}

export class WebGuard {
  /** One verified password per user: a scrape with the right credentials costs a SHA-256, not a bcrypt. */
  private readonly verified = new Map<string, Verified>();
  /**
   * bcrypt runs one at a time (it is CPU work that polls share). Waiting checks
   * queue per client address and the addresses take turns (round robin), so a
   * flooding address delays another user by one check, not by its whole queue.
   */
  private readonly waiting = new Map<string, Array<() => void>>();
  private readonly pendingByAddress = new Map<string, number>();
  private running = false;
  private pending = 0;
  /** bcrypt comparisons run so far (the cache's effect, for tests and the curious). */
  bcryptRuns = 0;
  private tokens = 0;
  private refilledAt = 0;

  constructor(
    private config: WebConfig,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.resetBucket();
  }

  /** Takes a reloaded web config: verified passwords stay valid only while the user's hash is unchanged. */
  setConfig(config: WebConfig): void {
    this.config = config;
    for (const [user, v] of this.verified) if (config.users.get(user) !== v.hash) this.verified.delete(user);
    this.resetBucket();
  }

  private resetBucket(): void {
    this.tokens = this.config.rateLimit?.burst ?? 0;
    this.refilledAt = this.now();
  }

  /** Token bucket: `burst` requests at once, then one per `interval`. */
  private allow(): boolean {
    const limit = this.config.rateLimit;
    if (!limit) return true;
    const now = this.now();
    this.tokens = Math.min(limit.burst, this.tokens + (now - this.refilledAt) / limit.intervalMs);
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Whether user and password match, in constant time once verified; a bcrypt (queued behind the address's turn) otherwise. */
  async check(user: string, password: string, address = ''): Promise<boolean | 'busy'> {
    const hash = this.config.users.get(user);
    const digest = createHash('sha256').update(password, 'utf8').digest();
    const known = hash !== undefined ? this.verified.get(user) : undefined;
    if (known && known.hash === hash && timingSafeEqual(known.digest, digest)) return true;
    const mine = this.pendingByAddress.get(address) ?? 0;
    if (this.pending >= MAX_PENDING_BCRYPT || mine >= MAX_PENDING_BCRYPT_PER_ADDRESS) return 'busy';
    this.pending++;
    this.pendingByAddress.set(address, mine + 1);
    let ok: boolean;
    try {
      await this.turn(address);
      this.bcryptRuns++;
      ok = (await bcrypt.compare(password, hash ?? UNKNOWN_USER_HASH)) && hash !== undefined;
    } finally {
      this.pending--;
      const left = (this.pendingByAddress.get(address) ?? 1) - 1;
      if (left > 0) this.pendingByAddress.set(address, left);
      else this.pendingByAddress.delete(address);
      this.next();
    }
    // Cache only when the config still holds the same hash (a reload may have come meanwhile).
    if (ok && hash !== undefined && this.config.users.get(user) === hash) this.verified.set(user, { hash, digest });
    return ok;
  }

  /** Resolves when this address's turn to run bcrypt comes. */
  private turn(address: string): Promise<void> {
    return new Promise((resolve) => {
      const queue = this.waiting.get(address);
      if (queue) queue.push(resolve);
      else this.waiting.set(address, [resolve]);
      if (!this.running) this.next();
    });
  }

  /** Starts the next waiting check: the first address in line, which then goes to the back of the line. */
  private next(): void {
    const first = this.waiting.entries().next();
    if (first.done) {
      this.running = false;
      return;
    }
    const [address, queue] = first.value;
    const start = queue.shift();
    this.waiting.delete(address);
    if (queue.length > 0) this.waiting.set(address, queue);
    this.running = true;
    start?.();
  }

  /** Express-style middleware: answers 429 or 401 itself, or calls next(). `auth: false` skips the password (health endpoints). */
  readonly middleware = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void, auth = true): void => {
    const config = this.config;
    if (!this.allow()) {
      res.statusCode = 429;
      res.setHeader('Content-Type', 'text/plain; charset=utf-8');
      res.end('too many requests: the web config rate_limit allows fewer\n');
      return;
    }
    for (const [name, value] of Object.entries(config.headers)) res.setHeader(name, value);
    if (config.users.size === 0 || !auth) {
      next();
      return;
    }
    const credentials = parseBasicAuth(req.headers.authorization);
    if (!credentials) {
      unauthorized(res);
      return;
    }
    this.check(credentials.user, credentials.password, req.socket.remoteAddress ?? '').then(
      (ok) => {
        if (ok === 'busy') {
          res.statusCode = 429;
          res.setHeader('Retry-After', '1');
          res.setHeader('Content-Type', 'text/plain; charset=utf-8');
          res.end('too many password checks under way: retry in a second\n');
        } else if (ok) next();
        else unauthorized(res);
      },
      (err: unknown) => next(err),
    );
  };
}

function unauthorized(res: ServerResponse): void {
  res.statusCode = 401;
  res.setHeader('WWW-Authenticate', 'Basic');
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.end('unauthorized: this exporter asks for basic authentication (see its --web.config.file)\n');
}
