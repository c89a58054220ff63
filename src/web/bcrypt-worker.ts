// bcrypt comparisons on a worker thread. bcryptjs is plain JavaScript: a
// compare at cost 10 is about 75 ms of CPU, and its "async" compare runs its
// rounds on the calling thread in slices of up to 100 ms (one slice at usual
// costs, started synchronously by the call). On the main thread a flood of
// wrong passwords therefore held the event loop for one compare after
// another: polls, scrapes and every other request waited behind it, and
// checks never even queued beside each other (each ran to its end before the
// next request was read), so no share or cap could act. On one worker thread
// the main thread only hands over the password and reads the answer.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** The worker: compareSync for each message, in order. CommonJS (an eval'd worker), loading bcryptjs from the path given. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const bcrypt = require(workerData.bcryptjs);
parentPort.on('message', (m) => {
  let ok = false;
  let error;
  try {
    ok = bcrypt.compareSync(m.password, m.hash);
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  }
  parentPort.postMessage({ id: m.id, ok, error });
});
`;

interface Answer {
  id: number;
  ok: boolean;
  error?: string;
}

interface Waiting {
  resolve(ok: boolean): void;
  reject(err: Error): void;
  timer?: NodeJS.Timeout;
}

/** A compare that did not end within its limit: the worker was stopped (and is started again at the next compare). */
export class BcryptTimeoutError extends Error {
  constructor(readonly limitMs: number) {
    super(`the bcrypt compare did not end within ${limitMs} ms`);
    this.name = 'BcryptTimeoutError';
  }
}

/** A compare cut by its caller (the hash it checks is no longer configured). */
export class BcryptCutError extends Error {
  constructor() {
    super('the bcrypt compare was cut: its hash is no longer configured');
    this.name = 'BcryptCutError';
  }
}

/**
 * One worker thread that compares passwords with bcrypt hashes, started at the
 * first compare (no thread without basic auth) and again after it dies.
 * Compares run one after another in the worker: a password flood takes at
 * most one core, the other stays with polls and scrapes.
 */
export class BcryptWorker {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;
  private closed = false;

  /**
   * Whether `password` matches the bcrypt `hash`; rejects when the worker fails or is closed, and with
   * BcryptTimeoutError when the compare has not ended within `limitMs`: the thread is then stopped (a compare cannot
   * be interrupted otherwise) and the next compare starts a new one.
   */
  compare(password: string, hash: string, limitMs = Infinity): Promise<boolean> {
    if (this.closed) return Promise.reject(new Error('password checks stopped: the exporter is shutting down'));
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise<boolean>((resolve, reject) => {
      const waiting: Waiting = { resolve, reject };
      if (Number.isFinite(limitMs)) waiting.timer = setTimeout(() => this.stop(new BcryptTimeoutError(limitMs)), limitMs);
      this.waiting.set(id, waiting);
      worker.postMessage({ id, password, hash });
    });
  }

  /** Stops the compares under way (BcryptCutError); the next compare starts a new thread. */
  cut(): void {
    this.stop(new BcryptCutError());
  }

  /** Terminates the thread, failing its compares with `err`. */
  private stop(err: Error): void {
    const worker = this.worker;
    this.worker = undefined;
    this.failAll(err);
    void worker?.terminate();
  }

  /** Compares sent and not yet answered. */
  get inFlight(): number {
    return this.waiting.size;
  }

  /** Stops the thread; compares under way reject. */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    this.failAll(new Error('password checks stopped: the exporter is shutting down'));
    if (worker) await worker.terminate();
  }

  private start(): Worker {
    const bcryptjs = createRequire(import.meta.url).resolve('bcryptjs');
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { bcryptjs } });
    // Never what keeps the process alive: the server's sockets do that while checks are under way.
    worker.unref();
    worker.on('message', (answer: Answer) => {
      const w = this.waiting.get(answer.id);
      if (!w) return;
      this.waiting.delete(answer.id);
      clearTimeout(w.timer);
      if (answer.error !== undefined) w.reject(new Error(`bcrypt compare failed: ${answer.error}`));
      else w.resolve(answer.ok);
    });
    const died = (err: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.failAll(err);
    };
    worker.on('error', (err) => died(err));
    worker.on('exit', (code) => died(new Error(`the bcrypt worker thread exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private failAll(err: Error): void {
    const all = [...this.waiting.values()];
    this.waiting.clear();
    for (const w of all) {
      clearTimeout(w.timer);
      w.reject(err);
    }
  }
}
