// A real Prometheus (Prometheus 3 or Debian's 2.42, test/helpers/monitoring.ts) for end-to-end tests: the project's rules sped up,
// a process started on loopback and stopped by PID through a ProcessGroup, and its HTTP API.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RULES_DIR } from '../rules/lib.js';
import { defined, errorText } from './assert.js';
import { freePort } from './net.js';
import type { ProcessGroup } from './processes.js';

export interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}
export interface Alert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: string;
  activeAt: string;
}

/**
 * Polls `check` until it returns a value other than undefined, or fails at the deadline.
 * Fails early when a process of `group` has exited, with every process's log tail.
 */
export async function waitFor<T>(group: ProcessGroup, what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    for (const p of group.procs) {
      if (p.child.exitCode !== null && !p.expectedExit)
        throw new Error(`${p.name} exited (${p.child.exitCode}) while waiting for ${what}\n${group.logs()}`);
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${errorText(last)})` : ''}\n${group.logs()}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

// At least 2s, so that a window holds two samples at a 1s interval; but 0 stays 0: `for: 0m` fires at
// the first evaluation, and a 2s floor there made an alert meant to page at once wait 2s (40s at 20x).
function scaleDuration(value: number, unit: string, speedup: number): string {
  const seconds = value * defined(({ s: 1, m: 60, h: 3600, d: 86400 } as Record<string, number>)[unit], `the duration unit ${unit}`);
  return seconds === 0 ? '0s' : `${Math.max(2, Math.round(seconds / speedup))}s`;
}

/** A rule file's text with every `for:`, `keep_firing_for:`, range window and offset divided by `speedup`. */
export function speedUpRules(text: string, speedup: number): string {
  return text
    .replace(/^(\s+(?:keep_firing_)?for: )(\d+)([smhd])$/gm, (_m, pre: string, n: string, u: string) => pre + scaleDuration(Number(n), u, speedup))
    .replace(/\[(\d+)([smhd])\]/g, (_m, n: string, u: string) => `[${scaleDuration(Number(n), u, speedup)}]`)
    .replace(/\boffset (\d+)([smhd])\b/g, (_m, n: string, u: string) => `offset ${scaleDuration(Number(n), u, speedup)}`);
}

export const RULE_FILES = ['avalanchego-recording.yml', 'avalanchego-alerts.yml'];

export interface PrometheusOptions {
  /** The prometheus binary (test/helpers/monitoring.ts); default `prometheus` on PATH (Debian's). */
  binary?: string;
  /** Working directory: the config, the sped-up rule files and the TSDB go here. */
  dir: string;
  job: string;
  /** host:port of each scrape target of the job. */
  targets: string[];
  speedup: number;
  /** Scrape and evaluation interval (default 1s). */
  interval?: string;
  /** How each rule file's text is compressed (default: speedUpRules with `speedup`). */
  rules?: (text: string) => string;
  /** host:port of an Alertmanager to send the alerts to. */
  alertmanager?: string;
}

/** Prometheus' query API (/api/v1/query) at `url`; VictoriaMetrics answers it alike. */
export class QueryApi {
  constructor(readonly url: string) {}

  async query(expr: string): Promise<{ status: string; error?: string; data?: { resultType: string; result: Sample[] | [number, string] } }> {
    const res = await fetch(`${this.url}/api/v1/query?${new URLSearchParams({ query: expr }).toString()}`);
    return (await res.json()) as { status: string; error?: string; data?: { resultType: string; result: Sample[] } };
  }

  async vector(expr: string): Promise<Sample[]> {
    const r = await this.query(expr);
    if (r.status !== 'success') throw new Error(`${expr}: ${r.error}`);
    return r.data?.result as Sample[];
  }
}

/** A Prometheus process with the project's rules, and its query API. */
export class TestPrometheus extends QueryApi {
  private constructor(
    url: string,
    private readonly group: ProcessGroup,
  ) {
    super(url);
  }

  static async start(group: ProcessGroup, o: PrometheusOptions): Promise<TestPrometheus> {
    const port = await freePort();
    const rules = o.rules ?? ((text: string) => speedUpRules(text, o.speedup));
    for (const f of RULE_FILES) writeFileSync(join(o.dir, f), rules(readFileSync(join(RULES_DIR, f), 'utf8')));
    const interval = o.interval ?? '1s';
    writeFileSync(
      join(o.dir, 'prometheus.yml'),
      [
        'global:',
        `  scrape_interval: ${interval}`,
        `  evaluation_interval: ${interval}`,
        'rule_files:',
        ...RULE_FILES.map((f) => `  - ${f}`),
        ...(o.alertmanager ? ['alerting:', '  alertmanagers:', '    - static_configs:', `        - targets: ['${o.alertmanager}']`] : []),
        'scrape_configs:',
        `  - job_name: ${o.job}`,
        '    static_configs:',
        `      - targets: [${o.targets.map((t) => `'${t}'`).join(', ')}]`,
        '',
      ].join('\n'),
    );
    group.start('prometheus', o.binary ?? 'prometheus', [
      `--config.file=${join(o.dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(o.dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ]);
    const prom = new TestPrometheus(`http://127.0.0.1:${port}`, group);
    await waitFor(group, 'Prometheus to be ready', 30_000, async () => ((await fetch(`${prom.url}/-/ready`)).ok ? true : undefined));
    return prom;
  }

  async alerts(): Promise<Alert[]> {
    const res = await fetch(`${this.url}/api/v1/alerts`);
    const body = (await res.json()) as { data: { alerts: Alert[] } };
    return body.data.alerts;
  }

  /** The alert named `name` in state firing whose labels include `labels`, or undefined. */
  async firing(name: string, labels: Record<string, string> = {}): Promise<Alert | undefined> {
    return (await this.alerts()).find(
      (a) => a.labels['alertname'] === name && a.state === 'firing' && Object.entries(labels).every(([k, v]) => a.labels[k] === v),
    );
  }

  waitFor<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
    return waitFor(this.group, what, timeoutMs, check);
  }
}
