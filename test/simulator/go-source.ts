// AvalancheGo's Go source of one release, for the faithfulness tests: the files they read, from the cache next
// to the node builds (test/real-node/build.ts cacheRoot), or from the Go module proxy (`go mod download`), then
// cached, so a later run needs neither Go nor the network. The fast lane (vitest.fast.config.ts) reads the cache
// only: it runs no program and sends nothing.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cacheRoot } from '../real-node/build.js';

const MODULE = 'github.com/ava-labs/avalanchego';
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
): { files: Map<F, string> } | { reason: string } {
  const cached = join(cacheRoot(), cacheName);
  if (!files.every((f) => existsSync(join(cached, f)))) {
    if (FAST_LANE)
      return {
        reason: `the ${MODULE}@${version} source is not cached under ${cached}, and the fast lane fetches nothing: run \`npx vitest run ${testFile}\` once with Go to cache it`,
      };
    const go = spawnSync('go', ['version'], { encoding: 'utf8' });
    if (go.error || go.status !== 0) return { reason: `no Go on this machine and no cached ${MODULE}@${version} source under ${cached}` };
    // Outside any module, so the download does not touch a go.mod.
    const cwd = mkdtempSync(join(tmpdir(), 'avalanchego-source-'));
    try {
      const r = spawnSync('go', ['mod', 'download', '-json', `${MODULE}@${version}`], { cwd, encoding: 'utf8', timeout: 300_000 });
      const dir = r.status === 0 ? (JSON.parse(r.stdout) as { Dir?: string }).Dir : undefined;
      if (!dir) return { reason: `go mod download ${MODULE}@${version} failed: ${(r.stderr || r.stdout || String(r.error)).slice(0, 300)}` };
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
