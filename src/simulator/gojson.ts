// Go encoding/json compatibility: the simulator must emit the bytes a node
// emits (HTML-safe escaping, sorted map keys, Go float text) and must read
// requests the way Go's decoder does (same syntax error messages, numbers
// kept as text so uint64 values survive).

const HTML_UNSAFE = /[<>&\u2028\u2029]/g;
const HTML_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** Applies json.Encoder's default EscapeHTML to already-serialized JSON. */
export function escapeHtml(json: string): string {
  return json.replace(HTML_UNSAFE, (c) => HTML_ESCAPES[c] ?? c);
}

/** A JSON string literal exactly as Go's encoder writes it. */
export function goString(s: string): string {
  return escapeHtml(JSON.stringify(s));
}

/**
 * Serializes a value as Go would. Objects keep their insertion order (Go
 * structs); pass sortMaps to sort the keys of every object (Go maps).
 */
export function goJson(value: unknown, sortMaps = false): string {
  return escapeHtml(encode(value, sortMaps));
}

function encode(value: unknown, sortMaps: boolean): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      // JS shortest round-trip text matches Go's 'f'/'e' float formatting
      // (including 1e-7 and 1e+21); non-finite values cannot occur in Go JSON.
      if (!Number.isFinite(value)) throw new Error('non-finite number in JSON');
      return String(value);
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      break;
  }
  if (Array.isArray(value)) return `[${value.map((v) => encode(v, sortMaps)).join(',')}]`;
  const obj = value as Record<string, unknown>;
  let keys = Object.keys(obj).filter((k) => obj[k] !== undefined);
  if (sortMaps) keys = keys.sort(byteOrder);
  return `{${keys.map((k) => `${JSON.stringify(k)}:${encode(obj[k], sortMaps)}`).join(',')}}`;
}

/** Go sorts map keys bytewise (UTF-8); code-point order gives the same result. */
export function byteOrder(a: string, b: string): number {
  if (a === b) return 0;
  // Code point by code point (a pair of UTF-16 surrogates is one).
  let i = 0;
  let j = 0;
  for (;;) {
    const x = a.codePointAt(i);
    const y = b.codePointAt(j);
    if (x === undefined || y === undefined) return (x === undefined ? 0 : 1) - (y === undefined ? 0 : 1);
    if (x !== y) return x - y;
    i += x > 0xffff ? 2 : 1;
    j += y > 0xffff ? 2 : 1;
  }
}

/** strconv.Quote, as used by %q in Go error messages. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (cp === 7) out += '\\a';
    else if (cp === 8) out += '\\b';
    else if (cp === 12) out += '\\f';
    else if (cp === 10) out += '\\n';
    else if (cp === 13) out += '\\r';
    else if (cp === 9) out += '\\t';
    else if (cp === 11) out += '\\v';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp >= 0x80 && cp < 0xa0) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

// ---------------------------------------------------------------------------
// Decoding

export type JsonNode =
  | { kind: 'object'; entries: Array<[string, JsonNode]>; start: number; end: number }
  | { kind: 'array'; items: JsonNode[]; start: number; end: number }
  | { kind: 'string'; value: string; start: number; end: number }
  | { kind: 'number'; text: string; start: number; end: number }
  | { kind: 'bool'; value: boolean; start: number; end: number }
  | { kind: 'null'; start: number; end: number };

/** A decode failure carrying Go's error text (json.SyntaxError, io.EOF …). */
export class GoJsonError extends Error {}

/** Go's quoteChar from encoding/json/scanner.go. */
function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return "'\"'";
  const q = goQuote(c);
  return `'${q.slice(1, -1)}'`;
}

/**
 * Parses the first JSON value of `text` like json.Decoder.Decode: syntax
 * errors carry Go's messages, an empty body is "EOF" and a cut-off value is
 * "unexpected EOF". Text after the first value is ignored, as the decoder does.
 */
export function parseGoJson(text: string): JsonNode {
  const p = new Parser(text);
  p.skipWs();
  if (p.pos >= text.length) throw new GoJsonError('EOF');
  return p.value('looking for beginning of value');
}

class Parser {
  pos = 0;
  constructor(readonly s: string) {}

  skipWs(): void {
    const s = this.s;
    while (this.pos < s.length) {
      const c = s.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.pos++;
      else break;
    }
  }

  fail(context: string): never {
    if (this.pos >= this.s.length) throw new GoJsonError('unexpected EOF');
    const ch = String.fromCodePoint(this.s.codePointAt(this.pos) ?? 0);
    throw new GoJsonError(`invalid character ${quoteChar(ch)} ${context}`);
  }

  value(context: string): JsonNode {
    this.skipWs();
    const start = this.pos;
    const c = this.s[this.pos];
    switch (c) {
      case '{':
        return this.object(start);
      case '[':
        return this.array(start);
      case '"':
        return { kind: 'string', value: this.string(), start, end: this.pos };
      case 't':
        this.literal('true');
        return { kind: 'bool', value: true, start, end: this.pos };
      case 'f':
        this.literal('false');
        return { kind: 'bool', value: false, start, end: this.pos };
      case 'n':
        this.literal('null');
        return { kind: 'null', start, end: this.pos };
      default:
        if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number(start);
        return this.fail(context);
    }
  }

  literal(word: string): void {
    for (let i = 0; i < word.length; i++, this.pos++) {
      if (this.s[this.pos] !== word[i]) {
        if (i === 0) this.fail('looking for beginning of value');
        this.fail(`in literal ${word} (expecting ${quoteChar(word.charAt(i))})`);
      }
    }
  }

  number(start: number): JsonNode {
    const s = this.s;
    const digit = () => {
      const c = s.charCodeAt(this.pos);
      return c >= 0x30 && c <= 0x39;
    };
    if (s[this.pos] === '-') {
      this.pos++;
      if (!digit()) this.fail('in numeric literal');
    }
    if (s[this.pos] === '0') this.pos++;
    else while (digit()) this.pos++;
    if (s[this.pos] === '.') {
      this.pos++;
      if (!digit()) this.fail('after decimal point in numeric literal');
      while (digit()) this.pos++;
    }
    if (s[this.pos] === 'e' || s[this.pos] === 'E') {
      this.pos++;
      if (s[this.pos] === '+' || s[this.pos] === '-') this.pos++;
      if (!digit()) this.fail('in exponent of numeric literal');
      while (digit()) this.pos++;
    }
    return { kind: 'number', text: s.slice(start, this.pos), start, end: this.pos };
  }

  string(): string {
    const s = this.s;
    this.pos++; // opening quote
    let out = '';
    for (;;) {
      if (this.pos >= s.length) this.fail('in string literal');
      const c = s.charAt(this.pos);
      const code = c.charCodeAt(0);
      if (c === '"') {
        this.pos++;
        return out;
      }
      if (code < 0x20) this.fail('in string literal');
      if (c !== '\\') {
        out += c;
        this.pos++;
        continue;
      }
      this.pos++;
      const e = s[this.pos];
      const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
      const unescaped = e === undefined ? undefined : simple[e];
      if (unescaped !== undefined) {
        out += unescaped;
        this.pos++;
      } else if (e === 'u') {
        this.pos++;
        let hex = '';
        for (let i = 0; i < 4; i++) {
          const h = s[this.pos];
          if (h === undefined || !/[0-9a-fA-F]/.test(h)) this.fail('in \\u hexadecimal character escape');
          hex += h;
          this.pos++;
        }
        out += String.fromCharCode(parseInt(hex, 16));
      } else {
        this.fail('in string escape code');
      }
    }
  }

  object(start: number): JsonNode {
    this.pos++;
    const entries: Array<[string, JsonNode]> = [];
    this.skipWs();
    if (this.s[this.pos] === '}') {
      this.pos++;
      return { kind: 'object', entries, start, end: this.pos };
    }
    for (;;) {
      this.skipWs();
      if (this.s[this.pos] !== '"') this.fail('looking for beginning of object key string');
      const key = this.string();
      this.skipWs();
      if (this.s[this.pos] !== ':') this.fail('after object key');
      this.pos++;
      entries.push([key, this.value('looking for beginning of value')]);
      this.skipWs();
      const c = this.s[this.pos];
      if (c === ',') {
        this.pos++;
        continue;
      }
      if (c === '}') {
        this.pos++;
        return { kind: 'object', entries, start, end: this.pos };
      }
      this.fail('after object key:value pair');
    }
  }

  array(start: number): JsonNode {
    this.pos++;
    const items: JsonNode[] = [];
    this.skipWs();
    if (this.s[this.pos] === ']') {
      this.pos++;
      return { kind: 'array', items, start, end: this.pos };
    }
    for (;;) {
      items.push(this.value('looking for beginning of value'));
      this.skipWs();
      const c = this.s[this.pos];
      if (c === ',') {
        this.pos++;
        continue;
      }
      if (c === ']') {
        this.pos++;
        return { kind: 'array', items, start, end: this.pos };
      }
      this.fail('after array element');
    }
  }
}

/**
 * json.Compact plus the encoder's HTML escaping: how a json.RawMessage taken
 * from the request (the id, echoed params) is written back.
 */
export function compactRaw(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (inString) {
      out += c;
      if (c === '\\') {
        out += text[++i] ?? '';
      } else if (c === '"') {
        inString = false;
      }
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') continue;
    if (c === '"') inString = true;
    out += c;
  }
  return escapeHtml(out);
}

/** Finds an object member the way Go matches struct fields: exact, else case-insensitive; the last match wins. */
export function member(node: JsonNode, name: string): JsonNode | undefined {
  if (node.kind !== 'object') return undefined;
  let found: JsonNode | undefined;
  const lower = name.toLowerCase();
  for (const [k, v] of node.entries) {
    if (k === name || k.toLowerCase() === lower) found = v;
  }
  return found;
}
