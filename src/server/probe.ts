// /probe: one node's series for a scrape (multi-target exporters' pattern), or a traced fresh
// poll of it for a person (?debug=true, as blackbox_exporter's). Answered here, in one place,
// with Node's own API: the scrape is the hot path of a fleet scraped node by node, so no
// framework runs on it, and every other /probe request (no or several targets, debug, other
// methods) gets the same handler instead of a second copy in the framework's routes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FleetReader } from '../scheduler/fleet.js';
import { CONTENT_TYPE } from '../metrics/scrape.js';
import { shorten } from '../util/text.js';
import type { AppOptions } from './options.js';
import { allows, notAllowedText, plain } from './respond.js';

/** Debug polls running at once in the process at most (past it: 429). */
export const MAX_DEBUG_POLLS = 4;
/** A target is polled for a debug probe at most once in this time (or its interval, if shorter); requests in between get the last trace. */
export const DEBUG_FLOOR_MS = 5_000;

/**
 * Debug probes without amplification: back-to-back `/probe?debug=true` made
 * 41,436 requests in 10 s to a node polled every 15 s. Now a target has one
 * debug poll at a time (others wait for it), at most one per DEBUG_FLOOR_MS
 * (the last trace in between), and the process at most MAX_DEBUG_POLLS.
 */
class DebugGate {
  private running = 0;
  private readonly traces = new Map<string, { atMs: number; done: boolean; text: Promise<string> }>();

  constructor(
    private readonly poll: (target: string) => ReturnType<FleetReader['debugPoll']>,
    private readonly intervalMs: (target: string) => number | undefined,
  ) {}

  /** The trace for `target` (fresh or recent), 'busy' past the global cap, undefined for an unknown target. */
  trace(target: string): Promise<{ text: string; ageMs: number }> | 'busy' | undefined {
    const now = performance.now();
    const last = this.traces.get(target);
    if (last && (!last.done || now - last.atMs < Math.min(DEBUG_FLOOR_MS, this.intervalMs(target) ?? DEBUG_FLOOR_MS))) {
      const ageMs = last.done ? now - last.atMs : 0;
      return last.text.then((text) => ({ text, ageMs }));
    }
    if (this.running >= MAX_DEBUG_POLLS) return 'busy';
    const steps = this.poll(target);
    if (!steps) return undefined;
    this.running++;
    const text = steps
      .then((list) => list.map((s) => `${s.atMs.toFixed(1).padStart(8)} ms  [${s.source}] ${s.text}`).join('\n'))
      .finally(() => {
        this.running--;
      });
    const entry = { atMs: now, done: false, text };
    this.traces.set(target, entry);
    // A failed debug poll is not kept as the last trace; a finished one is, until the floor passes.
    text.then(
      () => {
        entry.atMs = performance.now();
        entry.done = true;
      },
      () => {
        if (this.traces.get(target) === entry) this.traces.delete(target);
      },
    );
    return text.then((t) => ({ text: t, ageMs: 0 }));
  }
}

/** The path of a request (what precedes `?`), and its query. */
function splitUrl(url: string): { path: string; query: string } {
  const q = url.indexOf('?');
  return q < 0 ? { path: url, query: '' } : { path: url.slice(0, q), query: url.slice(q + 1) };
}

/** Whether a request is for /probe: matched as the other routes are (any case, one trailing slash allowed). */
export function isProbe(url: string): boolean {
  const path = splitUrl(url).path.toLowerCase();
  return path === '/probe' || path === '/probe/';
}

const ALLOWED = ['GET'];

/** The handler of every /probe request (after the web config's guard). */
export function probeHandler(options: AppOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { fleet } = options;
  const debug = new DebugGate(
    (target) => fleet.debugPoll(target),
    (target) => options.config().targets.find((t) => t.name === target)?.intervalMs,
  );

  /**
   * The node's series as its last polls left them, a 421 that names the owning shard, or a 404 for a name
   * that is not configured. It renders one node's ready-made lines, so it writes them as they are.
   */
  const scrape = (req: IncomingMessage, res: ServerResponse, target: string): void => {
    const body = fleet.renderNode(target);
    const owner = body === undefined ? options.ownerOf?.(target) : undefined;
    if (owner !== undefined && options.shard && owner !== options.shard.index) {
      // A misrouted scrape: the target is configured, and another replica polls it. 421
      // (Misdirected Request) makes the scrape fail visibly instead of an empty 200.
      plain(
        res,
        421,
        `target ${JSON.stringify(target)} is polled by shard ${owner} of ${options.shard.count}, not by this replica (shard ${options.shard.index}): scrape /probe on shard ${owner}\n`,
        { 'X-Shard-Owner': String(owner) },
      );
      return;
    }
    if (body === undefined) {
      // Only configured names: /probe never fetches an arbitrary URL.
      const shown = shorten(target, 128);
      plain(
        res,
        404,
        `no configured target named ${JSON.stringify(shown)}: /probe takes the name of a target from the config file (see / for the list), not a URL\n`,
      );
      return;
    }
    res.writeHead(200, { 'Content-Type': CONTENT_TYPE, 'Content-Length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  };

  /** A traced fresh poll, for people: bounded by DebugGate. */
  const traced = (res: ServerResponse, target: string, trace: Promise<{ text: string; ageMs: number }>): void => {
    trace.then(
      ({ text, ageMs }) => {
        const reused =
          ageMs > 0
            ? ` (the trace of ${(ageMs / 1000).toFixed(1)} s ago: a target is polled for debugging at most once per ${DEBUG_FLOOR_MS / 1000} s or interval)`
            : '';
        plain(
          res,
          200,
          `Debug poll of ${target} (a fresh poll of every enabled source; it changes nothing the exporter serves)${reused}\n\n${text}\n\nSeries served now (from the scheduled polls):\n\n${fleet.renderNode(target)?.toString() ?? ''}`,
        );
      },
      (err: unknown) => plain(res, 500, `debug poll failed: ${(err as Error).message}\n`),
    );
  };

  return (req, res) => {
    const { path, query } = splitUrl(req.url ?? '');
    if (!allows(ALLOWED, req.method)) {
      plain(res, 405, notAllowedText(req.method, path, ALLOWED), { Allow: ALLOWED.join(', ') });
      return;
    }
    const params = new URLSearchParams(query);
    const targets = params.getAll('target');
    const target = targets[0];
    if (target === undefined || (targets.length === 1 && target === '')) {
      plain(res, 400, 'missing parameter "target": use /probe?target=<name> with the name of a configured target (see /)\n');
      return;
    }
    if (targets.length > 1) {
      plain(res, 400, 'give exactly one "target" parameter: /probe?target=<name>\n');
      return;
    }
    const debugValues = params.getAll('debug');
    if (debugValues.length > 1 || (debugValues.length === 1 && debugValues[0] !== 'false')) {
      // A traced fresh poll, as blackbox_exporter's debug=true: for people, not for Prometheus. Bounded (DebugGate):
      // one at a time a target, at most once per DEBUG_FLOOR_MS (the last trace in between), MAX_DEBUG_POLLS at once.
      const trace = debug.trace(target);
      if (trace === 'busy') {
        options.onDebugProbeRefused?.();
        plain(res, 429, `too many debug probes at once (${MAX_DEBUG_POLLS} are running): retry in a second\n`, { 'Retry-After': '1' });
        return;
      }
      if (trace) {
        traced(res, target, trace);
        return;
      }
    }
    scrape(req, res, target);
  };
}
