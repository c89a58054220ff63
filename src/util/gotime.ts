// Go's time.Duration and time.Time wire formats, as AvalancheGo emits them.
// Parsing is used by the exporter; formatting by the simulator. Both follow
// Go's src/time/time.go (Duration.String, Time.MarshalJSON) so that the
// simulator's output is byte-identical to a node's.

const NS_PER_UNIT: Record<string, number> = {
  ns: 1,
  us: 1e3,
  µs: 1e3, // U+00B5 MICRO SIGN: what Duration.String emits
  μs: 1e3, // U+03BC GREEK SMALL LETTER MU: accepted by time.ParseDuration
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

const DURATION_RE = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/;
const DURATION_PART_RE = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g;

/**
 * Parses a Go duration string ("1.5µs", "5m12.004s", "62h14m9.512634885s", "0s")
 * into seconds. Returns undefined when the string is not a Go duration.
 */
export function parseGoDuration(text: string): number | undefined {
  if (text === '0' || text === '-0' || text === '+0') return 0;
  if (!DURATION_RE.test(text)) return undefined;
  const negative = text.startsWith('-');
  let ns = 0;
  for (const match of text.matchAll(DURATION_PART_RE)) {
    // DURATION_RE has checked every unit.
    const unit = NS_PER_UNIT[match[2] ?? ''] ?? 0;
    ns += Number(match[1]) * unit;
  }
  const seconds = ns / 1e9;
  return negative ? -seconds : seconds;
}

/** Formats nanoseconds exactly as Go's time.Duration.String does. */
export function formatGoDuration(nanoseconds: bigint | number): string {
  let ns = typeof nanoseconds === 'bigint' ? nanoseconds : BigInt(Math.trunc(nanoseconds));
  if (ns === 0n) return '0s';
  const negative = ns < 0n;
  if (negative) ns = -ns;
  let out: string;
  if (ns < 1_000_000_000n) {
    // One unit below a second: ns, µs or ms with the fraction trimmed.
    if (ns < 1_000n) out = `${ns}ns`;
    else if (ns < 1_000_000n) out = `${fraction(ns, 3)}µs`;
    else out = `${fraction(ns, 6)}ms`;
  } else {
    const hours = ns / 3_600_000_000_000n;
    const rest = ns % 3_600_000_000_000n;
    const minutes = rest / 60_000_000_000n;
    const secNs = rest % 60_000_000_000n;
    out = `${fraction(secNs, 9)}s`;
    if (hours > 0n || minutes > 0n) out = `${minutes}m${out}`;
    if (hours > 0n) out = `${hours}h${out}`;
  }
  return negative ? `-${out}` : out;
}

/** value / 10^digits written with trailing zeros (and a bare point) trimmed. */
function fraction(value: bigint, digits: number): string {
  const scale = 10n ** BigInt(digits);
  const whole = value / scale;
  const frac = (value % scale).toString().padStart(digits, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : `${whole}`;
}

const RFC3339_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Days from 1970-01-01 to the proleptic Gregorian date (Howard Hinnant's algorithm). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return [year, month, day];
}

export interface ParsedTime {
  /** Unix time in seconds (fractional). */
  seconds: number;
  /** Go's zero time, 0001-01-01T00:00:00Z: a check that has never run. */
  zero: boolean;
}

/**
 * Parses an RFC 3339 time with 0 to 9 fractional digits in any zone
 * ("2026-03-31T00:45:50.48730188Z", "2024-03-26T19:44:45.2931-04:00").
 * Returns undefined when the text is not such a time.
 */
export function parseRfc3339(text: string): ParsedTime | undefined {
  const m = RFC3339_RE.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return undefined;
  let offsetMinutes = 0;
  if (m[9]) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const frac = m[7] ? Number(`0.${m[7]}`) : 0;
  const whole = daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60;
  const zero = year === 1 && month === 1 && day === 1 && hour === 0 && minute === 0 && second === 0 && frac === 0 && offsetMinutes === 0;
  return { seconds: whole + frac, zero };
}

export const GO_ZERO_TIME = '0001-01-01T00:00:00Z';

/**
 * Formats a time as Go's Time.MarshalJSON does (RFC3339Nano: fraction with
 * trailing zeros trimmed, `Z` for UTC or `±hh:mm`).
 * @param unixNanos nanoseconds since the Unix epoch
 * @param offsetMinutes the zone's offset from UTC, east positive
 */
export function formatRfc3339Nano(unixNanos: bigint, offsetMinutes = 0): string {
  const localNanos = unixNanos + BigInt(offsetMinutes) * 60_000_000_000n;
  let secs = localNanos / 1_000_000_000n;
  let nanos = localNanos % 1_000_000_000n;
  if (nanos < 0n) {
    nanos += 1_000_000_000n;
    secs -= 1n;
  }
  const s = Number(secs);
  const days = Math.floor(s / 86400);
  const sod = s - days * 86400;
  const [y, mo, d] = civilFromDays(days);
  const p2 = (n: number) => String(n).padStart(2, '0');
  const fracText = nanos === 0n ? '' : `.${nanos.toString().padStart(9, '0').replace(/0+$/, '')}`;
  let zone = 'Z';
  if (offsetMinutes !== 0) {
    const abs = Math.abs(offsetMinutes);
    zone = `${offsetMinutes < 0 ? '-' : '+'}${p2(Math.floor(abs / 60))}:${p2(abs % 60)}`;
  }
  return `${String(y).padStart(4, '0')}-${p2(mo)}-${p2(d)}T${p2(Math.floor(sod / 3600))}:${p2(Math.floor((sod % 3600) / 60))}:${p2(sod % 60)}${fracText}${zone}`;
}
