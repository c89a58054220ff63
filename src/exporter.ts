// Wiring: one logger, clock, dispatcher, scheduler and registry per exporter,
// made here and passed down, so a test can build a whole exporter in-process.
import type { Logger } from 'pino';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config/schema.js';
import { Dispatchers } from './rpc/sockets.js';
import { Scheduler } from './scheduler/scheduler.js';
import { createInstruments, createSelfRegistry, type ReloadState } from './metrics/self.js';
import { createHandler } from './server/app.js';
import { WebServer } from './web/server.js';
import { openWebConfig, type WebConfig } from './web/config.js';
import { WebGuard } from './web/guard.js';
import { VERSION, REVISION } from './version.js';
import { NO_SHARDING, splitTargets, type ShardSpec } from './shard.js';

export interface ExporterOptions {
  config: Config;
  logger: Logger;
  /** HOST:PORT or :PORT (all interfaces). */
  listenAddress: string;
  clock?: Clock;
  /** This replica's shard: it polls, serves and lists only the targets it owns (default: all). */
  shard?: ShardSpec;
  /** Loads the config again (SIGHUP, POST /-/reload); absent when running on the built-in default. */
  loadConfig?: () => Config;
  /** TLS, basic auth and headers for the exporter's port (--web.config.file); absent: plain HTTP, open. */
  webConfig?: WebConfig;
  /** Loads the web config again on reload; absent without --web.config.file. */
  loadWebConfig?: () => WebConfig;
  /** Connections served at once (--web.max-connections). */
  maxConnections?: number;
  /** Scrapes of /metrics served at once (--web.max-requests; 0: no cap). */
  maxScrapes?: number;
  /** Where the metrics are served (--web.telemetry-path; default /metrics). */
  telemetryPath?: string;
  /** POST /-/reload reloads (--web.enable-lifecycle; default off: 403). */
  enableLifecycle?: boolean;
  /** The host names the exporter answers to (--web.allowed-hosts; default any). */
  allowedHosts?: readonly string[];
  /** Serve GET /-/debug/state (--web.enable-debug-state; off by default). */
  debugState?: boolean;
}

export interface RunningExporter {
  readonly url: string;
  readonly scheduler: Scheduler;
  reload(): Promise<void>;
  close(): Promise<void>;
}

/** The exporter's port when --web.listen-address is not given (Prometheus default port allocations). */
export const DEFAULT_LISTEN_ADDRESS = ':10650';

export function parseListenAddress(address: string): { host: string | undefined; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(address);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) {
    throw new Error(`--web.listen-address="${address}" is not HOST:PORT: write e.g. 127.0.0.1:10650, :10650 (all interfaces) or [::1]:10650`);
  }
  const host = m[1] ?? m[2];
  return { host: host ? host : undefined, port };
}

export async function startExporter(options: ExporterOptions): Promise<RunningExporter> {
  // What the closures below read, taken out of `options`: a closure holds its function's whole scope, and `options`
  // there kept the start-up config (every target of the first load) for the process's life (the soak, issue 35).
  const { logger, loadConfig, loadWebConfig } = options;
  const clock = options.clock ?? systemClock;
  const { host, port } = parseListenAddress(options.listenAddress);
  const instruments = createInstruments();
  const dispatchers = new Dispatchers({ onFileDescriptorError: () => instruments.fileDescriptorErrors.inc() });
  const shard = options.shard ?? NO_SHARDING;
  let config = options.config;
  // Every replica loads the whole config; the scheduler gets the targets this shard owns.
  let split = splitTargets(shard, config.targets);
  const scheduler = new Scheduler(
    {
      dispatchers,
      logger,
      clock,
      onPollStart: (delaySeconds) => instruments.pollStartDelay.observe(delaySeconds),
      onPollSkipped: (reason) => instruments.pollsSkipped.inc({ reason }),
    },
    { ...config, targets: split.owned },
  );
  const reloadState: ReloadState = { lastReloadSuccessful: true, lastSuccessSeconds: clock.now() / 1000 };

  /**
   * Reloads are serialized and coalesced. One that is asked while another runs waits for it, then reads the files as
   * they are by then; every request that comes meanwhile joins that one (a signal or POST /-/reload is answered by a
   * reload that read the files after it was made). A reload a request once made 500 SIGHUPs sent while the exporter
   * started 500 reloads in a row, chained without a turn of the event loop between them: nothing was served for 75 s.
   */
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  const reload = (): Promise<void> => {
    if (!loadConfig && !loadWebConfig)
      return Promise.reject(new Error('nothing to reload: the exporter runs without --config.file or --web.config.file'));
    if (queued) return queued;
    const start = (): Promise<void> => {
      const run = reloadOnce().finally(() => {
        if (running === run) running = undefined;
      });
      running = run;
      return run;
    };
    if (!running) return start();
    const next = running
      .catch(() => {})
      .then(() => {
        queued = undefined;
        return start();
      });
    queued = next;
    return next;
  };
  const reloadOnce = async (): Promise<void> => {
    // A turn of the event loop first: reloads asked back to back leave room for scrapes and polls between them.
    await new Promise((resolve) => setImmediate(resolve));
    let next: Config;
    let nextWeb: WebConfig | undefined;
    try {
      // Both files are read before either is applied: a bad one keeps both last good ones.
      next = loadConfig ? loadConfig() : config;
      if (loadWebConfig) {
        nextWeb = loadWebConfig();
        web.setWebConfig(nextWeb);
        guard.setConfig(nextWeb);
      }
    } catch (err) {
      reloadState.lastReloadSuccessful = false;
      // The problems, as --config.check prints them; a stack trace would say nothing more.
      logger.error({ error: err instanceof Error ? err.message : String(err) }, 'config reload failed; the previous configuration stays in force');
      throw err;
    }
    const nextSplit = splitTargets(shard, next.targets);
    await scheduler.apply({ ...next, targets: nextSplit.owned });
    // The unchanged targets as their pollers hold them (objects of an earlier load), not a copy of each a reload.
    config = { ...next, targets: scheduler.held(next.targets) };
    split = splitTargets(shard, config.targets);
    reloadState.lastReloadSuccessful = true;
    reloadState.lastSuccessSeconds = clock.now() / 1000;
    logger.info({ targets: next.targets.length, owned: split.owned.length, origin: next.origin }, 'configuration reloaded');
  };

  const webConfig = options.webConfig ?? openWebConfig();
  const guard = new WebGuard(webConfig, undefined, () => instruments.passwordChecksRefused.inc());
  const registry = createSelfRegistry({ instruments, version: VERSION, revision: REVISION, fleet: scheduler, reload: reloadState, shard });
  const handler = createHandler({
    fleet: scheduler,
    registry,
    version: VERSION,
    configOrigin: () => config.origin,
    config: () => config,
    nowSeconds: () => clock.now() / 1000,
    shard,
    ownerOf: (name: string) => split.ownerOf(name),
    ...(loadConfig || loadWebConfig ? { reload } : {}),
    lifecycle: options.enableLifecycle ?? false,
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    guard,
    ...(options.maxScrapes !== undefined ? { maxScrapes: options.maxScrapes } : {}),
    onScrapeRefused: () => instruments.scrapesRefused.inc(),
    onDebugProbeRefused: () => instruments.debugProbesRefused.inc(),
    ...(options.telemetryPath ? { telemetryPath: options.telemetryPath } : {}),
    logger,
    ...(options.debugState ? { debugState: true } : {}),
  });
  const web = new WebServer({ handler, web: webConfig, logger, ...(options.maxConnections ? { maxConnections: options.maxConnections } : {}) });
  // Rejects with a ListenError (one line for the operator) before any poll has started.
  const url = await web.listen(host, port, options.listenAddress);
  logger.info(
    {
      address: url,
      targets: config.targets.length,
      ...(shard.count > 1 ? { shard: shard.index, shards: shard.count, owned: split.owned.length } : {}),
      origin: config.origin,
      web: webConfig.origin,
      tls: web.tls,
      users: webConfig.users.size,
      version: VERSION,
    },
    'exporter listening',
  );
  await scheduler.start();

  return {
    url,
    scheduler,
    reload,
    async close() {
      await web.close();
      await guard.close();
      await scheduler.stop();
      await dispatchers.close();
    },
  };
}
