// `avalanchego-exporter demo`: a small simulated fleet in mixed states and the
// exporter polling it, for a first look. Ctrl-C stops both.
import { parseArgs } from 'node:util';
import { configFromValue } from './sources/registry.js';
import { startExporter } from './exporter.js';
import { LOG_FORMATS, LOG_LEVELS, createLogger, type LogFormat, type LogLevel } from './log.js';
import { L1_SUBNET_ID, startSimulator, type ScenarioName } from './simulator/index.js';

/** The fleet: what an operator meets, faults developing over a few minutes. */
export const DEMO_SCENARIOS: readonly ScenarioName[] = [
  'healthy',
  'healthy',
  'bootstrapping',
  'stalled-chain',
  'disk-filling',
  'peers-dropping',
  'flapping',
  'down',
  // Validators losing money: appended so the names above stay as they were.
  'uptime-dropping',
  'stake-expiring',
  'l1-balance-draining',
  'node-id-changed',
  'version-behind',
  // The L1 as a whole (l1s:): another operator's validator of the demo's L1 stops, seen by every vantage.
  'l1-validator-stopped',
];

/**
 * Faults that happen to a running validator: such a node starts healthy, and its scenario begins once the
 * exporter has seen it validate. A node ID that changed before the exporter ever saw the old one cannot be
 * told from a node that never validated (the alert, too, looks back at avalanchego_validator being 1).
 */
export const DEMO_LATER: readonly ScenarioName[] = ['node-id-changed'];
/** How often the demo looks whether the exporter has seen such a node validate. */
const LATER_CHECK_MS = 500;
/** The banner waits for every node's first poll, at most this long. */
const FIRST_ROUND_WAIT_MS = 10_000;
const BANNER_CHECK_MS = 100;
/** How often the one-line reminder of the addresses is printed. */
const REMINDER_MS = 60_000;

/**
 * The demo's L1 validator running out of balance (l1-balance-draining) has this many seconds of fees left, in the
 * demo's time (10x): 30 minutes, three of the wall clock. Its runway counts down as it drains, and shows as a risk
 * (and would page, AvalancheGoL1ValidatorBalanceLow after 10m) well before the validator goes inactive.
 */
export const DEMO_L1_RUNWAY_SECONDS = 30 * 60;
/** How much faster than real time the demo's nodes run. */
export const DEMO_TIME_SCALE = 10;

/** Primary-network validators: every third node (the simulator's default) and the validator scenarios. */
export function demoValidator(i: number): boolean {
  return i % 3 === 0 || ['uptime-dropping', 'stake-expiring', 'node-id-changed', 'version-behind'].includes(DEMO_SCENARIOS[i] ?? 'healthy');
}

/** L1 validators (ACP-77, with a balance): healthy-1, which validates only the L1, the draining one, and the L1 set's vantage. */
export function demoL1Validator(i: number): boolean {
  return i === 1 || ['l1-balance-draining', 'node-id-changed', 'l1-validator-stopped'].includes(DEMO_SCENARIOS[i] ?? 'healthy');
}

const USAGE = `Usage: avalanchego-exporter demo [flags]

Starts ${DEMO_SCENARIOS.length} simulated AvalancheGo nodes (${[...new Set(DEMO_SCENARIOS)].join(', ')}),
running ${DEMO_TIME_SCALE} times faster than real time, and the exporter polling them every 5s.

Flags:
  --web.listen-address=HOST:PORT   where the exporter serves (default 127.0.0.1:10650)
  --log.level=LEVEL                ${LOG_LEVELS.join(', ')} (default info)
  --log.format=FORMAT              ${LOG_FORMATS.join(' or ')} (default pretty)
  -h, --help                       show this help
`;

export async function runDemo(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        'web.listen-address': { type: 'string', default: '127.0.0.1:10650' },
        'log.level': { type: 'string', default: 'info' },
        'log.format': { type: 'string', default: 'pretty' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    process.stderr.write(`avalanchego-exporter demo: ${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const level = values['log.level'] as LogLevel;
  const format = values['log.format'] as LogFormat;
  if (!LOG_LEVELS.includes(level) || !LOG_FORMATS.includes(format)) {
    process.stderr.write(`avalanchego-exporter demo: bad --log.level or --log.format\n${USAGE}`);
    return 2;
  }
  const logger = createLogger({ level, format });

  const simulator = await startSimulator({
    nodes: DEMO_SCENARIOS.length,
    scenario: (i) => {
      const s = DEMO_SCENARIOS[i] ?? 'healthy';
      return DEMO_LATER.includes(s) ? 'healthy' : s;
    },
    timeScale: DEMO_TIME_SCALE,
    timings: { l1DrainSeconds: DEMO_L1_RUNWAY_SECONDS },
    validator: demoValidator,
    trackL1: demoL1Validator,
    l1Validator: demoL1Validator,
  });
  const config = configFromValue(
    {
      // The simulated L1 in platform.subnets, as an operator lists theirs: without it there is no
      // avalanchego_l1_validator_* series and l1-balance-draining shows nothing.
      // Platform every 10 s (not 1 m): a node that leaves the validator set shows within seconds, as time runs 10x.
      defaults: { interval: '5s', timeout: '2s', platform: { interval: '10s', subnets: [L1_SUBNET_ID] } },
      // The simulator's names, so that a node is the same on /, in /metrics and in /sim/nodes/<name>.
      targets: simulator.nodes.map((n) => ({ name: n.name, url: n.baseUrl })),
      // The L1 as a whole (/l1/<subnet>): its whole set, from every node that validates it.
      l1s: [{ subnet: L1_SUBNET_ID, interval: '10s' }],
    },
    `demo fleet of ${simulator.nodes.length} simulated nodes at ${simulator.url}`,
  );
  let exporter;
  try {
    exporter = await startExporter({ config, logger, listenAddress: values['web.listen-address'] });
  } catch (err) {
    await simulator.close();
    process.stderr.write(`avalanchego-exporter demo: cannot start the exporter: ${(err as Error).message}\n`);
    return 1;
  }

  // Each later scenario begins once the exporter's platform source has seen its node in the primary network's set.
  const later = new Map<string, ScenarioName>();
  simulator.nodes.forEach((n, i) => {
    const scenario = DEMO_SCENARIOS[i];
    if (scenario !== undefined && DEMO_LATER.includes(scenario)) later.set(n.name, scenario);
  });
  const begin = setInterval(() => {
    for (const n of exporter.scheduler.summaries()) {
      const scenario = later.get(n.name);
      if (scenario === undefined || n.validator?.stake === undefined) continue;
      simulator.setScenario(n.name, scenario);
      later.delete(n.name);
    }
    if (later.size === 0) clearInterval(begin);
  }, LATER_CHECK_MS);

  const shown = encodeURIComponent((config.targets[3] ?? config.targets[0])?.name ?? '');
  const banner = `
  AvalancheGo exporter demo
  ─────────────────────────
  Simulated nodes:   ${simulator.url}
                     ${simulator.nodes.map((n, i) => `${n.name} ${DEMO_SCENARIOS[i]}`).join(', ')}
  Landing page:      ${exporter.url}/
  One node:          ${exporter.url}/node/${shown}   (its series: ${exporter.url}/probe?target=${shown})
  Configuration:     ${exporter.url}/config
  Metrics:           ${exporter.url}/metrics
  Push a node into a fault:
    curl -X POST -d '{"scenario":"router-overload"}' ${simulator.url}/sim/nodes/node-0/scenario

  Faults develop over a few minutes (time runs ${DEMO_TIME_SCALE}x). Ctrl-C stops the demo.

`;
  // The banner after the first round of polls, whose faults (a down node, a bootstrapping one) are logged at once
  // and would scroll it away; then a one-line reminder now and then, between the faults that develop.
  const firstRound = Date.now();
  let bannerShown = false;
  const showBanner = setInterval(() => {
    if (exporter.scheduler.pendingFirstPoll > 0 && Date.now() - firstRound < FIRST_ROUND_WAIT_MS) return;
    clearInterval(showBanner);
    bannerShown = true;
    process.stdout.write(banner);
  }, BANNER_CHECK_MS);
  const remind = setInterval(() => {
    if (bannerShown) process.stdout.write(`  demo: ${exporter.url}/ (the nodes), ${exporter.url}/metrics; Ctrl-C stops it\n`);
  }, REMINDER_MS);

  return new Promise<number>((resolve) => {
    const stop = (signal: string) => {
      clearInterval(begin);
      clearInterval(showBanner);
      clearInterval(remind);
      logger.info({ signal }, 'stopping the demo');
      Promise.all([exporter.close(), simulator.close()]).then(
        () => {
          logger.flush();
          resolve(0);
        },
        (err: unknown) => {
          logger.error({ err }, 'error while stopping');
          resolve(1);
        },
      );
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}
