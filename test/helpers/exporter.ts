// Builds a whole exporter in-process on loopback, with an in-memory log sink.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach } from 'vitest';
import { parseConfigText } from '../../src/sources/registry.js';
import { startExporter, type ExporterOptions, type RunningExporter } from '../../src/exporter.js';
import { LOG_REDACTION } from '../../src/util/redact.js';
import type { Clock } from '../../src/clock.js';
import { waitFor } from './fake-node.js';

export interface TestExporter extends RunningExporter {
  logs: Array<Record<string, unknown>>;
  rawLogs: () => string;
  metrics(path?: string): Promise<string>;
}

export async function startTestExporter(
  yaml: string,
  options: { clock?: Clock; env?: Record<string, string>; level?: string; exporter?: Partial<ExporterOptions> } = {},
): Promise<TestExporter> {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  const logger = pino({ level: options.level ?? 'debug', redact: LOG_REDACTION }, sink);
  const config = parseConfigText(yaml, 'test.yaml', options.env ?? {});
  const exporter = await startExporter({
    config,
    logger,
    listenAddress: '127.0.0.1:0',
    ...(options.clock ? { clock: options.clock } : {}),
    ...options.exporter,
  });
  const logs = () =>
    chunks
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  // A getter, defined (not copied) so that every read sees the logs so far.
  Object.defineProperty(exporter, 'logs', { get: logs });
  return Object.assign(exporter, {
    rawLogs: () => chunks.join(''),
    async metrics(path = '/metrics') {
      const res = await fetch(`${exporter.url}${path}`);
      return res.text();
    },
  }) as TestExporter;
}

/** Waits until every target has finished `polls` polls (1 = the first). */
export async function waitForPolls(exporter: RunningExporter, polls = 1, timeoutMs = 10_000): Promise<void> {
  await waitFor(() => exporter.scheduler.summaries().every((s) => s.polls >= polls), `${polls} poll(s) of every target`, timeoutMs);
}

/** The value of one sample in exposition text, or undefined. */
export function sample(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return undefined;
}

/**
 * After each test of the file: closes what `started()` lists (an exporter before the nodes it polls), every one
 * even when one fails to close or the test failed, then `forget()` resets the variables; the first close error
 * fails the test. `closeAfterEach(() => [exporter, node], () => (exporter = node = undefined));`
 */
export function closeAfterEach(started: () => ReadonlyArray<{ close(): Promise<void> } | undefined>, forget: () => void): void {
  afterEach(async () => {
    const errors: unknown[] = [];
    for (const s of started()) await s?.close().catch((err: unknown) => errors.push(err));
    forget();
    if (errors.length > 0) throw errors[0];
  });
}

/** Every node's series as /metrics serves them after the exporter's own (the scheduler's chunks, joined). */
export function nodeSeries(fleet: { renderChunks(): Iterable<Buffer> }): string {
  return Buffer.concat([...fleet.renderChunks()]).toString();
}
