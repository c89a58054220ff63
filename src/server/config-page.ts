// /config: the configuration in force, as the exporter resolved it (defaults merged into
// every target), with every secret redacted: header values, basic-auth passwords, TLS
// private keys. Certificates are public but long: shown by size.
import { stringify } from 'yaml';
import type { Config, TargetConfig } from '../config/schema.js';
import { esc, page } from './html.js';

export const REDACTED = '<secret>';

function pem(text: string | undefined, what: string): string | undefined {
  return text === undefined ? undefined : `<${what}, ${Buffer.byteLength(text)} bytes>`;
}

/** A target as the config page shows it: no secret leaves this function. */
export function redactTarget(t: TargetConfig): Record<string, unknown> {
  const { headers, basicAuth, tls, ...rest } = t;
  return {
    ...rest,
    headers: Object.fromEntries(Object.keys(headers).map((k) => [k, REDACTED])),
    ...(basicAuth ? { basicAuth: { username: basicAuth.username, password: REDACTED } } : {}),
    ...(tls
      ? {
          tls: {
            ...(tls.ca !== undefined ? { ca: pem(tls.ca, 'PEM CA certificate(s)') } : {}),
            ...(tls.cert !== undefined ? { cert: pem(tls.cert, 'PEM client certificate') } : {}),
            ...(tls.key !== undefined ? { key: REDACTED } : {}),
            ...(tls.serverName !== undefined ? { serverName: tls.serverName } : {}),
            insecureSkipVerify: tls.insecureSkipVerify,
          },
        }
      : {}),
  };
}

/** Targets listed on /config; a fleet of thousands is summarised after these. */
export const MAX_TARGETS_SHOWN = 200;

export function redactConfig(config: Config): Record<string, unknown> {
  return {
    origin: config.origin,
    maxConcurrentRequests: config.maxConcurrentRequests,
    targets: config.targets.slice(0, MAX_TARGETS_SHOWN).map(redactTarget),
    ...(config.targets.length > MAX_TARGETS_SHOWN ? { targetsNotShown: config.targets.length - MAX_TARGETS_SHOWN } : {}),
  };
}

export function configPage(config: Config, info: { shard?: { index: number; count: number } }): string {
  const shard =
    info.shard && info.shard.count > 1 ? ` This replica is shard ${info.shard.index} of ${info.shard.count}; every replica loads the same file.` : '';
  return page(
    'Configuration · AvalancheGo Exporter',
    `<h1>Configuration</h1>
<p>Loaded from ${esc(config.origin)}, every target with its settings resolved (durations in milliseconds). Header values, passwords and TLS keys are redacted.${esc(shard)}</p>
<pre>${esc(stringify(redactConfig(config), { lineWidth: 0 }))}</pre>`,
  );
}
