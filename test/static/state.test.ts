// No process-wide state (STYLE.md 7): every table, cache, queue and counter an exporter
// fills lives in its instance (the Scheduler's timetable, request bodies and label table),
// so two exporters in one process share none. A module's top level may hold constants and
// lookup tables built from their contents, not state: no `let`/`var`, no empty Map, Set or
// array to fill later, no instance of a class of ours — except the scratch below.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = 'src';
/** The simulator is a test double with its own process model; not the exporter. */
const SKIP = ['simulator/'];

/** Module-level values that hold no state an exporter could see, each with its reason. */
const ALLOWED: Record<string, string> = {
  'metrics/render.ts SPARE': 'scratch arrays recycled between builds; emptied before they go back, nothing in them outlives a build',
};

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [relative(SRC, path)] : [];
  });
}

/** Why a top-level declaration is state, or undefined when it is a constant. */
function stateOf(decl: ts.VariableDeclaration, flags: ts.NodeFlags): string | undefined {
  if (!(flags & ts.NodeFlags.Const)) return 'a let or var at the top level';
  let init = decl.initializer;
  while (init && (ts.isAsExpression(init) || ts.isSatisfiesExpression(init) || ts.isParenthesizedExpression(init))) init = init.expression;
  if (!init) return undefined;
  if (ts.isNewExpression(init)) {
    const name = init.expression.getText();
    if ((name === 'Map' || name === 'Set') && (init.arguments?.length ?? 0) > 0) return undefined;
    return `new ${name}(…) at the top level`;
  }
  if (ts.isArrayLiteralExpression(init) && init.elements.length === 0) return 'an empty array at the top level';
  return undefined;
}

describe('process-wide state', () => {
  it('no module of src/ keeps state at its top level', () => {
    const found: string[] = [];
    for (const file of sourceFiles()) {
      if (SKIP.some((s) => file.startsWith(s))) continue;
      const source = ts.createSourceFile(file, readFileSync(join(SRC, file), 'utf8'), ts.ScriptTarget.Latest, true);
      for (const statement of source.statements) {
        if (!ts.isVariableStatement(statement)) continue;
        for (const decl of statement.declarationList.declarations) {
          const why = stateOf(decl, statement.declarationList.flags);
          const key = `${file} ${decl.name.getText()}`;
          if (why && !(key in ALLOWED)) found.push(`${key}: ${why}`);
        }
      }
    }
    expect(found, 'move it into the instance that owns it (see Scheduler), or add it to ALLOWED with the reason it is not state').toEqual([]);
  });
});
