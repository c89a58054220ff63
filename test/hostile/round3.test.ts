// The third hostile round (a security probe of 077ff76): each case failed there and holds here. A node that answers a
// uint64 as the JSON number 2^64; a bcrypt cost no check can finish; a login that holds every other login; SIGHUP while
// the exporter starts; counters of the targets a reload keeps.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/sources/registry.js';
import { MAX_BCRYPT_COST, parseWebConfigText, type WebConfig } from '../../src/web/config.js';
import { WebGuard } from '../../src/web/guard.js';
import { MAIN, ROOT } from '../deploy/lib.js';
import { freePort } from '../helpers/net.js';
import { bcryptHash } from '../helpers/tls.js';
import { closeAfterEach, sample, startTestExporter, type TestExporter } from '../helpers/exporter.js';
import { startFakeNode, waitFor, type FakeNode } from '../helpers/fake-node.js';
import { buildIfStale } from '../helpers/build.js';

describe('a node that answers a uint64 as the JSON number 2^64', () => {
  let exporter: TestExporter | undefined;
  let node: FakeNode | undefined;
  closeAfterEach(
    () => [exporter, node],
    () => (exporter = node = undefined),
  );

  it('is refused as invalid_response, not served as 18446744073709552000', async () => {
    // JSON.parse gives the double 2^64; Number(MAX_UINT64) is that double too, so a bound of <= let it through.
    const answer = `{"jsonrpc":"2.0","id":1,"result":{"id":"2fRa8uUVXBdUmiXyThT1wZAjcvT5qHC9CPgFgXSk4WtuhoAbC3","bytes":"0x00","timestamp":"2026-11-20T10:15:02Z","encoding":"hex","index":18446744073709551616}}`;
    node = await startFakeNode({ '/ext/health': { fixture: 'health/healthy-v1.14.2.json' }, '/ext/index/C/block': { body: answer } });
    exporter = await startTestExporter(
      `defaults: { interval: 1s, timeout: 500ms, index: { endpoints: [C/block] }, info: { enabled: false }, platform: { enabled: false }, evm: { enabled: false }, proposervm: { enabled: false } }\ntargets:\n  - name: n\n    url: ${node.url}\n`,
    );
    const metrics = async () => (await fetch(`${exporter?.url ?? ''}/metrics`)).text();
    await waitFor(
      async () => (sample(await metrics(), 'avalanchego_exporter_poll_errors_total{node="n",source="index",reason="invalid_response"}') ?? 0) >= 1,
      'the index poll failing as invalid_response',
      10_000,
    );
    expect(await metrics()).not.toMatch(/avalanchego_index_last_accepted_index\{[^}]*node="n"/);
  });
});

describe('bcrypt: every login checked in bounded time', () => {
  const guards: WebGuard[] = [];
  afterEach(async () => {
    for (const g of guards.splice(0)) await g.close();
  });

  /** A hash of the given cost, made without running it (bcryptjs would take 2^cost rounds to hash too). */
  const hashOfCost = (cost: number) => bcryptHash('pw').replace(/^\$2([aby])\$\d\d\$/, `$$2$1$$${String(cost).padStart(2, '0')}$$`);

  it(`a hash of cost ${MAX_BCRYPT_COST + 1} to 31 is refused at load, saying why and what to do; ${MAX_BCRYPT_COST} loads`, () => {
    for (const cost of [MAX_BCRYPT_COST + 1, 20, 31]) {
      expect(() => parseWebConfigText(`basic_auth_users:\n  slow: ${hashOfCost(cost)}\n`, 'web.yml', '.')).toThrow(
        new RegExp(
          `basic_auth_users\\.slow.*bcrypt cost of user "slow" is ${cost}: it must be 4\\.\\.${MAX_BCRYPT_COST}, so that a login is checked in bounded time.*htpasswd -nBC 10`,
          's',
        ),
      );
    }
    expect(parseWebConfigText(`basic_auth_users:\n  ok: ${hashOfCost(MAX_BCRYPT_COST)}\n`, 'web.yml', '.').users.get('ok')).toBeDefined();
  });

  /** A config holding a hash no check can finish (cost 31: 44 hours), as the probe's file did before the bound. */
  const withEndlessUser = (): WebConfig => {
    const config = parseWebConfigText(`basic_auth_users:\n  quick: ${bcrypt.hashSync('quick-pw', 4)}\n`, 'web.yml', '.');
    config.users.set('endless', hashOfCost(31));
    return config;
  };

  it('a reload that removes the user whose check is under way cuts it: that login gets 401 and the logins behind it are checked', async () => {
    const guard = new WebGuard(withEndlessUser());
    guards.push(guard);
    const endless = guard.check('endless', 'guess', '10.0.0.1');
    const quick = guard.check('quick', 'quick-pw', '10.0.0.2');
    await waitFor(() => guard.bcryptRuns === 1, 'the endless check to start', 5_000);
    guard.setConfig(parseWebConfigText(`basic_auth_users:\n  quick: ${bcrypt.hashSync('quick-pw', 4)}\n`, 'web.yml', '.'));
    // On 077ff76 neither ever settled: the worker compared for 44 hours, the other login waited behind it.
    expect(await endless).toBe(false);
    expect(await quick).toBe(true); // checked against its hash as the reloaded config has it
    expect(await guard.check('quick', 'quick-pw', '10.0.0.2')).toBe(true);
  });

  it('a check that overruns the limit is stopped and answered as slow (503); the next login is checked', async () => {
    // 3 s: the cost-31 compare never ends in it, the cost-4 one does even on a loaded machine (a new thread included).
    const guard = new WebGuard(withEndlessUser(), undefined, undefined, 3_000);
    guards.push(guard);
    const endless = guard.check('endless', 'guess', '10.0.0.1');
    const quick = guard.check('quick', 'quick-pw', '10.0.0.2');
    expect(await endless).toBe('slow');
    expect(await quick).toBe(true);
  });
});

describe('SIGHUP while the exporter starts', () => {
  let child: ChildProcess | undefined;
  let dir: string | undefined;
  afterEach(() => {
    child?.kill('SIGKILL');
    child = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  /** The signals a process catches (/proc/PID/status SigCgt, a bit per signal), or undefined once it is gone. */
  const caught = (pid: number): bigint | undefined => {
    try {
      const line = /^SigCgt:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      return line ? BigInt(`0x${line}`) : undefined;
    } catch {
      return undefined;
    }
  };
  const SIGHUP_BIT = 1n; // signal 1

  it.skipIf(process.platform !== 'linux')(
    'is taken before the config is read: SIGHUPs during start-up neither kill it (129) nor are lost (one reload once it runs)',
    async () => {
      buildIfStale(ROOT);
      dir = mkdtempSync(join(tmpdir(), 'sighup-start-'));
      // Loading the modules, then reading and checking 200 targets, take a good part of a second: the window the
      // probe's SIGHUP fell in.
      const targets = Array.from(
        { length: 200 },
        (_, i) => `  - name: n${i}\n    url: http://127.0.0.1:9/p${i}\n    interval: 1h\n    timeout: 5s\n`,
      );
      writeFileSync(join(dir, 'c.yaml'), `targets:\n${targets.join('')}`);
      const port = await freePort();
      const proc = spawn(process.execPath, [MAIN, `--config.file=${join(dir, 'c.yaml')}`, `--web.listen-address=127.0.0.1:${port}`], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = proc;
      let out = '';
      proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
      proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const exited = new Promise<number | string>((resolve) => proc.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
      const pid = proc.pid ?? 0;
      const serving = async () => {
        try {
          return (await fetch(`http://127.0.0.1:${port}/-/healthy`)).ok;
        } catch {
          return false;
        }
      };
      // Taken before the port is bound, i.e. before the config is read and the exporter started (on 077ff76 only after).
      await waitFor(async () => ((caught(pid) ?? 0n) & SIGHUP_BIT) !== 0n || (await serving()), 'SIGHUP handled, or the port bound', 30_000);
      expect(await serving(), 'the port was bound before SIGHUP was handled').toBe(false);
      // SIGHUPs while it starts (until it says it listens): none ends it.
      let sent = 0;
      while (!out.includes('exporter listening') && caught(pid) !== undefined) {
        proc.kill('SIGHUP');
        sent++;
        // The sender's pace (one signal each 10 ms, as a reload loop of a config tool might), not a wait for a condition.
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(sent).toBeGreaterThan(0);
      expect(proc.exitCode ?? proc.signalCode, `the exporter ended while it started; its output:\n${out.slice(-2000)}`).toBeNull();
      await waitFor(() => out.includes('configuration reloaded'), 'the reload of the SIGHUPs during start-up', 60_000).catch((err: unknown) => {
        throw new Error(`${String(err)}; sent ${sent}; its output:\n${out.slice(-3000)}`);
      });
      expect(await serving()).toBe(true);
      // Held while it started, and done once it runs: one reload for them all (a SIGHUP sent between the log line
      // and the test reading it may add one more of its own).
      expect(out.split('SIGHUP received during start-up').length - 1).toBe(1);
      proc.kill('SIGTERM');
      expect(await exited).toBe(0);
    },
    // Start-up takes under a second on an idle machine; 20 s were seen with the machine's two cores loaded ten times over.
    150_000,
  );
});

describe('a burst of reloads (SIGHUPs or POST /-/reload)', () => {
  let exporter: TestExporter | undefined;
  closeAfterEach(
    () => [exporter],
    () => (exporter = undefined),
  );

  it('coalesces: 50 asked while one runs make two reloads, each request answered by one that read the file after it', async () => {
    const text = `defaults: { interval: 1h }\ntargets:\n  - name: n\n    url: http://127.0.0.1:9\n`;
    let reads = 0;
    exporter = await startTestExporter(text, {
      exporter: {
        loadConfig: () => {
          reads++;
          return parseConfigText(text, 'test.yaml', {});
        },
      },
    });
    const ex = exporter;
    // On 077ff76: 50 reloads in a row, chained without a turn of the event loop (nothing served meanwhile).
    await Promise.all(Array.from({ length: 50 }, () => ex.reload()));
    expect(reads).toBe(2);
    expect(ex.logs.filter((l) => l.msg === 'configuration reloaded')).toHaveLength(2);
    // One asked after those ended runs on its own.
    await ex.reload();
    expect(reads).toBe(3);
  });
});

describe('counters of the targets a reload keeps', () => {
  let exporter: TestExporter | undefined;
  let node: FakeNode | undefined;
  closeAfterEach(
    () => [exporter, node],
    () => (exporter = node = undefined),
  );

  it('go on counting across reloads that add, remove and rename other targets, and a failed reload; a changed target starts again', async () => {
    node = await startFakeNode({ '/ext/health': { status: 500, body: 'down for maintenance' } });
    const target = (name: string, timeout = '500ms') => `  - name: ${name}\n    url: ${node?.url ?? ''}\n    timeout: ${timeout}\n`;
    const head = `defaults: { interval: 1s, info: { enabled: false }, platform: { enabled: false }, evm: { enabled: false }, proposervm: { enabled: false } }\ntargets:\n`;
    let current = head + target('kept') + target('other');
    exporter = await startTestExporter(current, { exporter: { loadConfig: () => parseConfigText(current, 'test.yaml', {}) } });
    const ex = exporter;
    const errors = async (name: string) =>
      sample(
        await (await fetch(`${ex.url}/metrics`)).text(),
        `avalanchego_exporter_poll_errors_total{node="${name}",source="health",reason="http_status"}`,
      ) ?? 0;
    let last = 0;
    const grows = async (what: string) => {
      const before = last;
      await waitFor(async () => (last = await errors('kept')) > before, `kept's errors to grow past ${before} after ${what}`, 10_000);
    };
    await grows('start');
    for (const [what, next] of [
      ['a target added', head + target('kept') + target('other') + target('added')],
      ['a target removed and one renamed', head + target('kept') + target('renamed')],
      ['the original list again', head + target('kept') + target('other')],
    ] as const) {
      const before = await errors('kept');
      current = next;
      await ex.reload();
      expect(await errors('kept'), `kept's counter after ${what}`).toBeGreaterThanOrEqual(before);
      await grows(what);
    }
    const before = await errors('kept');
    current = 'targets: [';
    await expect(ex.reload()).rejects.toThrow();
    expect(await errors('kept')).toBeGreaterThanOrEqual(before);
    // A target whose settings change is a new target: its poller, state and counters start again (documented).
    current = head + target('kept', '700ms') + target('other');
    await ex.reload();
    expect(await errors('kept')).toBeLessThan(before);
  }, 60_000);
});
