// /config: the configuration in force, as the exporter resolved it (defaults merged into
// every target), written as the config file is: snake_case keys, durations as durations,
// no YAML anchors, so that it can be compared with the file or copied into one. Every
// secret is redacted: header values, basic-auth passwords, TLS private keys. Certificates
// are public but long: shown by size.
import { stringify } from 'yaml';
import { formatPromDuration } from '../config/duration.js';
import { showL1s } from '../config/l1s.js';
import type { Config, ConfigSection, TargetConfig } from '../config/schema.js';
import { REDACTED } from '../util/redact.js';
import { esc, page } from './html.js';

function pem(text: string | undefined, what: string): string | undefined {
  return text === undefined ? undefined : `<${what}, ${Buffer.byteLength(text)} bytes>`;
}

const d = formatPromDuration;

/**
 * A target in the config file's form: no secret leaves this function, and no object is shared (no anchors).
 * Each source's section is shown by the section itself (config/source-section.ts), in the sources' order.
 */
export function redactTarget(t: TargetConfig, sections: readonly ConfigSection[]): Record<string, unknown> {
  const { tls, basicAuth } = t;
  return {
    name: t.name,
    url: t.url,
    interval: d(t.intervalMs),
    timeout: d(t.timeoutMs),
    ...Object.fromEntries(sections.map((section) => [section.key, section.show(section.of(t))])),
    limits: { max_series_per_node: t.limits.maxSeriesPerNode, max_label_length: t.limits.maxLabelLength },
    headers: Object.fromEntries(Object.keys(t.headers).map((k) => [k, REDACTED])),
    ...(tls
      ? {
          // The files were read at load: their content is what is in force.
          tls: {
            ...(tls.ca !== undefined ? { ca_file: pem(tls.ca, 'PEM CA certificate(s) read at load') } : {}),
            ...(tls.cert !== undefined ? { cert_file: pem(tls.cert, 'PEM client certificate read at load') } : {}),
            ...(tls.key !== undefined ? { key_file: REDACTED } : {}),
            ...(tls.serverName !== undefined ? { server_name: tls.serverName } : {}),
            insecure_skip_verify: tls.insecureSkipVerify,
          },
        }
      : {}),
    ...(basicAuth ? { basic_auth: { username: basicAuth.username, password: REDACTED } } : {}),
  };
}

/** Targets listed on /config; a fleet of thousands is summarised after these. */
export const MAX_TARGETS_SHOWN = 200;

/** The configuration in force in the config file's form (YAML keys), secrets redacted. */
export function redactConfig(config: Config): Record<string, unknown> {
  return {
    scheduler: { max_concurrent_requests: config.maxConcurrentRequests },
    ...(config.l1s && config.l1s.length > 0 ? { l1s: showL1s(config.l1s) } : {}),
    targets: config.targets.slice(0, MAX_TARGETS_SHOWN).map((t) => redactTarget(t, config.sections)),
  };
}

/** The YAML text of /config: one document, no anchors or aliases. */
export function configYaml(config: Config): string {
  const hidden = config.targets.length - MAX_TARGETS_SHOWN;
  const note = hidden > 0 ? `# ${hidden} more targets not shown (the first ${MAX_TARGETS_SHOWN} are)\n` : '';
  return `${stringify(redactConfig(config), { lineWidth: 0, aliasDuplicateObjects: false })}${note}`;
}

export function configPage(config: Config, info: { shard?: { index: number; count: number }; metricsPath?: string }): string {
  const shard =
    info.shard && info.shard.count > 1 ? ` This replica is shard ${info.shard.index} of ${info.shard.count}; every replica loads the same file.` : '';
  return page(
    'Configuration · AvalancheGo Exporter',
    `<h1>Configuration</h1>
<p>Loaded from ${esc(config.origin)}, written as the config file is, with every target's settings resolved (defaults merged in). Header values, passwords and TLS keys are redacted.${esc(shard)}</p>
<pre>${esc(configYaml(config))}</pre>`,
    { ...(info.metricsPath ? { metricsPath: info.metricsPath } : {}) },
  );
}
