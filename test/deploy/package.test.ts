// The npm package as a user gets it: the repository's files copied as a fresh clone has them
// (symbolic links stay links, as git checks them out), `npm pack` there (its prepack builds
// dist/), the tarball installed into an empty folder the way the systemd unit's notes say
// (npm install --global --omit=dev --prefix), then its binary run, its HEALTHCHECK command
// asked, its Helm chart rendered, and its systemd unit verified against the installed paths.
// npm fetches the production dependencies from the registry.
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, copyFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defined } from '../helpers/assert.js';
import { waitFor } from '../helpers/fake-node.js';
import { freePort } from '../helpers/net.js';
import { ProcessGroup } from '../helpers/processes.js';
import { RULES_DIR } from '../rules/lib.js';
import { IN_CI, PACKAGE_VERSION, ROOT, findTool, parseManifests, run } from './lib.js';

const helm = findTool('helm', ['version', '--short'], true);
const sysd = findTool('systemd-analyze', ['--version']);
const sysusers = findTool('systemd-sysusers', ['--version']);
const PKG = 'avalanchego-exporter';
const MINUTES = 60_000;

let work: string;
let tarball: string;
let tarList: string[];
/** The installed package's folder, and its binary. */
let pkgDir: string;
let bin: string;
const procs = new ProcessGroup(ROOT);

/** The files a fresh clone has: tracked and new (not ignored) files; links copied as links. */
function copyTree(to: string): void {
  const ls = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  if (ls.status !== 0) throw new Error(`git ls-files: ${ls.stderr}`);
  for (const rel of ls.stdout.split('\0').filter(Boolean)) {
    if (rel === 'node_modules' || rel.startsWith('node_modules/')) continue;
    const from = join(ROOT, rel);
    let st;
    try {
      st = lstatSync(from);
    } catch {
      continue; // deleted in the work tree
    }
    const dest = join(to, rel);
    mkdirSync(dirname(dest), { recursive: true });
    if (st.isSymbolicLink()) symlinkSync(readlinkSync(from), dest);
    else copyFileSync(from, dest);
  }
  symlinkSync(join(ROOT, 'node_modules'), join(to, 'node_modules'));
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'avalanchego-pack-'));
  const clone = join(work, 'clone');
  copyTree(clone);
  const pack = run('npm', ['pack', '--json', '--pack-destination', work], { cwd: clone, timeoutMs: 6 * MINUTES });
  if (pack.code !== 0) throw new Error(pack.output);
  const info = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const packed = defined(info[0], 'npm pack --json');
  tarball = join(work, packed.filename);
  tarList = packed.files.map((f) => f.path);
  const prefix = join(work, 'opt');
  mkdirSync(prefix);
  const install = run('npm', ['install', '--global', '--omit=dev', '--no-audit', '--no-fund', '--prefix', prefix, tarball], {
    cwd: work,
    timeoutMs: 6 * MINUTES,
  });
  if (install.code !== 0) throw new Error(install.output);
  pkgDir = join(prefix, 'lib', 'node_modules', PKG);
  bin = join(prefix, 'bin', PKG);
}, 13 * MINUTES);

afterAll(async () => {
  await procs.stopAll();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the npm package (pack, install into an empty folder, run)', () => {
  it('holds every file of the folders package.json ships, and dist/ built at pack time', () => {
    const files = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;
    const ls = spawnSync('git', ['ls-files', '-z', '--', ...files.filter((f) => f !== 'dist')], { cwd: ROOT, encoding: 'utf8' });
    const tracked = ls.stdout.split('\0').filter(Boolean);
    expect(tracked.length).toBeGreaterThan(50);
    // A symbolic link is dropped by npm pack: whatever it points to would be missing.
    expect(tarList.length).toBeGreaterThan(0);
    expect(tracked.filter((f) => !tarList.includes(f))).toEqual([]);
    expect(tarList).toContain('dist/main.js');
    expect(tarList.filter((f) => f.startsWith('dist/') && f.endsWith('.js')).length).toBeGreaterThan(30);
  });

  it('declares no install-time script (it builds at pack time), and ships a binary', () => {
    const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { scripts: Record<string, string>; bin: Record<string, string> };
    for (const s of ['preinstall', 'install', 'postinstall', 'prepare']) expect(pkg.scripts[s], s).toBeUndefined();
    expect(pkg.scripts['prepack']).toBe('npm run build');
    expect(pkg.bin).toEqual({ [PKG]: 'dist/main.js' });
    const r = run(bin, ['--version']);
    expect(r.code, r.output).toBe(0);
    expect(r.stdout).toContain(`${PKG} ${PACKAGE_VERSION}`);
  });

  it('its config.example.yaml passes --config.check with the installed binary', () => {
    const r = run(bin, ['--config.check', `--config.file=${join(pkgDir, 'config.example.yaml')}`]);
    expect(r.code, r.output).toBe(0);
    expect(r.stdout).toContain('valid');
  });

  it('the binary serves, answers its HEALTHCHECK command at its own address, and stops on SIGTERM', async () => {
    const port = await freePort();
    const closed = await freePort();
    const config = join(work, 'serve.yaml');
    writeFileSync(config, `targets:\n  - name: n1\n    url: http://127.0.0.1:${closed}\n`);
    const p = procs.start('installed exporter', bin, [`--config.file=${config}`, `--web.listen-address=127.0.0.1:${port}`]);
    await waitFor(
      async () => (await fetch(`http://127.0.0.1:${port}/-/ready`)).status === 200,
      `the installed exporter ready on ${port}\n${procs.logs()}`,
      30_000,
    );
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toContain('avalanchego_up{node="n1"} 0');
    const ok = run(bin, ['healthcheck', `--web.listen-address=127.0.0.1:${port}`]);
    expect(ok.code, ok.output).toBe(0);
    const down = run(bin, ['healthcheck', `--web.listen-address=127.0.0.1:${closed}`]);
    expect(down.code, down.output).toBe(1);
    expect(down.stderr).toContain('unhealthy');
    const exited = new Promise<number | null>((resolve) => p.child.once('exit', (code) => resolve(code)));
    p.expectedExit = true;
    process.kill(defined(p.child.pid, 'pid'), 'SIGTERM');
    expect(await exited).toBe(0);
  });

  it.skipIf(!helm.path && !IN_CI)("its Helm chart renders with the helm the README installs, the PrometheusRule carrying the project's rules", () => {
    const chart = join(pkgDir, 'deploy', 'helm', PKG);
    const r = run(helm.path ?? 'helm', ['template', 'rel', chart, '--set', 'prometheusRule.enabled=true']);
    expect(r.code, r.output).toBe(0);
    const rule = parseManifests(r.stdout).find((o) => o.kind === 'PrometheusRule') as unknown as { spec: { groups: unknown[] } };
    const project = ['avalanchego-recording.yml', 'avalanchego-alerts.yml'].flatMap(
      (f) => (parseYaml(readFileSync(join(RULES_DIR, f), 'utf8')) as { groups: unknown[] }).groups,
    );
    expect(rule.spec.groups.length).toBeGreaterThan(5);
    expect(rule.spec.groups).toEqual(project);
  });

  it.skipIf(!sysd.path || !sysusers.path)('the systemd unit runs the installed binary (verified at its paths), and its user comes from sysusers.d', () => {
    const prefix = dirname(dirname(bin));
    const etc = join(work, 'etc');
    mkdirSync(etc);
    copyFileSync(join(pkgDir, 'config.example.yaml'), join(etc, 'config.yaml'));
    const unit = readFileSync(join(pkgDir, 'deploy', 'systemd', `${PKG}.service`), 'utf8')
      .replaceAll('/opt/avalanchego-exporter', prefix)
      .replaceAll('/etc/avalanchego-exporter', etc);
    expect(unit).not.toMatch(/\/usr\/bin\/node/);
    const unitFile = join(work, `${PKG}.service`);
    writeFileSync(unitFile, unit);
    const verify = run(defined(sysd.path, 'systemd-analyze'), ['verify', unitFile]);
    expect(verify.code, verify.output).toBe(0);
    // ExecStartPre, as systemd runs it: the unit's PATH, no shell.
    const path = defined(/^Environment=PATH=(.+)$/m.exec(unit)?.[1], 'Environment=PATH= in the unit');
    const pre = defined(/^ExecStartPre=(.+)$/m.exec(unit)?.[1], 'ExecStartPre').split(' ');
    const check = spawnSync(defined(pre[0], 'command'), pre.slice(1), {
      encoding: 'utf8',
      env: { PATH: `${dirname(process.execPath)}:${path}` },
      timeout: 30_000,
    });
    expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
    const root = join(work, 'sysroot');
    mkdirSync(join(root, 'etc'), { recursive: true });
    const made = run(defined(sysusers.path, 'systemd-sysusers'), [`--root=${root}`, join(pkgDir, 'deploy', 'systemd', `${PKG}.sysusers`)]);
    expect(made.code, made.output).toBe(0);
    expect(readFileSync(join(root, 'etc', 'passwd'), 'utf8')).toMatch(/^avalanchego-exporter:x:\d+:\d+:AvalancheGo exporter:\/:\/usr\/sbin\/nologin$/m);
    expect(unit).toMatch(/^User=avalanchego-exporter$/m);
  });
});
