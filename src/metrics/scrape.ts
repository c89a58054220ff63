// The scrape: Prometheus text exposition of the nodes' line blocks (render.ts),
// family by family under each family's HELP and TYPE. It copies byte ranges of
// the blocks into chunks, so its cost is proportional to its output, it
// allocates nothing per node, and the fleet's text is never held in one piece.
import { CATALOG, type MetricSpec } from './catalog.js';
import { FAMILIES, type LineBlock, type NodeLines } from './render.js';

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const HEADERS: Buffer[] = CATALOG.map((m: MetricSpec) => Buffer.from(`# HELP ${m.name} ${escapeHelp(m.help)}\n# TYPE ${m.name} ${m.type}\n`));

function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
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

/**
 * The whole exposition of the given nodes in one buffer of exactly its size (one node's /probe, tests): no
 * scrape-sized chunk for a few KiB of one node's lines, which at a thousand probes a second is what the
 * collector would be busy freeing.
 */
export function renderNodes(list: ReadonlyArray<NodeLines>): Buffer {
  let size = 0;
  for (let i = 0; i < FAMILIES; i++) {
    let family = 0;
    for (const node of list) for (const block of node) family += (block.ends[i] as number) - (i === 0 ? 0 : (block.ends[i - 1] as number));
    if (family > 0) size += family + (HEADERS[i] as Buffer).length;
  }
  // One chunk of exactly the exposition's size: renderChunks yields it whole.
  const [whole] = renderChunks(list, size);
  return whole ?? Buffer.alloc(0);
}
