// The node_metrics source: what only the node's own Prometheus endpoint tells,
// GET {url}/ext/metrics, under names that stay the same across releases. The
// node names these families differently release by release (the catalog says
// which series each is read from):
//   - v1.10: the chain in the name, `avalanche_C_polls_successful`,
//     `avalanche_C_vm_eth_chain_block_bad_count`;
//   - v1.11+: the chain in a label, `avalanche_snowman_polls_successful{chain="C"}`,
//     `avalanche_evm_eth_chain_block_bad_count{chain="C"}` (the VM's name, or its
//     ID for a VM AvalancheGo does not name, before `_eth_`);
//   - after the C-Chain's switch to SAE (v1.15's transitionvm), the VM's series
//     are registered under `transition`: `avalanche_evm_transition_…{chain="C"}`.
//
// The body is megabytes on a busy node and thousands of series, of which this
// source keeps a handful. It is parsed as it streams (NodeClient.stream): lines
// are cut out of each chunk as it comes, a line's name is checked against the
// allow-list by its bytes, and only the lines kept are decoded and parsed. No
// npm parser fitted: parse-prometheus-text-format and prom2javascript take the
// whole body as one string and build every family, the opposite of what a
// poll of a busy node can afford.
import type { Logger } from 'pino';
import { configSection, sourceKeys } from '../config/source-section.js';
import type { BodySink, HttpReply } from '../rpc/client.js';
import { HttpStatusError, InvalidResponseError, NotFoundAtUrlError } from '../rpc/errors.js';
import type { LinesBuilder } from '../metrics/render.js';
import type { PageSection } from './section.js';
import type { Source, StateWatcher } from './source.js';

export const NODE_METRICS_PATH = '/ext/metrics';

export const nodeMetricsConfig = configSection('node_metrics', {
  description: "The node_metrics source (GET {url}/ext/metrics, the node's own Prometheus endpoint; a few families kept).",
  keys: sourceKeys({
    enabled:
      "Read the node's /ext/metrics for what no API tells (consensus poll outcomes, bad blocks). Off by default: the body is megabytes on a busy node.",
    interval: "the node's /ext/metrics is read",
  }),
  defaults: { enabled: false, interval: '30s' },
});

/** One chain's values; a field is absent when the node's release (or its state) serves no such series. */
export interface ChainMetrics {
  chain: string;
  pollsSuccessful?: number;
  pollsFailed?: number;
  badBlocks?: number;
}

export type NodeMetricsSnapshot =
  | { state: 'ok'; chains: ChainMetrics[] }
  /** HTTP 404: the node runs with --api-metrics-enabled=false (a state, not a failed poll). */
  | { state: 'not_served' };

export const nodeMetrics: Source<NodeMetricsSnapshot, unknown, typeof nodeMetricsConfig> = {
  name: 'node_metrics',
  config: nodeMetricsConfig,
  // Whether the node's health API answers at the URL, when /ext/metrics answers 404.
  uses: ['health'],
  async poll(ctx) {
    const parser = new NodeMetricsParser();
    const reply = await ctx.stream(NODE_METRICS_PATH, parser);
    if (reply.status === 404) {
      // The metrics API off, or a URL that is no node's: the health source tells, as for the index source.
      const api = await ctx.node.use('health', ctx);
      if (!api.found)
        throw new NotFoundAtUrlError(
          api.reply.body,
          api.reply.url,
          `and from /ext/metrics: ${ctx.target.url} is not an AvalancheGo node's base URL (a pasted API path, or a wrong proxy prefix); give the base, e.g. http://10.0.0.5:9650`,
        );
    }
    return nodeMetricsOf(reply, parser);
  },
  samples: addNodeMetricsLines,
  watch: watchNodeMetrics,
  sections: nodeMetricsSections,
};

/** Pure: the answer (its body already given to `parser`) → the snapshot. Throws HttpStatusError for a status other than 200 and 404. */
export function nodeMetricsOf(reply: HttpReply, parser: NodeMetricsParser): NodeMetricsSnapshot {
  if (reply.status === 404) return { state: 'not_served' };
  if (reply.status !== 200) throw new HttpStatusError(reply.status, reply.body, reply.url);
  return { state: 'ok', chains: parser.end() };
}

/** Pure: a whole body → its chains (tests, and what the parser gives after its last chunk). */
export function parseNodeMetrics(body: string | Buffer): ChainMetrics[] {
  const parser = new NodeMetricsParser();
  parser.write(typeof body === 'string' ? Buffer.from(body) : body);
  return parser.end();
}

/** A line longer than this is not the node's: client_golang writes a series on one short line. */
export const MAX_LINE_BYTES = 64 * 1024;
/** Chains kept at most: a node runs a few; thousands would be a body that is not a node's. */
export const MAX_CHAINS = 1_000;

const NL = 0x0a;
const HASH = 0x23;
const PREFIX = Buffer.from('avalanche_');

type Field = 'pollsSuccessful' | 'pollsFailed' | 'badBlocks';

/** A name's ending → what it counts. Only names ending so are decoded; every other line is skipped by its bytes. */
const SUFFIXES: ReadonlyArray<{ suffix: Buffer; text: string }> = ['_polls_successful', '_polls_failed', '_eth_chain_block_bad_count'].map(
  (text) => ({
    suffix: Buffer.from(text),
    text,
  }),
);

/**
 * The allow-list: which family a name is, and where its chain is. Labelled forms (v1.11+) read the `chain`
 * label; v1.10's forms carry the chain in the name. `avalanche_avalanche_polls_*` (the X-Chain's DAG engine
 * before linearization) and v1.10's `avalanche_X_avalanche_polls_*` are not Snowman polls and are left out.
 */
export function familyOf(name: string): { field: Field; chain?: string } | undefined {
  let m: RegExpExecArray | null;
  if (name === 'avalanche_snowman_polls_successful') return { field: 'pollsSuccessful' };
  if (name === 'avalanche_snowman_polls_failed') return { field: 'pollsFailed' };
  if ((m = /^avalanche_([A-Za-z0-9]+)_polls_(successful|failed)$/.exec(name)) && m[1] !== 'avalanche' && m[1] !== 'snowman')
    return { field: m[2] === 'successful' ? 'pollsSuccessful' : 'pollsFailed', chain: m[1] as string };
  if ((m = /^avalanche_([A-Za-z0-9]+)_vm_eth_chain_block_bad_count$/.exec(name))) return { field: 'badBlocks', chain: m[1] as string };
  if (/^avalanche_[A-Za-z0-9]+_(transition_)?eth_chain_block_bad_count$/.test(name)) return { field: 'badBlocks' };
  return undefined;
}

/**
 * The streaming parse of the text exposition format (0.0.4) for the allow-list (familyOf): `write` each chunk
 * as it comes, `end` for the chains. Holds only the unfinished end of the last chunk (one line at most). Strict
 * on what it keeps (a kept line that is not `name{labels} value [timestamp]` fails the poll with its line
 * number); a line of another family is skipped after its name, never decoded. The same series twice is a
 * body that is not a node's; one chain's series under two forms (the C-Chain's before and after its switch
 * to SAE) are added up. Pure: no I/O, no clock.
 */
export class NodeMetricsParser implements BodySink {
  private carry: Buffer | undefined = undefined;
  private lineNumber = 0;
  private readonly chains = new Map<string, ChainMetrics>();
  private readonly seen = new Set<string>();

  write(chunk: Buffer): void {
    let start = 0;
    if (this.carry !== undefined) {
      const nl = chunk.indexOf(NL);
      if (nl === -1) {
        this.keep(Buffer.concat([this.carry, chunk]));
        return;
      }
      const line = Buffer.concat([this.carry, chunk.subarray(0, nl)]);
      this.carry = undefined;
      this.line(line, 0, line.length);
      start = nl + 1;
    }
    for (let nl = chunk.indexOf(NL, start); nl !== -1; nl = chunk.indexOf(NL, start)) {
      this.line(chunk, start, nl);
      start = nl + 1;
    }
    // A copy: the chunk itself is not held past this call.
    if (start < chunk.length) this.keep(Buffer.from(chunk.subarray(start)));
  }

  /** The chains, once the body has ended. */
  end(): ChainMetrics[] {
    const rest = this.carry;
    this.carry = undefined;
    if (rest !== undefined) this.line(rest, 0, rest.length);
    return [...this.chains.values()];
  }

  private keep(unfinished: Buffer): void {
    if (unfinished.length > MAX_LINE_BYTES)
      throw new InvalidResponseError(
        `/ext/metrics line ${this.lineNumber + 1} is longer than ${MAX_LINE_BYTES} bytes: not the text exposition format`,
      );
    this.carry = unfinished;
  }

  private line(buf: Buffer, start: number, end: number): void {
    this.lineNumber++;
    if (end > start && buf[end - 1] === 0x0d) end--;
    if (start === end || buf[start] === HASH) return;
    // The name's end: the first `{`, space or tab. A real body's thousands of lines are almost all of families the
    // allow-list leaves out, so this loop and the ending's few bytes (mightBeKept) are all they cost; a name's bytes
    // are checked only for a line that may be kept.
    if (!isNameByte(buf[start] as number)) throw this.invalid('a series line starts with its metric name');
    let n = start + 1;
    for (let b = buf[n]; n < end && b !== 0x7b && b !== 0x20 && b !== 0x09; b = buf[++n]);
    if (!mightBeKept(buf, n) || !this.allowed(buf, start, n)) return;
    for (let i = start; i < n; i++) if (!isNameByte(buf[i] as number)) return;
    const name = buf.toString('latin1', start, n);
    const family = familyOf(name);
    if (!family) return;
    this.series(name, family, buf.toString('utf8', n, end));
  }

  /** By the bytes: the name starts with `avalanche_` and ends as one of the allow-list's families. */
  private allowed(buf: Buffer, start: number, end: number): boolean {
    if (end - start <= PREFIX.length || buf.compare(PREFIX, 0, PREFIX.length, start, start + PREFIX.length) !== 0) return false;
    for (const { suffix } of SUFFIXES) {
      if (end - start > suffix.length && buf.compare(suffix, 0, suffix.length, end - suffix.length, end) === 0) return true;
    }
    return false;
  }

  /** A kept line after its name: `{labels}` (optional), the value, an optional timestamp. */
  private series(name: string, family: { field: Field; chain?: string }, rest: string): void {
    let i = 0;
    let chain = family.chain;
    if (rest.startsWith('{')) {
      const { labels, next } = this.labels(rest);
      i = next;
      if (chain === undefined) chain = labels.get('chain');
    }
    if (chain === undefined) throw this.invalid(`${name} has no chain label`);
    if (chain.length === 0 || chain.length > 64 || !/^[A-Za-z0-9_.-]+$/.test(chain))
      throw this.invalid(`${name}: the chain ${JSON.stringify(chain.slice(0, 70))} is not an alias or blockchain ID`);
    const fields = rest
      .slice(i)
      .trim()
      .split(/[ \t]+/);
    if (fields.length < 1 || fields.length > 2 || fields[0] === '') throw this.invalid(`${name}: expected a value and an optional timestamp`);
    if (fields.length === 2 && !/^-?\d+$/.test(fields[1] as string))
      throw this.invalid(`${name}: the timestamp ${JSON.stringify(fields[1])} is not an integer`);
    const value = counterValue(fields[0] as string);
    if (value === undefined) throw this.invalid(`${name}: ${JSON.stringify((fields[0] as string).slice(0, 40))} is not a counter's value`);
    const key = `${name}\u0000${chain}`;
    if (this.seen.has(key)) throw this.invalid(`${name}{chain="${chain}"} appears twice`);
    this.seen.add(key);
    let c = this.chains.get(chain);
    if (!c) {
      if (this.chains.size >= MAX_CHAINS) throw this.invalid(`more than ${MAX_CHAINS} chains`);
      this.chains.set(chain, (c = { chain }));
    }
    c[family.field] = (c[family.field] ?? 0) + value;
  }

  /** `{k="v",…}` with the format's escapes (\\, \", \n); a trailing comma is allowed, as the format does. */
  private labels(text: string): { labels: Map<string, string>; next: number } {
    const labels = new Map<string, string>();
    let i = 1;
    for (;;) {
      while (text[i] === ' ') i++;
      if (text[i] === '}') return { labels, next: i + 1 };
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i, i + 200));
      if (!m) throw this.invalid('a label name was expected');
      const key = m[0];
      i += key.length;
      if (text[i] !== '=' || text[i + 1] !== '"') throw this.invalid(`label ${key}: expected ="value"`);
      i += 2;
      let value = '';
      for (;;) {
        const ch = text[i];
        if (ch === undefined) throw this.invalid(`label ${key}: its value is not closed`);
        i++;
        if (ch === '"') break;
        if (ch === '\\') {
          const esc = text[i++];
          if (esc === 'n') value += '\n';
          else if (esc === '\\' || esc === '"') value += esc;
          else throw this.invalid(`label ${key}: unknown escape \\${esc ?? ''}`);
        } else value += ch;
      }
      labels.set(key, value);
      while (text[i] === ' ') i++;
      if (text[i] === ',') i++;
      else if (text[i] !== '}') throw this.invalid(`label ${key}: expected , or } after its value`);
    }
  }

  private invalid(what: string): InvalidResponseError {
    return new InvalidResponseError(`/ext/metrics line ${this.lineNumber}: ${what}`);
  }
}

/**
 * Whether a name that ends before `end` ends as one of the allow-list's families might (`…ful`, `…led`, `…bad_count`),
 * by a few of its last bytes: no native call, and it turns away the many `_count` lines of histograms and summaries.
 */
function mightBeKept(buf: Buffer, end: number): boolean {
  const z = buf[end - 1];
  if (z === 0x6c) return buf[end - 2] === 0x75 && buf[end - 3] === 0x66; // …ful
  if (z === 0x64) return buf[end - 2] === 0x65 && buf[end - 3] === 0x6c; // …led
  // …bad_count
  return z === 0x74 && buf[end - 6] === 0x5f && buf[end - 7] === 0x64 && buf[end - 8] === 0x61 && buf[end - 9] === 0x62;
}

/** [a-zA-Z0-9_:] */
function isNameByte(b: number): boolean {
  return (b >= 0x61 && b <= 0x7a) || (b >= 0x41 && b <= 0x5a) || (b >= 0x30 && b <= 0x39) || b === 0x5f || b === 0x3a;
}

/** A counter's value as Go's strconv writes it (`12`, `1.5e+06`): finite and not negative, else undefined. */
function counterValue(text: string): number | undefined {
  if (!/^[0-9.eE+-]+$/.test(text)) return undefined;
  const v = Number(text);
  return Number.isFinite(v) && v >= 0 ? v : undefined;
}

/**
 * The stable series: each chain's poll outcomes and bad blocks, as the node counts them (a node restart
 * sets them back, passed through for rate() to handle). A family the node's release lacks is absent, never 0.
 */
function addNodeMetricsLines(b: LinesBuilder, s: NodeMetricsSnapshot | undefined): void {
  if (s?.state !== 'ok') return;
  for (const c of s.chains) {
    b.add('avalanchego_consensus_polls_total', c.pollsSuccessful, { chain: c.chain, result: 'successful' });
    b.add('avalanchego_consensus_polls_total', c.pollsFailed, { chain: c.chain, result: 'failed' });
    b.add('avalanchego_chain_bad_blocks_total', c.badBlocks, { chain: c.chain });
  }
}

/** The metrics API off (HTTP 404) is logged when it is first seen and when it answers again, not every poll. */
function watchNodeMetrics(log: Logger): StateWatcher<NodeMetricsSnapshot> {
  let last: NodeMetricsSnapshot['state'] | undefined;
  return {
    observe(s) {
      if (!s) return;
      if (s.state === 'not_served' && last !== 'not_served')
        log.info(
          {},
          "/ext/metrics answers HTTP 404: the node's metrics API is off (--api-metrics-enabled=false); no consensus poll or bad block series for this node",
        );
      else if (s.state === 'ok' && last === 'not_served') log.info({}, '/ext/metrics answers again');
      last = s.state;
    },
  };
}

/** Pure: the node page's section: each chain's poll outcomes and bad blocks, or why there are none. */
export function nodeMetricsSections(s: NodeMetricsSnapshot | undefined): PageSection[] {
  const off = s?.state === 'not_served';
  return [
    {
      title: "The node's own metrics (/ext/metrics)",
      columns: ['chain', 'successful polls', 'failed polls', 'bad blocks'],
      rows:
        s?.state === 'ok'
          ? s.chains.map((c) => ({ label: c.chain, values: [{ number: c.pollsSuccessful }, { number: c.pollsFailed }, { number: c.badBlocks }] }))
          : [],
      empty: off
        ? "The node's metrics API is off (/ext/metrics answers HTTP 404: --api-metrics-enabled=false)."
        : 'The node_metrics source has not answered yet, or is off for this node (node_metrics.enabled).',
    },
  ];
}
