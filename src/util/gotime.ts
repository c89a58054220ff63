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
  // Read character by character, not by a regular expression: it runs for every check of every node at
  // every poll, and a match allocates an array and a string a field.
  const n = text.length;
  if (n < 20) return undefined;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  const t = text.charCodeAt(10);
  if (
    year < 0 ||
    month < 0 ||
    day < 0 ||
    hour < 0 ||
    minute < 0 ||
    second < 0 ||
    text.charCodeAt(4) !== 0x2d /* - */ ||
    text.charCodeAt(7) !== 0x2d ||
    (t !== 0x54 /* T */ && t !== 0x74) /* t */ ||
    text.charCodeAt(13) !== 0x3a /* : */ ||
    text.charCodeAt(16) !== 0x3a
  )
    return undefined;
  let i = 19;
  let frac = 0;
  if (text.charCodeAt(i) === 0x2e /* . */) {
    let value = 0;
    let scale = 1;
    i++;
    const start = i;
    for (; i < n && i - start < 10; i++) {
      const d = text.charCodeAt(i) - 0x30;
      if (!(d >= 0 && d <= 9)) break;
      value = value * 10 + d;
      scale *= 10;
    }
    const count = i - start;
    if (count < 1 || count > 9) return undefined;
    // An exact integer over an exact power of ten: the same double as Number("0.<digits>").
    frac = value / scale;
  }
  let offsetMinutes = 0;
  const z = text.charCodeAt(i);
  if (z === 0x5a /* Z */ || z === 0x7a /* z */) {
    if (i + 1 !== n) return undefined;
  } else if (z === 0x2b /* + */ || z === 0x2d /* - */) {
    if (i + 6 !== n || text.charCodeAt(i + 3) !== 0x3a) return undefined;
    const oh = digits(text, i + 1, 2);
    const om = digits(text, i + 4, 2);
    if (oh < 0 || om < 0 || oh > 23 || om > 59) return undefined;
    offsetMinutes = (z === 0x2d ? -1 : 1) * (oh * 60 + om);
  } else return undefined;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return undefined;
  const whole = daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60;
  const zero = year === 1 && month === 1 && day === 1 && hour === 0 && minute === 0 && second === 0 && frac === 0 && offsetMinutes === 0;
  return { seconds: whole + frac, zero };
}

/** The number written by `count` ASCII digits at `at`, or -1 when one of them is not a digit. */
function digits(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const d = text.charCodeAt(i) - 0x30;
    if (!(d >= 0 && d <= 9)) return -1;
    value = value * 10 + d;
  }
  return value;
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
