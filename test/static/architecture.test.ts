// The import graph of src/: no import runs back up the layers, no loop, and
// the simulator and the exporter's core share nothing but the Go time helpers.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** Bottom to top: a module may import its own layer or a lower one. */
const LAYERS: ReadonlyArray<readonly string[]> = [
  ['util/', 'clock.ts', 'log.ts', 'version.ts', 'shard.ts', 'runtime.ts'],
  ['config/'],
  // The two edges over the config: toward the nodes, and the exporter's own port (web/: the web config, its guard,
  // and the listening socket with its TLS and limits, in one place as prometheus/exporter-toolkit keeps them).
  ['rpc/', 'web/'],
  ['metrics/'],
  ['sources/'],
  ['scheduler/'],
  ['server/', 'docs/'],
  ['exporter.ts'],
  ['cli.ts', 'demo.ts', 'healthcheck.ts'],
  ['main.ts'],
];
/** The simulator stands apart: only the entry points (main.ts, demo.ts) see both worlds. */
const SIMULATOR = 'simulator/';
const ENTRY_POINTS = new Set(['main.ts', 'cli.ts', 'demo.ts']);
const SHARED_WITH_SIMULATOR = new Set(['util/gotime.ts']);

/**
 * Narrow doors: modules of `from` may import modules of `to` only through `through`, and
 * nothing `through` imports, however indirectly, is in `never`.
 */
const DOORS: ReadonlyArray<{ from: string; to: string; through: readonly string[]; never: readonly string[]; why: string }> = [
  {
    from: 'server/',
    to: 'scheduler/',
    through: ['scheduler/fleet.ts'],
    never: ['scheduler/scheduler.ts', 'scheduler/poller.ts', 'scheduler/debug-poll.ts', 'scheduler/due.ts'],
    why: 'the server reads the fleet through FleetReader (scheduler/fleet.ts), never the Scheduler or the pollers, which start, stop and reconfigure polls',
  },
  {
    from: 'scheduler/',
    to: 'rpc/limiter.ts',
    through: ['rpc/admission.ts'],
    never: ['rpc/client.ts', 'rpc/sockets.ts'],
    why: 'who waits for a slot, whose time the wait is and when a poll is skipped are decided in one place, rpc/admission.ts (issue 29), which knows nothing of the transport',
  },
  {
    from: 'server/',
    to: 'web/',
    through: ['web/guard.ts'],
    never: ['web/server.ts'],
    why: "the endpoints take the web config's guard (auth, headers, rate limit); the listening socket (web/server.ts: TLS, connection limits) is the exporter's, made in exporter.ts",
  },
];

/**
 * The modules of src/sources/ that are not a source: the contract, what sources share (wire helpers, the
 * shapes of the facts they offer, the page sections) and the list. Every other module there is a source.
 */
const SOURCES_SHARED = new Set(['sources/source.ts', 'sources/wire.ts', 'sources/facts.ts', 'sources/section.ts']);
const REGISTRY = 'sources/registry.ts';
const isSource = (file: string) => file.startsWith('sources/') && file !== REGISTRY && !SOURCES_SHARED.has(file);

const SRC = 'src';

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [relative(SRC, path)] : [];
  });
}

/** Relative imports of a module (static, re-exports, `import type` and dynamic), as paths under src/. */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(join(SRC, file), 'utf8'), true, true);
  return info.importedFiles
    .map((f) => f.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => normalize(join(dirname(file), name)).replace(/\.js$/, '.ts'));
}

/**
 * A source module's `uses: ['…']` and the names it reads another source by: the first argument of every
 * `.use('…')` and `.runs('…')` call (the node's, NodeSnapshots).
 */
function usesOf(file: string): { declared: Set<string>; read: Set<string> } {
  const declared = new Set<string>();
  const read = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAssignment(node) && node.name.getText() === 'uses' && ts.isArrayLiteralExpression(node.initializer)) {
      for (const e of node.initializer.elements) if (ts.isStringLiteral(e)) declared.add(e.text);
    }
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && ['use', 'runs'].includes(node.expression.name.text)) {
      const [first] = node.arguments;
      read.add(first && ts.isStringLiteral(first) ? first.text : `(not a string literal: ${node.getText()})`);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, readFileSync(join(SRC, file), 'utf8'), ts.ScriptTarget.Latest, true));
  return { declared, read };
}

function layerOf(file: string): number {
  const i = LAYERS.findIndex((layer) => layer.some((entry) => (entry.endsWith('/') ? file.startsWith(entry) : file === entry)));
  return i;
}

const files = sourceFiles();
const graph = new Map(files.map((f) => [f, importsOf(f)]));

describe('architecture (the import graph of src/)', () => {
  it('every module is in a layer, or in the simulator', () => {
    const placed = files.filter((f) => !f.startsWith(SIMULATOR) && layerOf(f) < 0);
    expect(placed, 'add these modules to LAYERS in test/static/architecture.test.ts').toEqual([]);
  });

  it('every relative import resolves to a module of src/', () => {
    const missing = [...graph].flatMap(([from, targets]) => targets.filter((t) => !graph.has(t)).map((t) => `${from} → ${t}`));
    expect(missing).toEqual([]);
  });

  it('no import runs back up the layers', () => {
    const upward = [...graph].flatMap(([from, targets]) =>
      from.startsWith(SIMULATOR) ? [] : targets.filter((t) => !t.startsWith(SIMULATOR) && layerOf(t) > layerOf(from)).map((t) => `${from} → ${t}`),
    );
    expect(upward).toEqual([]);
  });

  it("the simulator and the exporter's core share only the Go time helpers", () => {
    const crossing = [...graph].flatMap(([from, targets]) =>
      targets
        .filter((t) => {
          if (from.startsWith(SIMULATOR)) return !t.startsWith(SIMULATOR) && !SHARED_WITH_SIMULATOR.has(t);
          return t.startsWith(SIMULATOR) && !ENTRY_POINTS.has(from);
        })
        .map((t) => `${from} → ${t}`),
    );
    expect(crossing).toEqual([]);
  });

  it.each(DOORS)('$from reaches $to only through $through', ({ from, to, through, never, why }) => {
    const around = [...graph].flatMap(([file, targets]) =>
      file.startsWith(from) ? targets.filter((t) => t.startsWith(to) && !through.includes(t)).map((t) => `${file} → ${t}`) : [],
    );
    expect(around, why).toEqual([]);
    const reached = new Set<string>();
    const visit = (file: string): void => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const next of graph.get(file) ?? []) visit(next);
    };
    for (const door of through) visit(door);
    expect(
      never.filter((f) => reached.has(f)),
      why,
    ).toEqual([]);
  });

  it('no source imports another, not even for a type: a source reads another through `uses` (sources/source.ts)', () => {
    const crossing = [...graph].flatMap(([from, targets]) =>
      from.startsWith('sources/') && from !== REGISTRY ? targets.filter((t) => t !== from && isSource(t)).map((t) => `${from} → ${t}`) : [],
    );
    expect(crossing, 'move what they share to sources/wire.ts or sources/facts.ts, or read it through Source.uses').toEqual([]);
    // The rule has something to hold: the sources are found.
    expect(files.filter(isSource).length).toBeGreaterThanOrEqual(7);
  });

  it('a source reads only the sources it names in `uses` (node.use, node.runs)', () => {
    const undeclared = files.filter(isSource).flatMap((file) => {
      const { declared, read } = usesOf(file);
      return [...read].filter((name) => !declared.has(name)).map((name) => `${file} reads ${name} without naming it in uses`);
    });
    expect(undeclared).toEqual([]);
    // The check reads what it should: platform uses info, and says so.
    expect(usesOf('sources/platform.ts')).toEqual({ declared: new Set(['info']), read: new Set(['info']) });
  });

  it('has no import loop', () => {
    const loops: string[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'visiting') {
        loops.push([...path.slice(path.indexOf(file)), file].join(' → '));
        return;
      }
      state.set(file, 'visiting');
      for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    expect(loops).toEqual([]);
  });
});
