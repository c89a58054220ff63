// Builds AvalancheGo from the Go module proxy through the pinned Go module in
// tools/avalanchego and caches the binary outside the repository, keyed by
// version, so that only the first run pays for the build.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
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
 * Builds `pkg` from the module at `moduleDir` into `binary` (cgo as AvalancheGo's own
 * scripts/build.sh: BLST needs it, and the portable flag avoids CPU-specific instructions),
 * through a temporary name that is renamed into place only once `check` accepted the result, so
 * an interrupted or wrong build never leaves a broken binary. Writes `build-info.json` beside it.
 */
async function buildCached(
  what: string,
  moduleDir: string,
  pkg: string,
  binary: string,
  version: string,
  check: (partial: string) => Promise<void>,
  extra: { info?: Record<string, unknown>; infoDir?: string } = {},
): Promise<number> {
  // The partial build and build-info.json go beside the binary, or in `infoDir` when the
  // binary's directory must hold nothing else (a plugin directory).
  const dir = extra.infoDir ?? dirname(binary);
  await mkdir(dir, { recursive: true });
  await mkdir(dirname(binary), { recursive: true });
  const partial = join(dir, `${basename(binary)}.partial-${process.pid}`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CGO_ENABLED: '1',
    CGO_CFLAGS: process.env.CGO_CFLAGS ?? '-O2 -D__BLST_PORTABLE__',
  };
  const buildArgs = ['build', ...(await extraBuildFlags(moduleDir)), '-o', partial, pkg];
  log(`building ${what} ${version} from the Go module proxy (a cold build takes a few minutes on 2 cores)`);
  log(`  cd ${moduleDir} && go ${buildArgs.join(' ')}`);
  const started = Date.now();
  try {
    await run('go', buildArgs, { cwd: moduleDir, env });
    await chmod(partial, 0o755);
    await check(partial);
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
        package: pkg,
        builtAt: new Date().toISOString(),
        buildSeconds,
        goSumSha256: createHash('sha256').update(goSum).digest('hex'),
        ...extra.info,
      },
      null,
      2,
    )}\n`,
  );
  log(`built ${what} ${version} in ${buildSeconds}s, cached at ${binary}`);
  return buildSeconds;
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

  const buildSeconds = await buildCached('AvalancheGo', moduleDir, MAIN_PACKAGE, binary, version, async (partial) => {
    const reported = await binaryVersion(partial);
    if (reported !== version) throw new Error(`built binary reports ${reported}, expected ${version}`);
  });
  return { binary, version, built: true, buildSeconds };
}

/**
 * The VM ID of Subnet-EVM (`constants.SubnetEVMID`: the bytes of "subnetevm"). The node runs a VM
 * plugin from the file named by its VM ID in `--plugin-dir`.
 */
export const SUBNET_EVM_VM_ID = 'srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy';
/**
 * The Subnet-EVM plugin's main package: graft/subnet-evm's plugin/main.go with the file limit
 * clamped to the hard limit (tools/avalanchego/subnetevm/main.go says why). Its VM is
 * graft/subnet-evm's, at the version pinned in the same go.mod as the node.
 */
const SUBNET_EVM_PACKAGE = 'github.com/avalanchego-exporter/tools/avalanchego/subnetevm';
const SUBNET_EVM_MAIN = join(TOOLS_MODULE_DIR, 'subnetevm', 'main.go');

export interface SubnetEvmPlugin {
  /** The directory to pass as `--plugin-dir`: it holds only the plugin, named by its VM ID. */
  pluginDir: string;
  binary: string;
  /** The pinned module version of the node and its grafted modules, for example `v1.14.2`. */
  version: string;
  /** The RPC chain VM protocol the plugin speaks; the node's `info.getNodeVersion` says its own. */
  rpcChainVm: number;
  built: boolean;
  buildSeconds: number;
}

export function subnetEvmPluginDir(version: string): string {
  return join(cacheRoot(), `subnet-evm-${version}`, 'plugins');
}

/** `Subnet-EVM/v1.14.2 [rpcchainvm=45]` (the plugin's --version): the release and its RPC protocol. */
async function pluginVersion(binary: string): Promise<{ version: string; rpcChainVm: number }> {
  const out = await run(binary, ['--version'], { cwd: REPO_ROOT, env: process.env });
  const match = /Subnet-EVM\/v?(\d+\.\d+\.\d+)\S* \[rpcchainvm=(\d+)\]/.exec(out);
  if (!match?.[1] || !match[2]) throw new Error(`unexpected --version output from ${binary}: ${out}`);
  return { version: `v${match[1]}`, rpcChainVm: Number(match[2]) };
}

/**
 * Runs the plugin as the node starts it, minus the node: it sets its file limit, then fails to
 * serve for want of the node's handshake. A plugin that cannot set its file limit exits before,
 * and the node would only see it vanish.
 */
async function checkPluginStarts(binary: string): Promise<void> {
  const out = await run(binary, [], { cwd: REPO_ROOT, env: process.env }).catch((err: unknown) => String(err));
  if (/fd limit|fd-limit/.test(out)) throw new Error(`the plugin cannot start here: ${out.trim()}`);
}

/**
 * Returns the Subnet-EVM VM plugin of the pinned release, building it on first use into
 * `<cache>/subnet-evm-<version>/plugins/<VM ID>`. Only the current release has it: the older
 * pins predate the grafted modules. A cached plugin is rebuilt when its version or the launcher
 * (tools/avalanchego/subnetevm/main.go) changed.
 */
export async function ensureSubnetEvm(moduleDir: string = TOOLS_MODULE_DIR): Promise<SubnetEvmPlugin> {
  const version = await pinnedVersion(moduleDir);
  if (!/github\.com\/ava-labs\/avalanchego\/graft\/subnet-evm\s/.test(await readFile(join(moduleDir, 'go.mod'), 'utf8'))) {
    throw new Error(`${moduleDir}/go.mod does not pin graft/subnet-evm: no Subnet-EVM plugin for ${version}`);
  }
  const pluginDir = subnetEvmPluginDir(version);
  const binary = join(pluginDir, SUBNET_EVM_VM_ID);
  const mainSha256 = createHash('sha256')
    .update(await readFile(SUBNET_EVM_MAIN))
    .digest('hex');
  // Beside the plugin directory, not in it: the node takes every file there for a VM.
  const infoDir = dirname(pluginDir);
  const infoFile = join(infoDir, 'build-info.json');
  if (existsSync(binary) && existsSync(infoFile)) {
    const info = JSON.parse(await readFile(infoFile, 'utf8')) as { mainSha256?: string };
    const reported = await pluginVersion(binary);
    if (reported.version === version && info.mainSha256 === mainSha256) {
      log(`using cached Subnet-EVM plugin ${version} at ${binary}`);
      return { pluginDir, binary, version, rpcChainVm: reported.rpcChainVm, built: false, buildSeconds: 0 };
    }
    log(`cached plugin at ${binary} reports ${reported.version}, launcher ${info.mainSha256 ?? '?'}; expected ${version}, ${mainSha256}: rebuilding`);
  }
  let rpcChainVm = 0;
  const buildSeconds = await buildCached(
    'the Subnet-EVM plugin',
    moduleDir,
    SUBNET_EVM_PACKAGE,
    binary,
    version,
    async (partial) => {
      const reported = await pluginVersion(partial);
      if (reported.version !== version) throw new Error(`built plugin reports ${reported.version}, expected ${version}`);
      rpcChainVm = reported.rpcChainVm;
      await checkPluginStarts(partial);
    },
    { info: { mainSha256 }, infoDir },
  );
  return { pluginDir, binary, version, rpcChainVm, built: true, buildSeconds };
}
