import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

// A port that a test finds free and hands to a process it starts is free only until someone else binds it. The kernel
// gives ports from its ephemeral range (/proc/sys/net/ipv4/ip_local_port_range, 32768–60999 by default) to every
// listen on port 0 and to the source of every outgoing connection: a test's clients, servers and children take
// hundreds of them a second. A port below that range is never given out unasked, so one found free here stays free
// unless another test takes it; each vitest worker (VITEST_POOL_ID: one per worker running at a time) takes its own
// slice of the range, and within it the ports in turn, from an offset of its process.
const LOW = 20_000;
const SLICE = 1_000;

/** The first port of the kernel's ephemeral range (ports below it are never handed out for port 0). */
function ephemeralStart(): number {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(first) && first > LOW + SLICE ? first : 32_768;
  } catch {
    return 32_768;
  }
}

const slices = Math.max(1, Math.floor((ephemeralStart() - LOW) / SLICE));
const pool = Number(process.env.VITEST_POOL_ID ?? process.env.VITEST_WORKER_ID ?? 0);
const sliceStart = LOW + ((Number.isInteger(pool) ? pool : 0) % slices) * SLICE;
let next = (process.pid * 37) % SLICE;

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A loopback port for a process a test starts: free now, below the kernel's ephemeral range, and not handed out
 * again by this worker for its next 999 asks.
 */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < SLICE; tries++) {
    const port = sliceStart + next;
    next = (next + 1) % SLICE;
    if (await bindable(port)) return port;
  }
  throw new Error(`freePort: no free loopback port in ${sliceStart}–${sliceStart + SLICE - 1} (every one refused a listen)`);
}
