// The third hostile round (a security probe of 077ff76): each case failed there and holds here. A node that answers a
// uint64 as the JSON number 2^64; a bcrypt cost no check can finish; a login that holds every other login; SIGHUP while
// the exporter starts; counters of the targets a reload keeps; a time past what a date holds.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
import { ago } from '../../src/server/html.js';

/** A node's ID as its health answers carry it, and the answer to a method the fake node is not given. */
const NODE_ID = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';
const NO_METHOD = JSON.stringify({ jsonrpc: '2.0', error: { code: -32601, message: "rpc: can't find method" }, id: 1 });

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
      `defaults: { interval: 1s, timeout: 500ms, index: { endpoints: [C/block] }, info: { enabled: false }, platform: { enabled: false }, chain_info: { enabled: false }, evm: { enabled: false }, proposervm: { enabled: false } }\ntargets:\n  - name: n\n    url: ${node.url}\n`,
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
    const head = `defaults: { interval: 1s, info: { enabled: false }, platform: { enabled: false }, chain_info: { enabled: false }, evm: { enabled: false }, proposervm: { enabled: false } }\ntargets:\n`;
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

describe('a node that answers a time past what a date holds', () => {
  let exporter: TestExporter | undefined;
  let node: FakeNode | undefined;
  closeAfterEach(
    () => [exporter, node],
    () => (exporter = node = undefined),
  );
  const MAX = '18446744073709551615'; // a uint64, and 584 billion years from 1970: no Date holds it
  const staker = (startTime: string, endTime: string) => ({
    validators: [{ nodeID: NODE_ID, txID: 'x', startTime, endTime, weight: '2000000000000', potentialReward: '0', delegationFee: '2.0000' }],
  });

  it.each([
    ['a ProposerVM epoch start', 'proposervm', { number: '7', startTime: MAX, pChainHeight: '100' }, staker('1700000000', '1800000000')],
    ["a validator's start", 'platform', { number: '7', startTime: '1700000000', pChainHeight: '100' }, staker(MAX, '1800000000')],
    ["a validator's end", 'platform', { number: '7', startTime: '1700000000', pChainHeight: '100' }, staker('1700000000', MAX)],
    [
      "an L1 validator's start",
      'platform',
      { number: '7', startTime: '1700000000', pChainHeight: '100' },
      {
        validators: [{ nodeID: NODE_ID, validationID: 'v', startTime: MAX, weight: '20', balance: '1000' }],
      },
    ],
  ])('%s is refused by the parser (invalid_response, saying what) and the node page answers 200', async (_what, source, epoch, validators) => {
    node = await startFakeNode({
      '/ext/health': { fixture: 'health/healthy-v1.14.2.json', headers: { 'node-id': NODE_ID } },
      '/ext/info': { body: NO_METHOD, methods: { 'info.getNodeID': { nodeID: NODE_ID, nodePOP: null }, 'info.upgrades': {} } },
      '/ext/bc/P': { body: NO_METHOD, methods: { 'platform.getCurrentValidators': validators, 'platform.getHeight': { height: '100' } } },
      '/ext/bc/C/proposervm': { body: NO_METHOD, methods: { 'proposervm.getCurrentEpoch': epoch } },
    });
    exporter = await startTestExporter(
      `defaults: { interval: 1s, timeout: 500ms, index: { endpoints: [] }, evm: { enabled: false }, proposervm: { chains: [C] } }\ntargets:\n  - name: n\n    url: ${node.url}\n`,
    );
    const ex = exporter;
    const metrics = async () => (await fetch(`${ex.url}/metrics`)).text();
    await waitFor(
      async () =>
        (sample(await metrics(), `avalanchego_exporter_poll_errors_total{node="n",source="${source}",reason="invalid_response"}`) ?? 0) >= 1,
      `the ${source} poll failing as invalid_response`,
      10_000,
    );
    // Before the bound the parser took it and the page threw RangeError: 500, nothing logged.
    const page = await fetch(`${ex.url}/node/n`);
    expect(page.status).toBe(200);
    // The page says what was refused and where (the poll's error, bounded as every node text).
    const text = await page.text();
    expect(text).toMatch(/(startTime|endTime): expected Unix seconds/);
  });

  it('the page never throws on one anyway: it shows it as no time, and tells who logs it', () => {
    const bad: number[] = [];
    for (const seconds of [Number('18446744073709551615'), 8.64e12 + 1, -8.64e12 - 1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(ago(seconds, 1.7e9, (s) => bad.push(s))).toContain('not a time');
    }
    expect(bad).toHaveLength(5);
    expect(ago(1.7e9 - 65, 1.7e9)).toContain('1m 5s ago');
  });
});

describe('reloads from any web page, and /config to a foreign Host (DNS rebinding)', () => {
  let exporter: TestExporter | undefined;
  closeAfterEach(
    () => [exporter],
    () => (exporter = undefined),
  );
  const text = `defaults: { interval: 1h }\ntargets:\n  - name: n\n    url: http://127.0.0.1:9\n`;

  /** A request with the headers a browser (or a rebinding page) sends: Host and Origin set by hand. */
  const ask = (url: string, path: string, method: string, headers: Record<string, string>) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${url}${path}`, { method, headers }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });

  it('POST /-/reload answers 403 without --web.enable-lifecycle and reads nothing; a reload by signal still runs', async () => {
    let reads = 0;
    exporter = await startTestExporter(text, {
      exporter: { loadConfig: () => (reads++, parseConfigText(text, 'test.yaml', {})) },
    });
    const res = await fetch(`${exporter.url}/-/reload`, { method: 'POST' });
    // On main: 200, from any page an operator opened (a form POST needs no CORS).
    expect(res.status).toBe(403);
    expect(await res.text()).toMatch(/^Lifecycle API is not enabled: start the exporter with --web.enable-lifecycle.*SIGHUP/);
    expect(reads).toBe(0);
    await exporter.reload(); // what SIGHUP calls
    expect(reads).toBe(1);
  });

  it('with --web.enable-lifecycle, a cross-origin POST is refused (Origin or Sec-Fetch-Site); a same-origin one and curl reload', async () => {
    let reads = 0;
    exporter = await startTestExporter(text, {
      exporter: { loadConfig: () => (reads++, parseConfigText(text, 'test.yaml', {})), enableLifecycle: true },
    });
    const url = exporter.url;
    const host = new URL(url).host;
    for (const headers of [
      { origin: 'http://evil.example' } as Record<string, string>,
      { origin: 'null' },
      { origin: `http://${host.replace('127.0.0.1', 'localhost')}` },
      { origin: `http://${host}`, 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' }, // another port of the same host is another origin
    ]) {
      const res = await ask(url, '/-/reload', 'POST', headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.body).toMatch(/^refused: (Origin|Sec-Fetch-Site)/);
    }
    expect(reads).toBe(0);
    expect((await ask(url, '/-/reload', 'POST', { origin: `http://${host}` })).status).toBe(200);
    expect((await ask(url, '/-/reload', 'POST', { 'sec-fetch-site': 'same-origin', origin: `http://${host}` })).status).toBe(200);
    expect((await ask(url, '/-/reload', 'POST', {})).status).toBe(200); // curl: no Origin
    expect(reads).toBe(3);
    // A cross-site page may still GET (a link): reads change nothing.
    expect((await ask(url, '/-/healthy', 'GET', { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' })).status).toBe(200);
  });

  it('--web.allowed-hosts: /config (and every path) only to the names listed; a rebinding name gets 403', async () => {
    exporter = await startTestExporter(text, { exporter: { allowedHosts: ['127.0.0.1', 'exporter.example.org'] } });
    const url = exporter.url;
    const port = new URL(url).port;
    for (const host of ['evil.example', `evil.example:${port}`, `localhost:${port}`]) {
      const res = await ask(url, '/config', 'GET', { host });
      expect(res.status, host).toBe(403);
      expect(res.body).toContain('--web.allowed-hosts');
      expect(res.body).not.toContain('127.0.0.1:9');
      expect((await ask(url, '/probe?target=n', 'GET', { host })).status, host).toBe(403);
    }
    for (const host of [`127.0.0.1:${port}`, 'EXPORTER.example.org', `exporter.example.org.:${port}`]) {
      expect((await ask(url, '/config', 'GET', { host })).status, host).toBe(200);
    }
  });
});

describe('a node with 10,000 health checks and a validator', () => {
  let exporter: TestExporter | undefined;
  let node: FakeNode | undefined;
  closeAfterEach(
    () => [exporter, node],
    () => (exporter = node = undefined),
  );
  const checks = (n: number) =>
    Object.fromEntries(
      Array.from({ length: n }, (_, i) => [
        `check-${i}`,
        { message: {}, timestamp: '2026-11-20T10:15:02Z', duration: 1000, contiguousFailures: 0, timeOfFirstFailure: null },
      ]),
    );
  const staker = {
    nodeID: NODE_ID,
    txID: 'x',
    startTime: '1700000000',
    endTime: '1900000000',
    weight: '2000000000000',
    potentialReward: '5',
    delegationFee: '2.0000',
  };

  it.each([
    [10_000, 5000],
    [10_000, 100],
  ])(
    '%i checks, max_series_per_node %i: the validator series stay, health is cut, counted and logged',
    async (count, max) => {
      const health = JSON.stringify({ jsonrpc: '2.0', result: { checks: checks(count), healthy: true }, id: 1 });
      node = await startFakeNode({
        '/ext/health': { body: health, headers: { 'node-id': NODE_ID } },
        '/ext/info': { body: NO_METHOD, methods: { 'info.getNodeID': { nodeID: NODE_ID, nodePOP: null }, 'info.upgrades': {} } },
        '/ext/bc/P': {
          body: NO_METHOD,
          methods: { 'platform.getCurrentValidators': { validators: [staker] }, 'platform.getHeight': { height: '100' } },
        },
      });
      exporter = await startTestExporter(
        `defaults: { interval: 1s, timeout: 900ms, index: { endpoints: [] }, evm: { enabled: false }, platform: { interval: 1s }, info: { interval: 1s }, limits: { max_series_per_node: ${max} } }\ntargets:\n  - name: n\n    url: ${node.url}\n`,
      );
      const ex = exporter;
      const lines = async () => (await (await fetch(`${ex.url}/metrics`)).text()).split('\n').filter((l) => l.includes('node="n"'));
      const polls = (source: string) => ex.scheduler.detail('n')?.sources.find((x) => x.name === source)?.polls ?? 0;
      await waitFor(async () => (await lines()).some((l) => l.startsWith('avalanchego_validator_weight')), 'the validator series', 15_000).catch(
        async (err: unknown) => {
          // On main: health took the whole budget at its first poll, and no avalanchego_validator* series was ever served.
          throw new Error(`${String(err)}\n${(await lines()).filter((l) => !l.startsWith('avalanchego_health_check')).join('\n')}`);
        },
      );
      // Two more polls of each: neither takes the other's share.
      const [h, p] = [polls('health'), polls('platform')];
      await waitFor(() => polls('health') >= h + 2 && polls('platform') >= p + 2, 'two more polls of each', 15_000);
      const served = await lines();
      expect(served.filter((l) => l.startsWith('avalanchego_validator')).length).toBeGreaterThanOrEqual(5);
      expect(served.filter((l) => l.startsWith('avalanchego_') && !l.startsWith('avalanchego_exporter_')).length).toBeLessThanOrEqual(max);
      expect(sample(served.join('\n'), 'avalanchego_exporter_series_dropped{node="n",source="health"}')).toBeGreaterThan(count - max);
      expect(served.filter((l) => l.startsWith('avalanchego_exporter_series_dropped{') && !l.includes('source="health"'))).toEqual([]);
      expect(ex.logs.find((l) => l.msg === "series limit reached: the node's series are truncated")).toMatchObject({ source: 'health' });
    },
    60_000,
  );
});

describe('30 targets on one node that streams every answer at the 16 MB cap', () => {
  let exporter: TestExporter | undefined;
  let server: Server | undefined;
  afterEach(async () => {
    await exporter?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    exporter = server = undefined;
  });

  it('hold at most scheduler.max_buffered_bytes of answers at once; the rest is the exporter saturated, not the node failing', async () => {
    const MB = 1024 * 1024;
    const pad = Buffer.alloc(MB, 0x20);
    // 15 MB of JSON (whitespace inside it), 1 MB each 60 ms: every answer under the per-answer cap, all of them at once
    // far over the budget.
    server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"jsonrpc":"2.0","id":1,"result":{"checks":{},"healthy":true');
      let sent = 0;
      const timer = setInterval(() => {
        if (res.destroyed) {
          clearInterval(timer);
          return;
        }
        if (++sent <= 15) res.write(pad);
        else {
          clearInterval(timer);
          res.end('}}');
        }
      }, 60);
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const targets = Array.from({ length: 30 }, (_, i) => `  - name: n${i}\n    url: ${url}/p${i}\n`).join('');
    const budget = 16 * MB;
    exporter = await startTestExporter(
      `scheduler: { max_buffered_bytes: ${budget} }\ndefaults: { interval: 5s, timeout: 4s, index: { endpoints: [] }, info: { enabled: false }, platform: { enabled: false }, chain_info: { enabled: false }, evm: { enabled: false } }\ntargets:\n${targets}`,
    );
    const ex = exporter;
    const start = process.memoryUsage();
    let peakBuffers = 0;
    let peakInFlight = 0;
    const sampler = setInterval(() => {
      peakBuffers = Math.max(peakBuffers, process.memoryUsage().arrayBuffers - start.arrayBuffers);
      peakInFlight = Math.max(peakInFlight, ex.scheduler.responseBytesInFlight);
    }, 20);
    try {
      const metrics = async () => (await fetch(`${ex.url}/metrics`)).text();
      await waitFor(
        async () => {
          const m = await metrics();
          return (
            (sample(m, 'avalanchego_exporter_polls_skipped_total{reason="saturated"}') ?? 0) >= 10 && /^avalanchego_up\{node="n\d+"\} 1$/m.test(m)
          );
        },
        'a poll answered within the budget, and polls skipped past it',
        30_000,
      );
      const m = await metrics();
      expect(sample(m, 'avalanchego_exporter_response_bytes_budget')).toBe(budget);
      // Not the node's fault: no poll error of any target.
      expect(m.split('\n').filter((l) => l.startsWith('avalanchego_exporter_poll_errors_total{'))).toEqual([]);
    } finally {
      clearInterval(sampler);
    }
    expect(peakInFlight).toBeLessThanOrEqual(budget);
    // The process's buffers (the fake node's socket queues included): the budget, one answer's copy as it is joined,
    // and the node's side; 63 MB were seen. Without the budget every answer is held at once: 30 × 15 MB.
    expect(peakBuffers).toBeLessThan(budget + 96 * MB);
  }, 60_000);
});

describe('four targets on one node URL', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('--config.check warns at each repeat (file:line), naming the targets, and still says valid (exit 0)', () => {
    buildIfStale(ROOT);
    dir = mkdtempSync(join(tmpdir(), 'dup-urls-'));
    const file = join(dir, 'c.yaml');
    writeFileSync(
      file,
      [
        'targets:',
        '  - name: a',
        '    url: http://127.0.0.1:9650',
        '  - name: b',
        '    url: http://127.0.0.1:9650/',
        '  - name: other',
        '    url: http://127.0.0.1:9652',
        '  - name: c',
        '    url: http://127.0.0.1:9650',
        '  - name: d',
        '    url: HTTP://127.0.0.1:9650',
        '',
      ].join('\n'),
    );
    const r = spawnSync(process.execPath, [MAIN, `--config.file=${file}`, '--config.check'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('valid, 5 targets');
    // On main: nothing said. One line per repeat, at its url's line; the normalized URL (trailing slash, case) is one.
    const warnings = r.stderr.split('\n').filter((l) => l.startsWith('warning: '));
    expect(warnings.map((w) => /^warning: (.*?): target "(\w+)"/.exec(w)?.slice(1))).toEqual([
      [`${file}:5`, 'b'],
      [`${file}:9`, 'c'],
      [`${file}:11`, 'd'],
    ]);
    expect(warnings[0]).toContain('polls http://127.0.0.1:9650, as "a" does (4 targets: "a", "b", "c", "d")');
    expect(warnings[0]).toContain('count that node 4 times');
  }, 150_000); // a build first when dist/ is stale
});
