// AvalancheGo's Go source of one release, for the faithfulness tests: the files they read, from the cache next
// to the node builds (test/real-node/build.ts cacheRoot), or from the Go module proxy (`go mod download`), then
// cached, so a later run needs neither Go nor the network. The fast lane (vitest.fast.config.ts) reads the cache
// only: it runs no program and sends nothing.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cacheRoot } from '../real-node/build.js';
import { defined } from '../helpers/assert.js';

const AVALANCHEGO = 'github.com/ava-labs/avalanchego';
/** Set by vitest.fast.config.ts: the lane that needs no network and no other program. */
const FAST_LANE = process.env.AVALANCHEGO_FAST_LANE === '1';

/**
 * The files of `version`, by path, or the reason they cannot be had. `cacheName` is the folder under the cache
 * root that holds them (one per test: a download replaces the folder with exactly its files).
 */
export function goSourceFiles<F extends string>(
  version: string,
  files: readonly F[],
  cacheName: string,
  testFile: string,
  /** The Go module (default AvalancheGo's; `github.com/ava-labs/avalanchego/graft/subnet-evm` for Subnet-EVM's). */
  goModule = AVALANCHEGO,
): { files: Map<F, string> } | { reason: string } {
  const cached = join(cacheRoot(), cacheName);
  if (!files.every((f) => existsSync(join(cached, f)))) {
    if (FAST_LANE)
      return {
        reason: `the ${goModule}@${version} source is not cached under ${cached}, and the fast lane fetches nothing: run \`npx vitest run ${testFile}\` once with Go to cache it`,
      };
    const go = spawnSync('go', ['version'], { encoding: 'utf8' });
    if (go.error || go.status !== 0) return { reason: `no Go on this machine and no cached ${goModule}@${version} source under ${cached}` };
    // Outside any module, so the download does not touch a go.mod.
    const cwd = mkdtempSync(join(tmpdir(), 'avalanchego-source-'));
    try {
      const r = spawnSync('go', ['mod', 'download', '-json', `${goModule}@${version}`], { cwd, encoding: 'utf8', timeout: 300_000 });
      const dir = r.status === 0 ? (JSON.parse(r.stdout) as { Dir?: string }).Dir : undefined;
      if (!dir) return { reason: `go mod download ${goModule}@${version} failed: ${(r.stderr || r.stdout || String(r.error)).slice(0, 300)}` };
      const staging = `${cached}.tmp-${process.pid}`;
      for (const f of files) {
        mkdirSync(dirname(join(staging, f)), { recursive: true });
        copyFileSync(join(dir, f), join(staging, f));
      }
      rmSync(cached, { recursive: true, force: true });
      renameSync(staging, cached);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }
  return { files: new Map(files.map((f) => [f, readFileSync(join(cached, f), 'utf8')])) };
}

/** A Go struct's JSON tags and embedded types (`Staker`, `*AutoRenewedConfig`, `peer.Info`). */
export interface GoStruct {
  tags: string[];
  embedded: string[];
}

/** The structs of a Go file, by name: tags in declaration order. Enough Go for these files, not a parser. */
export function goStructs(text: string): Map<string, GoStruct> {
  const out = new Map<string, GoStruct>();
  for (const m of text.matchAll(/^type (\w+) struct \{\n([\s\S]*?)^\}/gm)) {
    const body = defined(m[2], 'a struct body');
    const tags = [...body.matchAll(/`json:"([^",]*)[^"]*"`/g)].map((t) => defined(t[1], 'a tag'));
    const embedded = [...body.matchAll(/^\s*\*?([\w.]+)\s*$/gm)].map((e) => defined(e[1], 'an embedded type'));
    out.set(defined(m[1], 'a struct name'), { tags, embedded });
  }
  return out;
}
