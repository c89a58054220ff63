// A real VictoriaMetrics for end-to-end tests, as docs/victoriametrics.md deploys it: the
// single-node server scraping the exporter (its own Prometheus-compatible scraper, the same
// job) and vmalert evaluating the project's rules against it, writing the recording rules'
// results back to it and sending alerts to an Alertmanager. Both are started on loopback in a
// ProcessGroup (stopped by PID) with their data in the caller's directory. The class answers as
// TestPrometheus does: the server's query API and vmalert's alerts.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RULES_DIR } from '../rules/lib.js';
import { freePort } from './net.js';
import type { ProcessGroup } from './processes.js';
import { QueryApi, RULE_FILES, speedUpRules, waitFor, type Alert } from './prometheus.js';

/** vmalert's -rule.evalDelay and VictoriaMetrics' -search.latencyOffset, their defaults (docs/victoriametrics.md): production seconds. */
export const EVAL_DELAY_SECONDS = 30;

export interface VictoriaMetricsOptions {
  /** The victoria-metrics and vmalert binaries (test/helpers/monitoring.ts). */
  victoriaMetrics: string;
  vmalert: string;
  /** Working directory: the scrape config, the sped-up rule files and the storage go here. */
  dir: string;
  job: string;
  /** host:port of each scrape target of the job. */
  targets: string[];
  /** Time runs this much faster: the evaluation delay, the latency offset and vmalert's remote-write flush are divided by it. */
  speedup: number;
  /** Scrape and evaluation interval (default 1s). */
  interval?: string;
  /** How each rule file's text is compressed (default: speedUpRules with `speedup`). */
  rules?: (text: string) => string;
  /** host:port of an Alertmanager to send the alerts to. */
  alertmanager?: string;
  /** vmalert's -external.label: added to every alert and every recorded series. */
  externalLabels?: Record<string, string>;
}

const ms = (seconds: number): string => `${Math.max(1, Math.round(seconds * 1000))}ms`;

/** VictoriaMetrics single-node and vmalert with the project's rules: the server's query API (`url`) and vmalert's. */
export class TestVictoriaMetrics extends QueryApi {
  private constructor(
    url: string,
    readonly vmalertUrl: string,
    private readonly group: ProcessGroup,
  ) {
    super(url);
  }

  static async start(group: ProcessGroup, o: VictoriaMetricsOptions): Promise<TestVictoriaMetrics> {
    const [vmPort, vmalertPort] = [await freePort(), await freePort()];
    const interval = o.interval ?? '1s';
    const rules = o.rules ?? ((text: string) => speedUpRules(text, o.speedup));
    for (const f of RULE_FILES) writeFileSync(join(o.dir, f), rules(readFileSync(join(RULES_DIR, f), 'utf8')));
    writeFileSync(
      join(o.dir, 'scrape.yml'),
      [
        'global:',
        `  scrape_interval: ${interval}`,
        'scrape_configs:',
        `  - job_name: ${o.job}`,
        '    static_configs:',
        `      - targets: [${o.targets.map((t) => `'${t}'`).join(', ')}]`,
        '',
      ].join('\n'),
    );
    const delay = ms(EVAL_DELAY_SECONDS / o.speedup);
    group.start('victoria-metrics', o.victoriaMetrics, [
      `-storageDataPath=${join(o.dir, 'vm')}`,
      `-httpListenAddr=127.0.0.1:${vmPort}`,
      `-promscrape.config=${join(o.dir, 'scrape.yml')}`,
      // Queries for the last latencyOffset are answered as of that long ago (data still arriving): vmalert's evalDelay matches it.
      `-search.latencyOffset=${delay}`,
      // A shared test machine: the caches' default is 60% of its memory.
      '-memory.allowedBytes=512MiB',
      '-loggerLevel=WARN',
    ]);
    const url = `http://127.0.0.1:${vmPort}`;
    await waitFor(group, 'VictoriaMetrics to be ready', 30_000, async () => ((await fetch(`${url}/health`)).ok ? true : undefined));
    group.start('vmalert', o.vmalert, [
      ...RULE_FILES.map((f) => `-rule=${join(o.dir, f)}`),
      `-datasource.url=${url}`,
      // The recording rules' results go back to the server: without it they are computed and lost.
      `-remoteWrite.url=${url}`,
      // Its default (5s) is a short while next to a 1m evaluation; in compressed time it is not.
      `-remoteWrite.flushInterval=${ms(5 / o.speedup)}`,
      ...(o.alertmanager ? [`-notifier.url=http://${o.alertmanager}`] : ['-notifier.blackhole']),
      `-evaluationInterval=${interval}`,
      ...Object.entries(o.externalLabels ?? {}).map(([k, v]) => `-external.label=${k}=${v}`),
      `-rule.evalDelay=${delay}`,
      '-disableAlertgroupLabel',
      `-httpListenAddr=127.0.0.1:${vmalertPort}`,
      '-loggerLevel=WARN',
    ]);
    const vm = new TestVictoriaMetrics(url, `http://127.0.0.1:${vmalertPort}`, group);
    await waitFor(group, 'vmalert to be ready', 30_000, async () => ((await fetch(`${vm.vmalertUrl}/health`)).ok ? true : undefined));
    return vm;
  }

  /** vmalert's pending and firing alerts (its Prometheus-compatible /api/v1/alerts). */
  async alerts(): Promise<Alert[]> {
    const res = await fetch(`${this.vmalertUrl}/api/v1/alerts`);
    const body = (await res.json()) as { data: { alerts: Alert[] } };
    return body.data.alerts.filter((a) => a.state === 'pending' || a.state === 'firing');
  }

  /** vmalert's rule groups, each rule with its health and last error (its /api/v1/rules). */
  async rules(): Promise<Array<{ name: string; rules: Array<{ name: string; health: string; lastError?: string }> }>> {
    const res = await fetch(`${this.vmalertUrl}/api/v1/rules`);
    const body = (await res.json()) as {
      data: { groups: Array<{ name: string; rules: Array<{ name: string; health: string; lastError?: string }> }> };
    };
    return body.data.groups;
  }

  waitFor<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
    return waitFor(this.group, what, timeoutMs, check);
  }
}
