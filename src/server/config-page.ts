// /config: the configuration in force, as the exporter resolved it (defaults merged into
// every target), with every secret redacted: header values, basic-auth passwords, TLS
// private keys. Certificates are public but long: shown by size.
import { stringify } from 'yaml';
import type { Config } from '../config/schema.js';
import { redactTarget } from '../util/redact.js';
import { esc, page } from './html.js';

/** Targets listed on /config; a fleet of thousands is summarised after these. */
export const MAX_TARGETS_SHOWN = 200;

export function redactConfig(config: Config): Record<string, unknown> {
  return {
    origin: config.origin,
    maxConcurrentRequests: config.maxConcurrentRequests,
    targets: config.targets.slice(0, MAX_TARGETS_SHOWN).map((t) => redactTarget(t)),
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
