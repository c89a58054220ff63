// The raw undici floor: what any Node.js client pays to ask nodes for their
// health, with nothing of the exporter. Keep-alive POSTs of health.health
// (or, with --mix, the exporter's poll: health.health and four
// index.getLastAccepted) to the fleet's nodes in turn, paced at --rate
// requests a second, each body read and JSON.parse'd. Prints one JSON line:
// requests completed and CPU used during the measured window.
// With --serve=PORT it also answers every GET on 127.0.0.1:PORT with a fixed
// body of --serve-bytes (one node's /probe): the /probe floor, what a server on
// the same event loop as the polls answers with no work of its own. With
// --rate=0 it only serves: the machine's floor for a server in a process of its own.
// Usage: node bench/floor.mjs --urls=FILE --rate=R --duration=S [--warmup=S] [--mix] [--serve=PORT --serve-bytes=B]
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';

const { values } = parseArgs({
  options: {
    urls: { type: 'string' },
    rate: { type: 'string' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '8' },
    // The exporter's default scheduler.max_concurrent_requests: past it, requests wait (here: are started later).
    'max-in-flight': { type: 'string', default: '512' },
    mix: { type: 'boolean', default: false },
    serve: { type: 'string' },
    'serve-bytes': { type: 'string', default: '8192' },
  },
});
if (values.urls === undefined) throw new Error('--urls=FILE is required');
/** @type {unknown} */
const urlsJson = JSON.parse(readFileSync(values.urls, 'utf8'));
if (!Array.isArray(urlsJson) || urlsJson.length === 0) throw new Error(`${values.urls}: expected a JSON array of node URLs`);
const urls = urlsJson.map((u) => {
  if (typeof u !== 'string') throw new Error(`${values.urls}: expected a JSON array of node URLs`);
  return u;
});
const rate = Number(values.rate);
const maxInFlight = Number(values['max-in-flight']);
const dispatcher = new Agent({ keepAliveTimeout: 60_000, connections: Number(values.connections) });
const headers = { 'content-type': 'application/json', accept: 'application/json' };
/** @typedef {[path: string, method: string, params: Record<string, string>]} Call */
/** @type {Call[]} */
const calls = values.mix
  ? [
      ['/ext/health', 'health.health', {}],
      ...['C/block', 'P/block', 'X/block', 'X/tx'].map(
        /** @returns {Call} */ (e) => [`/ext/index/${e}`, 'index.getLastAccepted', { encoding: 'hex' }],
      ),
    ]
  : [['/ext/health', 'health.health', {}]];

let id = 0;
let measuring = false;
let completed = 0;
let errors = 0;
let inFlight = 0;

/** @param {number} n the request's sequence number: which call, to which node */
async function one(n) {
  const call = calls[n % calls.length];
  const base = urls[Math.floor(n / calls.length) % urls.length];
  if (call === undefined || base === undefined) throw new Error(`no call or URL for request ${n}`);
  const [path, method, params] = call;
  const url = `${base}${path}`;
  inFlight++;
  try {
    const res = await request(url, {
      method: 'POST',
      dispatcher,
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    });
    /** @type {unknown} */
    const body = JSON.parse(await res.body.text());
    if (res.statusCode !== 200 || !hasResult(body)) throw new Error(`status ${res.statusCode}`);
    if (measuring) completed++;
  } catch {
    if (measuring) errors++;
  } finally {
    inFlight--;
  }
}

/**
 * Whether a JSON-RPC response carries a result (not an error).
 * @param {unknown} body the parsed response
 */
function hasResult(body) {
  return typeof body === 'object' && body !== null && 'result' in body && body.result !== undefined;
}

if (values.serve !== undefined) {
  // Text of the right size, not built per request: the floor of answering, not of rendering.
  const body = Buffer.alloc(Number(values['serve-bytes']), 'avalanchego_up{node="x"} 1\n');
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8', 'Content-Length': body.length });
    res.end(body);
  });
  await new Promise((resolve) => server.listen(Number(values.serve), '127.0.0.1', () => resolve(undefined)));
  process.stdout.write(`serving ${body.length} bytes on 127.0.0.1:${values.serve}\n`);
}

// Pacing: every 5 ms, start the requests due since the start.
let issued = 0;
const started = performance.now();
const pacer = setInterval(() => {
  const due = Math.floor(((performance.now() - started) / 1000) * rate);
  while (issued < due && inFlight < maxInFlight) void one(issued++);
}, 5);

await new Promise((r) => setTimeout(r, Number(values.warmup) * 1000));
measuring = true;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await new Promise((r) => setTimeout(r, Number(values.duration) * 1000));
const cpu = process.cpuUsage(cpu0);
const elapsed = (performance.now() - t0) / 1000;
measuring = false;
clearInterval(pacer);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
process.stdout.write(
  `${JSON.stringify({ requests: completed, errors, elapsed, cpuSeconds, behind: Math.max(0, Math.floor(((performance.now() - started) / 1000) * rate) - issued) })}\n`,
);
process.exit(0);
