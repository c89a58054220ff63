// The JSON-RPC server of a node endpoint: gorilla/rpc v2 (json2 codec,
// v1.2.0) wrapped by avalanchego's utils/json codec. Every step that can fail
// does so in the same order and with the same bytes as the node.

import { GoJsonError, compactRaw, goQuote, goString, member, parseGoJson, type JsonNode } from './gojson.js';
import { cb58Encode, parseId, parseNodeId } from './ids.js';

export const INVALID_ARG = "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. See documentation for example calls";

/** An error returned by a service method: code -32000 with its text. */
export class RpcServiceError extends Error {}

/** A failure while decoding params into the method's args (hidden behind INVALID_ARG). */
class ArgsError extends Error {}

export type FieldKind = 'string' | 'uint64' | 'id' | 'encoding' | 'level' | 'strings' | 'nodeIDs';
export type Encoding = 'hex' | 'hexc' | 'hexnc' | 'json';

export interface MethodSpec {
  /** JSON field name → kind; an empty object for methods that take `struct{}`. */
  args: Record<string, FieldKind>;
  /** Returns the result as Go-encoded JSON, or throws RpcServiceError. */
  call(args: Record<string, unknown>): string;
}

/** service name → Method name (first letter upper-cased, as dispatched) → spec. */
export type Services = Record<string, Record<string, MethodSpec>>;

export interface HttpReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const JSON_CT = 'application/json; charset=utf-8';

/** rpc.WriteError: plain text, no trailing newline. */
export function plainError(status: number, text: string): HttpReply {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: text };
}

/**
 * rpc.Server.ServeHTTP for one endpoint. `contentType` is the request's first
 * Content-Type header (undefined when absent).
 */
export function serveJsonRpc(method: string, contentType: string | undefined, body: string, services: Services): HttpReply {
  if (method !== 'POST') return plainError(405, `rpc: POST method required, received ${method}`);
  let ct = contentType ?? '';
  const semi = ct.indexOf(';');
  if (semi !== -1) ct = ct.slice(0, semi);
  // Two codecs are registered (application/json and application/json;charset=UTF-8), so there is no default.
  if (ct.toLowerCase() !== 'application/json') return plainError(415, `rpc: unrecognized Content-Type: ${ct}`);

  const req = decodeRequest(body);
  const write = (envelope: string, nosniff: boolean): HttpReply => {
    const headers: Record<string, string> = {};
    // ServeHTTP sets nosniff before writing, so a dispatched notification carries it too.
    if (nosniff) headers['x-content-type-options'] = 'nosniff';
    // Notifications get no response body at all, except parse errors.
    if (req.id === undefined && !req.parseError) return { status: 200, headers, body: '' };
    headers['content-type'] = JSON_CT;
    return { status: 200, headers, body: `{"jsonrpc":"2.0",${envelope},"id":${req.id ?? 'null'}}\n` };
  };
  const writeError = (code: number, message: string, data: string, nosniff = false) =>
    write(`"error":{"code":${code},"message":${goString(message)},"data":${data}}`, nosniff);

  if (req.parseError !== undefined) return writeError(-32700, req.parseError, req.echo());
  if (req.version !== '2.0') return writeError(-32600, 'jsonrpc must be 2.0', req.echo());

  // avalanchego's codec: `svc.method` must start lower-case; it is upper-cased for dispatch.
  let dispatched = req.method;
  const dot = req.method.indexOf('.');
  if (dot !== -1) {
    const fn = req.method.slice(dot + 1);
    const first = String.fromCodePoint(fn.codePointAt(0) ?? 0);
    if (fn.length > 0) {
      if (isUpper(first)) return writeError(-32000, 'method must start with a non-uppercase letter', 'null');
      dispatched = `${req.method.slice(0, dot)}.${first.toUpperCase()}${fn.slice(first.length)}`;
    }
  }
  const parts = dispatched.split('.');
  if (parts.length !== 2) return writeError(-32000, `rpc: service/method request ill-formed: ${goQuote(dispatched)}`, 'null');
  const [serviceName = '', methodName = ''] = parts;
  const service = Object.hasOwn(services, serviceName) ? services[serviceName] : undefined;
  if (!service) return writeError(-32000, `rpc: can't find service ${goQuote(dispatched)}`, 'null');
  const spec = Object.hasOwn(service, methodName) ? service[methodName] : undefined;
  if (!spec) return writeError(-32000, `rpc: can't find method ${goQuote(dispatched)}`, 'null');

  let args: Record<string, unknown>;
  try {
    args = decodeArgs(req.params, body, spec.args);
  } catch (err) {
    if (err instanceof ArgsError) return writeError(-32000, INVALID_ARG, 'null');
    throw err;
  }
  try {
    return write(`"result":${spec.call(args)}`, true);
  } catch (err) {
    if (err instanceof RpcServiceError) return writeError(-32000, err.message, 'null', true);
    throw err;
  }
}

function isUpper(ch: string): boolean {
  return ch !== ch.toLowerCase() && ch === ch.toUpperCase();
}

interface DecodedRequest {
  version: string;
  method: string;
  params: JsonNode | undefined;
  /** The raw id, compacted; undefined when absent or null (a notification). */
  id: string | undefined;
  parseError: string | undefined;
  /** The request as json2's serverRequest echoes it in error data. */
  echo(): string;
}

/** json.NewDecoder(body).Decode(&serverRequest{}) with Go's partial-fill semantics. */
function decodeRequest(body: string): DecodedRequest {
  const req: DecodedRequest = {
    version: '',
    method: '',
    params: undefined,
    id: undefined,
    parseError: undefined,
    echo() {
      const params = this.params ? compactRaw(body.slice(this.params.start, this.params.end)) : 'null';
      return `{"jsonrpc":${goString(this.version)},"method":${goString(this.method)},"params":${params},"id":${this.id ?? 'null'}}`;
    },
  };
  let root: JsonNode;
  try {
    root = parseGoJson(body);
  } catch (err) {
    if (err instanceof GoJsonError) {
      req.parseError = err.message;
      return req;
    }
    throw err;
  }
  if (root.kind === 'null') return req;
  if (root.kind !== 'object') {
    req.parseError = `json: cannot unmarshal ${root.kind === 'bool' ? 'bool' : root.kind} into Go value of type json2.serverRequest`;
    return req;
  }
  const typeError = (field: string, node: JsonNode) => {
    req.parseError ??= `json: cannot unmarshal ${node.kind === 'bool' ? 'bool' : node.kind} into Go struct field serverRequest.${field} of type string`;
  };
  for (const field of ['jsonrpc', 'method'] as const) {
    const node = member(root, field);
    if (!node || node.kind === 'null') continue;
    if (node.kind !== 'string') typeError(field, node);
    else if (field === 'jsonrpc') req.version = node.value;
    else req.method = node.value;
  }
  const params = member(root, 'params');
  if (params && params.kind !== 'null') req.params = params;
  const id = member(root, 'id');
  if (id && id.kind !== 'null') req.id = compactRaw(body.slice(id.start, id.end));
  return req;
}

/**
 * Unmarshals params into the method's args struct as gorilla's json2 does:
 * first as an object, then as a one-element array holding the object.
 * Unknown fields are ignored; keys match case-insensitively.
 */
function decodeArgs(params: JsonNode | undefined, text: string, spec: Record<string, FieldKind>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, kind] of Object.entries(spec)) out[name] = zeroValue(kind);
  if (!params) return out;
  let target: JsonNode | undefined = params;
  if (params.kind === 'array') {
    target = params.items[0];
    if (!target || target.kind === 'null') return out;
  }
  if (target.kind !== 'object') throw new ArgsError();
  for (const [name, kind] of Object.entries(spec)) {
    const node = member(target, name);
    if (node) out[name] = decodeField(kind, node, text, out[name]);
  }
  return out;
}

function zeroValue(kind: FieldKind): unknown {
  switch (kind) {
    case 'string':
      return '';
    case 'uint64':
      return 0n;
    case 'id':
      return Buffer.alloc(32);
    case 'encoding':
      return 'hex';
    case 'level':
      return undefined;
    case 'strings':
    case 'nodeIDs':
      return [];
  }
}

const EMPTY_NODE_ID = `NodeID-${cb58Encode(Buffer.alloc(20))}`;
const LEVELS = ['OFF', 'FATAL', 'ERROR', 'WARN', 'INFO', 'TRACE', 'DEBUG', 'VERBO'];
const MAX_UINT64 = 18_446_744_073_709_551_615n;

function decodeField(kind: FieldKind, node: JsonNode, text: string, current: unknown): unknown {
  // Custom UnmarshalJSON methods see the raw bytes of the value.
  const raw = text.slice(node.start, node.end);
  switch (kind) {
    case 'string':
      if (node.kind === 'null') return current;
      if (node.kind !== 'string') throw new ArgsError();
      return node.value;
    case 'strings':
      if (node.kind === 'null') return [];
      if (node.kind !== 'array') throw new ArgsError();
      return node.items.map((item) => {
        if (item.kind === 'null') return '';
        if (item.kind !== 'string') throw new ArgsError();
        return item.value;
      });
    case 'uint64': {
      // utils/json.Uint64: "5" or 5, strconv.ParseUint(s, 10, 64).
      if (raw === 'null') return current;
      let s = raw;
      if (s.length >= 2 && s.startsWith('"') && s.endsWith('"')) s = s.slice(1, -1);
      if (!/^[0-9]+$/.test(s)) throw new ArgsError();
      const v = BigInt(s);
      if (v > MAX_UINT64) throw new ArgsError();
      return v;
    }
    case 'nodeIDs':
      // []ids.NodeID: each element through NodeID.UnmarshalJSON (null leaves the empty ID).
      if (node.kind === 'null') return [];
      if (node.kind !== 'array') throw new ArgsError();
      return node.items.map((item) => {
        const itemRaw = text.slice(item.start, item.end);
        if (itemRaw === 'null') return EMPTY_NODE_ID;
        if (itemRaw.length <= 2 + 'NodeID-'.length || !itemRaw.startsWith('"') || !itemRaw.endsWith('"')) throw new ArgsError();
        // The raw text between the quotes, not unescaped, as the node reads it.
        const idText = itemRaw.slice(1, -1);
        if (!parseNodeId(idText)) throw new ArgsError();
        return idText;
      });
    case 'id': {
      if (raw === 'null') return current;
      if (!raw.startsWith('"') || !raw.endsWith('"') || raw.length < 2) throw new ArgsError();
      const id = parseId(raw.slice(1, -1));
      if (!id) throw new ArgsError();
      return id;
    }
    case 'encoding': {
      if (raw === 'null') return current;
      const lower = raw.toLowerCase();
      const found = (['hex', 'hexc', 'hexnc', 'json'] as const).find((e) => lower === `"${e}"`);
      if (!found) throw new ArgsError();
      return found;
    }
    case 'level': {
      if (node.kind === 'null') return undefined;
      if (node.kind !== 'string') throw new ArgsError();
      const level = node.value.toUpperCase();
      if (!LEVELS.includes(level)) throw new ArgsError();
      return level;
    }
  }
}
