// What grew between two V8 heap snapshots (.heapsnapshot, as the soak's --heap-snapshots writes them), by kind: the
// objects by constructor, V8's own objects by their internal name (hidden classes, feedback vectors, bytecode,
// hash tables), strings by type. A kind's count and self size in each snapshot and the difference, the largest first.
// Self sizes add up to the heap; what an object retains is not summed (each byte is counted once, where it lies).
//
//   node bench/heap-diff.mjs A.heapsnapshot B.heapsnapshot [--top=40] [--json]
//
// The snapshots of the ends of a short and a long soak of one seed (--heap-snapshots-at=end) are in the same state
// (the config and the nodes restored): a kind that differs is one the longer run grew. Reads each file whole
// (a 1,000-node exporter's is about 150 MB; about 1.5 GB of memory while it is parsed).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';

/** Node types whose name is the value itself (a string's text, a number's): grouped by type alone. */
const BY_TYPE_ALONE = new Set(['string', 'concatenated string', 'sliced string', 'number', 'bigint', 'symbol']);

/**
 * A snapshot's objects by kind: `type:name` (or the type alone for strings and numbers), with their count and self size.
 * @param {{ snapshot: { meta: { node_fields: string[], node_types: unknown[] } }, nodes: number[], strings: string[] }} snap
 * @returns {Map<string, { count: number, bytes: number }>}
 */
export function heapByKind(snap) {
  const fields = snap.snapshot.meta.node_fields;
  const types = /** @type {string[]} */ (snap.snapshot.meta.node_types[0]);
  const width = fields.length;
  const at = (/** @type {string} */ f) => {
    const i = fields.indexOf(f);
    if (i < 0) throw new Error(`the snapshot's nodes have no "${f}" field (fields: ${fields.join(', ')})`);
    return i;
  };
  const [typeAt, nameAt, sizeAt] = [at('type'), at('name'), at('self_size')];
  /** @type {Map<string, { count: number, bytes: number }>} */
  const kinds = new Map();
  const { nodes, strings } = snap;
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + typeAt] ?? 0] ?? 'unknown';
    const key = BY_TYPE_ALONE.has(type) ? `(${type})` : `${type}:${strings[nodes[i + nameAt] ?? 0] ?? ''}`;
    const k = kinds.get(key);
    const bytes = nodes[i + sizeAt] ?? 0;
    if (k) {
      k.count++;
      k.bytes += bytes;
    } else kinds.set(key, { count: 1, bytes });
  }
  return kinds;
}

/**
 * Each kind in either snapshot with its count and bytes in both and the differences, the largest change in bytes first.
 * @param {Map<string, { count: number, bytes: number }>} a
 * @param {Map<string, { count: number, bytes: number }>} b
 */
export function diffKinds(a, b) {
  const none = { count: 0, bytes: 0 };
  const rows = [...new Set([...a.keys(), ...b.keys()])].map((kind) => {
    const x = a.get(kind) ?? none;
    const y = b.get(kind) ?? none;
    return { kind, countA: x.count, countB: y.count, bytesA: x.bytes, bytesB: y.bytes, count: y.count - x.count, bytes: y.bytes - x.bytes };
  });
  rows.sort((r, s) => Math.abs(s.bytes) - Math.abs(r.bytes) || r.kind.localeCompare(s.kind));
  const total = (/** @type {Map<string, { count: number, bytes: number }>} */ m) => [...m.values()].reduce((t, k) => t + k.bytes, 0);
  return { totalA: total(a), totalB: total(b), rows };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string', default: '40' }, json: { type: 'boolean', default: false } },
  });
  if (positionals.length !== 2) {
    process.stderr.write('usage: node bench/heap-diff.mjs A.heapsnapshot B.heapsnapshot [--top=40] [--json]\n');
    process.exit(2);
  }
  /** @param {string} file */
  const read = (file) => {
    /** @type {unknown} */
    const parsed = JSON.parse(readFileSync(file, 'utf8'));
    return heapByKind(/** @type {Parameters<typeof heapByKind>[0]} */ (parsed));
  };
  const [a, b] = positionals.map(read);
  const d = diffKinds(
    /** @type {Map<string, { count: number, bytes: number }>} */ (a),
    /** @type {Map<string, { count: number, bytes: number }>} */ (b),
  );
  const top = d.rows.slice(0, Number(values.top));
  if (values.json) process.stdout.write(`${JSON.stringify({ totalA: d.totalA, totalB: d.totalB, rows: top })}\n`);
  else {
    const mib = (/** @type {number} */ n) => (n / 2 ** 20).toFixed(3);
    process.stdout.write(`self sizes: ${mib(d.totalA)} MiB → ${mib(d.totalB)} MiB (${mib(d.totalB - d.totalA)} MiB)\n`);
    process.stdout.write(`${'Δ MiB'.padStart(9)} ${'Δ count'.padStart(9)} ${'MiB in B'.padStart(9)} ${'count in B'.padStart(11)}  kind\n`);
    for (const r of top)
      process.stdout.write(
        `${mib(r.bytes).padStart(9)} ${String(r.count).padStart(9)} ${mib(r.bytesB).padStart(9)} ${String(r.countB).padStart(11)}  ${r.kind.slice(0, 100)}\n`,
      );
  }
}
