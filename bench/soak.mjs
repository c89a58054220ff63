// Soak under churn: months of an exporter's life compressed into minutes. The built exporter
// (dist/main.js, with --web.enable-debug-state) polls the simulator (dist/main.js simulate, a port per
// node, every node tracking an L1) with every source on, /metrics is scraped back to back, and:
//   - every --reload-every, a reload (SIGHUP) removes 10 % of the targets, adds 10 % from the spare
//     nodes, renames a few, and rotates the TLS settings of one target (a new certificate);
//   - the simulator flips a share of the configured nodes into a churn scenario and back after two
//     reloads: a node ID change, a chain added and removed, peers dropping, check names that change
//     between releases, validator sets that change, an L1 whose validators come and go;
//   - debug probes run, and bad scrapes (slow readers, aborted and half-sent requests) come and go;
//   - every --restore-every, and at the end, the config returns to the original target list and every
//     node to `healthy`; the load stops until what the exporter keeps is back to its baseline (or a
//     deadline passes), and the restore says what was not.
// It samples from outside the process (RSS, descriptors, sockets to the simulator) and from the
// exporter (GET /-/debug/state: the heap after a full collection and the compiled code in it, handles,
// timers, the keyed state; /metrics: the series). One JSON line a sample; the last line is a JSON
// summary with the goals.
// Asserts nothing itself: test/soak/soak.test.ts runs it at the CI size and checks the summary.
//
//   npm run soak                          1,000 nodes for 60 minutes (about 75 minutes in all): run it ALONE
//   npm run soak -- --minutes=5           a short check
//   node bench/soak.mjs --nodes=100 --minutes=1 --interval=5s --slow-interval=10s --index=C/block --peers=50 \
//     --reload-every=5s --sample-every=20s --restore-every=30s --warmup=25s      the CI size (test/soak/soak.test.ts)
//   npm run soak -- --minutes=45 --heap-snapshots=/tmp/snaps   what the heap holds at the baseline and every return
//     (the exporter paused about 10 s a snapshot at 1,000 nodes, 150 MB each): compare two in Chrome DevTools' Memory
//     tab (Comparison, by constructor); objects of the baseline keep their ids in the later snapshots. A run with
//     snapshots measures no goal: the 1,000-node exporter fell behind after its first one (7,319 requests queued and
//     456 polls skipped a minute later; none in the same run without), likely V8's heap profiler, which keeps the
//     objects' ids from then on and follows each object the collector moves. `--heap-snapshots-at=end` writes the last
//     return's alone: the ends of a short and a long run of one seed, compared, show what the longer run grew.
// Every process runs on loopback and is stopped by PID; the config lives in a temporary folder.
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { Procs, cpuSeconds, ensureBuilt, fdsByKind, fitGiven, freePort, linearFit, parseDuration, rssBytes, sleep, waitFor } from './lib.mjs';

const { values: opts } = parseArgs({
  options: {
    minutes: { type: 'string', default: '60' },
    nodes: { type: 'string', default: '1000' },
    // The exporter's own default interval; the slow one is info's (platform, proposervm, admin, node_metrics,
    // chain_info and the L1 run at it here, shorter than their defaults, for more churn a minute).
    interval: { type: 'string', default: '15s' },
    'slow-interval': { type: 'string', default: '30s' },
    'reload-every': { type: 'string', default: '60s' },
    'sample-every': { type: 'string', default: '60s' },
    'restore-every': { type: 'string', default: '15m' },
    warmup: { type: 'string', default: '10m' },
    'time-scale': { type: 'string', default: '10' },
    'flip-share': { type: 'string', default: '0.05' },
    scrapers: { type: 'string', default: '2' },
    index: { type: 'string', default: 'C/block,P/block,X/block,X/tx' },
    // Peers a node lists in info.peers. Not the simulator's mainnet-like 1,500–1,899: their 640 KB answers cost the
    // simulator, then the exporter, V8 large-object allocations (a 640 KB string takes 3–5 ms to make, a 64 KB one
    // 0.01 ms), and at 1,000 nodes the simulator alone then takes a full core of two. 300 peers answer in about 110 KB;
    // the soak is about what grows, and the peers still churn (peers-dropping). The bench measures the large answers.
    peers: { type: 'string', default: '300' },
    seed: { type: 'string', default: 'soak' },
    // The L1 watched as a whole (l1s:), seen from the first this many original targets that are targets now.
    'l1-vantages': { type: 'string', default: '10' },
    // Node.js flags for the exporter and the simulator, space-separated (to profile them: --cpu-prof
    // --cpu-prof-dir=DIR; Node.js refuses --cpu-prof in NODE_OPTIONS).
    'node-flags': { type: 'string', default: '' },
    // A folder: the exporter writes a V8 heap snapshot there at the baseline and at every return, while the load is
    // paused (to compare what the heap holds by constructor: what grows between returns).
    'heap-snapshots': { type: 'string', default: '' },
    // When: `returns` (the baseline and every return) or `end` (the last return only: the run's figures undisturbed;
    // compare the ends of a short and a long run of one seed, by constructor, for what the longer one grew).
    'heap-snapshots-at': { type: 'string', default: 'returns' },
  },
});

const MINUTES = Number(opts.minutes);
const NODES = Number(opts.nodes);
if (!(MINUTES > 0) || !Number.isInteger(NODES) || NODES < 10) throw new Error('--minutes must be above 0 and --nodes a whole number of at least 10');
const RUN_MS = MINUTES * 60_000;
const NODE_FLAGS = opts['node-flags'].split(' ').filter((f) => f !== '');
const SNAPSHOT_DIR = opts['heap-snapshots'];
const SNAPSHOT_AT = opts['heap-snapshots-at'];
if (SNAPSHOT_AT !== 'returns' && SNAPSHOT_AT !== 'end') throw new Error(`--heap-snapshots-at must be returns or end, not "${SNAPSHOT_AT}"`);
// V8 writes no snapshot into a folder that is not there: made now, not found missing at the end of a run.
if (SNAPSHOT_DIR) mkdirSync(SNAPSHOT_DIR, { recursive: true });
const L1_VANTAGES = Number(opts['l1-vantages']);
if (!Number.isInteger(L1_VANTAGES) || L1_VANTAGES < 0) throw new Error('--l1-vantages must be a whole number (0: no l1s: section)');
const INTERVAL_MS = parseDuration(opts.interval, 'interval', 's');
const SLOW_MS = parseDuration(opts['slow-interval'], 'slow-interval', 's');
const RELOAD_MS = parseDuration(opts['reload-every'], 'reload-every', 's');
const SAMPLE_MS = parseDuration(opts['sample-every'], 'sample-every', 's');
const RESTORE_MS = parseDuration(opts['restore-every'], 'restore-every', 'm');
const WARMUP_MS = Math.min(parseDuration(opts.warmup, 'warmup', 'm'), RUN_MS / 2);
const TIMEOUT_MS = Math.min(5_000, Math.floor(INTERVAL_MS / 2));
/**
 * A restore waits this long at most: the exporter sweeps what churned after each round of polls (every source of
 * every target polled once, about the slow interval), and an entry goes at the second sweep after its last use.
 */
const SETTLE_MS = 6 * SLOW_MS + 30_000;
/** How long a settled sample waits for a moment with no request under way (see settle). */
const REST_MS = 60_000;
/** The baseline's counts must hold this long: past the second sweep after the first round (2.5 rounds). */
const BASELINE_HOLD_MS = 2.5 * SLOW_MS;
const SPARE = Math.max(2, Math.round(NODES * 0.15));
const POOL = NODES + SPARE;
const CHURN = Math.max(1, Math.round(NODES * 0.1));
const RENAMES = Math.max(1, Math.round(NODES * 0.003));
const FLIPS = Math.max(1, Math.round(POOL * Number(opts['flip-share'])));
/** A flipped node goes back to healthy after this many reloads. */
const HOLD = 2;
const TLS_TARGET = 'tls-rotating';
// The churn scenarios of the simulator (docs/simulator.md), each with what it churns in the exporter.
const CHURN_SCENARIOS = [
  'node-id-changed', // the node_id label, validator memory, request params naming the node ID
  'chain-added', // a health check keyed by a chain ID never seen before
  'peers-dropping', // peers and connected stake
  'old-version', // check names of v1.10 (no bls, futureupgrade)
  'l1-validator-removed', // an L1 validator that goes and comes back under a new validationID
  'version-behind', // the version label
  'old-version-v1.7', // go-sundheit check names, methods missing
  'helicon-uptime', // v1.15.0's checks and shapes
  'l1-balance-draining', // an L1 validator's balance
  'stake-expiring', // the stake's end time
];
const NODE = process.execPath;

/** @param {string} message */
const log = (message) => process.stderr.write(`[soak ${((performance.now() - T0) / 60_000).toFixed(2)}m] ${message}\n`);
/** @param {unknown} line */
const emit = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

/** The churn's random numbers: the simulator's seeded PRNG (dist/, once built), so a seed gives the same churn. */
let random = Math.random;
/**
 * `k` items of `list`, chosen at random.
 * @template T
 * @param {readonly T[]} list
 * @param {number} k
 * @returns {T[]}
 */
function pick(list, k) {
  const copy = [...list];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy.slice(0, k);
}

const T0 = performance.now();
const procs = new Procs();
const agent = new Agent({ connections: 16, keepAliveTimeout: 5_000 });
const dir = mkdtempSync(join(tmpdir(), 'avalanchego-soak-'));
const configFile = join(dir, 'config.yaml');
/** @type {Set<import('node:net').Socket>} */
const badSockets = new Set();

/**
 * @param {string} url
 * @param {{ method?: 'GET' | 'POST', body?: string, timeoutMs?: number }} [init]
 */
async function http(url, init = {}) {
  const res = await request(url, {
    dispatcher: agent,
    method: init.method ?? 'GET',
    ...(init.body !== undefined ? { body: init.body, headers: { 'content-type': 'application/json' } } : {}),
    signal: AbortSignal.timeout(init.timeoutMs ?? 30_000),
  });
  const text = await res.body.text();
  return { status: res.statusCode, text };
}

// --- the config -------------------------------------------------------------------------------------------------
/** @type {string[]} the simulator's nodes' base URLs, by index */
let baseUrls = [];
let L1_SUBNET = '';
let L1_CHAIN = '';

/**
 * The config file for `targets` (name → simulator node index) and the TLS target's certificate generation.
 * @param {ReadonlyMap<string, number>} targets
 * @param {number} tlsGeneration
 */
function configText(targets, tlsGeneration) {
  const s = (/** @type {number} */ ms) => `${Math.round(ms)}ms`;
  const lines = [
    'defaults:',
    `  interval: ${s(INTERVAL_MS)}`,
    `  timeout: ${s(TIMEOUT_MS)}`,
    `  index: { endpoints: [${opts.index}] }`,
    `  info: { interval: ${s(SLOW_MS)} }`,
    `  platform: { interval: ${s(SLOW_MS)}, subnets: [${L1_SUBNET}] }`,
    `  evm: { chains: [C, ${L1_CHAIN}] }`,
    `  proposervm: { interval: ${s(SLOW_MS)}, chains: [${L1_CHAIN}] }`,
    `  admin: { enabled: true, interval: ${s(SLOW_MS)} }`,
    `  node_metrics: { enabled: true, interval: ${s(SLOW_MS)} }`,
    `  chain_info: { enabled: true, interval: ${s(SLOW_MS)} }`,
    'targets:',
  ];
  for (const [name, i] of targets) lines.push(`  - { name: ${name}, url: '${baseUrls[i] ?? ''}' }`);
  // The L1 as a whole (its validator set, who each vantage sees connected), from the original targets that are
  // targets now: a vantage removed by a reload is left out, and back with its target.
  const vantages = [...original.keys()].filter((n) => targets.has(n)).slice(0, L1_VANTAGES);
  const l1s =
    L1_VANTAGES > 0 && vantages.length > 0
      ? ['l1s:', `  - { subnet: ${L1_SUBNET}, interval: ${s(SLOW_MS)}, vantages: [${vantages.join(', ')}] }`]
      : [];
  // A node behind TLS whose certificate is rotated at every reload (here: its server name changes; the handshake
  // with the simulator's plain HTTP fails, a failing target all along). Each setting has its own connection pool. It
  // asks the simulator's last node, which no other target has.
  const port = new URL(baseUrls[POOL] ?? 'http://127.0.0.1:1').port;
  lines.push(`  - { name: ${TLS_TARGET}, url: 'https://127.0.0.1:${port}', tls: { server_name: rotation-${tlsGeneration}.example } }`);
  return `${[...lines, ...l1s].join('\n')}\n`;
}

/** @param {string} text */
function writeConfig(text) {
  writeFileSync(`${configFile}.tmp`, text);
  renameSync(`${configFile}.tmp`, configFile);
}

// --- what is sampled --------------------------------------------------------------------------------------------
/**
 * The exporter's /-/debug/state (src/server/debug-state.ts).
 * @typedef {{
 *   heapUsedAfterGcBytes: number, codeAfterGcBytes: number, bytecodeAfterGcBytes: number,
 *   spacesAfterGcBytes: Record<string, number>, gcMs: number,
 *   memory: { rss: number, heapUsed: number, heapTotal: number, external: number, arrayBuffers: number },
 *   resources: { byType: Record<string, number>, handles: number, timers: number },
 *   state: {
 *     targets: number, timetable: { entries: number, orphaned: number },
 *     labelTable: { sets: number, trieNodes: number, textBytes: number },
 *     nodes: { sources: number, recentPolls: number, errorReasons: number, remembered: number, lineBlocks: number, lineBytes: number, preparedCalls: number },
 *     requestBodies: number,
 *     limiter: { inFlight: number, queued: number },
 *     dispatchers: { agents: number, origins: number, originQueued: number, openConnections: number },
 *     debugPolls: number,
 *     pollsUnderWay: number,
 *     l1s: { sets: number, vantageStates: number, validators: number, lineBytes: number },
 *   },
 *   server: { debugTraces: { entries: number, bytes: number }, scrapes: { serving: number, heldBytes: number } },
 * }} DebugState
 */

/**
 * What /metrics serves: the nodes' series, the exporter's own, and the poll error counters (node, source, reason).
 * @typedef {{ nodeSeries: number, selfSeries: number, errorSeries: number, errorPairs: Set<string>, nodes: Set<string>, skipped: number, l1SetSeries: number, validationIdBytes: number, text?: string }} Series
 */

/**
 * @param {string} text
 * @returns {Series}
 */
function seriesOf(text) {
  let nodeSeries = 0;
  let selfSeries = 0;
  let errorSeries = 0;
  let skipped = 0;
  let l1SetSeries = 0;
  /** @type {Map<string, number>} label sets naming a validation ID (weight, balance … of one set share one) → its length */
  const validationSets = new Map();
  /** @type {Set<string>} */
  const errorPairs = new Set();
  /** @type {Set<string>} */
  const nodes = new Set();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const brace = line.indexOf('{');
    const vid = brace > 0 ? line.indexOf('validation_id="', brace) : -1;
    if (vid > 0) {
      const end = line.indexOf('"', vid + 15);
      validationSets.set(line.slice(brace, line.lastIndexOf('}')), end - vid - 15);
    }
    if (brace > 0 && line.startsWith('node="', brace + 1)) {
      nodeSeries++;
      nodes.add(line.slice(brace + 7, line.indexOf('"', brace + 7)));
      if (line.startsWith('avalanchego_exporter_poll_errors_total{')) {
        errorSeries++;
        const m = /source="([^"]*)",reason="([^"]*)"/.exec(line);
        if (m) errorPairs.add(`${m[1] ?? ''}\u0000${m[2] ?? ''}`);
      }
    } else {
      selfSeries++;
      // The L1 seen as a whole (l1s:): its validators and who each vantage sees connected.
      if (line.startsWith('avalanchego_l1_set_')) l1SetSeries++;
      if (line.startsWith('avalanchego_exporter_polls_skipped_total{')) skipped += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  let validationIdBytes = 0;
  for (const n of validationSets.values()) validationIdBytes += n;
  return { nodeSeries, selfSeries, errorSeries, errorPairs, nodes, skipped, l1SetSeries, validationIdBytes };
}

/**
 * What the label table and the series hold for the poll error counters: they are counters of the targets a reload
 * keeps (kept on purpose, test/hostile/round3.test.ts), so a reason first seen during the churn stays. Taken out of
 * both sides of a comparison: the label sets `{source, reason}` (one a pair), their trie nodes (`reason` under a
 * source's value once, and a node a reason) and their text.
 * @param {Series} s
 */
function errorShare(s) {
  /** @type {Map<string, number>} */
  const reasonsBySource = new Map();
  let textBytes = 0;
  for (const pair of s.errorPairs) {
    const [source = '', reason = ''] = pair.split('\u0000');
    reasonsBySource.set(source, (reasonsBySource.get(source) ?? 0) + 1);
    textBytes += Buffer.byteLength(`,source="${source}",reason="${reason}"} `);
  }
  let trieNodes = 0;
  for (const n of reasonsBySource.values()) trieNodes += 1 + n;
  return { sets: s.errorPairs.size, trieNodes, textBytes, series: s.errorSeries };
}

/**
 * Every count that must be back exactly when the config and the nodes are: the series and each keyed table, less
 * what the poll error counters hold (errorShare). Queues move with the polls under way: reported, not compared.
 * @param {DebugState} d
 * @param {Series} s
 */
function exactOf(d, s) {
  const e = errorShare(s);
  const st = d.state;
  return {
    node_series: s.nodeSeries - e.series,
    nodes_served: s.nodes.size,
    l1_set_series: s.l1SetSeries,
    targets: st.targets,
    sources: st.nodes.sources,
    line_blocks: st.nodes.lineBlocks,
    remembered: st.nodes.remembered,
    prepared_calls: st.nodes.preparedCalls,
    request_bodies: st.requestBodies,
    label_sets: st.labelTable.sets - e.sets,
    label_trie_nodes: st.labelTable.trieNodes - e.trieNodes,
    // Less the validation IDs' text: an L1 validator registered again (l1-validator-removed, then healthy) has a new
    // validation ID, as on the P-Chain, and CB58 IDs are 48 to 50 characters: the world changed, not the exporter.
    // The label sets are still counted one by one (label_sets).
    label_text_bytes: st.labelTable.textBytes - e.textBytes - s.validationIdBytes,
    agents: st.dispatchers.agents,
    origins: st.dispatchers.origins,
    debug_traces: d.server.debugTraces.entries,
    debug_polls: st.debugPolls,
    l1_sets: st.l1s.sets,
    l1_vantage_states: st.l1s.vantageStates,
    l1_validators: st.l1s.validators,
    orphaned_loops: st.timetable.orphaned,
  };
}

// --- the processes ----------------------------------------------------------------------------------------------
/** @type {import('./lib.mjs').Proc | undefined} */
let exporter;
let exporterUrl = '';
let simPid = 0;
let simUrl = '';
/** @type {Set<number>} the simulator's ports (control and nodes) */
const simPorts = new Set();

async function debugState() {
  const r = await http(`${exporterUrl}/-/debug/state`, { timeoutMs: 60_000 });
  if (r.status !== 200) throw new Error(`/-/debug/state answered ${r.status}: ${r.text.slice(0, 200)}`);
  /** @type {unknown} */
  const state = JSON.parse(r.text);
  return /** @type {DebugState} */ (state);
}

async function scrapeSeries() {
  const r = await http(`${exporterUrl}/metrics`, { timeoutMs: 120_000 });
  if (r.status !== 200) throw new Error(`/metrics answered ${r.status}`);
  return { ...seriesOf(r.text), text: r.text };
}

/**
 * The distinct label values /metrics serves (what the label table holds text for), but the poll error counters'
 * reasons (kept on purpose, as in exactOf): a restore that does not match says which values it gained or lost.
 * @param {string} text
 */
function labelValuesOf(text) {
  /** @type {Set<string>} */
  const values = new Set();
  const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#') || line.startsWith('avalanchego_exporter_poll_errors_total{')) continue;
    // The process's own series (nodejs_*, process_*) are not the label table's.
    if (!line.startsWith('avalanchego_')) continue;
    const brace = line.indexOf('{');
    if (brace < 0) continue;
    re.lastIndex = brace;
    for (let m = re.exec(line); m !== null; m = re.exec(line)) values.add(`${m[1]}=${m[2]}`);
  }
  return values;
}

/** The first few label values in `a` and not in `b`. */
const missingFrom = (/** @type {Set<string>} */ a, /** @type {Set<string>} */ b) => [...a].filter((v) => !b.has(v)).slice(0, 10);

/** One sample: outside the process, then the exporter's state (a full collection), then /metrics. */
async function sample() {
  const pid = exporter?.pid ?? 0;
  const rss = rssBytes(pid);
  // Each process's CPU so far: which of the two, on a small machine, is the one that cannot keep up.
  const cpu = { exporter: cpuSeconds(pid), simulator: simPid ? cpuSeconds(simPid) : NaN };
  // Sockets to the nodes come and go with the polls (the exporter polls on while the load pauses), and one can close
  // between the listing of the descriptors and the read of the connection table: the reading of a few, 100 ms
  // apart, with the fewest other descriptors. A descriptor the exporter keeps is in every reading. The soak's own
  // clients' connections to the exporter (scrapes, probes, bad scrapes still closing) and its listening socket are
  // the load's (`local`), not what the exporter keeps.
  const localPorts = new Set([Number(new URL(exporterUrl).port)]);
  let fd = fdsByKind(pid, simPorts, localPorts);
  for (let i = 0; i < 4 && fd.other > 0; i++) {
    await sleep(100);
    const next = fdsByKind(pid, simPorts, localPorts);
    if (next.other < fd.other) fd = next;
  }
  const d = await debugState();
  const s = await scrapeSeries();
  return { rss, cpu, fds: fd.total, sockets: fd.remote, served: fd.local, fdsOther: fd.other, fdsOtherKinds: fd.otherKinds, d, s };
}

/** @param {Awaited<ReturnType<typeof sample>>} x */
function outside(x) {
  const tcp = x.d.resources.byType['TCPSocketWrap'] ?? 0;
  return {
    rss_mb: round(x.rss / 2 ** 20),
    heap_after_gc_mb: round(x.d.heapUsedAfterGcBytes / 2 ** 20),
    code_after_gc_mb: round(x.d.codeAfterGcBytes / 2 ** 20),
    bytecode_after_gc_mb: round(x.d.bytecodeAfterGcBytes / 2 ** 20),
    old_space_mb: round((x.d.spacesAfterGcBytes['old_space'] ?? 0) / 2 ** 20),
    large_objects_mb: round(
      ((x.d.spacesAfterGcBytes['large_object_space'] ?? 0) + (x.d.spacesAfterGcBytes['new_large_object_space'] ?? 0)) / 2 ** 20,
    ),
    gc_ms: x.d.gcMs,
    fds: x.fds,
    cpu_exporter_s: round(x.cpu.exporter),
    cpu_simulator_s: round(x.cpu.simulator),
    fds_other: x.fdsOther,
    fds_other_kinds: x.fdsOtherKinds,
    sockets_served: x.served,
    sockets_sim: x.sockets,
    handles: x.d.resources.handles,
    handles_other: x.d.resources.handles - tcp,
    timers: x.d.resources.timers,
    // Less the deadline timer of each poll under way (they come and go with the polls).
    timers_other: x.d.resources.timers - x.d.state.pollsUnderWay,
    series: x.s.nodeSeries + x.s.selfSeries,
    node_series: x.s.nodeSeries,
    error_series: x.s.errorSeries,
    label_sets: x.d.state.labelTable.sets,
    prepared_calls: x.d.state.nodes.preparedCalls,
    request_bodies: x.d.state.requestBodies,
    agents: x.d.state.dispatchers.agents,
    debug_traces: x.d.server.debugTraces.entries,
    queued: x.d.state.limiter.queued + x.d.state.dispatchers.originQueued,
    in_flight: x.d.state.limiter.inFlight,
    timetable: x.d.state.timetable.entries,
    polls_skipped: x.s.skipped,
  };
}

/**
 * The requests the exporter had queued or in flight when the sample's state was taken. A request under way holds its
 * answer (a peer list is 110 KB of text and more parsed), so a sample taken in a backlog reads the backlog, not what the
 * exporter keeps. A churn sample is taken once whatever its backlog: asking again until there is none forces a full
 * collection each time (150 to 250 ms of the exporter's loop at 1,000 nodes), and a run that asked every 500 ms for
 * up to 20 s fell behind by thousands of requests within 20 minutes.
 * @param {ReturnType<typeof outside>} o
 */
const backlogOf = (o) => o.queued + o.in_flight;

/** @param {number} x */
const round = (x) => Math.round(x * 10) / 10;

// --- the load: scrapes back to back, debug probes, bad scrapes -----------------------------------------------------
let paused = false;
let stopping = false;
/** @type {Set<Promise<void>>} */
const inFlight = new Set();
const counts = {
  scrapes: 0,
  scrapedBytes: 0,
  scrapeErrors: 0,
  probes: 0,
  probeStatus: /** @type {Record<string, number>} */ ({}),
  bad: 0,
  reloads: 0,
  flips: 0,
  samplesFailed: 0,
};
/**
 * Churn samples after the warm-up taken with requests queued or in flight (see backlogOf), listed in the summary. Such a
 * sample reads a backlog too: a 1,000-node run of 2026-11-27 had one with 3,301 requests queued and 512 in flight at
 * 128.5 MiB, its quiet neighbours 109 to 111 MiB. Kept in the plain line (the heap as it was); the fit given the state
 * holds the backlog (queued and in flight) constant beside the series and label sets. Left out instead, they were 60 %
 * of the samples of the earlier 1,000-node runs, and the quiet ones alone spread wider (quiet moments come with states).
 * @type {Array<{ minute: number, heap_mb: number, queued: number, in_flight: number }>}
 */
const notQuiet = [];

/** @param {boolean} gzip */
async function scraper(gzip) {
  while (!stopping) {
    if (paused) {
      await sleep(200);
      continue;
    }
    const run = (async () => {
      try {
        const res = await request(`${exporterUrl}/metrics`, {
          dispatcher: agent,
          headers: gzip ? { 'accept-encoding': 'gzip' } : {},
          signal: AbortSignal.timeout(120_000),
        });
        for await (const chunk of res.body) if (Buffer.isBuffer(chunk)) counts.scrapedBytes += chunk.length;
        counts.scrapes++;
      } catch {
        counts.scrapeErrors++;
      }
    })();
    inFlight.add(run);
    await run;
    inFlight.delete(run);
  }
}

/** Stops the load and waits for the scrapes under way (the samples are then of a process at rest). */
async function pause() {
  paused = true;
  await Promise.all([...inFlight]);
}

/**
 * A bad scrape: slow (reads 4 KiB every 100 ms), aborted (closes at the first byte), half (never ends the request),
 * idle (connects, sends nothing); closed after `ms` at the latest.
 * @param {'slow' | 'aborted' | 'half' | 'idle'} kind
 * @param {number} ms
 */
function badScrape(kind, ms) {
  const port = Number(new URL(exporterUrl).port);
  const socket = connect(port, '127.0.0.1');
  badSockets.add(socket);
  counts.bad++;
  let timer = /** @type {NodeJS.Timeout | undefined} */ (undefined);
  const end = () => {
    clearInterval(timer);
    socket.destroy();
  };
  socket.on('error', () => {});
  socket.on('close', () => {
    clearInterval(timer);
    badSockets.delete(socket);
  });
  socket.on('connect', () => {
    if (kind === 'idle') return;
    if (kind === 'half') {
      socket.write('GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      return;
    }
    socket.write('GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: identity\r\n\r\n');
    if (kind === 'aborted') socket.once('data', end);
    else {
      socket.pause();
      timer = setInterval(() => {
        socket.read(4096);
      }, 100);
    }
  });
  setTimeout(end, ms).unref();
}

async function debugProbes(/** @type {readonly string[]} */ names) {
  for (const name of names) {
    if (stopping || paused) return;
    try {
      const r = await http(`${exporterUrl}/probe?target=${encodeURIComponent(name)}&debug=true`, { timeoutMs: 30_000 });
      counts.probes++;
      counts.probeStatus[r.status] = (counts.probeStatus[r.status] ?? 0) + 1;
    } catch {
      counts.probeStatus.error = (counts.probeStatus.error ?? 0) + 1;
    }
  }
}

// --- churn ------------------------------------------------------------------------------------------------------
/** @type {Map<string, number>} the original targets: name → simulator node index */
const original = new Map(Array.from({ length: NODES }, (_, i) => [`node-${i}`, i]));
/** @type {Map<string, number>} */
let current = new Map(original);
let tlsGeneration = 0;
let renameGeneration = 0;
/** @type {string[]} names removed by the last reloads (debug probes ask for some: 404) */
let removed = [];
/** @type {Map<number, { scenario: string, since: number }>} nodes in a churn scenario, since which reload */
const flipped = new Map();
let flipSeq = 0;

/** A reload with `next` as the targets; resolves once the exporter serves the new list (a probe of a new name answers). */
async function reload(/** @type {Map<string, number>} */ next, /** @type {number} */ generation) {
  const added = [...next.keys()].find((n) => !current.has(n));
  const gone = [...current.keys()].find((n) => !next.has(n));
  current = next;
  tlsGeneration = generation;
  writeConfig(configText(current, tlsGeneration));
  process.kill(exporter?.pid ?? 0, 'SIGHUP');
  counts.reloads++;
  const probe = async (/** @type {string} */ name) =>
    (await http(`${exporterUrl}/probe?target=${encodeURIComponent(name)}`, { timeoutMs: 30_000 })).status;
  if (added !== undefined) await waitFor(async () => (await probe(added)) === 200, `the reload to add ${added}`, 60_000, exporter);
  else if (gone !== undefined) await waitFor(async () => (await probe(gone)) === 404, `the reload to remove ${gone}`, 60_000, exporter);
}

async function churnReload() {
  const next = new Map(current);
  const names = [...next.keys()];
  const out = pick(names, CHURN);
  for (const n of out) next.delete(n);
  const used = new Set(next.values());
  const free = Array.from({ length: POOL }, (_, i) => i).filter((i) => !used.has(i));
  for (const i of pick(free, CHURN)) next.set(`node-${i}`, i);
  renameGeneration++;
  for (const n of pick([...next.keys()], RENAMES)) {
    const i = next.get(n) ?? 0;
    next.delete(n);
    next.set(`node-${i}-r${renameGeneration}`, i);
    out.push(n);
  }
  removed = out;
  await reload(next, tlsGeneration + 1);
}

async function setScenario(/** @type {number} */ i, /** @type {string} */ scenario) {
  const r = await http(`${simUrl}/sim/nodes/node-${i}/scenario`, { method: 'POST', body: JSON.stringify({ scenario }) });
  if (r.status !== 200) throw new Error(`the simulator refused ${scenario} for node-${i}: ${r.status} ${r.text}`);
}

async function flipScenarios() {
  for (const [i, f] of [...flipped]) {
    if (counts.reloads - f.since < HOLD) continue;
    await setScenario(i, 'healthy');
    flipped.delete(i);
  }
  const candidates = [...current.values()].filter((i) => !flipped.has(i));
  for (const i of pick(candidates, FLIPS)) {
    const scenario = CHURN_SCENARIOS[flipSeq++ % CHURN_SCENARIOS.length] ?? 'healthy';
    await setScenario(i, scenario);
    flipped.set(i, { scenario, since: counts.reloads });
    counts.flips++;
  }
}

// --- the run ----------------------------------------------------------------------------------------------------
/**
 * The churn samples after the warm-up: minutes, the heap after collection and the compiled code in it (V8's code
 * spaces, bytes), the program (the code and the bytecode), RSS, and the state the sample was taken in (series, label
 * sets, requests queued and in flight).
 * @type {Array<{ minute: number, heap: number, code: number, program: number, rss: number, series: number, labelSets: number, backlog: number }>}
 */
const churnSamples = [];
/** @type {Array<[number, number]>} the heap at each return after the warm-up: the same targets and scenarios each time */
const returnPoints = [];
/** @type {Array<Record<string, unknown>>} */
const restores = [];
/** @typedef {ReturnType<typeof outside>} Outside */
/**
 * What the run compares with: the baseline's exact counts, and the samples of the baseline, the warm restore and the
 * last restore.
 * @type {{ exact?: Record<string, number | boolean>, labelValues?: Set<string>, steady?: boolean, baseline?: Outside, warm?: Outside, last?: Outside }}
 */
const marks = {};
const minutesNow = () => (performance.now() - T0) / 60_000;

/**
 * Waits until every exact count is at `target` and the process is at rest (or the deadline), sampling every few
 * seconds; returns the last sample, whether it matched, and what differed.
 * @param {Record<string, number | boolean> | undefined} target undefined: until two samples in a row agree (the baseline)
 */
async function settle(target) {
  const started = performance.now();
  /** @type {Record<string, number | boolean> | undefined} */
  let previous;
  let skippedBefore = -1;
  let sameSince = performance.now();
  /** @type {number | undefined} when the counts first matched */
  let matchedAt;
  for (;;) {
    const x = await sample();
    const exact = exactOf(x.d, x.s);
    const goal = target ?? previous;
    const diff = goal ? Object.keys(exact).filter((k) => exact[k] !== goal[k]) : ['first sample'];
    if (target === undefined && diff.length > 0) sameSince = performance.now();
    // The baseline's counts held over two sweeps and more: what a source asked once at its start (the L1's chain
    // name) and let go at its second sweep after is out of the baseline, as it is out of every return.
    if (target === undefined && diff.length === 0 && performance.now() - sameSince < BASELINE_HOLD_MS) diff.push('not held long enough');
    // The baseline is of an exporter that keeps up: every source of every target has polled, and no poll was skipped
    // as saturated since the last sample (a saturated exporter's counts move with the polls it skips).
    if (target === undefined && exact.line_blocks !== exact.sources) diff.push('a source not polled yet');
    if (target === undefined && x.s.skipped !== skippedBefore) diff.push('polls skipped as saturated');
    skippedBefore = x.s.skipped;
    // The handles and timers are compared between samples with no request under way or queued: a request in flight
    // holds handles of its own (the 1,000-node run's last return was sampled with 22 in flight: 4 handles more).
    // The exporter keeps polling after a return, so such a moment comes within seconds; past REST_MS the counts
    // are taken as they are.
    if (diff.length === 0 && backlogOf(outside(x)) > 0 && performance.now() - (matchedAt ??= performance.now()) < REST_MS) {
      await sleep(250);
      continue;
    }
    if (diff.length === 0) return { x, exact, matched: true, diff: {}, seconds: (performance.now() - started) / 1000 };
    if (performance.now() - started > (target === undefined ? 2 * SETTLE_MS : SETTLE_MS)) {
      /** @type {Record<string, [unknown, unknown]>} */
      const d = {};
      for (const k of diff) d[k] = k in exact ? [goal?.[k], exact[k]] : [true, false];
      return { x, exact, matched: false, diff: d, seconds: (performance.now() - started) / 1000 };
    }
    previous = exact;
    await sleep(Math.max(2_000, Math.min(10_000, INTERVAL_MS)));
  }
}

async function restore(/** @type {string} */ why) {
  await pause();
  await http(`${simUrl}/sim/scenario`, { method: 'POST', body: JSON.stringify({ scenario: 'healthy' }) });
  flipped.clear();
  removed = [];
  await reload(new Map(original), 0);
  const r = await settle(marks.exact);
  const o = outside(r.x);
  marks.last = o;
  // The first restore after the warm-up: the heap's warm value.
  if (!marks.warm && performance.now() - churnStart >= WARMUP_MS) marks.warm = o;
  if (performance.now() - churnStart >= WARMUP_MS) returnPoints.push([minutesNow(), r.x.d.heapUsedAfterGcBytes]);
  // A return that did not match: the label values the baseline served and this one does not, and the other way.
  const values = r.matched || !marks.labelValues ? undefined : labelValuesOf(r.x.s.text);
  const labels =
    values && marks.labelValues
      ? { label_values_lost: missingFrom(marks.labelValues, values), label_values_new: missingFrom(values, marks.labelValues) }
      : {};
  const entry = { minute: round(minutesNow()), why, settled_s: round(r.seconds), matched: r.matched, diff: r.diff, ...labels, ...o };
  restores.push(entry);
  emit({ phase: 'restore', ...entry });
  if (SNAPSHOT_AT === 'returns' || why === 'end') await heapSnapshot(`restore at minute ${entry.minute}`);
  paused = false;
}

/**
 * With --heap-snapshots: the exporter writes a heap snapshot (SIGUSR2, --heapsnapshot-signal). V8 writes it on the
 * main thread, so the exporter answers /-/ready again once it is written.
 */
async function heapSnapshot(/** @type {string} */ what) {
  if (!SNAPSHOT_DIR || !exporter?.pid) return;
  const started = performance.now();
  try {
    const files = () => readdirSync(SNAPSHOT_DIR).filter((f) => f.endsWith('.heapsnapshot')).length;
    const before = files();
    process.kill(exporter.pid, 'SIGUSR2');
    // V8 opens the file, then writes it without returning to the event loop: /-/ready answers once it is written.
    await waitFor(() => Promise.resolve(files() > before), 'the heap snapshot file', 60_000, exporter);
    await http(`${exporterUrl}/-/ready`);
    emit({ phase: 'heap_snapshot', what, minute: round(minutesNow()), dir: SNAPSHOT_DIR, seconds: round((performance.now() - started) / 1000) });
  } catch (error) {
    // A snapshot is a diagnosis, not a figure: the run goes on to its summary (a run of 2026-11-28 lost its summary to
    // a missing folder at its last return).
    emit({ phase: 'heap_snapshot', what, minute: round(minutesNow()), dir: SNAPSHOT_DIR, error: String(error) });
    log(`heap snapshot at ${what} failed: ${String(error)}`);
  }
}

/** Stops the processes and removes the config folder: at the end, and on SIGINT or SIGTERM (then exits 130 or 143). */
async function cleanUp() {
  stopping = true;
  for (const socket of badSockets) socket.destroy();
  await procs.stopAll();
  await agent.close();
  rmSync(dir, { recursive: true, force: true });
}
for (const [signal, code] of /** @type {const} */ ([
  ['SIGINT', 130],
  ['SIGTERM', 143],
])) {
  process.once(signal, () => {
    log(`${signal}: stopping`);
    void cleanUp().finally(() => process.exit(code));
  });
}

let churnStart = 0;
/** @type {Promise<void>[]} */
const scrapers = [];
try {
  ensureBuilt(log);
  const [{ prng }, { nameHash }] = await Promise.all([import('../dist/simulator/ids.js'), import('../dist/util/hash.js')]);
  random = prng(nameHash(opts.seed)[0]);
  log(
    `soak: ${NODES} nodes (${POOL} simulated), ${MINUTES} minutes of churn; intervals ${INTERVAL_MS / 1000} s and ${SLOW_MS / 1000} s; a reload every ${RELOAD_MS / 1000} s (${CHURN} out, ${CHURN} in, ${RENAMES} renamed); ${FLIPS} scenario flips a reload; a restore every ${RESTORE_MS / 60_000} minutes and at the end`,
  );
  // Port 0: the control API and every node on an ephemeral port (a fixed range could meet ports in use).
  const sim = procs.start('simulator', NODE, [
    ...NODE_FLAGS,
    '--max-old-space-size=4096',
    'dist/main.js',
    'simulate',
    '--web.listen-address=127.0.0.1:0',
    `--nodes=${POOL + 1}`,
    '--port-per-node',
    '--track-l1',
    `--time-scale=${opts['time-scale']}`,
    `--seed=${opts.seed}`,
    `--peers=${opts.peers}`,
  ]);
  simPid = sim.pid;
  simUrl = await waitFor(() => Promise.resolve(/control API at (http:\/\/\S+)\/sim\/nodes/.exec(sim.tail)?.[1]), 'the simulator', 120_000, sim);
  const simPort = Number(new URL(simUrl).port);
  /** @type {unknown} */
  const nodesJson = JSON.parse((await http(`${simUrl}/sim/nodes`)).text);
  const listed = /** @type {{ nodes: Array<{ name: string, baseUrl: string, heights: Record<string, number> }> }} */ (nodesJson);
  baseUrls = listed.nodes.map((n) => n.baseUrl);
  simPorts.add(simPort);
  for (const u of baseUrls) simPorts.add(Number(new URL(u).port));
  // The tracked L1: its subnet as the simulator prints it, its chain as the chain its nodes' heights list besides C, P, X.
  L1_SUBNET = await waitFor(() => Promise.resolve(/L1 subnet: (\S+)/.exec(sim.tail)?.[1]), "the L1 subnet on the simulator's output", 10_000, sim);
  L1_CHAIN = Object.keys(listed.nodes[0]?.heights ?? {}).find((k) => !['C', 'P', 'X'].includes(k)) ?? '';
  if (!L1_CHAIN) throw new Error('the simulator lists no L1 chain (--track-l1)');

  writeConfig(configText(current, 0));
  const port = await freePort();
  exporterUrl = `http://127.0.0.1:${port}`;
  exporter = procs.start('exporter', NODE, [
    ...NODE_FLAGS,
    ...(SNAPSHOT_DIR ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${SNAPSHOT_DIR}`] : []),
    'dist/main.js',
    `--config.file=${configFile}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--web.enable-debug-state',
    '--log.level=warn',
  ]);
  const ex = exporter;
  await waitFor(async () => (await http(`${exporterUrl}/-/ready`)).status === 200, 'the first poll of every target', 10 * SLOW_MS + 120_000, ex);
  const base = await settle(undefined);
  marks.exact = base.exact;
  marks.labelValues = labelValuesOf(base.x.s.text);
  marks.baseline = outside(base.x);
  marks.steady = base.matched;
  emit({
    phase: 'baseline',
    minute: round(minutesNow()),
    settled_s: round(base.seconds),
    steady: base.matched,
    ...(base.matched ? {} : { why_not: base.diff }),
    ...marks.baseline,
    exact: marks.exact,
  });
  if (SNAPSHOT_AT === 'returns') await heapSnapshot('baseline');

  for (let i = 0; i < Number(opts.scrapers); i++) scrapers.push(scraper(i % 2 === 0));
  churnStart = performance.now();
  let nextReload = churnStart + RELOAD_MS;
  let nextSample = churnStart + SAMPLE_MS;
  let nextRestore = churnStart + RESTORE_MS;
  const end = churnStart + RUN_MS;
  while (performance.now() < end) {
    const now = performance.now();
    if (now >= nextRestore) {
      await restore('periodic');
      const after = performance.now();
      nextRestore = after + RESTORE_MS;
      nextReload = after + RELOAD_MS;
      nextSample = after + SAMPLE_MS;
      continue;
    }
    if (now >= nextReload) {
      nextReload += RELOAD_MS;
      await churnReload();
      await flipScenarios();
      // The load that comes and goes: debug probes of current and removed targets, bad scrapes.
      void debugProbes(pick([...pick([...current.keys()], 8), ...removed.slice(0, 2)], 10));
      for (const kind of /** @type {const} */ (['slow', 'slow', 'aborted', 'aborted', 'aborted', 'half', 'idle'])) badScrape(kind, RELOAD_MS / 3);
    }
    if (now >= nextSample) {
      nextSample += SAMPLE_MS;
      await pause();
      /** @type {Awaited<ReturnType<typeof sample>> | undefined} */
      let x;
      try {
        x = await sample();
      } catch (err) {
        // A sample the exporter did not answer in time is a finding of the run, recorded, not the run's end.
        counts.samplesFailed += 1;
        emit({ phase: 'churn', minute: round(minutesNow()), sample_failed: /** @type {Error} */ (err).message.slice(0, 200) });
      } finally {
        paused = false;
      }
      if (x === undefined) continue;
      const o = outside(x);
      const minute = (performance.now() - churnStart) / 60_000;
      const backlog = backlogOf(o);
      if (performance.now() - churnStart >= WARMUP_MS) {
        if (backlog > 0) notQuiet.push({ minute: round(minute), heap_mb: o.heap_after_gc_mb, queued: o.queued, in_flight: o.in_flight });
        churnSamples.push({
          minute,
          heap: x.d.heapUsedAfterGcBytes,
          code: x.d.codeAfterGcBytes,
          program: x.d.codeAfterGcBytes + x.d.bytecodeAfterGcBytes,
          rss: x.rss,
          series: o.series,
          labelSets: o.label_sets,
          backlog,
        });
      }
      emit({
        phase: 'churn',
        minute: round(minutesNow()),
        churn_minute: round(minute),
        targets: current.size + 1,
        flipped: flipped.size,
        ...o,
        quiet: backlog === 0,
        reloads: counts.reloads,
        flips: counts.flips,
        scrapes: counts.scrapes,
        scrape_errors: counts.scrapeErrors,
        debug_probes: counts.probeStatus,
        bad_scrapes: counts.bad,
      });
    }
    await sleep(Math.max(50, Math.min(nextReload, nextSample, nextRestore, end) - performance.now()));
  }
  await restore('end');
  stopping = true;
  await Promise.all(scrapers);

  const heap = linearFit(churnSamples.map((c) => [c.minute, c.heap]));
  const code = linearFit(churnSamples.map((c) => [c.minute, c.code]));
  // A churn sample's heap moves with the state it was taken in: more series and label sets when fewer nodes are flipped
  // or more are in a scenario with many (the 1,000-node run: a spread of 2.75 MiB around the line, 0.76 MiB with the
  // two held constant), and with the requests under way (a run with a backlog at 6 of 11 samples: 5.78 MiB with the
  // two, 0.44 MiB with the backlog a third). The slope with them held constant is what grows with time alone; the
  // returns are all in one state, so few points with no such spread.
  /** The slope of `y` in time with the sample's state (series, label sets, backlog) held constant. */
  const givenState = (/** @type {(c: (typeof churnSamples)[number]) => number} */ y, samples = churnSamples) =>
    fitGiven(samples.map((c) => [c.minute, y(c), c.series, c.labelSets, c.backlog]));
  const given = givenState((c) => c.heap);
  const returns = linearFit(returnPoints);
  // The heap without the compiled code: what the exporter keeps, apart from the JIT's warm-up (a rarely taken path is
  // compiled, optimized, late). Reported beside the heap's slope, never instead of it.
  const kept = linearFit(churnSamples.map((c) => [c.minute, c.heap - c.code]));
  // And without the bytecode too (V8 makes a function's bytecode when it first runs, drops it when it has not run for
  // a while): the program's share of the heap, which a run reaches in full only once every path has been taken. Not in
  // it yet: compiled code's metadata in the old space (deoptimisation data, relocation info; bench/RESULTS.md).
  const program = linearFit(churnSamples.map((c) => [c.minute, c.program]));
  const data = givenState((c) => c.heap - c.program);
  const rss = linearFit(churnSamples.map((c) => [c.minute, c.rss]));
  // Thousandths of a percent, divided once (0.108, not 0.10800000000000001).
  const pct = (/** @type {number} */ v, /** @type {number} */ mean) => Math.round((v / mean) * 100_000) / 1000;
  // The same line in each half of the churn after the warm-up, by time: a leak climbs in both, a bound filling up
  // (a share of the nodes not churned yet, JIT warm-up) climbs in the first and flattens in the second.
  const split = ((churnSamples[0]?.minute ?? 0) + (churnSamples.at(-1)?.minute ?? 0)) / 2;
  const halves = [churnSamples.filter((c) => c.minute < split), churnSamples.filter((c) => c.minute >= split)].map((part) => {
    const f = givenState((c) => c.heap, part);
    return {
      from_minute: round(part[0]?.minute ?? NaN),
      to_minute: round(part.at(-1)?.minute ?? NaN),
      samples: f.n,
      pct_per_hour: pct(f.slope * 60, f.mean),
      std_pct_per_hour: pct(f.slopeStd * 60, f.mean),
    };
  });
  // Set by the baseline and by the restore that just ran.
  const { last, baseline: base0 } = marks;
  const warm = marks.warm ?? base0;
  const seriesRestored =
    restores.length > 0 &&
    restores.every((r) => !('node_series' in /** @type {object} */ (r.diff)) && !('nodes_served' in /** @type {object} */ (r.diff)));
  // A baseline never steady (every source polled, no poll skipped) is no baseline: nothing is said restored to it.
  const stateRestored = marks.steady && restores.every((r) => r.matched === true);
  // The goals, each with its figure and whether it is met. The heap's is set for a run of 60 minutes or more
  // (a line fitted after the 10-minute warm-up): a shorter run's line is too short to say either way (null), and a run
  // with snapshots at every return measures none (the exporter falls behind after the first; see the header).
  const heapPct = pct(given.slope * 60, given.mean);
  const snapshotsAtReturns = SNAPSHOT_DIR !== '' && SNAPSHOT_AT === 'returns';
  const heapJudged = MINUTES >= 60 && !snapshotsAtReturns && given.n >= 10;
  const flatDeltas = {
    fd_other: last.fds_other - base0.fds_other,
    handle_other: last.handles_other - base0.handles_other,
    timer_other: last.timers_other - base0.timers_other,
    socket: last.sockets_sim - base0.sockets_sim,
  };
  const goals = {
    heap: {
      what: 'heap after collection: its line after the warm-up given the state (series, label sets, backlog), % an hour',
      pct_per_hour: heapPct,
      std_pct_per_hour: pct(given.slopeStd * 60, given.mean),
      limit_pct_per_hour: 1,
      met: heapJudged ? heapPct < 1 : null,
      ...(heapJudged
        ? {}
        : {
            why_not_judged: `a ${MINUTES}-minute run${snapshotsAtReturns ? ' with snapshots at every return' : ''}, ${given.n} samples after the warm-up: the goal is set for 60 minutes`,
          }),
    },
    // Descriptors other than sockets to the nodes, handles other than sockets, timers other than polls' deadlines: none
    // more at the last return than at the baseline; sockets to the nodes no more either (keep-alive ones may close).
    flat: { deltas: flatDeltas, met: Object.values(flatDeltas).every((d) => d <= 0) },
    returns_exact: { restores: restores.length, matched: restores.filter((r) => r.matched === true).length, met: stateRestored },
  };
  const summary = {
    summary: true,
    goals: { ...goals, all_met: goals.heap.met === true && goals.flat.met && goals.returns_exact.met },
    minutes: MINUTES,
    nodes: NODES,
    reloads: counts.reloads,
    scenario_flips: counts.flips,
    scrapes: counts.scrapes,
    scrape_errors: counts.scrapeErrors,
    debug_probes: counts.probeStatus,
    bad_scrapes: counts.bad,
    restores: restores.length,
    samples_failed: counts.samplesFailed,
    heap_slope_pct_per_hour: pct(heap.slope * 60, heap.mean),
    heap_slope_std_pct_per_hour: pct(heap.slopeStd * 60, heap.mean),
    heap_spread_pct: pct(heap.residualStd, heap.mean),
    heap_slope_given_state_pct_per_hour: goals.heap.pct_per_hour,
    heap_slope_given_state_std_pct_per_hour: goals.heap.std_pct_per_hour,
    heap_spread_given_state_pct: pct(given.residualStd, given.mean),
    heap_slope_given_state_halves: halves,
    heap_mean_mb: round(heap.mean / 2 ** 20),
    heap_samples: heap.n,
    heap_samples_not_quiet: notQuiet,
    heap_returns_slope_pct_per_hour: pct(returns.slope * 60, returns.mean),
    heap_returns_mb: returnPoints.map(([, b]) => round(b / 2 ** 20)),
    code_slope_pct_per_hour_of_heap: pct(code.slope * 60, heap.mean),
    code_mean_mb: round(code.mean / 2 ** 20),
    heap_without_code_slope_pct_per_hour: pct(kept.slope * 60, kept.mean),
    heap_without_code_spread_pct: pct(kept.residualStd, kept.mean),
    program_slope_pct_per_hour_of_heap: pct(program.slope * 60, heap.mean),
    program_mean_mb: round(program.mean / 2 ** 20),
    heap_without_program_slope_given_state_pct_per_hour: pct(data.slope * 60, data.mean),
    heap_without_program_slope_given_state_std_pct_per_hour: pct(data.slopeStd * 60, data.mean),
    rss_slope_pct_per_hour: pct(rss.slope * 60, rss.mean),
    rss_spread_pct: pct(rss.residualStd, rss.mean),
    rss_mean_mb: round(rss.mean / 2 ** 20),
    heap_restore_vs_warm_pct: round(((last.heap_after_gc_mb - warm.heap_after_gc_mb) / warm.heap_after_gc_mb) * 1000) / 10,
    fd_delta: last.fds - base0.fds,
    fd_other_delta: flatDeltas.fd_other,
    handle_delta: last.handles - base0.handles,
    handle_other_delta: flatDeltas.handle_other,
    timer_delta: last.timers - base0.timers,
    timer_other_delta: flatDeltas.timer_other,
    socket_delta: flatDeltas.socket,
    baseline_steady: marks.steady,
    series_baseline_restored: marks.steady && seriesRestored,
    state_baseline_restored: stateRestored,
    baseline: base0,
    warm,
    last_restore: last,
  };
  emit(summary);
} finally {
  await cleanUp();
}
