// What grew between two V8 heap snapshots (.heapsnapshot, as the soak's --heap-snapshots writes them), by kind: the
// objects by constructor, V8's own objects by their internal name (hidden classes, feedback vectors, bytecode,
// hash tables), strings by type. A kind's count and self size in each snapshot and the difference, the largest first.
// Self sizes add up to the heap; what an object retains is not summed (each byte is counted once, where it lies).
//
//   node bench/heap-diff.mjs A.heapsnapshot B.heapsnapshot [--top=40] [--json] [--same-process] [--by=kind|owner] [--external]
//
// --same-process: A and B are snapshots of one process (the soak's baseline and returns): V8 keeps an object's id from
// one snapshot to the next, so B's objects whose id A does not have were made after A and are still alive. A kind that
// holds churned state has new objects in the same number as it lost old ones; a kind that leaks has more new ones.
//
// --by=owner: each object's self size goes to the object it hangs from instead of its own kind: the nearest instance of
// a class (a constructor whose name starts with a capital letter, not a built-in such as Object, Array or Map) on its
// shortest path from the GC roots over strong edges, with the property it hangs from (`LabelTable.root`,
// `Pool.<symbol queue>`); the class-less top of a path is named by the root it hangs from. Each byte is counted once,
// so the rows add up to the heap: what grew is shown where it is kept. The backing stores of array buffers (outside the
// V8 heap that the soak measures) are left out unless --external.
//
// The snapshots of the ends of a short and a long soak of one seed (--heap-snapshots-at=end) are in the same state
// (the config and the nodes restored): a kind that differs is one the longer run grew. Reads each file whole
// (a 1,000-node exporter's is about 150 MB; about 1.5 GB of memory while it is parsed).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';

/** Node types whose name is the value itself (a string's text, a number's): grouped by type alone. */
const BY_TYPE_ALONE = new Set(['string', 'concatenated string', 'sliced string', 'number', 'bigint', 'symbol']);

/** @typedef {{ snapshot: { meta: { node_fields: string[], node_types: unknown[] } }, nodes: number[], strings: string[] }} Snapshot */
/** @typedef {{ count: number, bytes: number, newCount: number, newBytes: number }} Kind */

/**
 * The index of each node field the tool reads.
 * @param {Snapshot} snap
 */
function layout(snap) {
  const fields = snap.snapshot.meta.node_fields;
  const at = (/** @type {string} */ f) => fieldIndex(fields, f, 'nodes');
  return { width: fields.length, typeAt: at('type'), nameAt: at('name'), idAt: at('id'), sizeAt: at('self_size'), countAt: at('edge_count') };
}

/**
 * Where field `f` is in a snapshot's `fields` (of its nodes or its edges), or an error that names the fields it has.
 * @param {string[]} fields
 * @param {string} f
 * @param {'nodes' | 'edges'} of
 */
function fieldIndex(fields, f, of) {
  const i = fields.indexOf(f);
  if (i < 0) throw new Error(`the snapshot's ${of} have no "${f}" field (fields: ${fields.join(', ')})`);
  return i;
}

/**
 * Counts one object of `bytes` under `key`; among the new ones too when `isNew`.
 * @param {Map<string, Kind>} groups
 * @param {string} key
 * @param {number} bytes
 * @param {boolean} isNew
 */
function tally(groups, key, bytes, isNew) {
  let k = groups.get(key);
  if (!k) groups.set(key, (k = { count: 0, bytes: 0, newCount: 0, newBytes: 0 }));
  k.count++;
  k.bytes += bytes;
  if (isNew) {
    k.newCount++;
    k.newBytes += bytes;
  }
}

/** @typedef {{ snapshot: { meta: { node_fields: string[], node_types: unknown[], edge_fields: string[], edge_types: unknown[] } }, nodes: number[], edges: number[], strings: string[] }} Graph */

/** Constructors whose instances are containers, not owners: an object hanging from one is given to what holds it. */
const NOT_OWNERS = new Set([
  'Object',
  'Array',
  'Map',
  'Set',
  'WeakMap',
  'WeakSet',
  'WeakRef',
  'Promise',
  'Error',
  'Date',
  'RegExp',
  'ArrayBuffer',
  'Buffer',
]);

/**
 * A snapshot's self sizes by owner (see --by=owner above): `Class.property` or `(root name)/edge`, with the count and
 * bytes of the objects it holds; of them, those whose id is not in `known` (made since an earlier snapshot).
 * @param {Graph} snap
 * @param {{ known?: Set<unknown>, external?: boolean }} [options]
 * @returns {Map<string, Kind>}
 */
export function heapByOwner(snap, options = {}) {
  const { width, typeAt, nameAt, idAt, sizeAt, countAt } = layout(snap);
  const meta = snap.snapshot.meta;
  const edgeFields = meta.edge_fields;
  const edgeAt = (/** @type {string} */ f) => fieldIndex(edgeFields, f, 'edges');
  const edgeWidth = edgeFields.length;
  const [eType, eName, eTo] = [edgeAt('type'), edgeAt('name_or_index'), edgeAt('to_node')];
  const types = /** @type {string[]} */ (meta.node_types[0]);
  const edgeTypes = /** @type {string[]} */ (meta.edge_types[0]);
  const { nodes, edges, strings } = snap;
  const n = nodes.length / width;
  const firstEdge = new Float64Array(n + 1);
  for (let i = 0, e = 0; i < n; i++) {
    firstEdge[i] = e;
    e += (nodes[i * width + countAt] ?? 0) * edgeWidth;
    firstEdge[i + 1] = e;
  }
  const nameOf = (/** @type {number} */ i) => strings[nodes[i * width + nameAt] ?? 0] ?? '';
  const typeOf = (/** @type {number} */ i) => types[nodes[i * width + typeAt] ?? 0] ?? '';
  const isOwner = (/** @type {number} */ i) => {
    if (typeOf(i) !== 'object') return false;
    const name = nameOf(i);
    return /^[A-Z]/.test(name) && !NOT_OWNERS.has(name);
  };
  const edgeName = (/** @type {number} */ e) => {
    const t = edgeTypes[edges[e + eType] ?? 0];
    const name = t === 'element' || t === 'hidden' ? '' : (strings[edges[e + eName] ?? 0] ?? '');
    // Elements and numbered internal slots (a hash table's) are one owner whatever their index.
    return name === '' || /^\d+$/.test(name) ? '[]' : name.slice(0, 60);
  };
  /** @type {string[]} */
  const owners = [];
  /** @type {Map<string, number>} */
  const ownerIds = new Map();
  const ownerId = (/** @type {string} */ key) => {
    let id = ownerIds.get(key);
    if (id === undefined) ownerIds.set(key, (id = owners.push(key) - 1));
    return id;
  };
  // Breadth first from the root: each object's owner is decided by the first path that reaches it (a shortest one).
  const owner = new Int32Array(n).fill(-1);
  const queue = new Int32Array(n);
  let head = 0;
  let tail = 0;
  owner[0] = ownerId('(root)');
  queue[tail++] = 0;
  while (head < tail) {
    const from = /** @type {number} */ (queue[head++]);
    const own = isOwner(from);
    const top = from === 0 || typeOf(from) === 'synthetic';
    for (let e = /** @type {number} */ (firstEdge[from]); e < /** @type {number} */ (firstEdge[from + 1]); e += edgeWidth) {
      const t = edgeTypes[edges[e + eType] ?? 0];
      if (t === 'weak' || t === 'shortcut') continue;
      const to = (edges[e + eTo] ?? 0) / width;
      if (owner[to] !== -1) continue;
      owner[to] = own
        ? ownerId(`${nameOf(from)}.${edgeName(e)}`)
        : top
          ? ownerId(`${nameOf(from).slice(0, 60)}/${edgeName(e)}`)
          : /** @type {number} */ (owner[from]);
      queue[tail++] = to;
    }
  }
  /** @type {Map<string, Kind>} */
  const byOwner = new Map();
  for (let i = 0; i < n; i++) {
    if (!options.external && typeOf(i) === 'native') continue;
    const o = owner[i] ?? -1;
    const key = o >= 0 ? (owners[o] ?? '') : '(unreachable)';
    tally(byOwner, key, nodes[i * width + sizeAt] ?? 0, options.known !== undefined && !options.known.has(nodes[i * width + idAt]));
  }
  return byOwner;
}

/**
 * The ids of a snapshot's objects.
 * @param {Snapshot} snap
 */
export function idsOf(snap) {
  const { width, idAt } = layout(snap);
  const ids = new Set();
  for (let i = 0; i < snap.nodes.length; i += width) ids.add(snap.nodes[i + idAt]);
  return ids;
}

/**
 * A snapshot's objects by kind: `type:name` (or the type alone for strings and numbers), with their count and self size;
 * of them, those whose id is not in `known` (the ids of an earlier snapshot of the same process: made since).
 * @param {Snapshot} snap
 * @param {Set<unknown>} [known]
 * @returns {Map<string, Kind>}
 */
export function heapByKind(snap, known) {
  const types = /** @type {string[]} */ (snap.snapshot.meta.node_types[0]);
  const { width, typeAt, nameAt, idAt, sizeAt } = layout(snap);
  /** @type {Map<string, Kind>} */
  const kinds = new Map();
  const { nodes, strings } = snap;
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + typeAt] ?? 0] ?? 'unknown';
    const key = BY_TYPE_ALONE.has(type) ? `(${type})` : `${type}:${strings[nodes[i + nameAt] ?? 0] ?? ''}`;
    tally(kinds, key, nodes[i + sizeAt] ?? 0, known !== undefined && !known.has(nodes[i + idAt]));
  }
  return kinds;
}

/**
 * Each kind in either snapshot with its count and bytes in both and the differences, the largest change in bytes
 * first; `newCount` and `newBytes`, B's objects made since A (when B was read with A's ids).
 * @param {Map<string, Kind>} a
 * @param {Map<string, Kind>} b
 */
export function diffKinds(a, b) {
  const none = { count: 0, bytes: 0, newCount: 0, newBytes: 0 };
  const rows = [...new Set([...a.keys(), ...b.keys()])].map((kind) => {
    const x = a.get(kind) ?? none;
    const y = b.get(kind) ?? none;
    return {
      kind,
      countA: x.count,
      countB: y.count,
      bytesA: x.bytes,
      bytesB: y.bytes,
      count: y.count - x.count,
      bytes: y.bytes - x.bytes,
      newCount: y.newCount,
      newBytes: y.newBytes,
    };
  });
  rows.sort((r, s) => Math.abs(s.bytes) - Math.abs(r.bytes) || r.kind.localeCompare(s.kind));
  const total = (/** @type {Map<string, Kind>} */ m) => [...m.values()].reduce((t, k) => t + k.bytes, 0);
  return { totalA: total(a), totalB: total(b), rows };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      top: { type: 'string', default: '40' },
      json: { type: 'boolean', default: false },
      'same-process': { type: 'boolean', default: false },
      by: { type: 'string', default: 'kind' },
      external: { type: 'boolean', default: false },
    },
  });
  if (values.by !== 'kind' && values.by !== 'owner') {
    process.stderr.write(`--by=${values.by}: give kind (each object by its constructor) or owner (by the object it hangs from)\n`);
    process.exit(2);
  }
  if (positionals.length !== 2) {
    process.stderr.write('usage: node bench/heap-diff.mjs A.heapsnapshot B.heapsnapshot [--top=40] [--json] [--same-process]\n');
    process.exit(2);
  }
  /** @param {string} file */
  const read = (file) => {
    /** @type {unknown} */
    const parsed = JSON.parse(readFileSync(file, 'utf8'));
    return /** @type {Snapshot} */ (parsed);
  };
  const first = read(/** @type {string} */ (positionals[0]));
  const known = values['same-process'] ? idsOf(first) : undefined;
  const external = values.external;
  const group =
    values.by === 'owner'
      ? (/** @type {Snapshot} */ s, /** @type {Set<unknown> | undefined} */ k) =>
          heapByOwner(/** @type {Graph} */ (s), { ...(k ? { known: k } : {}), external })
      : heapByKind;
  const a = group(first, undefined);
  const b = group(read(/** @type {string} */ (positionals[1])), known);
  const d = diffKinds(a, b);
  const top = d.rows.slice(0, Number(values.top));
  if (values.json) process.stdout.write(`${JSON.stringify({ totalA: d.totalA, totalB: d.totalB, rows: top })}\n`);
  else {
    const mib = (/** @type {number} */ n) => (n / 2 ** 20).toFixed(3);
    const made = (/** @type {(typeof top)[number]} */ r) => (known ? `${mib(r.newBytes).padStart(9)} ${String(r.newCount).padStart(9)} ` : '');
    process.stdout.write(`self sizes: ${mib(d.totalA)} MiB → ${mib(d.totalB)} MiB (${mib(d.totalB - d.totalA)} MiB)\n`);
    process.stdout.write(
      `${'Δ MiB'.padStart(9)} ${'Δ count'.padStart(9)} ${'MiB in B'.padStart(9)} ${'count in B'.padStart(11)} ${known ? `${'new MiB'.padStart(9)} ${'new count'.padStart(9)} ` : ''} ${values.by}\n`,
    );
    for (const r of top)
      process.stdout.write(
        `${mib(r.bytes).padStart(9)} ${String(r.count).padStart(9)} ${mib(r.bytesB).padStart(9)} ${String(r.countB).padStart(11)} ${made(r)} ${r.kind.slice(0, 120)}\n`,
      );
  }
}
