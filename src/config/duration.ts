// Durations as Prometheus writes them in its own config: 500ms, 15s, 1m, 1h30m.
const UNITS_MS: ReadonlyArray<[string, number]> = [
  ['y', 365 * 24 * 3600_000],
  ['w', 7 * 24 * 3600_000],
  ['d', 24 * 3600_000],
  ['h', 3600_000],
  ['m', 60_000],
  ['s', 1000],
  ['ms', 1],
];

// Units must appear largest first, each at most once (Prometheus' model.ParseDuration).
const PROM_DURATION_RE = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/;

/** Milliseconds for a Prometheus duration string, or undefined when it is not one. */
export function parsePromDuration(text: string): number | undefined {
  if (text === '0') return 0;
  const m = PROM_DURATION_RE.exec(text);
  if (!m || text === '') return undefined;
  let ms = 0;
  for (let i = 0; i < UNITS_MS.length; i++) {
    const part = m[i + 1];
    const unit = UNITS_MS[i];
    if (part !== undefined && unit) ms += Number(part) * unit[1];
  }
  return ms;
}

/** Writes milliseconds back as the shortest Prometheus duration string. */
export function formatPromDuration(ms: number): string {
  if (ms === 0) return '0s';
  let rest = ms;
  let out = '';
  for (const [unit, size] of UNITS_MS) {
    const n = Math.floor(rest / size);
    if (n > 0) {
      out += `${n}${unit}`;
      rest -= n * size;
    }
  }
  return out;
}
