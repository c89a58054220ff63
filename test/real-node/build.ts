// Builds AvalancheGo from the Go module proxy through the pinned Go module in
// tools/avalanchego and caches the binary outside the repository, keyed by
// version, so that only the first run pays for the build.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The Go module that pins the current AvalancheGo release. */
export const TOOLS_MODULE_DIR = join(REPO_ROOT, 'tools', 'avalanchego');
/** One Go module per older release, for the old-version checks: tools/avalanchego/legacy/<version>. */
export const LEGACY_DIR = join(TOOLS_MODULE_DIR, 'legacy');

/**
 * The pinned older releases (directory names under tools/avalanchego/legacy), oldest first.
 * AVALANCHEGO_LEGACY=0 runs none of them; AVALANCHEGO_LEGACY=v1.10.19,v1.13.5 only those.
 */
export function legacyVersions(): string[] {
  if (!existsSync(LEGACY_DIR)) return [];
  const pinned = readdirSync(LEGACY_DIR)
    .filter((name) => existsSync(join(LEGACY_DIR, name, 'go.mod')))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const only = process.env.AVALANCHEGO_LEGACY;
  if (only === undefined || only === '' || only === '1') return pinned;
  if (only === '0') return [];
  const wanted = only.split(',').map((v) => v.trim());
  const unknown = wanted.filter((v) => !pinned.includes(v));
  if (unknown.length > 0) throw new Error(`AVALANCHEGO_LEGACY names ${unknown.join(', ')}; pinned: ${pinned.join(', ')}`);
  return pinned.filter((v) => wanted.includes(v));
}

export function legacyModuleDir(version: string): string {
  return join(LEGACY_DIR, version);
}

/** The package whose binary is the node (`avalanchego` in the release tarballs). */
const MAIN_PACKAGE = 'github.com/ava-labs/avalanchego/main';

export interface AvalancheGoBinary {
  /** Absolute path of the cached binary. */
  binary: string;
  /** The pinned module version, for example `v1.14.2`. */
  version: string;
  /** True when this call built the binary; false when it came from the cache. */
  built: boolean;
  /** Seconds spent in `go build` (0 when cached). */
  buildSeconds: number;
}

export function log(message: string): void {
  process.stderr.write(`[real-node] ${message}\n`);
}

/** Reads the AvalancheGo version pinned in a module's go.mod (by default tools/avalanchego). */
export async function pinnedVersion(moduleDir: string = TOOLS_MODULE_DIR): Promise<string> {
  const goMod = await readFile(join(moduleDir, 'go.mod'), 'utf8');
  const match = /^\s*(?:require\s+)?github\.com\/ava-labs\/avalanchego\s+(v\d+\.\d+\.\d+)\s*$/m.exec(goMod);
  if (!match?.[1]) {
    throw new Error(`no github.com/ava-labs/avalanchego requirement in ${moduleDir}/go.mod`);
  }
  // The grafted modules (coreth, evm, subnet-evm) are released with the node: one version for all.
  for (const graft of goMod.matchAll(/github\.com\/ava-labs\/avalanchego\/graft\/(\S+)\s+(v\S+)/g)) {
    if (graft[2] !== match[1]) {
      throw new Error(`${moduleDir}/go.mod: graft/${graft[1]} is at ${graft[2]}, the node at ${match[1]}`);
    }
  }
  return match[1];
}

/** `${XDG_CACHE_HOME:-~/.cache}/avalanchego-exporter`, or AVALANCHEGO_CACHE_DIR. */
export function cacheRoot(): string {
  if (process.env.AVALANCHEGO_CACHE_DIR) return process.env.AVALANCHEGO_CACHE_DIR;
  const xdg = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(xdg, 'avalanchego-exporter');
}

export function cachedBinaryPath(version: string): string {
  return join(cacheRoot(), `avalanchego-${version}`, 'avalanchego');
}

/** Runs a command, streaming its output to stderr with a prefix; rejects on a non-zero exit. */
function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const forward = (chunk: Buffer): void => {
      const text = chunk.toString('utf8');
      output += text;
      for (const line of text.split('\n')) if (line.trim()) log(`  ${line}`);
    };
    child.stdout.on('data', forward);
    child.stderr.on('data', forward);
    child.on('error', (err) => {
      const hint =
        command === 'go' && (err as NodeJS.ErrnoException).code === 'ENOENT'
          ? ' (Go is needed to build AvalancheGo from the Go module proxy, or set AVALANCHEGO_BIN; see docs/real-node.md)'
          : '';
      reject(new Error(`cannot run ${command}: ${err.message}${hint}`));
    });
    child.on('close', (code, signal) => {
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')} failed (code ${code}, signal ${signal}):\n${output}`));
    });
  });
}

/** `-ldflags` from the module's build.json, when an older release needs one to build with this Go. */
async function extraBuildFlags(moduleDir: string): Promise<string[]> {
  const file = join(moduleDir, 'build.json');
  if (!existsSync(file)) return [];
  const { ldflags } = JSON.parse(await readFile(file, 'utf8')) as { ldflags?: string };
  return ldflags ? [`-ldflags=${ldflags}`] : [];
}

/** Asks the binary for its version; `avalanchego/1.14.2 [...]` must match the pin. */
async function binaryVersion(binary: string): Promise<string> {
  const out = await run(binary, ['--version'], { cwd: REPO_ROOT, env: process.env });
  const match = /avalanchego\/(\d+\.\d+\.\d+)/.exec(out);
  if (!match?.[1]) throw new Error(`unexpected --version output from ${binary}: ${out}`);
  return `v${match[1]}`;
}

/**
 * Returns the AvalancheGo binary for the pinned version, building it on first use.
 *
 * AVALANCHEGO_BIN points at an existing binary instead (it must report the pinned version).
 */
export async function ensureAvalancheGo(moduleDir: string = TOOLS_MODULE_DIR): Promise<AvalancheGoBinary> {
  const version = await pinnedVersion(moduleDir);

  const override = moduleDir === TOOLS_MODULE_DIR ? process.env.AVALANCHEGO_BIN : undefined;
  if (override) {
    const reported = await binaryVersion(override);
    if (reported !== version) {
      throw new Error(`AVALANCHEGO_BIN=${override} reports ${reported}, but tools/avalanchego pins ${version}`);
    }
    log(`using AVALANCHEGO_BIN=${override} (${version})`);
    return { binary: override, version, built: false, buildSeconds: 0 };
  }

  const binary = cachedBinaryPath(version);
  if (existsSync(binary)) {
    const reported = await binaryVersion(binary);
    if (reported === version) {
      log(`using cached AvalancheGo ${version} at ${binary}`);
      return { binary, version, built: false, buildSeconds: 0 };
    }
    log(`cached binary at ${binary} reports ${reported}, expected ${version}: rebuilding`);
  }

  const dir = join(cacheRoot(), `avalanchego-${version}`);
  await mkdir(dir, { recursive: true });
  // Build to a temporary name and rename, so an interrupted build never leaves a
  // half-written binary at the cached path.
  const partial = join(dir, `avalanchego.partial-${process.pid}`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // AvalancheGo's own scripts/build.sh sets these: BLST needs cgo, and the
    // portable flag avoids CPU-specific instructions.
    CGO_ENABLED: '1',
    CGO_CFLAGS: process.env.CGO_CFLAGS ?? '-O2 -D__BLST_PORTABLE__',
  };
  const buildArgs = ['build', ...(await extraBuildFlags(moduleDir)), '-o', partial, MAIN_PACKAGE];
  log(`building AvalancheGo ${version} from the Go module proxy (a cold build takes a few minutes on 2 cores)`);
  log(`  cd ${moduleDir} && go ${buildArgs.join(' ')}`);
  const started = Date.now();
  try {
    await run('go', buildArgs, { cwd: moduleDir, env });
    await chmod(partial, 0o755);
    const reported = await binaryVersion(partial);
    if (reported !== version) throw new Error(`built binary reports ${reported}, expected ${version}`);
    await rename(partial, binary);
  } finally {
    await rm(partial, { force: true });
  }
  const buildSeconds = Math.round((Date.now() - started) / 1000);
  const goSum = await readFile(join(moduleDir, 'go.sum'));
  await writeFile(
    join(dir, 'build-info.json'),
    `${JSON.stringify(
      {
        version,
        builtAt: new Date().toISOString(),
        buildSeconds,
        goSumSha256: createHash('sha256').update(goSum).digest('hex'),
      },
      null,
      2,
    )}\n`,
  );
  log(`built AvalancheGo ${version} in ${buildSeconds}s, cached at ${binary}`);
  return { binary, version, built: true, buildSeconds };
}
