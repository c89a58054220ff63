// avalanchego-exporter: flags, wiring and signals (main.ts takes SIGHUP before this module loads).
import { hostname } from 'node:os';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, closest } from './config/load.js';
import { defaultConfig, loadConfigFile } from './sources/registry.js';
import type { Config } from './config/schema.js';
import { DEFAULT_LISTEN_ADDRESS, startExporter } from './exporter.js';
import { SHARD_COUNT_ENV, ShardFlagError, resolveShard, type ShardSpec } from './shard.js';
import { DEFAULT_MAX_CONNECTIONS } from './web/server.js';
import { DEFAULT_MAX_SCRAPES } from './server/app.js';
import { loadWebConfigFile, type WebConfig } from './web/config.js';
import { LOG_FORMATS, LOG_LEVELS, createLogger, type LogFormat, type LogLevel } from './log.js';
import { DEFAULT_HEAP_GROWING_PERCENT, disablePretenuring, setHeapGrowingPercent } from './runtime.js';
import { VERSION } from './version.js';

const DEFAULT_TELEMETRY_PATH = '/metrics';

const FLAGS = {
  'config.file': { type: 'string' },
  'config.check': { type: 'boolean' },
  'web.listen-address': { type: 'string', default: DEFAULT_LISTEN_ADDRESS },
  'web.telemetry-path': { type: 'string', default: DEFAULT_TELEMETRY_PATH },
  'shard.count': { type: 'string' },
  'shard.index': { type: 'string' },
  'shard.from-pod-name': { type: 'boolean' },
  'web.config.file': { type: 'string' },
  'web.max-connections': { type: 'string', default: String(DEFAULT_MAX_CONNECTIONS) },
  'web.max-requests': { type: 'string', default: String(DEFAULT_MAX_SCRAPES) },
  'runtime.heap-growing-percent': { type: 'string', default: String(DEFAULT_HEAP_GROWING_PERCENT) },
  'log.level': { type: 'string', default: 'info' },
  'log.format': { type: 'string', default: 'json' },
  version: { type: 'boolean', short: 'v' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

const HELP = `Usage: avalanchego-exporter [flags]
       avalanchego-exporter simulate [flags]   run the AvalancheGo API simulator (see simulate --help)
       avalanchego-exporter demo               a simulated fleet and the exporter polling it
       avalanchego-exporter healthcheck        exit 0 when this exporter's /-/healthy answers (containers)

Polls AvalancheGo nodes' health and index APIs and serves them as Prometheus metrics.

Flags:
  --config.file=PATH           YAML configuration (see config.example.yaml). Without it the
                               exporter polls one node at http://127.0.0.1:9650.
  --config.check               Validate the configuration, print the problems or a summary,
                               exit 1 or 0.
  --web.listen-address=ADDR    Address to serve /metrics on (default ${DEFAULT_LISTEN_ADDRESS}, all interfaces).
  --web.telemetry-path=PATH    Path under which the metrics are served (default ${DEFAULT_TELEMETRY_PATH}).
  --shard.count=N              Split the targets over N replicas (default 1): this one polls, serves
                               and lists only the targets it owns (a stable hash of the name).
  --shard.index=I              This replica's shard, 0 to N-1.
  --shard.from-pod-name        Take the shard index from the StatefulSet pod name's ordinal
                               ($POD_NAME, else the host name: exporter-3 is shard 3), and N from
                               --shard.count or $${SHARD_COUNT_ENV}.
  --web.config.file=PATH       TLS, basic auth and response headers for that port, in the
                               Prometheus exporter-toolkit format (see the README). Re-read on reload.
  --web.max-connections=N      Connections served at once (default ${DEFAULT_MAX_CONNECTIONS}); past it the
                               connection idle longest is closed.
  --web.max-requests=N         Scrapes of /metrics served at once (default ${DEFAULT_MAX_SCRAPES}, 0: no cap); past
                               it 503. Scrapes at the same time share one render.
  --runtime.heap-growing-percent=N
                               How far the JavaScript heap may grow past what it holds live
                               before a full garbage collection; 0 (the default) leaves it to V8,
                               which lets a large fleet's heap grow to several times its live
                               size. A value such as 40 trades CPU for memory (docs/performance.md).
  --log.level=LEVEL            ${LOG_LEVELS.join(', ')} (default info).
  --log.format=FORMAT          ${LOG_FORMATS.join(', ')} (default json); logfmt as Prometheus' own exporters.
  -v, --version                Print the version and exit.
  -h, --help                   Print this help and exit.

Signals: SIGHUP reloads the configuration (as does POST /-/reload); SIGTERM and SIGINT
stop polling, wait for polls under way and exit 0.
`;

/** Paths the exporter serves itself: the metrics cannot take one of them. */
const RESERVED_PATHS = ['/', '/probe', '/config', '/-/healthy', '/-/ready', '/-/reload'];

function telemetryPathProblem(path: string): string | undefined {
  if (!/^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]+$/.test(path)) return 'must be a path starting with / (e.g. /metrics)';
  if (RESERVED_PATHS.includes(path) || path.startsWith('/node/') || path.startsWith('/-/'))
    return `is a path the exporter serves itself (${RESERVED_PATHS.join(', ')}, /node/…)`;
  return undefined;
}

/** The flags, with their dashes, for "did you mean". */
const FLAG_NAMES = Object.keys(FLAGS).map((name) => `--${name}`);

/** parseArgs' error, with the nearest flag for an unknown one. */
function flagError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const unknown = /^Unknown option '(-{1,2}[^']+)'/.exec(message)?.[1];
  if (!unknown) return message;
  const guess = closest(unknown.split('=')[0] ?? unknown, FLAG_NAMES);
  return `unknown flag ${unknown}${guess ? ` (did you mean ${guess}?)` : ''}`;
}

function fail(message: string, code = 2): number {
  process.stderr.write(`avalanchego-exporter: ${message}\n`);
  return code;
}

/** What main.ts saw before this module loaded: SIGHUPs during start-up, held until the exporter runs. */
export interface EarlySignals {
  /** A SIGHUP came since the handler was taken (cleared by the exporter's first reload). */
  readonly reloadAsked: boolean;
  /** Hands SIGHUP over: `onHup` is called for a SIGHUP from now on, and once now if one came before. */
  handOver(onHup: () => void): void;
  /** Gives SIGHUP back to its default action (the subcommands, --config.check, the exits before start). */
  release(): void;
}

export async function main(argv: string[], early?: EarlySignals): Promise<number> {
  if (argv[0] !== undefined && ['simulate', 'demo', 'healthcheck'].includes(argv[0])) early?.release();
  if (argv[0] === 'simulate') {
    const { runSimulateCommand } = await import('./simulator/cli.js');
    return runSimulateCommand(argv.slice(1));
  }
  if (argv[0] === 'demo') {
    const { runDemo } = await import('./demo.js');
    return runDemo(argv.slice(1));
  }
  if (argv[0] === 'healthcheck') {
    const { runHealthcheck } = await import('./healthcheck.js');
    return runHealthcheck(argv.slice(1));
  }

  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: FLAGS,
    }));
  } catch (err) {
    return fail(`${flagError(err)}\nRun avalanchego-exporter --help for the flags.`);
  }
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (values.version) {
    process.stdout.write(`avalanchego-exporter ${VERSION} (Node.js ${process.version})\n`);
    return 0;
  }
  const telemetryPath = values['web.telemetry-path'];
  const pathProblem = telemetryPathProblem(telemetryPath);
  if (pathProblem) return fail(`--web.telemetry-path="${telemetryPath}" ${pathProblem}`);
  const level = values['log.level'] as LogLevel;
  if (!LOG_LEVELS.includes(level)) return fail(`--log.level="${level}" is not one of ${LOG_LEVELS.join(', ')}`);
  const format = values['log.format'] as LogFormat;
  if (!LOG_FORMATS.includes(format)) return fail(`--log.format="${format}" is not one of ${LOG_FORMATS.join(', ')}`);

  let shard: ShardSpec;
  try {
    shard = resolveShard(
      { count: values['shard.count'], index: values['shard.index'], fromPodName: values['shard.from-pod-name'] },
      {
        podName: process.env['POD_NAME'] || process.env['HOSTNAME'] || hostname() || undefined,
        countFromEnv: process.env[SHARD_COUNT_ENV] || undefined,
      },
    );
  } catch (err) {
    if (err instanceof ShardFlagError) return fail(err.message);
    throw err;
  }
  const maxConnections = Number(values['web.max-connections']);
  if (!Number.isInteger(maxConnections) || maxConnections < 1)
    return fail(`--web.max-connections="${values['web.max-connections']}" is not a whole number of at least 1`);
  const maxScrapes = Number(values['web.max-requests']);
  if (!Number.isInteger(maxScrapes) || maxScrapes < 0)
    return fail(`--web.max-requests="${values['web.max-requests']}" is not a whole number (0 for no cap)`);

  const heapGrowing = Number(values['runtime.heap-growing-percent']);
  if (!Number.isInteger(heapGrowing) || heapGrowing < 0 || heapGrowing > 1000)
    return fail(`--runtime.heap-growing-percent="${values['runtime.heap-growing-percent']}" is not a whole number from 0 to 1000`);

  const file = values['config.file'];
  const load = (): Config => (file ? loadConfigFile(file) : defaultConfig());
  let config: Config;
  try {
    config = load();
  } catch (err) {
    if (err instanceof ConfigError) return fail(err.message, 1);
    throw err;
  }
  const webFile = values['web.config.file'];
  const loadWeb = (): WebConfig => loadWebConfigFile(webFile ?? '');
  let webConfig: WebConfig | undefined;
  if (webFile !== undefined) {
    try {
      webConfig = loadWeb();
    } catch (err) {
      if (err instanceof ConfigError) return fail(err.message, 1);
      throw err;
    }
  }
  if (values['config.check']) {
    early?.release();
    const n = config.targets.length;
    process.stdout.write(
      `${config.origin}: valid, ${n} target${n === 1 ? '' : 's'} (${config.targets
        .slice(0, 5)
        .map((t) => t.name)
        .join(', ')}${n > 5 ? ', …' : ''})\n`,
    );
    if (webConfig) {
      const u = webConfig.users.size;
      process.stdout.write(
        `${webConfig.origin}: valid web config, ${webConfig.tls ? 'TLS' : 'plain HTTP'}, ${u ? `basic auth for ${u} user${u === 1 ? '' : 's'}` : 'no basic auth'}\n`,
      );
    }
    return 0;
  }

  setHeapGrowingPercent(heapGrowing);
  disablePretenuring();
  const logger = createLogger({ level, format });
  let exporter;
  try {
    exporter = await startExporter({
      config,
      logger,
      listenAddress: values['web.listen-address'],
      shard,
      maxConnections,
      maxScrapes,
      telemetryPath,
      ...(file ? { loadConfig: load } : {}),
      ...(webConfig ? { webConfig, loadWebConfig: loadWeb } : {}),
    });
  } catch (err) {
    logger.flush();
    // A port that cannot be bound or a bad address: one line, exit 1, no poll has started.
    return fail((err as Error).message, 1);
  }

  return new Promise<number>((resolve) => {
    const onHup = () => {
      exporter.reload().catch(() => {
        /* logged by reload; the old config stays */
      });
    };
    // SIGHUP was main.ts's since the process started: one that came during start-up reloads now, once.
    if (early?.reloadAsked) logger.info('SIGHUP received during start-up: reloading the configuration now');
    early?.handOver(onHup);
    const onStop = (signal: string) => {
      logger.info({ signal }, 'stopping: waiting for polls under way');
      // Stopping: a SIGHUP now neither reloads nor ends the process with 129.
      if (early) early.handOver(() => {});
      else process.off('SIGHUP', onHup);
      exporter.close().then(
        () => {
          logger.info('stopped');
          logger.flush();
          resolve(0);
        },
        (err: unknown) => {
          logger.error({ err }, 'error while stopping');
          logger.flush();
          resolve(1);
        },
      );
    };
    if (!early) process.on('SIGHUP', onHup);
    process.once('SIGTERM', () => onStop('SIGTERM'));
    process.once('SIGINT', () => onStop('SIGINT'));
  });
}
