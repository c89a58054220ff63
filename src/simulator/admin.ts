// Node-local state the admin API changes (api/admin/service.go): the HTTP
// router's endpoint aliases (api/server/router.go), the chain aliaser
// (ids/aliases.go), logger levels, loaded VMs and the CPU profiler.

import { CHAIN_ORDER, CHAINS, type ChainSpec } from './chain.js';
import { goQuote } from './gojson.js';
import { PRIMARY_NETWORK_ID, base58Decode, cb58Decode, sha256, cb58Encode } from './ids.js';
import type { NodeVersion } from './scenarios.js';

/** Go's path.Clean. */
export function cleanPath(p: string): string {
  if (p === '') return '.';
  const rooted = p.startsWith('/');
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
      continue;
    }
    out.push(part);
  }
  const joined = out.join('/');
  if (rooted) return `/${joined}`;
  return joined === '' ? '.' : joined;
}

/** server.AddAliases: fmt.Sprintf("%s/%s", "/ext", p), no cleaning. */
function extJoin(p: string): string {
  return `/ext/${p}`;
}

export interface Route {
  /** The canonical base, e.g. /ext/health or /ext/index/X. */
  base: string;
  /** The endpoint under it: '' or /readiness, /tx … */
  endpoint: string;
}

/** The routes a node registers at start, by version and enabled APIs. */
export function routesFor(version: NodeVersion, admin: boolean, index: boolean): Route[] {
  const routes: Route[] = [
    { base: '/ext/health', endpoint: '' },
    { base: '/ext/info', endpoint: '' },
  ];
  // The P-Chain's service under its chain ID; reset() adds its aliases (/ext/bc/P, /ext/bc/platform).
  routes.push({ base: `/ext/bc/${PRIMARY_NETWORK_ID}`, endpoint: '' });
  // The GET-only health routes arrived with readiness and liveness in v1.7.4.
  if (version !== 'v1.7') {
    for (const ep of ['/health', '/readiness', '/liveness']) routes.push({ base: '/ext/health', endpoint: ep });
  }
  if (admin) routes.push({ base: '/ext/admin', endpoint: '' });
  if (index) {
    routes.push({ base: '/ext/index/C', endpoint: '/block' }, { base: '/ext/index/P', endpoint: '/block' });
    // X/block replaced the vertex index with Cortina (v1.10.0).
    if (version !== 'v1.7') routes.push({ base: '/ext/index/X', endpoint: '/block' });
    routes.push({ base: '/ext/index/X', endpoint: '/tx' }, { base: '/ext/index/X', endpoint: '/vtx' });
  }
  return routes;
}

export interface LoggerLevels {
  logLevel: string;
  displayLevel: string;
}

/** The VM plugins a simulated node finds when admin.loadVMs rescans its plugin directory. */
const SUBNET_EVM_ID = 'srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy';
const BROKEN_VM_ID = cb58Encode(sha256('broken-plugin-vm'));

export class AdminState {
  /** Every route the node serves: full path → canonical route. */
  readonly routes = new Map<string, Route>();
  private readonly endpointsByBase = new Map<string, string[]>();
  private reserved = new Set<string>();
  private aliasesByBase = new Map<string, string[]>();
  private chainAliases = new Map<string, string[]>();
  private dealias = new Map<string, string>();
  private loggers = new Map<string, LoggerLevels>();
  private cpuProfiling = false;
  private vmsLoaded = false;

  constructor(
    private readonly nodeIndex: number,
    /** Chains besides P, X and C (a tracked L1). */
    private readonly extraChains: ChainSpec[] = [],
    private canonical: Route[] = [],
  ) {
    this.reset();
  }

  /** Sets the routes the node registers at start (depends on which APIs are on). */
  setCanonicalRoutes(routes: Route[]): void {
    this.canonical = routes;
    this.reset();
  }

  /** A restart: aliases, levels and the profiler live in memory only. */
  reset(): void {
    this.routes.clear();
    this.endpointsByBase.clear();
    for (const r of this.canonical) {
      this.routes.set(r.base + r.endpoint, r);
      this.endpointsByBase.set(r.base, [...(this.endpointsByBase.get(r.base) ?? []), r.endpoint]);
    }
    this.reserved = new Set();
    this.aliasesByBase = new Map();
    this.chainAliases = new Map();
    this.dealias = new Map();
    const specs = [...CHAIN_ORDER.map((a) => CHAINS[a]), ...this.extraChains];
    this.loggers = new Map();
    for (const spec of specs) {
      // The chain manager aliases each chain to its genesis aliases, then to its own ID.
      const list = [...spec.aliases, spec.chainId];
      this.chainAliases.set(spec.chainId, list);
      for (const a of list) this.dealias.set(a, spec.chainId);
      // One logger per chain, named by its primary alias (or ID).
      this.loggers.set(spec.aliases[0] ?? spec.chainId, { logLevel: 'INFO', displayLevel: 'INFO' });
    }
    for (const name of ['main', 'vm-factory']) this.loggers.set(name, { logLevel: 'INFO', displayLevel: 'INFO' });
    // The chain manager serves each chain's handlers under every alias of the chain.
    for (const spec of specs) {
      if (!this.endpointsByBase.has(extJoin(`bc/${spec.chainId}`))) continue;
      for (const alias of spec.aliases) this.addAlias(`bc/${spec.chainId}`, `bc/${alias}`);
    }
    this.cpuProfiling = false;
    this.vmsLoaded = false;
  }

  /** server.AddAliases → router.AddAlias; returns the error text or undefined. */
  addAlias(endpoint: string, alias: string): string | undefined {
    const base = extJoin(endpoint);
    const aliasPath = extJoin(alias);
    if (this.reserved.has(aliasPath)) return `route is either already aliased or already maps to a handle: ${aliasPath}`;
    this.reserved.add(aliasPath);
    this.aliasesByBase.set(base, [...(this.aliasesByBase.get(base) ?? []), aliasPath]);
    let error: string | undefined;
    for (const ep of this.endpointsByBase.get(base) ?? []) {
      const route = this.routes.get(base + ep);
      if (route) error ??= this.forceAdd(aliasPath, ep, route);
    }
    return error;
  }

  /** router.forceAddRouter: also adds the route under every alias of the new base. */
  private forceAdd(base: string, endpoint: string, route: Route): string | undefined {
    const url = base + endpoint;
    const eps = this.endpointsByBase.get(base) ?? [];
    if (eps.includes(endpoint)) return `failed to create endpoint as ${url} already exists`;
    this.endpointsByBase.set(base, [...eps, endpoint]);
    this.routes.set(url, route);
    let error: string | undefined;
    for (const alias of this.aliasesByBase.get(base) ?? []) {
      const inner = this.forceAdd(alias, endpoint, route);
      error ??= inner;
    }
    return error;
  }

  /** The chain manager's Lookup: a chain ID for an alias or ID, undefined when unknown. */
  lookupChain(alias: string): string | undefined {
    return this.dealias.get(alias);
  }

  /** admin.aliasChain after the length check. */
  aliasChain(chain: string, alias: string): string | undefined {
    const chainId = this.dealias.get(chain);
    if (chainId === undefined) return `there is no ID with alias: ${chain}`;
    if (this.dealias.has(alias)) return `alias already mapped to an ID: ${alias}`;
    this.dealias.set(alias, chainId);
    this.chainAliases.get(chainId)?.push(alias);
    return this.addAlias(cleanPath(`bc/${chainId}`), cleanPath(`bc/${alias}`));
  }

  /** admin.getChainAliases: ids.FromString (cb58 via mr-tron/base58), then the aliaser's list (null when unknown). */
  chainAliasesOf(chain: string): { error?: string; aliases?: string[] | null } {
    const b58 = 'base58 decoding error: ';
    if (chain === '') return { error: `${b58}zero length string` };
    for (const c of chain) {
      if ((c.codePointAt(0) ?? 0) > 127) return { error: `${b58}high-bit set on invalid digit` };
      if (!'123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'.includes(c)) {
        return { error: `${b58}invalid base58 digit (${quoteRune(c)})` };
      }
    }
    // Every digit was checked above: the decode succeeds.
    const raw = base58Decode(chain) ?? Buffer.alloc(0);
    if (raw.length < 4) return { error: 'input string is smaller than the checksum size' };
    const bytes = cb58Decode(chain);
    if (!bytes) return { error: 'invalid input checksum' };
    if (bytes.length !== 32) return { error: `invalid hash length: expected 32 bytes but got ${bytes.length}` };
    return { aliases: this.chainAliases.get(chain) ?? null };
  }

  loggerNames(): string[] {
    return [...this.loggers.keys()].sort();
  }

  getLevels(name: string): LoggerLevels | undefined {
    return this.loggers.get(name);
  }

  setLevels(name: string, logLevel: string | undefined, displayLevel: string | undefined): string | undefined {
    const levels = this.loggers.get(name);
    if (!levels) return `logger with name ${goQuote(name)} not found`;
    if (logLevel) levels.logLevel = logLevel;
    if (displayLevel) levels.displayLevel = displayLevel;
    return undefined;
  }

  startCpuProfiler(): string | undefined {
    if (this.cpuProfiling) return 'cpu profiler already running';
    this.cpuProfiling = true;
    return undefined;
  }

  stopCpuProfiler(): string | undefined {
    if (!this.cpuProfiling) return "cpu profiler doesn't exist";
    this.cpuProfiling = false;
    return undefined;
  }

  get cpuProfilerRunning(): boolean {
    return this.cpuProfiling;
  }

  /**
   * admin.loadVMs: the plugin directory holds subnet-evm (new on the first
   * call only) and, on every other node, a plugin that fails to load.
   */
  loadVms(): { newVMs: Record<string, string[]>; failedVMs?: Record<string, string> } {
    const newVMs: Record<string, string[]> = {};
    if (!this.vmsLoaded) newVMs[SUBNET_EVM_ID] = ['subnet-evm'];
    this.vmsLoaded = true;
    if (this.nodeIndex % 2 === 1) return { newVMs, failedVMs: { [BROKEN_VM_ID]: 'fork/exec: exec format error' } };
    return { newVMs };
  }
}

/** strconv.QuoteRune, for the ASCII runes that reach it. */
function quoteRune(c: string): string {
  if (c === "'") return "'\\''";
  const q = goQuote(c);
  return `'${q.slice(1, -1).replace(/\\"/g, '"')}'`;
}
