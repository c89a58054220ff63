// The node's own Prometheus metrics (`GET /ext/metrics`), recorded per release into
// test/fixtures/node-metrics/<version>/ and checked against the live node (record.test.ts for the
// single node of every release, local-network.test.ts for a validator of the five-node network
// with the L1 chain). The recordings are trimmed to the families that carry a stable fact (the
// allow-list below, after Ava Labs' alert guide) plus a few neighbours whose names start like
// them, so that a filter reading these fixtures is tested on names it must drop. One body of the
// current release is kept whole, for a realistic size.
import { gunzipSync, gzipSync } from 'node:zlib';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './build.js';
import { httpRequest } from './http.js';

export const NODE_METRICS_DIR = join(REPO_ROOT, 'test', 'fixtures', 'node-metrics');

/**
 * A stable fact and the family names that carry it on some release. In v1.10 a chain's families
 * carry the chain's alias in the name (`avalanche_C_…`, `avalanche_P_…`, `avalanche_X_…`); from
 * v1.11 on they carry it in a `chain` label.
 */
export interface StableFact {
  fact: string;
  /** Matches the family name (HELP/TYPE name) on any recorded release. */
  family: RegExp;
  /** Where the guide asks for it. */
  why: string;
}

/** Optional chain alias inside a family name (v1.10): `avalanche_C_`, `avalanche_2q9e…_`. */
const CHAIN = '(?:[A-Za-z0-9]+_)?';

export const STABLE_FACTS: StableFact[] = [
  {
    fact: 'consensus polls, successful',
    family: new RegExp(`^avalanche_${CHAIN}(?:snowman_|avalanche_)?polls_successful$`),
    why: "the guide's first page: the poll success rate (warn < 95 %, page < 90 %)",
  },
  {
    fact: 'consensus polls, failed',
    family: new RegExp(`^avalanche_${CHAIN}(?:snowman_|avalanche_)?polls_failed$`),
    why: "the guide's first page: the poll success rate",
  },
  {
    fact: 'consensus messages by op (chits = query answers)',
    family: new RegExp(`^avalanche_${CHAIN}handler_messages$`),
    why: 'the guide (commit 0aa9be4) computes the query failure rate from `handler_messages{op="chits"}`',
  },
  {
    fact: 'EVM bad blocks',
    family: /_eth_chain_block_bad_count$/,
    why: 'bad blocks (EVM chains): page on > 10 over 5 min',
  },
  {
    fact: 'connected stake',
    family: new RegExp(`^avalanche_${CHAIN}(?:stake_)?percent_connected$`),
    why: 'connected stake: page < 80 %',
  },
  {
    fact: 'blocks processing',
    family: new RegExp(`^avalanche_${CHAIN}(?:snowman_)?blks_processing$`),
    why: 'processing blocks: warn > 6, page > 15 over 5 min',
  },
  {
    fact: 'last accepted height',
    family: new RegExp(`^avalanche_${CHAIN}(?:snowman_)?last_accepted_height$`),
    why: 'the chain height the other facts are read against',
  },
  {
    fact: 'benched validators',
    family: new RegExp(`^avalanche_${CHAIN}benchlist_benched_num$`),
    why: 'benched validators: page > 1 over 10 min',
  },
  {
    fact: 'validators seen',
    family: new RegExp(`^avalanche_${CHAIN}(?:stake_)?num_validators$`),
    why: 'number of validators: page < 1',
  },
  {
    fact: 'failing health checks',
    family: /^avalanche_health_checks_failing$/,
    why: 'health check failures: page > 2 over 5 min',
  },
  {
    fact: 'disk space available',
    family: /^avalanche_(?:resource_tracker_)?disk_available_(?:percentage|space)$/,
    why: 'disk space remaining: warn < 10 %, page < 5 %',
  },
];

/**
 * Families kept beside the allow-list: their names start like an allowed one's, so that a filter
 * matching by prefix instead of by whole name is caught by the fixtures.
 */
export const NEIGHBOURS: RegExp[] = [
  new RegExp(`^avalanche_${CHAIN}(?:snowman_)?polls$`),
  new RegExp(`^avalanche_${CHAIN}(?:snowman_)?poll_duration$`),
  new RegExp(`^avalanche_${CHAIN}(?:snowman_)?blks_accepted$`),
  /_eth_chain_block_(?:inserts|validation|execution)$/,
  new RegExp(`^avalanche_${CHAIN}benchlist_benched_weight$`),
  /^avalanche_health_checks_failing_total$/,
];

export function isStableFamily(name: string): boolean {
  return STABLE_FACTS.some((f) => f.family.test(name));
}

export function isKeptFamily(name: string): boolean {
  return isStableFamily(name) || NEIGHBOURS.some((r) => r.test(name));
}

export interface Family {
  name: string;
  type: string;
  help: string;
  /** The family's lines as served (HELP, TYPE, samples), without the final newline. */
  lines: string[];
  /** The sample lines. */
  samples: string[];
}

/**
 * Splits a text-format body (what promhttp writes: `# HELP` and `# TYPE` before each family's
 * samples) into families, in order. A sample's family is the last TYPE line's.
 */
export function splitFamilies(body: string): Family[] {
  const families: Family[] = [];
  let current: Family | undefined;
  const start = (name: string): Family => {
    if (current?.name !== name) {
      current = { name, type: 'untyped', help: '', lines: [], samples: [] };
      families.push(current);
    }
    return current;
  };
  for (const line of body.split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta?.[1] && meta[2] !== undefined) {
      const f = start(meta[2]);
      if (meta[1] === 'HELP') f.help = meta[3] ?? '';
      else f.type = meta[3] ?? 'untyped';
      f.lines.push(line);
      continue;
    }
    if (line.startsWith('#')) continue;
    const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0];
    if (!name) throw new Error(`not a sample line: ${line.slice(0, 120)}`);
    const f = current && (name === current.name || name.startsWith(`${current.name}_`)) ? current : start(name);
    f.lines.push(line);
    f.samples.push(line);
  }
  return families;
}

/** The label names of a sample line (`name{a="x",b="y"} 1` → a, b). */
export function labelNames(sample: string): string[] {
  const open = sample.indexOf('{');
  if (open < 0) return [];
  return [...sample.slice(open).matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="(?:[^"\\]|\\.)*"/g)].map((m) => m[1] ?? '');
}

/** The body with only the kept families, in the node's order, each exactly as served. */
export function trimBody(body: string): string {
  const kept = splitFamilies(body).filter((f) => isKeptFamily(f.name));
  return kept.map((f) => `${f.lines.join('\n')}\n`).join('');
}

export interface NodeMetricsMeta {
  version: string;
  /** Where it was recorded: the single node after its C-Chain transfers, or a validator of the local network. */
  profile: 'single-node' | 'local-network';
  nodeId: string;
  recordedAt: string;
  /** The whole body: bytes, families and sample lines. */
  full: { bytes: number; families: number; series: number; file?: string };
  /** The trimmed fixture: the families it keeps, with their type. */
  kept: Record<string, string>;
  /** Per stable fact, the families that carry it on this release (none: the release lacks it). */
  facts: Record<string, string[]>;
  notes?: string[];
}

export function fixtureFiles(version: string, profile: NodeMetricsMeta['profile']): { dir: string; trimmed: string; meta: string; full: string } {
  const dir = join(NODE_METRICS_DIR, version);
  const base = profile === 'single-node' ? 'single-node' : 'local-network';
  return { dir, trimmed: join(dir, `${base}.prom`), meta: join(dir, `${base}.json`), full: join(dir, `${base}-full.prom.gz`) };
}

/** GET /ext/metrics: the body as served (text format 0.0.4). */
export async function fetchNodeMetrics(url: string): Promise<string> {
  const res = await httpRequest(url, { method: 'GET', path: '/ext/metrics' }, 30_000);
  if (res.status !== 200) throw new Error(`GET ${url}/ext/metrics: HTTP ${res.status}: ${res.body.slice(0, 200)}`);
  return res.body;
}

export function describeBody(body: string, version: string, profile: NodeMetricsMeta['profile'], nodeId: string): NodeMetricsMeta {
  const families = splitFamilies(body);
  const kept = families.filter((f) => isKeptFamily(f.name));
  return {
    version,
    profile,
    nodeId,
    recordedAt: new Date().toISOString(),
    full: { bytes: Buffer.byteLength(body), families: families.length, series: families.reduce((n, f) => n + f.samples.length, 0) },
    kept: Object.fromEntries(kept.map((f) => [f.name, f.type])),
    facts: Object.fromEntries(STABLE_FACTS.map((s) => [s.fact, families.filter((f) => s.family.test(f.name)).map((f) => f.name)])),
  };
}

/**
 * Records the node's /ext/metrics: the trimmed body, its description, and (`keepFull`) the whole
 * body gzipped. Replaces that profile's earlier files.
 */
export async function recordNodeMetrics(
  url: string,
  version: string,
  profile: NodeMetricsMeta['profile'],
  nodeId: string,
  options: { keepFull?: boolean; notes?: string[] } = {},
): Promise<NodeMetricsMeta> {
  const body = await fetchNodeMetrics(url);
  const files = fixtureFiles(version, profile);
  await mkdir(files.dir, { recursive: true });
  await rm(files.full, { force: true });
  const meta = describeBody(body, version, profile, nodeId);
  if (options.keepFull) {
    await writeFile(files.full, gzipSync(body, { level: 9 }));
    meta.full.file = files.full.slice(files.dir.length + 1);
  }
  if (options.notes) meta.notes = options.notes;
  await writeFile(files.trimmed, trimBody(body));
  await writeFile(files.meta, `${JSON.stringify(meta, null, 2)}\n`);
  return meta;
}

export interface RecordedNodeMetrics {
  meta: NodeMetricsMeta;
  trimmed: string;
  full?: string;
}

export async function readNodeMetrics(version: string, profile: NodeMetricsMeta['profile']): Promise<RecordedNodeMetrics> {
  const files = fixtureFiles(version, profile);
  const meta = JSON.parse(await readFile(files.meta, 'utf8')) as NodeMetricsMeta;
  const trimmed = await readFile(files.trimmed, 'utf8');
  return { meta, trimmed, ...(existsSync(files.full) ? { full: gunzipSync(await readFile(files.full)).toString('utf8') } : {}) };
}

/** The versions with a node-metrics recording, oldest first. */
export async function recordedVersions(): Promise<string[]> {
  if (!existsSync(NODE_METRICS_DIR)) return [];
  return (await readdir(NODE_METRICS_DIR, { withFileTypes: true }))
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}

/**
 * How the live body differs from a recording, by what must not change between two runs of one
 * release: each kept family present, with the same type and the same label names; no kept family
 * the recording lacks. Values, label values and sample counts may change.
 */
export function compareMetrics(recorded: string, live: string): string[] {
  const summary = (body: string): Map<string, { type: string; labels: string }> =>
    new Map(
      splitFamilies(body)
        .filter((f) => isKeptFamily(f.name))
        .map((f) => [f.name, { type: f.type, labels: [...new Set(f.samples.flatMap(labelNames))].sort().join(',') }]),
    );
  const a = summary(recorded);
  const b = summary(live);
  const out: string[] = [];
  for (const [name, r] of a) {
    const l = b.get(name);
    if (!l) out.push(`${name}: recorded, not served live`);
    else {
      if (l.type !== r.type) out.push(`${name}: type ${r.type} recorded, ${l.type} live`);
      if (l.labels !== r.labels) out.push(`${name}: labels {${r.labels}} recorded, {${l.labels}} live`);
    }
  }
  for (const name of b.keys()) if (!a.has(name)) out.push(`${name}: served live, not recorded`);
  return out;
}

/** The markers around the generated table in the fixtures' README. */
export const TABLE_START = '<!-- node-metrics:table -->';
export const TABLE_END = '<!-- /node-metrics:table -->';

/**
 * The README's table: per stable fact (rows) and recording (columns), the families that carry it
 * with their label names, read from the trimmed bodies. What a reader of these fixtures (the
 * node-metrics source) must map to one stable name.
 */
export function factsTable(recordings: ReadonlyArray<{ column: string; trimmed: string }>): string {
  const byRecording = recordings.map((r) => splitFamilies(r.trimmed));
  const cell = (families: Family[], fact: StableFact): string => {
    const names = families
      .filter((f) => fact.family.test(f.name))
      .map((f) => {
        const labels = [...new Set(f.samples.flatMap(labelNames))].filter((l) => l !== 'quantile' && l !== 'le').sort();
        return `\`${f.name}${labels.length > 0 ? `{${labels.join(',')}}` : ''}\``;
      });
    return names.length > 0 ? names.join('<br>') : '(none)';
  };
  const rows = [
    `| fact | ${recordings.map((r) => r.column).join(' | ')} |`,
    `|---|${recordings.map(() => '---|').join('')}`,
    ...STABLE_FACTS.map((fact) => `| ${fact.fact} | ${byRecording.map((families) => cell(families, fact)).join(' | ')} |`),
  ];
  return `${TABLE_START}\n\n${rows.join('\n')}\n\n${TABLE_END}`;
}

/** `readme` with its generated table replaced by `table` (the markers kept). */
export function withTable(readme: string, table: string): string {
  const start = readme.indexOf(TABLE_START);
  if (start < 0) throw new Error(`the README has no ${TABLE_START} marker`);
  const end = readme.indexOf(TABLE_END, start);
  return `${readme.slice(0, start)}${table}${end < 0 ? readme.slice(start + TABLE_START.length) : readme.slice(end + TABLE_END.length)}`;
}

/**
 * The value of a stable fact for `chain` (an alias: `C`, `P`, `X`) in a body of any release: the
 * `chain` label from v1.11 on, the alias in the family name (`avalanche_C_…`) on v1.10.
 * Undefined when the body has no such sample; throws when it has several.
 */
export function chainValue(body: string, fact: string, chain: string): number | undefined {
  const stable = STABLE_FACTS.find((f) => f.fact === fact);
  if (!stable) throw new Error(`no stable fact ${fact}`);
  const values = splitFamilies(body)
    .filter((f) => stable.family.test(f.name))
    .flatMap((f) =>
      f.samples.filter((s) => {
        const name = /^[^{ ]+/.exec(s)?.[0] ?? '';
        return name === f.name && (s.includes(`chain="${chain}"`) || (f.name.startsWith(`avalanche_${chain}_`) && !s.includes('{')));
      }),
    )
    .map((s) => Number(s.slice(s.lastIndexOf(' ') + 1)));
  if (values.length > 1) throw new Error(`${fact} of ${chain}: ${values.length} samples`);
  return values[0];
}
