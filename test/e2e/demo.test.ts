// The README's first command: the demo fleet and the exporter, stopped by Ctrl-C, and what its terminal shows.
import { spawn } from 'node:child_process';
import { describe, expect, it, onTestFinished } from 'vitest';
import { waitFor } from '../helpers/fake-node.js';
import { sample } from '../helpers/exporter.js';
import { DEMO_L1_RUNWAY_SECONDS, DEMO_SCENARIOS, DEMO_TIME_SCALE } from '../../src/demo.js';
import { L1_SUBNET_ID } from '../../src/simulator/index.js';
import { freePort } from '../helpers/net.js';
import { defined } from '../helpers/assert.js';

/** A pretty log record: `[12:00:00.000] WARN: node-7 health: poll failed {"reason":"connect",…}`. */
const RECORD = /^\[\d\d:\d\d:\d\d\.\d{3}\] (DEBUG|INFO|WARN|ERROR): \S/;

/**
 * The demo's terminal: every line is a log record, the banner, or the reminder of its addresses. A simulated fault
 * is one record on one line (no JavaScript stack, no field on a line of its own), and the banner comes after the
 * first round of polls, whose faults (the down node's) would scroll it away.
 */
function expectQuietTerminal(out: string): void {
  const start = out.indexOf('\n  AvalancheGo exporter demo\n');
  const end = out.indexOf('Ctrl-C stops the demo.\n', start);
  expect(start, out).toBeGreaterThan(0);
  expect(end, out).toBeGreaterThan(start);
  const before = out.slice(0, start);
  expect(before, 'the first round is logged before the banner').toMatch(/WARN: node-7 health: poll failed \{"reason":"connect"/);
  const rest = `${before}${out.slice(end + 'Ctrl-C stops the demo.\n'.length)}`;
  expect(out).not.toMatch(/^\s+at /m);
  const stray = rest.split('\n').filter((line) => line !== '' && !RECORD.test(line) && !line.startsWith('  demo: http://'));
  expect(stray, 'lines that are not a log record').toEqual([]);
}

/** A node's answer to one JSON-RPC call. */
async function call(url: string, method: string, params: unknown): Promise<Record<string, unknown>> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await r.json()) as { result: Record<string, unknown> }).result;
}

/**
 * The demo's L1 validator running out of balance shows its runway as a risk, and the runway is the time it really
 * has left: read twice from the node, it falls by the demo's time between the readings (it fell six days in 12 s).
 */
async function expectRunwayBeforeInactive(url: string, simUrl: string): Promise<void> {
  const node = `node-${DEMO_SCENARIOS.indexOf('l1-balance-draining')}`;
  const row = defined(
    new RegExp(`<tr><td class="name"><a href="node/${node}">.*?</tr>`).exec(await (await fetch(url)).text())?.[0],
    `the row of ${node}`,
  );
  expect(row).toMatch(/<td class="state bad">at risk/);
  expect(row).toMatch(/L1 balance lasts \d+m/);
  const nodeId = defined(
    /avalanchego_node_info\{node="[^"]+",node_id="([^"]+)"/.exec(await (await fetch(`${url}/probe?target=${node}`)).text())?.[1],
    'its node ID',
  );
  const pchain = `${simUrl}/${node}/ext/bc/P`;
  const price = Number((await call(pchain, 'platform.getValidatorFeeState', {})).price);
  const runway = async () => {
    const { validators } = (await call(pchain, 'platform.getCurrentValidators', { subnetID: L1_SUBNET_ID, nodeIDs: [nodeId] })) as {
      validators: Array<{ balance: string }>;
    };
    return Number(defined(validators[0], 'its L1 entry').balance) / price;
  };
  const t0 = performance.now();
  const first = await runway();
  const t1 = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const t2 = performance.now();
  const second = await runway();
  const t3 = performance.now();
  // More than a minute of the wall clock left to see it, and it fell by the demo's time between the readings.
  expect(first / DEMO_TIME_SCALE).toBeGreaterThan(60);
  expect(first - second).toBeGreaterThanOrEqual(((t2 - t1) / 1000) * DEMO_TIME_SCALE - 1);
  expect(first - second).toBeLessThanOrEqual(((t3 - t0) / 1000) * DEMO_TIME_SCALE + 1);
  expect(first).toBeLessThanOrEqual(DEMO_L1_RUNWAY_SECONDS);
}

describe('demo', () => {
  it(
    'serves every demo node, the down one as up 0, and stops on SIGINT with exit 0; its terminal: one line a log record, the banner after the first round',
    { timeout: 180_000 },
    async () => {
      const port = await freePort();
      // As in a terminal: the log (stderr, pretty by default) and the banner (stdout) in one stream, in order.
      const child = spawn('sh', ['-c', 'exec "$@" 2>&1', 'sh', process.execPath, 'dist/main.js', 'demo', `--web.listen-address=127.0.0.1:${port}`], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      try {
        const url = `http://127.0.0.1:${port}`;
        await waitFor(async () => (await fetch(`${url}/-/ready`)).status === 200, 'demo ready', 90_000);
        // Every node as its scenario says; on a loaded machine a first poll may time out, so
        // wait (with a deadline) for the state rather than reading the first scrape.
        const expected = DEMO_SCENARIOS.map((scenario, i) => [`node-${i}`, scenario === 'down' ? 0 : 1] as const);
        let text = '';
        await waitFor(
          async () => {
            text = await (await fetch(`${url}/metrics`)).text();
            return expected.every(([node, up]) => sample(text, `avalanchego_up{node="${node}"}`) === up);
          },
          'every demo node in its expected state',
          30_000,
        ).catch(() => undefined);
        for (const [node, up] of expected) expect(sample(text, `avalanchego_up{node="${node}"}`), node).toBe(up);
        // The names the exporter uses are the simulator control API's: the banner's curl works as printed.
        // The banner comes after every node's first poll by every source, or 10 s (src/demo.ts FIRST_ROUND_WAIT_MS).
        await waitFor(() => Promise.resolve(/Simulated nodes:/.test(stdout)), 'the banner', 20_000).catch(() => undefined);
        const simUrl = /Simulated nodes:\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
        expect(simUrl, stdout).toBeDefined();
        // A later scenario (DEMO_LATER: node-id-changed) begins once the exporter has seen its node validate.
        let scenarios: string[] = [];
        await waitFor(
          async () => {
            const sim = (await (await fetch(`${simUrl}/sim/nodes`)).json()) as { nodes: Array<{ name: string; scenario: string }> };
            scenarios = sim.nodes.map((n) => `${n.name} ${n.scenario}`);
            return scenarios.join() === DEMO_SCENARIOS.map((s, i) => `node-${i} ${s}`).join();
          },
          'every demo node in its scenario',
          30_000,
        ).catch(() => undefined);
        expect(scenarios).toEqual(DEMO_SCENARIOS.map((s, i) => `node-${i} ${s}`));
        await expectRunwayBeforeInactive(url, defined(simUrl, 'the simulator URL'));
        expect(stdout).toContain(`${simUrl}/sim/nodes/node-0/scenario`);
        expect(stdout).toContain(`Landing page:      ${url}/`);
        // The banner links to the human pages: one node's and the configuration.
        const nodeLink = /One node:\s+(http:\/\/127\.0\.0\.1:\d+\/node\/node-\d+)/.exec(stdout)?.[1];
        expect(nodeLink, stdout).toBeDefined();
        expect((await fetch(defined(nodeLink, 'the node link'))).status).toBe(200);
        expect(stdout).toContain(`Configuration:     ${url}/config`);
        const page = await (await fetch(url)).text();
        expect(page).toMatch(/<td class="state bad">down( <span class="dim">for \d+s<\/span>)?<\/td>/);
        child.kill('SIGINT');
        const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
        expect(code).toBe(0);
        expectQuietTerminal(stdout);
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    },
  );

  it('SIGINT to `npm run demo` (npm, not the demo) stops npm, its shell and the demo, and frees the port', { timeout: 120_000 }, async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    // --ignore-scripts: no predemo build here (npm test built dist/ already; a build would rewrite
    // dist/ under the other tests). Its own process group, so that the test can see that nothing of
    // it is left, and remove what is.
    const npm = spawn('npm', ['run', 'demo', '--ignore-scripts', '--', `--web.listen-address=127.0.0.1:${port}`, '--log.format=json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const group = defined(npm.pid, 'the PID of npm');
    const groupAlive = () => {
      try {
        process.kill(-group, 0);
        return true;
      } catch {
        return false;
      }
    };
    onTestFinished(() => {
      if (groupAlive()) process.kill(-group, 'SIGKILL');
    });
    let out = '';
    npm.stdout.on('data', (d: Buffer) => (out += d.toString()));
    npm.stderr.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(async () => (await fetch(`${url}/-/ready`)).status === 200, 'the demo under npm run demo ready', 45_000);
    // As `kill -INT <npm pid>` does: the signal reaches npm alone, not its process group.
    npm.kill('SIGINT');
    await waitFor(() => !groupAlive(), `npm, sh -c and the demo gone after SIGINT to npm\n${out.slice(-2000)}`, 15_000);
    await expect(fetch(`${url}/-/healthy`)).rejects.toThrow();
    expect(out).toContain('stopping the demo');
  });
});
