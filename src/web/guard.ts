// What a web config asks of every request before it reaches an endpoint: the
// rate limit, the extra response headers, and basic authentication.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BcryptCutError, BcryptTimeoutError, BcryptWorker } from './bcrypt-worker.js';
import type { WebConfig } from './config.js';

/**
 * Compared against when the user is unknown, so that an unknown user costs the
 * same time as a wrong password (no user enumeration by timing). The hash of a
 * random password nobody knows, cost 10 like htpasswd's usual.
 */
const UNKNOWN_USER_HASH = '$2b$10$UQNxG8QbOtfmSyj7Oyl8xObAAwA4BUoUJg9VdhcFQYEiys1aedvX.';

/** bcrypt checks waiting their turn (or running) before new ones are refused with 429. */
export const MAX_PENDING_BCRYPT = 32;
/**
 * bcrypt checks one client address may have waiting. A flood of wrong
 * passwords from one address fills its own share, not the queue: other users
 * (whose password is not cached yet) keep getting in.
 */
export const MAX_PENDING_BCRYPT_PER_ADDRESS = 4;
/**
 * Places of the queue kept for addresses that have passed a password check
 * before: a flood spread over many addresses fills the other places, and a
 * known client (a Prometheus server after its password changed) still gets one.
 */
export const KEPT_FOR_KNOWN_ADDRESSES = 8;
/**
 * A password check that has not ended in this time is stopped and answered 503. With costs of at most
 * MAX_BCRYPT_COST (web/config.ts) a check takes about 1.2 s of an idle current core; this leaves room for a core
 * eight times slower. Past it a check would hold every waiter behind it (one worker thread runs them in turn).
 */
export const BCRYPT_CHECK_LIMIT_MS = 10_000;
/** Addresses remembered as known (the most recent ones). */
const MAX_KNOWN_ADDRESSES = 1024;

/**
 * The client as the per-address share counts it: an IPv4 address (also when
 * mapped into IPv6), or the /64 prefix of an IPv6 address, since one host
 * usually holds a whole /64 and could otherwise take a new share per address.
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (!address.includes(':')) return address;
  const bare = address.replace(/%.*$/, '').toLowerCase();
  const [head = '', tail] = bare.split('::', 2);
  const groups = (part: string) => (part === '' ? [] : part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])));
  const first = groups(head);
  const last = tail === undefined ? [] : groups(tail);
  const all = [...first, ...Array.from({ length: Math.max(0, 8 - first.length - last.length) }, () => '0'), ...last];
  return `${all
    .slice(0, 4)
    .map((g) => (Number.parseInt(g, 16) || 0).toString(16))
    .join(':')}::/64`;
}

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
   * bcrypt runs one at a time, on a worker thread (it is CPU work: on the main
   * thread it would hold polls and scrapes). Waiting checks queue per client
   * address and the addresses take turns (round robin), so a flooding address
   * delays another user by one check, not by its whole queue.
   */
  private readonly bcrypt = new BcryptWorker();
  private readonly waiting = new Map<string, Array<() => void>>();
  /** Addresses (addressKey) that have passed a password check, oldest first. */
  private readonly knownAddresses = new Map<string, true>();
  private readonly pendingByAddress = new Map<string, number>();
  private running = false;
  /** The hash the check under way compares with (to cut it when a reload removes it). */
  private comparing: string | undefined = undefined;
  private pending = 0;
  /** bcrypt comparisons run so far (the cache's effect, for tests and the curious). */
  bcryptRuns = 0;
  private tokens = 0;
  private refilledAt = 0;

  constructor(
    private config: WebConfig,
    private readonly now: () => number = () => performance.now(),
    /** Called for each password check refused with 429 (avalanchego_exporter_password_checks_refused_total). */
    private readonly onCheckRefused: () => void = () => {},
    /** How long one password check may run (BCRYPT_CHECK_LIMIT_MS; tests shorten it). */
    private readonly checkLimitMs = BCRYPT_CHECK_LIMIT_MS,
  ) {
    this.resetBucket();
  }

  /**
   * Takes a reloaded web config: verified passwords stay valid only while the user's hash is unchanged, and a check
   * under way against a hash the config no longer holds is cut (answered 401), so the users behind it wait no longer.
   */
  setConfig(config: WebConfig): void {
    this.config = config;
    for (const [user, v] of this.verified) if (config.users.get(user) !== v.hash) this.verified.delete(user);
    const comparing = this.comparing;
    if (comparing !== undefined && comparing !== UNKNOWN_USER_HASH && ![...config.users.values()].includes(comparing)) this.bcrypt.cut();
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

  /** Stops the bcrypt worker thread (checks under way fail). */
  close(): Promise<void> {
    return this.bcrypt.close();
  }

  /** bcrypt checks queued or running now. */
  get pendingChecks(): number {
    return this.pending;
  }

  /**
   * Whether user and password match, in constant time once verified; a bcrypt otherwise, queued behind the
   * address's turn, or 'busy' (429) when the address has its share queued or the queue is full, or 'slow' (503)
   * when the bcrypt did not end within the check limit.
   */
  async check(user: string, password: string, address = ''): Promise<boolean | 'busy' | 'slow'> {
    const known = this.config.users.get(user);
    const digest = createHash('sha256').update(password, 'utf8').digest();
    const verified = known !== undefined ? this.verified.get(user) : undefined;
    if (verified && verified.hash === known && timingSafeEqual(verified.digest, digest)) return true;
    const key = addressKey(address);
    const mine = this.pendingByAddress.get(key) ?? 0;
    const room = this.knownAddresses.has(key) ? MAX_PENDING_BCRYPT : MAX_PENDING_BCRYPT - KEPT_FOR_KNOWN_ADDRESSES;
    if (this.pending >= room || mine >= MAX_PENDING_BCRYPT_PER_ADDRESS) return 'busy';
    this.pending++;
    this.pendingByAddress.set(key, mine + 1);
    let ok: boolean;
    // The hash as the config holds it when the check's turn comes: a reload while it waited may have removed the user.
    let hash: string | undefined;
    try {
      await this.turn(key);
      this.bcryptRuns++;
      hash = this.config.users.get(user);
      this.comparing = hash ?? UNKNOWN_USER_HASH;
      ok = (await this.bcrypt.compare(password, this.comparing, this.checkLimitMs)) && hash !== undefined;
    } catch (err) {
      if (err instanceof BcryptCutError) ok = false;
      else if (err instanceof BcryptTimeoutError) return 'slow';
      else throw err;
    } finally {
      this.comparing = undefined;
      this.pending--;
      const left = (this.pendingByAddress.get(key) ?? 1) - 1;
      if (left > 0) this.pendingByAddress.set(key, left);
      else this.pendingByAddress.delete(key);
      this.next();
    }
    if (ok) {
      this.knownAddresses.delete(key);
      this.knownAddresses.set(key, true);
      if (this.knownAddresses.size > MAX_KNOWN_ADDRESSES) this.knownAddresses.delete(this.knownAddresses.keys().next().value ?? key);
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
          this.onCheckRefused();
          res.statusCode = 429;
          res.setHeader('Retry-After', '1');
          res.setHeader('Content-Type', 'text/plain; charset=utf-8');
          res.end('too many password checks under way: retry in a second\n');
        } else if (ok === 'slow') {
          res.statusCode = 503;
          res.setHeader('Content-Type', 'text/plain; charset=utf-8');
          res.end(
            `the password check did not end within ${Math.round(this.checkLimitMs / 1000)} s and was stopped: lower the bcrypt cost of the user's hash in the web config (htpasswd -nBC 10)\n`,
          );
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
