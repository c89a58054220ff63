// A node's sample lines, built when a poll ends: a source's lines for a node
// are one buffer (LineBlock), family by family in catalog order, updated in
// place by the next poll when it adds the same series (a steady poll writes
// only the values that changed). A scrape copies byte ranges of these buffers
// (scrape.ts): no line is built at scrape time.
import { CATALOG, type MetricName } from './catalog.js';
import { shorten } from '../util/text.js';
import { compactMap } from '../util/compact-map.js';

const FAMILY_INDEX = new Map<string, number>(CATALOG.map((m, i) => [m.name, i]));
/** The catalog's families: a block's `ends` has one end a family, in catalog order. */
export const FAMILIES = CATALOG.length;

/**
 * One source's sample lines for one node: every line in one buffer, family by
 * family in catalog order; family i is `bytes[ends[i - 1] … ends[i])` (from 0
 * for the first), and the lines end at `ends[ends.length - 1]` (the buffer may
 * be longer: it is reused by the next poll).
 */
export interface LineBlock {
  readonly bytes: Buffer;
  readonly ends: Uint32Array;
}

/** A node's lines: one block per source that has polled. */
export type NodeLines = ReadonlyArray<LineBlock>;

/**
 * A block as LinesBuilder keeps it between polls, to update it in place: for
 * each series, in the order the source added them, its value and where its
 * value text is, and which series it is (family and label set).
 */
interface Block extends LineBlock {
  /** Series in the block. */
  count: number;
  /** The value of each series (add order). */
  readonly values: Float64Array;
  /**
   * Three integers a series (add order): its key (label-set id × FAMILY_SLOTS + family, or
   * UNCACHED when its labels have no id), where its value text is (packValue: start and
   * length), and the series at this position in the block (block order: by family, then add order).
   */
  readonly ints: Uint32Array;
  /** The label table its keys are ids of, and its generation: a builder with another rebuilds the block rather than update it. */
  table: LabelTable;
  generation: number;
}

/**
 * Where a series' value text is in its block, in one integer: its start × VALUE_SPAN + its length. The
 * text of a double is at most 24 characters (`-1.2345678901234567e-308`), so the length fits below
 * VALUE_SPAN, and a start up to 2^32 / VALUE_SPAN (128 MiB into a block) fits the Uint32 it is kept in.
 * One integer a series, not two, in the block's single allocation (newBlock).
 */
const VALUE_SPAN = 32;
const packValue = (start: number, length: number): number => start * VALUE_SPAN + length;
const valueStart = (packed: number): number => Math.floor(packed / VALUE_SPAN);
const valueLength = (packed: number): number => packed % VALUE_SPAN;

export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** Collects one node's samples by family. `node` is always the first label. */
export interface SeriesLimits {
  maxSeries: number;
  maxLabelLength: number;
}

/** A node's `node="…"` label, escaped and measured once (the poller keeps one a node); another first label for series with no node (an L1's: `subnet`). */
export class NodeLabel {
  readonly text: string;
  readonly bytes: number;
  constructor(
    readonly node: string,
    name = 'node',
  ) {
    this.text = `${name}="${escapeLabelValue(node)}"`;
    this.bytes = Buffer.byteLength(this.text);
  }
}

// A series' key is its label set's id × FAMILY_SLOTS + its family (an exact integer: ids stay under MAX_LABEL_ID).
const FAMILY_SLOTS = 2 ** Math.ceil(Math.log2(FAMILIES + 1));
const UNCACHED = 0xffffffff;
/** Label sets held at once at most (past it a new set's text is built at every poll, as a cut one's). */
export const MAX_LABEL_SETS = 100_000;
/** Trie nodes at most: a label set of n labels takes up to 2n. */
const MAX_TRIE_NODES = 4 * MAX_LABEL_SETS;
/** The highest id a key can hold; a table that has given nearly all starts again at a sweep (LabelTable.generation). */
export const MAX_LABEL_ID = Math.floor(UNCACHED / FAMILY_SLOTS) - 1;

interface LabelTrie {
  /** The id of the label set that ends here, or -1 (0: the root, no label but the node's). */
  id: number;
  /** The table's epoch in which that set was last looked up (LabelTable.sweep). */
  used: number;
  next?: Map<string, LabelTrie>;
}

/** A label set's text after the node label (`,check="network"} `) and its length in bytes. */
interface LabelSetText {
  readonly text: string;
  readonly bytes: number;
}

/** What one exporter's label table holds (the debug state endpoint). */
export interface LabelTableSize {
  sets: number;
  trieNodes: number;
  /** Bytes of the sets' texts (UTF-8). */
  textBytes: number;
}

const NO_LABELS: LabelSetText = { text: '} ', bytes: 2 };

/**
 * The label sets one exporter's nodes serve. The text after the node label, up to the value
 * (`,check="network"} ` or `} `), is the same for every node that reports that label set: each
 * distinct set gets an id and its escaped text once, found again through a trie of label names and
 * values (no string is built to look it up). One per exporter (its Scheduler's): the ids in a node's
 * blocks are this table's.
 *
 * Label values come from the nodes (check and chain names, node IDs), and they churn: a node whose ID
 * changes, a chain that goes, a release that renames its checks. A set no node has served for a
 * whole epoch goes at the next sweep (the Scheduler sweeps once per two of its longest poll interval),
 * so the table holds the sets served now, not every set ever seen. Ids are never given twice within
 * a generation: a block that still holds the id of a swept set (a node whose polls were skipped)
 * finds its key changed at its next poll and is rebuilt, never updated under another set's text.
 * The table is capped at MAX_LABEL_SETS sets at once: past the cap a set's text is built at every
 * poll, as for a value the series limits cut.
 */
export class LabelTable {
  private root: LabelTrie = { id: 0, used: 0 };
  private trieNodes = 1;
  private readonly texts = new Map<number, LabelSetText>([[0, NO_LABELS]]);
  private textBytes = NO_LABELS.bytes;
  private epoch = 0;
  /** Bumped when the ids start again (all given): a block of another generation is rebuilt. */
  generation = 0;

  /** @param nextId the first id to give (a test starts near the last one) */
  constructor(private nextId = 1) {}

  /** The id of a label set none of whose values the limit cuts, or UNCACHED (a cut value, or the table is full). */
  id(labels: Record<string, string>, maxLength: number | undefined): number {
    let node = this.root;
    for (const key in labels) {
      const v = labels[key];
      if (v === undefined) continue;
      if (maxLength !== undefined && v.length > maxLength) return UNCACHED;
      const byKey = this.step(node, key);
      if (!byKey) return UNCACHED;
      const byValue = this.step(byKey, v);
      if (!byValue) return UNCACHED;
      node = byValue;
    }
    if (node.id < 0) {
      // Full, or every id given (the next sweep starts a new generation; not now: a poll's builder may hold ids).
      if (this.texts.size > MAX_LABEL_SETS || this.nextId > MAX_LABEL_ID) return UNCACHED;
      const text = labelText(labels, undefined).text;
      node.id = this.nextId++;
      const entry = { text, bytes: Buffer.byteLength(text) };
      this.texts.set(node.id, entry);
      this.textBytes += entry.bytes;
    }
    node.used = this.epoch;
    return node.id;
  }

  /** The text of a set by id (an id this table gave and still holds). */
  text(id: number): LabelSetText {
    const entry = this.texts.get(id);
    if (!entry) throw new Error(`label set ${id} is not in the table`);
    return entry;
  }

  /**
   * Drops the sets not looked up since the last sweep (no poll has served them for a whole epoch),
   * and the trie nodes that led only to them; starts the next epoch. Returns the sets dropped.
   */
  sweep(): number {
    const before = this.texts.size;
    // Nearly every id given (about 30 million sets in the process's life): ids start again, in a new generation.
    if (this.nextId > MAX_LABEL_ID * 0.9) this.restart();
    else this.prune(this.root);
    this.epoch++;
    const dropped = before - this.texts.size;
    // The deleted entries stay in the table until V8 rebuilds it: sized for the sets held instead (util/compact-map.ts).
    if (dropped > 0) compactMap(this.texts);
    return dropped;
  }

  get size(): LabelTableSize {
    // The root's empty set is always there: it is not counted.
    return { sets: this.texts.size - 1, trieNodes: this.trieNodes - 1, textBytes: this.textBytes - NO_LABELS.bytes };
  }

  /** Prunes `node`'s subtree; whether `node` is still needed. */
  private prune(node: LabelTrie): boolean {
    if (node.next) {
      let deleted = 0;
      for (const [part, child] of node.next) {
        if (this.prune(child)) continue;
        node.next.delete(part);
        this.trieNodes--;
        deleted++;
      }
      if (node.next.size === 0) delete node.next;
      else if (deleted > 0) compactMap(node.next);
    }
    if (node.id > 0 && node.used < this.epoch) {
      this.textBytes -= this.texts.get(node.id)?.bytes ?? 0;
      this.texts.delete(node.id);
      node.id = -1;
    }
    return node.id >= 0 || node.next !== undefined;
  }

  private restart(): void {
    this.root = { id: 0, used: this.epoch };
    this.trieNodes = 1;
    this.texts.clear();
    this.texts.set(0, NO_LABELS);
    this.textBytes = NO_LABELS.bytes;
    this.nextId = 1;
    this.generation++;
  }

  private step(node: LabelTrie, part: string): LabelTrie | undefined {
    let next = node.next?.get(part);
    if (!next) {
      if (this.trieNodes >= MAX_TRIE_NODES) return undefined;
      this.trieNodes++;
      next = { id: -1, used: this.epoch };
      (node.next ??= new Map()).set(part, next);
    }
    return next;
  }
}

function labelText(labels: Record<string, string>, maxLength: number | undefined): { text: string; cut: boolean } {
  let text = '';
  let cut = false;
  for (const key in labels) {
    let v = labels[key];
    if (v === undefined) continue;
    if (maxLength !== undefined && v.length > maxLength) {
      v = shorten(v, maxLength - 1);
      cut = true;
    }
    text += `,${key}="${escapeLabelValue(v)}"`;
  }
  return { text: `${text}} `, cut };
}

/** `metric{` of each family. */
const OPENS: string[] = CATALOG.map((m) => `${m.name}{`);

/** What a builder collects before build(); recycled, since a builder lives for one poll. */
interface Scratch {
  n: number;
  keys: Uint32Array;
  families: Uint16Array;
  values: Float64Array;
  /** The label text of a series whose labels have no id (else undefined). */
  texts: Array<string | undefined>;
  /** Value texts, filled by build(). */
  formatted: Array<string | undefined>;
}
const SPARE: Scratch[] = [];
function scratch(): Scratch {
  return SPARE.pop() ?? { n: 0, keys: new Uint32Array(128), families: new Uint16Array(128), values: new Float64Array(128), texts: [], formatted: [] };
}

const sameValue = (a: number, b: number): boolean => a === b || (a !== a && b !== b);

export class LinesBuilder {
  private readonly label: NodeLabel;
  private s: Scratch | undefined = scratch();
  private series = 0;
  /** Series added while the limits applied (the source's own data series). */
  get limitedSeries(): number {
    return this.series;
  }
  /** Series left out by the limits. */
  dropped = 0;
  /** Label texts with a cut value, to drop the duplicates a cut can make. */
  private cut: Set<string> | undefined;

  /**
   * @param labels the exporter's label table (a test's builders may each have their own: only the
   *   builders of one node's blocks must share one)
   */
  constructor(
    node: string | NodeLabel,
    private limits?: SeriesLimits,
    private readonly labels: LabelTable = new LabelTable(),
  ) {
    this.label = typeof node === 'string' ? new NodeLabel(node) : node;
  }

  /** From here on no limit applies (the exporter's own poll metrics). */
  unlimited(): void {
    this.limits = undefined;
  }

  add(metric: MetricName, value: number | undefined, labels?: Record<string, string>): void {
    if (value === undefined) return;
    const limits = this.limits;
    if (limits && this.series >= limits.maxSeries) {
      this.dropped++;
      return;
    }
    const family = FAMILY_INDEX.get(metric);
    if (family === undefined) throw new Error(`${metric} is not in the metric catalog: declare it in src/metrics/catalog.ts`);
    const s = this.s;
    if (!s) throw new Error('LinesBuilder.add after build()');
    let key = family;
    let text: string | undefined;
    if (labels) {
      const id = this.labels.id(labels, limits?.maxLabelLength);
      if (id === UNCACHED) {
        const built = labelText(labels, limits?.maxLabelLength);
        if (built.cut) {
          const seen = `${metric}{${built.text}`;
          this.cut ??= new Set();
          if (this.cut.has(seen)) {
            this.dropped++;
            return;
          }
          this.cut.add(seen);
        }
        key = UNCACHED;
        text = built.text;
      } else key = id * FAMILY_SLOTS + family;
    }
    this.series++;
    const n = s.n;
    if (n === s.keys.length) grow(s);
    s.keys[n] = key;
    s.families[n] = family;
    s.values[n] = value;
    s.texts[n] = text;
    s.n = n + 1;
  }

  /**
   * The lines as one block. With `reuse` (the block this source served until now), the block is updated in
   * place: when the poll added the same series in the same order, only the values that changed are written
   * (their texts shifted within the buffer when a length changed), so a steady poll builds no line text;
   * otherwise the lines are rewritten into its buffer when they fit. A scrape under way may then copy some
   * of a node's families from this poll and some from the last (each family whole); a buffer is grown with
   * some slack when the lines no longer fit.
   */
  build(reuse?: LineBlock): LineBlock {
    const s = this.s;
    if (!s) throw new Error('LinesBuilder.build called twice');
    this.s = undefined;
    try {
      const old = reuse as Block | undefined;
      if (old && old.table === this.labels && old.generation === this.labels.generation && sameSeries(old, s) && update(old, s)) return old;
      return rebuild(old, s, this.label, this.labels);
    } finally {
      s.n = 0;
      s.texts.length = 0;
      s.formatted.length = 0;
      if (SPARE.length < 8) SPARE.push(s);
    }
  }
}

function grow(s: Scratch): void {
  const keys = new Uint32Array(s.keys.length * 2);
  keys.set(s.keys);
  const families = new Uint16Array(s.keys.length * 2);
  families.set(s.families);
  s.families = families;
  const values = new Float64Array(s.values.length * 2);
  values.set(s.values);
  s.keys = keys;
  s.values = values;
}

/** The poll added the same series, in the same order, as the block holds (and none without a label-set id). */
function sameSeries(block: Block, s: Scratch): boolean {
  if (block.count !== s.n) return false;
  const ints = block.ints;
  const keys = s.keys;
  for (let k = 0; k < s.n; k++) {
    const key = keys[k] as number;
    if (key === UNCACHED || ints[k * 3] !== key) return false;
  }
  return true;
}

/** Writes the values that changed into the block; false when the lines no longer fit its buffer. */
function update(block: Block, s: Scratch): boolean {
  const { values, ints, bytes, ends } = block;
  const n = s.n;
  const formatted = s.formatted;
  let changed = 0;
  let delta = 0;
  let shifted = false;
  for (let k = 0; k < n; k++) {
    const v = s.values[k] as number;
    if (sameValue(v, values[k] as number)) {
      formatted[k] = undefined;
      continue;
    }
    const text = formatValue(v);
    formatted[k] = text;
    const diff = text.length - valueLength(ints[k * 3 + 1] as number);
    if (diff !== 0) shifted = true;
    delta += diff;
    changed++;
  }
  if (changed === 0) return true;
  const oldEnd = ends[FAMILIES - 1] as number;
  if (oldEnd + delta > bytes.length) return false;
  if (!shifted) {
    // Every changed value keeps its length: overwrite in place.
    for (let k = 0; k < n; k++) {
      const text = formatted[k];
      if (text === undefined) continue;
      bytes.write(text, valueStart(ints[k * 3 + 1] as number), 'latin1');
      values[k] = s.values[k] as number;
    }
    return true;
  }
  // Lengths changed. The text between two changed values (a segment) moves by the sum of the length changes
  // before it; segments keep their order and never overlap, so they move within the buffer (copyWithin, no
  // copy of the block and no allocation): those moving left first to last, then those moving right last to
  // first, each into room no segment still to move occupies. Then the new values are written into the gaps.
  let shift = 0;
  let previousEnd = -1;
  for (let j = 0; j < n; j++) {
    const k = ints[j * 3 + 2] as number;
    const text = formatted[k];
    if (text === undefined) continue;
    const packed = ints[k * 3 + 1] as number;
    const at = valueStart(packed);
    if (previousEnd >= 0 && shift < 0) bytes.copyWithin(previousEnd + shift, previousEnd, at);
    shift += text.length - valueLength(packed);
    previousEnd = at + valueLength(packed);
  }
  if (shift < 0) bytes.copyWithin(previousEnd + shift, previousEnd, oldEnd);
  shift = delta;
  let nextStart = oldEnd;
  for (let j = n - 1; j >= 0; j--) {
    const k = ints[j * 3 + 2] as number;
    const text = formatted[k];
    if (text === undefined) continue;
    const packed = ints[k * 3 + 1] as number;
    const at = valueStart(packed);
    const end = at + valueLength(packed);
    if (shift > 0) bytes.copyWithin(end + shift, end, nextStart);
    shift -= text.length - valueLength(packed);
    nextStart = at;
  }
  shift = 0;
  let j = 0;
  for (let family = 0; family < FAMILIES; family++) {
    for (; j < n; j++) {
      const k = ints[j * 3 + 2] as number;
      if ((ints[k * 3] as number) % FAMILY_SLOTS !== family) break;
      const packed = ints[k * 3 + 1] as number;
      const text = formatted[k];
      if (text === undefined) {
        ints[k * 3 + 1] = packValue(valueStart(packed) + shift, valueLength(packed));
        continue;
      }
      const at = valueStart(packed) + shift;
      bytes.write(text, at, 'latin1');
      ints[k * 3 + 1] = packValue(at, text.length);
      shift += text.length - valueLength(packed);
      values[k] = s.values[k] as number;
    }
    ends[family] = (ends[family] as number) + shift;
  }
  return true;
}

/**
 * A block for `series` series and `capacity` bytes of lines, in one allocation (outside Node's pooled slabs):
 * the values, the family ends and the series' integers first, the lines after them.
 */
function newBlock(series: number, capacity: number, table: LabelTable): Block {
  const meta = series * 8 + FAMILIES * 4 + series * 12;
  const memory = new ArrayBuffer(meta + capacity);
  return {
    values: new Float64Array(memory, 0, series),
    ends: new Uint32Array(memory, series * 8, FAMILIES),
    ints: new Uint32Array(memory, series * 8 + FAMILIES * 4, series * 3),
    bytes: Buffer.from(memory, meta, capacity),
    count: 0,
    table,
    generation: table.generation,
  };
}

/** Writes every line anew: into `reuse` when they fit, else into a new block with 1/16 slack. */
function rebuild(reuse: Block | undefined, s: Scratch, label: NodeLabel, table: LabelTable): Block {
  const n = s.n;
  const { keys, families, texts, formatted } = s;
  // Block order: by family (catalog order), then in the order added.
  const perFamily = new Uint32Array(FAMILIES + 1);
  let size = 0;
  for (let k = 0; k < n; k++) {
    const key = keys[k] as number;
    const family = families[k] as number;
    const text = formatValue(s.values[k] as number);
    formatted[k] = text;
    const labelBytes = key === UNCACHED ? Buffer.byteLength(texts[k] as string) : table.text(Math.floor(key / FAMILY_SLOTS)).bytes;
    perFamily[family + 1] = (perFamily[family + 1] as number) + 1;
    size += (OPENS[family] as string).length + label.bytes + labelBytes + text.length + 1;
  }
  for (let f = 1; f <= FAMILIES; f++) perFamily[f] = (perFamily[f] as number) + (perFamily[f - 1] as number);
  const fits = reuse !== undefined && reuse.bytes.length >= size && reuse.values.length >= n;
  const block: Block = fits ? reuse : newBlock(n + (n >>> 3), size + (size >>> 4), table);
  block.table = table;
  block.generation = table.generation;
  const { bytes, ends, values, ints } = block;
  // Positions in block order: perFamily[f] is the next free slot of family f.
  for (let k = 0; k < n; k++) {
    const family = families[k] as number;
    const slot = perFamily[family] as number;
    perFamily[family] = slot + 1;
    ints[slot * 3 + 2] = k;
  }
  let at = 0;
  let j = 0;
  for (let family = 0; family < FAMILIES; family++) {
    for (; j < n; j++) {
      const k = ints[j * 3 + 2] as number;
      if (families[k] !== family) break;
      const key = keys[k] as number;
      at += bytes.write(OPENS[family] as string, at, 'latin1');
      at += bytes.write(label.text, at, 'utf8');
      at += bytes.write(key === UNCACHED ? (texts[k] as string) : table.text(Math.floor(key / FAMILY_SLOTS)).text, at, 'utf8');
      const text = formatted[k] as string;
      ints[k * 3] = key;
      ints[k * 3 + 1] = packValue(at, text.length);
      values[k] = s.values[k] as number;
      at += bytes.write(text, at, 'latin1');
      bytes[at++] = 0x0a;
    }
    ends[family] = at;
  }
  block.count = n;
  return block;
}
