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
  // The two edges over the config: toward the nodes, and the exporter's own web server (TLS, auth).
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
];

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
