// The built CLI as an operator runs it: flags, exit codes, signals, reload.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startFakeNode, waitFor, type FakeNode } from '../helpers/fake-node.js';
import { defined } from '../helpers/assert.js';
import { sample } from '../helpers/exporter.js';
import { freePort } from '../helpers/net.js';

const MAIN = 'dist/main.js';
let dir: string;
let node: FakeNode | undefined;
let child: ChildProcess | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'avaxexp-cli-'));
  node = await startFakeNode({ '/ext/health': { fixture: 'health/healthy-v1.14.2.json' } });
});
afterAll(async () => {
  await node?.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  const running = child;
  if (running && running.exitCode === null && running.signalCode === null) {
    running.kill('SIGKILL');
    await new Promise((r) => running.once('exit', r));
  }
  child = undefined;
});

function run(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8', timeout: 20_000, env: { ...process.env, ...env } });
}

function writeConfig(name: string, targets: string[]): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    `defaults:\n  interval: 500ms\n  timeout: 250ms\n  index: { endpoints: [] }\n  info: { enabled: false }\n  platform: { enabled: false }\n  chain_info: { enabled: false }\ntargets:\n${targets.map((t) => `  - name: ${t}\n    url: ${defined(node, 'the fake node').url}\n`).join('')}`,
  );
  return file;
}

async function startExporterProcess(args: string[]): Promise<{ proc: ChildProcess; url: string; stderr: () => string }> {
  const port = await freePort();
  let stderr = '';
  const proc = spawn(process.execPath, [MAIN, `--web.listen-address=127.0.0.1:${port}`, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  child = proc;
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/-/ready`)).status === 200, 'exporter ready', 15_000);
  return { proc, url, stderr: () => stderr };
}

function exited(p: ChildProcess, timeoutMs = 10_000): Promise<number | null> {
  return new Promise((resolve, reject) => {
    if (p.exitCode !== null) {
      resolve(p.exitCode);
      return;
    }
    const t = setTimeout(() => reject(new Error('process did not exit in time')), timeoutMs);
    p.once('exit', (code) => {
      clearTimeout(t);
      resolve(code);
    });
  });
}

describe('CLI', () => {
  it('--runtime.heap-growing-percent takes a whole number from 0 to 1000 (exit 2 otherwise) and the exporter runs with it', async () => {
    for (const bad of ['-1', '1001', '12.5', 'lots']) {
      const r = run([`--runtime.heap-growing-percent=${bad}`]);
      expect(r.status, bad).toBe(2);
      expect(r.stderr).toContain(`--runtime.heap-growing-percent="${bad}" is not a whole number from 0 to 1000`);
    }
    expect(run(['--help']).stdout).toContain('--runtime.heap-growing-percent=N');
    for (const good of ['0', '25']) {
      const { proc, url } = await startExporterProcess([
        `--config.file=${writeConfig(`heap-${good}.yaml`, ['a'])}`,
        `--runtime.heap-growing-percent=${good}`,
      ]);
      expect(sample(await (await fetch(`${url}/metrics`)).text(), 'avalanchego_up{node="a"}')).toBe(1);
      proc.kill('SIGTERM');
      expect(await exited(proc)).toBe(0);
    }
  });

  it('--version, -v and --help', () => {
    expect(run(['--version']).stdout).toMatch(/^avalanchego-exporter \d+\.\d+\.\d+ \(Node\.js v\d+/);
    expect(run(['-v']).stdout).toBe(run(['--version']).stdout);
    const help = run(['--help']);
    expect(help.status).toBe(0);
    for (const flag of ['--config.file', '--config.check', '--web.listen-address', '--web.telemetry-path', '--log.level', '--log.format', 'logfmt'])
      expect(help.stdout).toContain(flag);
  });

  it('an unknown flag (with the nearest one) or bad value exits 2 with the reason', () => {
    let r = run(['--config.fil=x']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unknown flag --config.fil (did you mean --config.file?)');
    r = run(['--web.telemetry_path=/m']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unknown flag --web.telemetry_path (did you mean --web.telemetry-path?)');
    r = run(['--frobnicate']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unknown flag --frobnicate\n');
    for (const bad of ['metrics', '/probe', '/-/ready', '/node/x']) {
      r = run([`--web.telemetry-path=${bad}`]);
      expect(r.status, bad).toBe(2);
      expect(r.stderr).toContain(`--web.telemetry-path="${bad}"`);
    }
    r = run(['--log.level=loud']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--log.level="loud" is not one of debug, info, warn, error');
  });

  it('--config.check: 0 and a summary, or 1 and the problems', () => {
    let r = run(['--config.file=config.example.yaml', '--config.check'], { NODE_TOKEN: 'x' });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('config.example.yaml: valid, 3 targets (validator-1, rpc-1, l1-validator)\n');
    r = run(['--config.file=test/fixtures/config/invalid/unknown-key.yaml', '--config.check']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('unknown-key.yaml:4:16: targets[0]: unknown key "intervall" (did you mean "interval"?)');
    // The URL operators paste most often: the C-Chain RPC endpoint, not the node's base URL.
    r = run(['--config.file=test/fixtures/config/invalid/url-api-path.yaml', '--config.check']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      'targets[0].url: "http://10.0.0.5:9650/ext/bc/C/rpc" ends in an AvalancheGo API path (/ext/bc/C/rpc): give the node\'s base URL, "http://10.0.0.5:9650"',
    );
    r = run(['--config.file=/nonexistent.yaml', '--config.check']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('/nonexistent.yaml: (top level): cannot read the file');
  });

  it('a bad listen address is refused clearly', () => {
    const r = run(['--web.listen-address=localhost', `--config.file=${writeConfig('l.yaml', ['a'])}`]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('is not HOST:PORT');
  });

  it('serves metrics, reloads on SIGHUP and POST /-/reload (keeping the last good config), stops on SIGTERM with exit 0', async () => {
    const file = writeConfig('c.yaml', ['a']);
    const { proc, url, stderr } = await startExporterProcess([`--config.file=${file}`, '--web.enable-lifecycle']);
    let text = await (await fetch(`${url}/metrics`)).text();
    expect(sample(text, 'avalanchego_up{node="a"}')).toBe(1);

    writeConfig('c.yaml', ['a', 'b']);
    proc.kill('SIGHUP');
    await waitFor(async () => sample(await (await fetch(`${url}/metrics`)).text(), 'avalanchego_up{node="b"}') === 1, 'target b after SIGHUP');

    writeFileSync(file, 'targets: [}');
    const bad = await fetch(`${url}/-/reload`, { method: 'POST' });
    expect(bad.status).toBe(500);
    expect(await bad.text()).toContain('reload failed, the previous configuration stays in force');
    text = await (await fetch(`${url}/metrics`)).text();
    expect(sample(text, 'avalanchego_exporter_config_last_reload_successful')).toBe(0);
    expect(sample(text, 'avalanchego_up{node="b"}')).toBe(1);
    // The problems, as --config.check prints them; no JavaScript stack trace.
    const failed = stderr()
      .split('\n')
      .filter((l) => l.includes('config reload failed'));
    expect(failed).toHaveLength(1);
    expect(failed[0]).toContain('invalid configuration (1 problem)');
    expect(failed[0]).not.toMatch(/"stack"|\\n\s+at |\.[jt]s:\d+/);

    writeConfig('c.yaml', ['b']);
    expect((await fetch(`${url}/-/reload`, { method: 'POST' })).status).toBe(200);
    text = await (await fetch(`${url}/metrics`)).text();
    expect(sample(text, 'avalanchego_exporter_config_last_reload_successful')).toBe(1);
    expect(text).not.toContain('node="a"');

    proc.kill('SIGTERM');
    expect(await exited(proc)).toBe(0);
    expect(stderr()).toContain('"msg":"stopped"');
  });

  it('stops on SIGINT with exit 0 while a poll is under way', async () => {
    const slow = await startFakeNode({ '/ext/health': { fixture: 'health/healthy-v1.14.2.json', delayMs: 200 } });
    const file = join(dir, 's.yaml');
    writeFileSync(
      file,
      `defaults:\n  interval: 300ms\n  timeout: 250ms\n  index: { endpoints: [] }\n  info: { enabled: false }\n  platform: { enabled: false }\n  chain_info: { enabled: false }\ntargets:\n  - name: s\n    url: ${slow.url}\n`,
    );
    try {
      const { proc } = await startExporterProcess([`--config.file=${file}`]);
      proc.kill('SIGINT');
      expect(await exited(proc)).toBe(0);
    } finally {
      await slow.close();
    }
  });

  it('SIGTERM to `npm start` stops the exporter and frees its port (the script execs node)', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    // --ignore-scripts: no prestart build here (npm test built dist/ already; a build would
    // rewrite dist/ under the other tests).
    const npm = spawn(
      'npm',
      ['start', '--ignore-scripts', '--', `--web.listen-address=127.0.0.1:${port}`, `--config.file=${writeConfig('npm.yaml', ['a'])}`],
      // Its own process group, so that a failed test still removes an exporter npm left behind.
      { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
    const group = defined(npm.pid, 'the PID of npm');
    onTestFinished(() => {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // the group is gone: everything stopped
      }
    });
    let out = '';
    npm.stdout.on('data', (d: Buffer) => (out += d.toString()));
    npm.stderr.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(async () => (await fetch(`${url}/-/ready`)).status === 200, 'the exporter under npm start ready', 20_000);
    npm.kill('SIGTERM');
    await exited(npm, 10_000);
    await waitFor(
      async () => {
        try {
          await fetch(`${url}/-/healthy`);
          return false;
        } catch {
          return true;
        }
      },
      `port ${port} freed after SIGTERM to npm start\n${out}`,
      10_000,
    );
    expect(out).toContain('"msg":"stopped"');
  });

  it('--web.telemetry-path serves the metrics there (not at /metrics), and the pages link to it; --log.format=logfmt', async () => {
    const { proc, url, stderr } = await startExporterProcess([
      `--config.file=${writeConfig('tp.yaml', ['a'])}`,
      '--web.telemetry-path=/exporter/metrics',
      '--log.format=logfmt',
    ]);
    expect(sample(await (await fetch(`${url}/exporter/metrics`)).text(), 'avalanchego_up{node="a"}')).toBe(1);
    expect((await fetch(`${url}/metrics`)).status).toBe(404);
    for (const path of ['/', '/config', '/node/a'])
      expect(await (await fetch(`${url}${path}`)).text(), path).toContain(
        'href="exporter/metrics"'.replace('href="', path === '/node/a' ? 'href="../' : 'href="'),
      );
    proc.kill('SIGTERM');
    expect(await exited(proc)).toBe(0);
    const lines = stderr().trim().split('\n');
    expect(lines[0]).toMatch(/^time=\d{4}-\d\d-\d\dT[\d:.]+Z level=INFO msg="exporter listening" address=http:\/\/127\.0\.0\.1:\d+ targets=1 /);
    expect(lines.at(-1)).toMatch(/^time=\S+ level=INFO msg=stopped$/);
    expect(stderr()).not.toContain('{"');
  });
});
