// `avalanchego-exporter simulate …`: runs a simulated fleet until SIGINT or
// SIGTERM. Flags follow the exporter's style (--web.listen-address=HOST:PORT).

import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { parseGoDuration } from '../util/gotime.js';
import {
  DOWN_MODES,
  GARBAGE_MODES,
  L1_CHAIN,
  L1_SUBNET_ID,
  SCENARIOS,
  startSimulator,
  type DownMode,
  type GarbageMode,
  type ScenarioName,
  type SimulatorOptions,
} from './index.js';
import { parseMetricsFiller } from './metrics.js';
import { isScenario } from './scenarios.js';

export const SIMULATE_USAGE = `Usage: avalanchego-exporter simulate [flags]

Runs simulated AvalancheGo nodes that answer the health, index, admin, info and
P-Chain APIs like AvalancheGo v1.14.2, each in a scenario that can be switched at runtime
(see docs/simulator.md).

Flags:
  --web.listen-address=HOST:PORT  where to listen (default 127.0.0.1:9650)
  --nodes=N                       number of nodes (default 1); with one node its API
                                  is at http://HOST:PORT, with more at /node-<i>
  --scenario=NAME[,NAME…]         starting scenario; a list is dealt out in turn
                                  (default healthy). One of:
                                  ${SCENARIOS.join(', ')}
  --check-frequency=DURATION      time between health-check runs (Go duration,
                                  default 30s divided by the time scale)
  --time-scale=X                  run heights and scenario timelines X times faster
                                  than real time (default 1)
  --no-admin                      do not serve /ext/admin
  --no-index                      do not serve /ext/index/…
  --no-metrics                    do not serve /ext/metrics
  --metrics-filler=FILE           a real v1.11+ node's /ext/metrics (text, or gzip when
                                  FILE ends in .gz): its families, but consensus polls
                                  and bad blocks, are added to every v1.11+ node's body
                                  (a body of a real node's size, for benchmarks)
  --fresh-index                   indexing starts with the simulator: indexes start
                                  empty, X/vtx stays empty (default: full history)
  --track-l1                      every node also tracks and validates an L1 (a chain check
                                  keyed by its chain ID, tagged with its subnet ID; an
                                  ACP-77 validator entry with a balance)
  --validators=WHICH              which nodes validate the primary network: every-third
                                  (default: node-0, node-3 …), all or none
  --peers=N                       peers each node is connected to (info.peers, the
                                  network check; default 1500 to 1899 a node)
  --http-allowed-hosts=H[,H…]     host names accepted besides IP literals, or *
                                  (default localhost)
  --port-per-node                 give each node its own port (HOST:PORT+1+i); needed
                                  for --down-mode=refused
  --down-mode=MODE                how a down node fails: refused, hang or reset
                                  (default refused with --port-per-node, else reset)
  --garbage-mode=MODE             rotate, html, truncated or wrong-types (default rotate)
  --slow-response=DURATION        how long a slow node holds each answer (default 4s)
  --seed=TEXT                     seed for node IDs and variation
  -h, --help                      show this help
`;

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Resolves when the simulator should stop; default: the first SIGINT or SIGTERM. */
  stopSignal?: Promise<unknown>;
}

class UsageError extends Error {}

/** Parses the flags after `simulate`; throws UsageError. */
export function parseSimulateArgs(argv: string[]): { help: boolean; options: SimulatorOptions; scenarios: ScenarioName[] } {
  const options: SimulatorOptions = { host: '127.0.0.1', port: 9650 };
  let scenarios: ScenarioName[] = ['healthy'];
  const timings: NonNullable<SimulatorOptions['timings']> = {};
  let help = false;
  const booleans = new Set(['--no-admin', '--no-index', '--no-metrics', '--fresh-index', '--track-l1', '--port-per-node', '--help', '-h']);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    let name = arg;
    let value: string | undefined;
    const eq = arg.indexOf('=');
    if (eq !== -1) {
      name = arg.slice(0, eq);
      value = arg.slice(eq + 1);
    }
    const valued = [
      '--web.listen-address',
      '--nodes',
      '--scenario',
      '--check-frequency',
      '--time-scale',
      '--http-allowed-hosts',
      '--down-mode',
      '--garbage-mode',
      '--slow-response',
      '--seed',
      '--validators',
      '--peers',
      '--metrics-filler',
    ];
    if (!booleans.has(name) && !valued.includes(name)) {
      throw new UsageError(name.startsWith('-') ? `unknown flag ${name}` : `unexpected argument ${JSON.stringify(arg)}`);
    }
    if (booleans.has(name)) {
      if (value !== undefined) throw new UsageError(`${name} takes no value`);
    } else if (value === undefined) {
      value = argv[++i];
      if (value === undefined) throw new UsageError(`${name} needs a value`);
    }
    const v = value ?? '';
    const duration = (): number => {
      const s = parseGoDuration(v);
      if (s === undefined || s < 0) throw new UsageError(`${name}: ${JSON.stringify(v)} is not a duration such as 500ms, 5s or 1m`);
      return s * 1000;
    };
    switch (name) {
      case '-h':
      case '--help':
        help = true;
        break;
      case '--web.listen-address': {
        const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(v);
        if (!m || Number(m[3]) > 65535) throw new UsageError(`--web.listen-address: ${JSON.stringify(v)} is not HOST:PORT`);
        // ":9650" listens on every interface, as in Go.
        options.host = m[1] ?? (m[2] || '0.0.0.0');
        options.port = Number(m[3]);
        break;
      }
      case '--nodes': {
        const n = Number(v);
        if (!/^\d+$/.test(v) || n < 1 || n > 100_000) throw new UsageError(`--nodes: ${JSON.stringify(v)} is not a number from 1 to 100000`);
        options.nodes = n;
        break;
      }
      case '--scenario': {
        const list = v.split(',').map((s) => s.trim());
        const bad = list.find((s) => !isScenario(s));
        if (bad !== undefined) throw new UsageError(`--scenario: unknown scenario ${JSON.stringify(bad)}; one of ${SCENARIOS.join(', ')}`);
        scenarios = list as ScenarioName[];
        break;
      }
      case '--check-frequency':
        options.checkFrequencyMs = duration();
        if (options.checkFrequencyMs < 1) throw new UsageError('--check-frequency must be at least 1ms');
        break;
      case '--time-scale': {
        const x = Number(v);
        if (!(x > 0) || !Number.isFinite(x)) throw new UsageError(`--time-scale: ${JSON.stringify(v)} is not a positive number`);
        options.timeScale = x;
        break;
      }
      case '--no-admin':
        options.admin = false;
        break;
      case '--no-index':
        options.index = false;
        break;
      case '--no-metrics':
        options.metrics = false;
        break;
      case '--metrics-filler': {
        let text: string;
        try {
          const raw = readFileSync(v);
          text = (v.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8');
        } catch (err) {
          throw new UsageError(`--metrics-filler: cannot read ${v}: ${(err as Error).message}`);
        }
        try {
          options.metricsFiller = parseMetricsFiller(text, v);
        } catch (err) {
          throw new UsageError(`--metrics-filler: ${(err as Error).message}`);
        }
        break;
      }
      case '--track-l1':
        options.trackL1 = true;
        break;
      case '--fresh-index':
        options.freshIndex = true;
        break;
      case '--http-allowed-hosts':
        options.allowedHosts =
          v === '*'
            ? '*'
            : v
                .split(',')
                .map((h) => h.trim())
                .filter(Boolean);
        break;
      case '--port-per-node':
        options.portPerNode = true;
        break;
      case '--down-mode':
        if (!DOWN_MODES.includes(v as DownMode)) throw new UsageError(`--down-mode: one of ${DOWN_MODES.join(', ')}`);
        timings.downMode = v as DownMode;
        break;
      case '--garbage-mode':
        if (!GARBAGE_MODES.includes(v as GarbageMode)) throw new UsageError(`--garbage-mode: one of ${GARBAGE_MODES.join(', ')}`);
        timings.garbageMode = v as GarbageMode;
        break;
      case '--slow-response':
        timings.slowResponseMs = duration();
        break;
      case '--seed':
        options.seed = v;
        break;
      case '--peers': {
        const n = Number(v);
        if (!/^\d+$/.test(v) || n > 100_000) throw new UsageError(`--peers: ${JSON.stringify(v)} is not a number from 0 to 100000`);
        options.peers = n;
        break;
      }
      case '--validators':
        if (v === 'all') options.validator = true;
        else if (v === 'none') options.validator = false;
        else if (v !== 'every-third') throw new UsageError('--validators: one of every-third, all, none');
        break;
      default:
        throw new UsageError(`unknown flag ${name}`);
    }
  }
  if (timings.downMode === 'refused' && !options.portPerNode) throw new UsageError('--down-mode=refused needs --port-per-node');
  options.timings = timings;
  const list = scenarios;
  const [first = 'healthy'] = list;
  options.scenario = list.length === 1 ? first : (i: number) => list[i % list.length] ?? first;
  return { help, options, scenarios };
}

function waitForSignal(): Promise<string> {
  return new Promise((resolve) => {
    const done = (sig: string) => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      resolve(sig);
    };
    const onInt = () => done('SIGINT');
    const onTerm = () => done('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
  });
}

/** Runs `simulate`; resolves with the exit code (0 after a clean stop, 2 for bad flags, 1 when it cannot start). */
export async function runSimulateCommand(argv: string[], io?: CliIo): Promise<number> {
  const out = io?.stdout ?? ((t: string) => void process.stdout.write(t));
  const err = io?.stderr ?? ((t: string) => void process.stderr.write(t));
  let parsed: ReturnType<typeof parseSimulateArgs>;
  try {
    parsed = parseSimulateArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    err(`simulate: ${e.message}\nRun with --help for the flags.\n`);
    return 2;
  }
  if (parsed.help) {
    out(SIMULATE_USAGE);
    return 0;
  }
  // Listen for signals before starting, so an early Ctrl-C still closes cleanly.
  const stop = io?.stopSignal ?? waitForSignal();
  let sim: Awaited<ReturnType<typeof startSimulator>>;
  try {
    sim = await startSimulator(parsed.options);
  } catch (e) {
    err(`simulate: cannot start: ${(e as Error).message}\n`);
    return 1;
  }
  const nodes = sim.nodes;
  out(`AvalancheGo API simulator: ${nodes.length} node${nodes.length === 1 ? '' : 's'}; control API at ${sim.url}/sim/nodes\n`);
  const shown = nodes.length <= 50 ? nodes : nodes.slice(0, 20);
  for (const n of shown) out(`  ${n.name.padEnd(10)} ${sim.scenarioOf(n.name).padEnd(16)} ${n.nodeId}  ${n.baseUrl}\n`);
  if (shown.length < nodes.length) out(`  … and ${nodes.length - shown.length} more: GET ${sim.url}/sim/nodes\n`);
  if (parsed.options.trackL1)
    out(
      `L1 subnet: ${L1_SUBNET_ID} (list it in the exporter's platform.subnets), its chain: ${L1_CHAIN.chainId} (l1s[].chain; /ext/bc/<chain>/validators)\n`,
    );
  out(`Health: ${nodes[0]?.baseUrl ?? sim.url}/ext/health   Stop with Ctrl-C.\n`);
  await stop;
  await sim.close();
  out('simulator stopped\n');
  return 0;
}
