// The answers recorded from real AvalancheGo nodes (test/fixtures/real/<version>/,
// recorded by `RECORD=1 npm run test:real-node`), for the parsers' tests.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface Recording {
  request: { method: string; path: string; body?: string };
  status: number;
  headers: Record<string, string>;
  body: string;
}

const ROOT = 'test/fixtures/real';

/** Every recording below `dir`, as [path relative to test/fixtures/real, recording], in path order. */
export function recordings(dir = ROOT): Array<[string, Recording]> {
  const out: Array<[string, Recording]> = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...recordings(path));
    else if (name.endsWith('.json') && name !== '_meta.json')
      out.push([path.slice(ROOT.length + 1), JSON.parse(readFileSync(path, 'utf8')) as Recording]);
  }
  return out;
}
