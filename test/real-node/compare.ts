// Compares two answers to the same request by what must not change between runs or between the
// node and the simulator: status, content type, the JSON key sets and value types, JSON-RPC error
// codes and messages (numbers masked), and plain-text bodies. IDs, heights and times may differ.

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** `string`, `number`, `boolean`, `null`, an object of shapes, or an array shape (`'empty'` for an empty array). */
export type Shape = string | { [key: string]: Shape } | { '[]': Shape };

export function shapeOf(value: unknown): Shape {
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    if (value.length === 0) return { '[]': 'empty' };
    // Elements of one array share a shape in every node answer; use the first one.
    return { '[]': shapeOf(value[0]) };
  }
  if (typeof value === 'object') {
    const out: { [key: string]: Shape } = {};
    // Wire order is kept: Go writes struct fields in declaration order and map keys sorted.
    for (const key of Object.keys(value)) out[key] = shapeOf((value as Record<string, unknown>)[key]);
    return out;
  }
  return typeof value;
}

/** Differences between two shapes; an empty array matches an array of anything. */
export function diffShapes(a: Shape, b: Shape, path = '$'): string[] {
  if (typeof a === 'string' || typeof b === 'string') {
    return a === b ? [] : [`${path}: ${describe(a)} vs ${describe(b)}`];
  }
  const aArr = '[]' in a ? (a as { '[]': Shape })['[]'] : undefined;
  const bArr = '[]' in b ? (b as { '[]': Shape })['[]'] : undefined;
  if (aArr !== undefined || bArr !== undefined) {
    if (aArr === undefined || bArr === undefined) return [`${path}: ${describe(a)} vs ${describe(b)}`];
    if (aArr === 'empty' || bArr === 'empty') return [];
    return diffShapes(aArr, bArr, `${path}[]`);
  }
  const out: string[] = [];
  const aObj = a as { [key: string]: Shape };
  const bObj = b as { [key: string]: Shape };
  const aOrder = Object.keys(aObj).filter((k) => k in bObj);
  const bOrder = Object.keys(bObj).filter((k) => k in aObj);
  if (aOrder.join('\0') !== bOrder.join('\0')) out.push(`${path}: key order ${aOrder.join(',')} vs ${bOrder.join(',')}`);
  for (const key of new Set([...Object.keys(aObj), ...Object.keys(bObj)])) {
    const av = aObj[key];
    const bv = bObj[key];
    if (av === undefined) out.push(`${path}.${key}: missing in first`);
    else if (bv === undefined) out.push(`${path}.${key}: missing in second`);
    else out.push(...diffShapes(av, bv, `${path}.${key}`));
  }
  return out;
}

function describe(s: Shape): string {
  if (typeof s === 'string') return s;
  return '[]' in s ? 'array' : 'object';
}

/** Masks numbers so that `start index (13) > last accepted index (2)` compares by wording. */
export function maskNumbers(text: string): string {
  return text.replace(/\d+(\.\d+)?/g, 'N');
}

function mediaType(headers: Record<string, string>): string {
  return (headers['content-type'] ?? '').toLowerCase();
}

function tryJson(body: string): { ok: true; value: unknown } | { ok: false } {
  if (body.trim() === '') return { ok: false };
  try {
    return { ok: true, value: JSON.parse(body) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Headers whose presence (not value) must agree: the node sets them on every or some answers. */
const PRESENCE_HEADERS = ['node-id', 'x-content-type-options', 'vary'];

/** Every way `b` differs from `a`; empty when they agree. */
export function compareAnswers(a: Answer, b: Answer): string[] {
  const out: string[] = [];
  if (a.status !== b.status) out.push(`status ${a.status} vs ${b.status}`);
  if (mediaType(a.headers) !== mediaType(b.headers)) {
    out.push(`content-type ${JSON.stringify(a.headers['content-type'])} vs ${JSON.stringify(b.headers['content-type'])}`);
  }
  for (const name of PRESENCE_HEADERS) {
    if (name in a.headers !== name in b.headers) {
      out.push(`header ${name} ${name in a.headers ? 'present' : 'absent'} vs ${name in b.headers ? 'present' : 'absent'}`);
    }
  }
  const aj = tryJson(a.body);
  const bj = tryJson(b.body);
  if (!aj.ok || !bj.ok) {
    if (aj.ok !== bj.ok) out.push(`body JSON ${aj.ok} vs ${bj.ok}`);
    else if (maskNumbers(a.body) !== maskNumbers(b.body)) out.push(`body ${JSON.stringify(a.body)} vs ${JSON.stringify(b.body)}`);
    return out;
  }
  out.push(...diffShapes(shapeOf(aj.value), shapeOf(bj.value)).map((d) => `shape ${d}`));
  const aErr = rpcError(aj.value);
  const bErr = rpcError(bj.value);
  if (aErr && bErr) {
    if (aErr.code !== bErr.code) out.push(`error.code ${String(aErr.code)} vs ${String(bErr.code)}`);
    if (maskNumbers(aErr.message) !== maskNumbers(bErr.message)) {
      out.push(`error.message ${JSON.stringify(aErr.message)} vs ${JSON.stringify(bErr.message)}`);
    } else if (maskNumbers(a.body) !== maskNumbers(b.body)) {
      // Same error: the whole envelope must then be byte-identical (numbers aside).
      out.push(`error body ${JSON.stringify(a.body)} vs ${JSON.stringify(b.body)}`);
    }
  }
  // A body ending in "\n" (json.Encoder) versus one without is a real difference for byte-exact clients.
  if (a.body.endsWith('\n') !== b.body.endsWith('\n')) out.push('trailing newline differs');
  return out;
}

function rpcError(value: unknown): { code: unknown; message: string } | undefined {
  if (value && typeof value === 'object' && 'error' in value) {
    const err = value.error;
    if (err && typeof err === 'object' && 'message' in err) {
      const e = err as { code?: unknown; message: unknown };
      return { code: e.code, message: String(e.message) };
    }
  }
  return undefined;
}
