// A node's API as the node routes it (gorilla/mux exact paths): the health
// GET handlers and the JSON-RPC services of /ext/health, /ext/index/… and
// /ext/admin, answering from the node's state.

import { formatRfc3339Nano } from '../util/gotime.js';
import { cleanPath } from './admin.js';
import { type ChainIndex, type IndexName } from './chain.js';
import { goJson, goQuote } from './gojson.js';
import { PRIMARY_NETWORK_ID, hexNoChecksum, hexWithChecksum } from './ids.js';
import { serveEthRpc, serveProposerVm } from './evm-api.js';
import { infoServices } from './info-api.js';
import { l1ValidatorsServices, platformServices } from './platform-api.js';
import type { SimNode } from './node.js';
import { RpcServiceError, serveJsonRpc, type Encoding, type HttpReply, type MethodSpec, type Services } from './rpc.js';

export interface NodeRequest {
  method: string;
  /** The path as the node sees it (no fleet prefix), not percent-decoded. */
  path: string;
  query: URLSearchParams;
  contentType: string | undefined;
  body: string;
}

/** http.NotFound: what gorilla/mux answers for every unregistered path. */
export function notFound(): HttpReply {
  return {
    status: 404,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' },
    body: '404 page not found\n',
  };
}

/** gorilla/mux's cleanPath: path.Clean that keeps a trailing slash. */
export function muxCleanPath(p: string): string {
  if (p === '') return '/';
  if (!p.startsWith('/')) p = `/${p}`;
  let np = cleanPath(p);
  if (p.endsWith('/') && np !== '/') np += '/';
  return np;
}

const P_CHAIN_BASE = `/ext/bc/${PRIMARY_NETWORK_ID}`;

/** api/server rejectMiddleware: http.Error while the chain bootstraps. */
function notBootstrapped(): HttpReply {
  return {
    status: 503,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' },
    body: 'API call rejected because chain is not done bootstrapping\n',
  };
}

export function handleNodeRequest(node: SimNode, req: NodeRequest): HttpReply {
  const route = node.admin.routes.get(req.path);
  if (!route) return notFound();
  if (route.base === '/ext/health') return handleHealth(node, route.endpoint, req);
  if (route.base === '/ext/admin') return serveJsonRpc(req.method, req.contentType, req.body, adminServices(node));
  if (route.base === '/ext/info') return serveJsonRpc(req.method, req.contentType, req.body, infoServices(node));
  // promhttp.HandlerFor: GET (and any other method) gets the text format.
  if (route.base === '/ext/metrics')
    return { status: 200, headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }, body: node.metricsBody() };
  if (route.base === P_CHAIN_BASE) {
    // The chain is created once the node has started: before that, nothing answers there.
    if (node.scenario === 'starting') return notFound();
    // api/server rejectMiddleware: http.Error while the chain bootstraps.
    if (!node.chainsBootstrapped()) return notBootstrapped();
    return serveJsonRpc(req.method, req.contentType, req.body, platformServices(node));
  }
  if (route.base.startsWith('/ext/bc/')) {
    const chain = node.chainById(route.base.slice('/ext/bc/'.length));
    if (!chain || node.scenario === 'starting') return notFound();
    if (!node.chainsBootstrapped()) return notBootstrapped();
    if (route.endpoint === '/rpc') return serveEthRpc(node, chain, req.method, req.contentType, req.body);
    if (route.endpoint === '/proposervm') return serveProposerVm(node, chain, req.method, req.contentType, req.body);
    if (route.endpoint === '/validators') return serveJsonRpc(req.method, req.contentType, req.body, l1ValidatorsServices(node));
    return notFound();
  }
  const name = `${route.base.slice('/ext/index/'.length)}${route.endpoint}` as IndexName;
  const index = node.indexes.get(name);
  if (!index) return notFound();
  return serveJsonRpc(req.method, req.contentType, req.body, indexServices(node, index));
}

// ---------------------------------------------------------------------------
// Health

function healthGet(json: string, healthy: boolean): HttpReply {
  return { status: healthy ? 200 : 503, headers: { 'content-type': 'application/json' }, body: `${json}\n` };
}

const LIVENESS = '{"checks":{},"healthy":true}';

function handleHealth(node: SimNode, endpoint: string, req: NodeRequest): HttpReply {
  const legacy = node.version === 'v1.7';
  // Tag filtering arrived in v1.10.0; older nodes ignore ?tag.
  const tags = legacy ? [] : req.query.getAll('tag');
  switch (endpoint) {
    case '': {
      // NewGetAndPostHandler: GET is the report, every other method goes to the RPC server.
      if (req.method === 'GET') {
        const r = node.health.report(tags);
        return healthGet(r.json, r.healthy);
      }
      return serveJsonRpc(req.method, req.contentType, req.body, healthServices(node));
    }
    // NewGetHandler ignores the method: POST /ext/health/health gets the plain report too.
    case '/health': {
      const r = node.health.report(tags);
      return healthGet(r.json, r.healthy);
    }
    case '/readiness': {
      const r = node.readiness.report(tags);
      return healthGet(r.json, r.healthy);
    }
    case '/liveness':
      return healthGet(LIVENESS, true);
    default:
      return notFound();
  }
}

function healthServices(node: SimNode): Services {
  if (node.version === 'v1.7') {
    return { health: { Health: { args: {}, call: () => node.health.report([]).json } } };
  }
  return {
    health: {
      Health: { args: { tags: 'strings' }, call: (a) => node.health.report(a.tags as string[]).json },
      Readiness: { args: { tags: 'strings' }, call: (a) => node.readiness.report(a.tags as string[]).json },
      Liveness: { args: { tags: 'strings' }, call: () => LIVENESS },
    },
  };
}

// ---------------------------------------------------------------------------
// Index

const MAX_FETCHED_BY_RANGE = 1024n;

function formatContainer(node: SimNode, index: ChainIndex, position: number, encoding: Encoding): string {
  if (encoding === 'json') throw new RpcServiceError('unsupported encoding in method');
  const c = index.at(position);
  const bytes = encoding === 'hexnc' ? hexNoChecksum(c.bytes) : hexWithChecksum(c.bytes);
  const timestamp = formatRfc3339Nano(c.wallNs, node.offsetMinutes);
  return `{"id":"${c.id}","bytes":"${bytes}","timestamp":"${timestamp}","encoding":"${encoding}","index":"${c.index}"}`;
}

function indexServices(node: SimNode, index: ChainIndex): Services {
  const spec = (args: MethodSpec['args'], call: MethodSpec['call']): MethodSpec => ({ args, call });
  const lookup = (id: Buffer): number => {
    const position = index.indexOf(id);
    if (position === undefined) throw new RpcServiceError('not found');
    return position;
  };
  return {
    index: {
      GetLastAccepted: spec({ encoding: 'encoding' }, (a) => {
        const count = index.count();
        if (count === 0) throw new RpcServiceError('no containers have been accepted');
        return formatContainer(node, index, count - 1, a.encoding as Encoding);
      }),
      GetContainerByIndex: spec({ index: 'uint64', encoding: 'encoding' }, (a) => {
        const wanted = a.index as bigint;
        if (wanted >= BigInt(index.count())) throw new RpcServiceError(`no container at index ${wanted}`);
        return formatContainer(node, index, Number(wanted), a.encoding as Encoding);
      }),
      GetContainerByID: spec({ id: 'id', encoding: 'encoding' }, (a) => formatContainer(node, index, lookup(a.id as Buffer), a.encoding as Encoding)),
      GetContainerRange: spec({ startIndex: 'uint64', numToFetch: 'uint64', encoding: 'encoding' }, (a) => {
        const start = a.startIndex as bigint;
        const n = a.numToFetch as bigint;
        if (n === 0n || n > MAX_FETCHED_BY_RANGE) {
          throw new RpcServiceError(`numToFetch must be in [1,${MAX_FETCHED_BY_RANGE}] but is ${n}`);
        }
        const count = index.count();
        if (count === 0) throw new RpcServiceError('no containers have been accepted');
        const last = BigInt(count - 1);
        if (start > last) throw new RpcServiceError(`start index (${start}) > last accepted index (${last})`);
        const end = start + n - 1n < last ? start + n - 1n : last;
        const out: string[] = [];
        for (let i = Number(start); i <= Number(end); i++) out.push(formatContainer(node, index, i, a.encoding as Encoding));
        return `{"containers":[${out.join(',')}]}`;
      }),
      GetIndex: spec({ id: 'id' }, (a) => `{"index":"${lookup(a.id as Buffer)}"}`),
      IsAccepted: spec({ id: 'id' }, (a) => `{"isAccepted":${index.indexOf(a.id as Buffer) !== undefined}}`),
    },
  };
}

// ---------------------------------------------------------------------------
// Admin

const MAX_ALIAS_LENGTH = 512;
const EMPTY = '{}';

function adminServices(node: SimNode): Services {
  const admin = node.admin;
  const fail = (error: string | undefined): void => {
    if (error !== undefined) throw new RpcServiceError(error);
  };
  const checkAliasLength = (alias: string) => {
    // Go's len() counts bytes.
    if (Buffer.byteLength(alias) > MAX_ALIAS_LENGTH) throw new RpcServiceError('alias length is too long');
  };
  const levelsReply = (names: string[]): string => {
    const levels: Record<string, unknown> = {};
    for (const name of names) {
      const l = admin.getLevels(name);
      if (!l) throw new RpcServiceError(`logger with name ${goQuote(name)} not found`);
      levels[name] = { logLevel: l.logLevel, displayLevel: l.displayLevel };
    }
    return `{"loggerLevels":${goJson(sortKeys(levels))}}`;
  };
  const names = (loggerName: string) => (loggerName === '' ? admin.loggerNames() : [loggerName]);
  const none = (fn: () => string | undefined): MethodSpec => ({
    args: {},
    call: () => {
      fail(fn());
      return EMPTY;
    },
  });
  return {
    admin: {
      Alias: {
        args: { endpoint: 'string', alias: 'string' },
        call: (a) => {
          checkAliasLength(a.alias as string);
          fail(admin.addAlias(a.endpoint as string, a.alias as string));
          return EMPTY;
        },
      },
      AliasChain: {
        args: { chain: 'string', alias: 'string' },
        call: (a) => {
          checkAliasLength(a.alias as string);
          fail(admin.aliasChain(a.chain as string, a.alias as string));
          return EMPTY;
        },
      },
      GetChainAliases: {
        args: { chain: 'string' },
        call: (a) => {
          const r = admin.chainAliasesOf(a.chain as string);
          fail(r.error);
          return `{"aliases":${goJson(r.aliases ?? null)}}`;
        },
      },
      GetLoggerLevel: { args: { loggerName: 'string' }, call: (a) => levelsReply(names(a.loggerName as string)) },
      SetLoggerLevel: {
        args: { loggerName: 'string', logLevel: 'level', displayLevel: 'level' },
        call: (a) => {
          const logLevel = a.logLevel as string | undefined;
          const displayLevel = a.displayLevel as string | undefined;
          if (logLevel === undefined && displayLevel === undefined) {
            throw new RpcServiceError('need to specify either displayLevel or logLevel');
          }
          const targets = names(a.loggerName as string);
          for (const name of targets) fail(admin.setLevels(name, logLevel, displayLevel));
          return levelsReply(targets);
        },
      },
      GetConfig: { args: {}, call: () => configJson(node) },
      LoadVMs: {
        args: {},
        call: () => {
          const r = admin.loadVms();
          const failed = r.failedVMs ? `,"failedVMs":${goJson(sortKeys(r.failedVMs))}` : '';
          return `{"newVMs":${goJson(sortKeys(r.newVMs))}${failed}}`;
        },
      },
      StartCPUProfiler: none(() => admin.startCpuProfiler()),
      StopCPUProfiler: none(() => admin.stopCpuProfiler()),
      MemoryProfile: none(() => undefined),
      LockProfile: none(() => undefined),
      Stacktrace: none(() => undefined),
      DbGet: {
        args: { key: 'string' },
        call: (a) => {
          const key = a.key as string;
          if (key !== '') {
            if (!key.startsWith('0x')) throw new RpcServiceError('missing 0x prefix to hex encoding');
            const hex = key.slice(2);
            const bad = Array.from(hex).find((c) => !/[0-9a-fA-F]/.test(c));
            if (bad !== undefined) {
              throw new RpcServiceError(
                `encoding/hex: invalid byte: U+${(bad.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')} ${goRune(bad)}`,
              );
            }
            if (hex.length % 2 === 1) throw new RpcServiceError('encoding/hex: odd length hex string');
          }
          // The simulated database holds no keys: rpcdb's ERROR_NOT_FOUND.
          return '{"value":"","errorCode":2}';
        },
      },
    },
  };
}

function goRune(c: string): string {
  return c === "'" ? "'\\''" : `'${c}'`;
}

function sortKeys<T>(obj: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(obj).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** A reduced node.Config: the settings this simulated node actually has. */
function configJson(node: SimNode): string {
  return goJson({
    nodeID: node.nodeId,
    networkID: 1,
    healthCheckFreq: node.checkFrequencyNs,
    indexEnabled: node.indexEnabled,
    adminAPIEnabled: node.adminEnabled,
  });
}
