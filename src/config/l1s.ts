// The `l1s:` list: the L1s watched as a whole, each from every node the operator runs that validates it (its
// vantages). The keys and their checks are here; which targets are an L1's vantages by default (those whose
// platform.subnets lists it) is decided above the config, where the platform source's section is known
// (scheduler/l1-poller.ts), since config/ names no source.
import type { ConfigProblem } from './document.js';
import { formatPromDuration, parsePromDuration } from './duration.js';
import { quote } from './echo.js';
import { L1_DEFAULTS, type L1Config, type RawL1 } from './schema.js';

/** The L1s resolved, or the problems: a subnet listed twice, a vantage that is no target, an interval not longer than a vantage's timeout. */
export function resolveL1s(
  raw: readonly RawL1[] | undefined,
  targets: ReadonlyArray<{ name: string; timeoutMs: number }>,
  problems: ConfigProblem[],
): L1Config[] {
  const seen = new Map<string, number>();
  const byName = new Map(targets.map((t) => [t.name, t]));
  const defaultInterval = parsePromDuration(L1_DEFAULTS.interval) ?? 60_000;
  return (raw ?? []).map((l, i) => {
    const first = seen.get(l.subnet);
    if (first !== undefined)
      problems.push({ path: ['l1s', i, 'subnet'], message: `subnet ${l.subnet} is listed twice (also l1s[${first}]): list each L1 once` });
    else seen.set(l.subnet, i);
    const intervalMs = l.interval ?? defaultInterval;
    (l.vantages ?? []).forEach((name, j) => {
      if (!byName.has(name))
        problems.push({
          path: ['l1s', i, 'vantages', j],
          message: `${quote(name)} is not the name of a target: list target names, or leave vantages out to use the targets whose platform.subnets lists the subnet`,
        });
    });
    const timeouts = (l.vantages ?? targets.map((t) => t.name)).map((n) => byName.get(n)).filter((t) => t !== undefined);
    const longest = timeouts.reduce((max, t) => Math.max(max, t.timeoutMs), 0);
    if (timeouts.length > 0 && intervalMs <= longest)
      problems.push({
        path: ['l1s', i, l.interval !== undefined ? 'interval' : 'subnet'],
        message: `the L1's interval (${formatPromDuration(intervalMs)}) must be longer than the timeout of its vantages (${formatPromDuration(longest)}): a poll must end before the next one is due; lengthen interval`,
      });
    return {
      subnet: l.subnet,
      ...(l.name !== undefined ? { name: l.name } : {}),
      ...(l.chain !== undefined ? { chain: l.chain } : {}),
      intervalMs,
      maxValidators: l.max_validators ?? L1_DEFAULTS.max_validators,
      ...(l.vantages !== undefined ? { vantages: [...new Set(l.vantages)] } : {}),
    };
  });
}

/** The L1s as the config file writes them (/config). */
export function showL1s(l1s: readonly L1Config[]): Array<Record<string, unknown>> {
  return l1s.map((l) => ({
    subnet: l.subnet,
    ...(l.name !== undefined ? { name: l.name } : {}),
    ...(l.chain !== undefined ? { chain: l.chain } : {}),
    interval: formatPromDuration(l.intervalMs),
    max_validators: l.maxValidators,
    ...(l.vantages !== undefined ? { vantages: [...l.vantages] } : {}),
  }));
}
