// Prometheus text exposition of the per-node catalog. A source's sample lines
// for a node are built once, when its poll ends, as one buffer (LineBlock); a
// scrape copies byte ranges of those buffers under each family's HELP and TYPE,
// in chunks, so its cost is proportional to its output and the fleet's text is
// never held in one piece.
import { CATALOG, type MetricName, type MetricSpec } from './catalog.js';

const FAMILY_INDEX = new Map<string, number>(CATALOG.map((m, i) => [m.name, i]));
const FAMILIES = CATALOG.length;
const HEADERS: Buffer[] = CATALOG.map((m: MetricSpec) => Buffer.from(`# HELP ${m.name} ${escapeHelp(m.help)}\n# TYPE ${m.name} ${m.type}\n`));

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * One source's sample lines for one node: every line in one buffer, family by
 * family in catalog order; family i is `bytes[ends[i - 1] … ends[i])` (from 0
 * for the first), and the lines end at `ends[ends.length - 1]` (the buffer may
 * be longer: it is reused by the next poll). Allocated outside Node's pooled
 * slabs (a small pooled Buffer keeps its whole 8 KiB slab alive as long as it lives).
 */
export interface LineBlock {
  readonly bytes: Buffer;
  readonly ends: Uint32Array;
}

/** A node's lines: one block per source that has polled. */
export type NodeLines = ReadonlyArray<LineBlock>;

function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

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

export class LinesBuilder {
  private readonly families: string[] = new Array<string>(FAMILIES).fill('');
  private readonly nodeLabel: string;
  private series = 0;
  /** Series added while the limits applied (the source's own data series). */
  get limitedSeries(): number {
    return this.series;
  }
  /** Series left out by the limits. */
  dropped = 0;
  /** Label texts with a cut value, to drop the duplicates a cut can make. */
  private cut: Set<string> | undefined;

  constructor(
    node: string,
    private limits?: SeriesLimits,
  ) {
    this.nodeLabel = `node="${escapeLabelValue(node)}"`;
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
    const i = FAMILY_INDEX.get(metric);
    if (i === undefined) throw new Error(`${metric} is not in the metric catalog: declare it in src/metrics/catalog.ts`);
    let labelText = this.nodeLabel;
    let wasCut = false;
    if (labels) {
      for (const key in labels) {
        let v = labels[key];
        if (v === undefined) continue;
        if (limits && v.length > limits.maxLabelLength) {
          v = `${v.slice(0, limits.maxLabelLength - 1)}…`;
          wasCut = true;
        }
        labelText += `,${key}="${escapeLabelValue(v)}"`;
      }
    }
    if (wasCut) {
      const id = `${metric}{${labelText}}`;
      this.cut ??= new Set();
      if (this.cut.has(id)) {
        this.dropped++;
        return;
      }
      this.cut.add(id);
    }
    this.series++;
    this.families[i] = `${this.families[i] ?? ''}${metric}{${labelText}} ${formatValue(value)}\n`;
  }

  /**
   * The lines as one block. With `reuse` (the block this source served until now), the new lines are written
   * into its buffer and offsets in place when they fit, so a steady fleet allocates no new block a poll: the
   * text stays in one allocation per node and source instead of a new one each poll left for the garbage
   * collector. A scrape under way may then copy some of a node's families from this poll and some from the
   * last (each family whole); a buffer is grown with some slack when the lines no longer fit.
   */
  build(reuse?: LineBlock): LineBlock {
    const families = this.families;
    let size = 0;
    for (let i = 0; i < FAMILIES; i++) {
      const text = families[i];
      if (text) size += Buffer.byteLength(text);
    }
    const fits = reuse !== undefined && reuse.bytes.length >= size;
    const bytes = fits ? reuse.bytes : Buffer.allocUnsafeSlow(size + (size >>> 4));
    const ends = fits ? reuse.ends : new Uint32Array(FAMILIES);
    let at = 0;
    for (let i = 0; i < FAMILIES; i++) {
      const text = families[i];
      if (text) at += bytes.write(text, at);
      ends[i] = at;
    }
    return fits ? reuse : { bytes, ends };
  }
}

/** Chunks of a scrape: large enough to write efficiently, small enough to yield to polls between them. */
export const CHUNK_BYTES = 256 * 1024;

/**
 * The catalog families of the given nodes, skipping families without samples,
 * in chunks of about `chunkBytes` (a new buffer each: the caller may still be
 * writing the previous one). Copies byte ranges of the nodes' blocks, no
 * allocation per node. Pass the fleet's lines as they are when the scrape
 * starts. A poll that ends between two chunks may rewrite a block in place
 * (LinesBuilder.build): each family is copied whole from the block as it is
 * when the family is reached, so a series present before and after that poll
 * is never missing from the scrape; a family that was empty at the start is
 * left out for that node until the next scrape.
 */
export function* renderChunks(list: ReadonlyArray<NodeLines>, chunkBytes = CHUNK_BYTES): Generator<Buffer, void, undefined> {
  // One pass over the blocks lists, for each family, the blocks that have samples of it (in
  // node order): the copy loop below then touches only non-empty ranges, instead of every
  // family of every block (57 × nodes × sources checks a scrape).
  const perFamily: LineBlock[][] = Array.from({ length: FAMILIES }, () => []);
  for (let n = 0; n < list.length; n++) {
    const node = list[n] as NodeLines;
    for (let b = 0; b < node.length; b++) {
      const block = node[b] as LineBlock;
      const ends = block.ends;
      let start = 0;
      for (let i = 0; i < FAMILIES; i++) {
        const end = ends[i] as number;
        if (end !== start) (perFamily[i] as LineBlock[]).push(block);
        start = end;
      }
    }
  }
  let chunk = Buffer.allocUnsafe(chunkBytes);
  let pos = 0;
  for (let i = 0; i < FAMILIES; i++) {
    const blocks = perFamily[i] as LineBlock[];
    if (blocks.length === 0) continue;
    const header = HEADERS[i] as Buffer;
    let headed = false;
    for (let k = 0; k < blocks.length; k++) {
      const block = blocks[k] as LineBlock;
      const start = i === 0 ? 0 : (block.ends[i - 1] as number);
      const end = block.ends[i] as number;
      const need = end - start + (headed ? 0 : header.length);
      if (pos + need > chunk.length) {
        if (pos > 0) yield chunk.subarray(0, pos);
        chunk = Buffer.allocUnsafe(Math.max(chunkBytes, need));
        pos = 0;
      }
      if (!headed) {
        pos += header.copy(chunk, pos);
        headed = true;
      }
      pos += block.bytes.copy(chunk, pos, start, end);
    }
  }
  if (pos > 0) yield chunk.subarray(0, pos);
}

/** The whole exposition of the given nodes in one buffer (one node's /probe, tests). */
export function renderNodes(list: ReadonlyArray<NodeLines>): Buffer {
  const chunks = [...renderChunks(list)];
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
}
