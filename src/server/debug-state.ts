// GET /-/debug/state (--web.enable-debug-state; off by default): a full garbage
// collection, then what the process holds after it and what the exporter keeps
// by kind, as JSON. It is what a soak samples (bench/soak.mjs): the heap after a
// collection is the live heap, without the garbage V8 has not collected yet, and
// every keyed table or queue the exporter fills is a count that must come back
// when the config and the nodes do.
//
// The collection is V8's `gc()`, which Node.js exposes only under --expose-gc.
// The exporter is not started with it (a start flag would change every install's
// command line): the flag is set at run time, once, when this endpoint is
// enabled, and `gc` is taken from a new V8 context, which gets it as a global.
// A full collection stops the process for as long as it runs (about 100 ms at
// 1,000 nodes): one runs at a time, and the endpoint stays off by default.
import { getHeapCodeStatistics, getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Request, Response } from 'express';
import type { FleetReader, StateSizes } from '../scheduler/fleet.js';

/** V8's full collection (global.gc under --expose-gc, else from a new context once the flag is set). */
export function fullCollection(): () => void {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return exposed as () => void;
  setFlagsFromString('--expose-gc');
  const gc: unknown = runInNewContext('gc');
  if (typeof gc !== 'function') throw new Error('V8 did not expose gc() after --expose-gc was set');
  return gc as () => void;
}

/** What the server keeps itself: the debug traces and the scrapes being served. */
export interface ServerSizes {
  debugTraces: { entries: number; bytes: number };
  scrapes: { serving: number; heldBytes: number };
}

export interface DebugState {
  /** V8's used heap after the full collection (bytes). */
  heapUsedAfterGcBytes: number;
  /**
   * Of it, the JIT's compiled code (V8's code spaces, bytes): it grows while functions first run often enough to be
   * compiled again, optimized, which a rarely taken path (a reload, a return of a node) reaches late; bounded by the
   * program, not by what the exporter keeps.
   */
  codeAfterGcBytes: number;
  /**
   * V8's bytecode arrays with their constant pools and position tables (bytes; in the old space, so in the heap
   * above, not in the code spaces): the interpreter's form of each function that has run, made the first time it
   * runs and dropped again when it has not run for a while. Like the compiled code, bounded by the program.
   */
  bytecodeAfterGcBytes: number;
  /** The used heap after the collection by V8 space (`old_space`, `large_object_space`, `code_space`, …; bytes). */
  spacesAfterGcBytes: Record<string, number>;
  gcMs: number;
  memory: NodeJS.MemoryUsage;
  /** Active libuv handles and requests by type (process.getActiveResourcesInfo), and timers (`Timeout`) among them. */
  resources: { byType: Record<string, number>; handles: number; timers: number };
  state: StateSizes;
  server: ServerSizes;
}

/** The handler of GET /-/debug/state. */
export function debugStateHandler(fleet: FleetReader, server: () => ServerSizes): (req: Request, res: Response) => void {
  const gc = fullCollection();
  return (_req, res) => {
    const started = performance.now();
    gc();
    const gcMs = Math.round((performance.now() - started) * 10) / 10;
    const heapUsedAfterGcBytes = getHeapStatistics().used_heap_size;
    let codeAfterGcBytes = 0;
    const spacesAfterGcBytes: Record<string, number> = {};
    for (const space of getHeapSpaceStatistics()) {
      spacesAfterGcBytes[space.space_name] = space.space_used_size;
      if (space.space_name.startsWith('code_')) codeAfterGcBytes += space.space_used_size;
    }
    // V8 walks the heap's code and bytecode objects for it: after the collection, and not in gcMs.
    const bytecodeAfterGcBytes = getHeapCodeStatistics().bytecode_and_metadata_size;
    const byType: Record<string, number> = {};
    for (const type of process.getActiveResourcesInfo()) byType[type] = (byType[type] ?? 0) + 1;
    const timers = byType['Timeout'] ?? 0;
    const total = Object.values(byType).reduce((a, b) => a + b, 0);
    const body: DebugState = {
      heapUsedAfterGcBytes,
      codeAfterGcBytes,
      bytecodeAfterGcBytes,
      spacesAfterGcBytes,
      gcMs,
      memory: process.memoryUsage(),
      resources: { byType, handles: total - timers, timers },
      state: fleet.stateSizes(),
      server: server(),
    };
    res.set('Cache-Control', 'no-store').json(body);
  };
}
