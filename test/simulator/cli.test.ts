// The `simulate` command: flag parsing, usage errors (exit 2), a run that
// prints where the nodes are and stops cleanly on its stop signal.

import { describe, expect, it } from 'vitest';
import { parseSimulateArgs, runSimulateCommand } from '../../src/simulator/cli.js';
import { L1_SUBNET_ID, startSimulator } from '../../src/simulator/index.js';
import { defined } from '../helpers/assert.js';
import { http, waitFor } from './helpers.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) } };
}

describe('parseSimulateArgs', () => {
  it('reads every flag', () => {
    const { options, scenarios } = parseSimulateArgs([
      '--web.listen-address=0.0.0.0:19650',
      '--nodes=12',
      '--scenario=healthy,stalled-chain',
      '--check-frequency=500ms',
      '--time-scale=10',
      '--no-admin',
      '--no-index',
      '--fresh-index',
      '--http-allowed-hosts=avalanchego,node1',
      '--port-per-node',
      '--down-mode',
      'hang',
      '--garbage-mode=html',
      '--slow-response=2s',
      '--seed=abc',
    ]);
    expect(options).toMatchObject({
      host: '0.0.0.0',
      port: 19650,
      nodes: 12,
      checkFrequencyMs: 500,
      timeScale: 10,
      admin: false,
      index: false,
      freshIndex: true,
      allowedHosts: ['avalanchego', 'node1'],
      portPerNode: true,
      seed: 'abc',
      timings: { downMode: 'hang', garbageMode: 'html', slowResponseMs: 2000 },
    });
    expect(scenarios).toEqual(['healthy', 'stalled-chain']);
    const pick = options.scenario as (i: number) => string;
    expect([0, 1, 2, 3].map(pick)).toEqual(['healthy', 'stalled-chain', 'healthy', 'stalled-chain']);
  });

  it('defaults to one healthy node on 127.0.0.1:9650; ":PORT" listens everywhere; [v6]:PORT works', () => {
    expect(parseSimulateArgs([]).options).toMatchObject({ host: '127.0.0.1', port: 9650, scenario: 'healthy' });
    expect(parseSimulateArgs(['--web.listen-address=:9651']).options).toMatchObject({ host: '0.0.0.0', port: 9651 });
    expect(parseSimulateArgs(['--web.listen-address=[::1]:9652']).options).toMatchObject({ host: '::1', port: 9652 });
    expect(parseSimulateArgs(['--http-allowed-hosts=*']).options.allowedHosts).toBe('*');
  });

  it('--validators picks which nodes validate the primary network', () => {
    expect(parseSimulateArgs([]).options.validator).toBeUndefined();
    expect(parseSimulateArgs(['--validators=every-third']).options.validator).toBeUndefined();
    expect(parseSimulateArgs(['--validators=all']).options.validator).toBe(true);
    expect(parseSimulateArgs(['--validators=none']).options.validator).toBe(false);
  });

  it('--peers sets how many peers each node has (info.peers, the network check)', async () => {
    expect(parseSimulateArgs([]).options.peers).toBeUndefined();
    expect(parseSimulateArgs(['--peers=40']).options.peers).toBe(40);
    const sim = await startSimulator({ nodes: 2, peers: 40 });
    try {
      for (const n of sim.nodes) {
        const r = await fetch(`${n.baseUrl}/ext/info`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"jsonrpc":"2.0","id":1,"method":"info.peers","params":{}}',
        });
        const body = (await r.json()) as { result: { numPeers: string; peers: unknown[] } };
        expect([body.result.numPeers, body.result.peers.length]).toEqual(['40', 40]);
      }
    } finally {
      await sim.close();
    }
  });

  it.each([
    [['--peers=-1'], /--peers/],
    [['--peers=many'], /--peers/],
    [['--nodes=0'], /--nodes/],
    [['--nodes=abc'], /--nodes/],
    [['--scenario=exploding'], /unknown scenario "exploding"/],
    [['--web.listen-address=9650'], /HOST:PORT/],
    [['--web.listen-address=host:99999'], /HOST:PORT/],
    [['--check-frequency=fast'], /not a duration/],
    [['--time-scale=-1'], /positive/],
    [['--down-mode=sideways'], /refused, hang, reset/],
    [['--down-mode=refused'], /needs --port-per-node/],
    [['--garbage-mode=x'], /rotate/],
    [['--validators=some'], /every-third, all, none/],
    [['--what'], /unknown flag --what/],
    [['--nodes'], /needs a value/],
    [['--no-admin=yes'], /takes no value/],
    [['stray'], /unexpected argument/],
  ])('rejects %j', async (argv, message) => {
    const c = capture();
    expect(await runSimulateCommand(argv, c.io)).toBe(2);
    expect(c.err.join('')).toMatch(message);
    expect(c.err.join('')).toMatch(/--help/);
    expect(c.out).toEqual([]);
  });

  it('prints usage for --help and exits 0', async () => {
    const c = capture();
    expect(await runSimulateCommand(['--help'], c.io)).toBe(0);
    expect(c.out.join('')).toContain('--web.listen-address=HOST:PORT');
    expect(c.out.join('')).toContain('old-version-v1.7');
  });
});

describe('runSimulateCommand', () => {
  it('runs until its stop signal, printing each node, then closes', async () => {
    const c = capture();
    let stop!: () => void;
    const stopSignal = new Promise<void>((r) => (stop = r));
    const done = runSimulateCommand(['--web.listen-address=127.0.0.1:0', '--nodes=3', '--scenario=healthy,bootstrapping', '--check-frequency=1h'], {
      ...c.io,
      stopSignal,
    });
    const text = await waitFor(
      () => Promise.resolve(c.out.join('')),
      (t) => t.includes('Stop with Ctrl-C'),
      5_000,
      'the banner',
    );
    const base = defined(/control API at (http:\/\/127\.0\.0\.1:\d+)\/sim\/nodes/.exec(text)?.[1], 'the control API address in the banner');
    expect(text).toMatch(/node-0 +healthy +NodeID-\w+ +http:\/\/127\.0\.0\.1:\d+\/node-0\n/);
    expect(text).toMatch(/node-1 +bootstrapping +NodeID-\w+ +http:\/\/127\.0\.0\.1:\d+\/node-1\n/);
    expect((await http(`${base}/node-1/ext/health/readiness`)).status).toBe(503);
    expect(text).not.toContain('L1 subnet');
    stop();
    expect(await done).toBe(0);
    expect(c.out.join('')).toContain('simulator stopped');
    await expect(http(`${base}/sim/nodes`)).rejects.toThrow();
  });

  it('with --track-l1 prints the L1 subnet ID for platform.subnets', async () => {
    const c = capture();
    let stop!: () => void;
    const stopSignal = new Promise<void>((r) => (stop = r));
    const done = runSimulateCommand(['--web.listen-address=127.0.0.1:0', '--track-l1', '--check-frequency=1h'], { ...c.io, stopSignal });
    const text = await waitFor(
      () => Promise.resolve(c.out.join('')),
      (t) => t.includes('Stop with Ctrl-C'),
      5_000,
      'the banner',
    );
    expect(text).toContain(`L1 subnet: ${L1_SUBNET_ID} (list it in the exporter's platform.subnets)`);
    stop();
    expect(await done).toBe(0);
  });

  it('exits 1 when it cannot listen', async () => {
    const first = capture();
    let stop!: () => void;
    const stopSignal = new Promise<void>((r) => (stop = r));
    const running = runSimulateCommand(['--web.listen-address=127.0.0.1:0'], { ...first.io, stopSignal });
    const text = await waitFor(
      () => Promise.resolve(first.out.join('')),
      (t) => t.includes('Stop with'),
      5_000,
      'the banner',
    );
    const port = defined(/127\.0\.0\.1:(\d+)/.exec(text)?.[1], 'the port in the banner');
    const second = capture();
    expect(await runSimulateCommand([`--web.listen-address=127.0.0.1:${port}`], { ...second.io, stopSignal: new Promise(() => undefined) })).toBe(1);
    expect(second.err.join('')).toMatch(/cannot start: .*EADDRINUSE/);
    stop();
    expect(await running).toBe(0);
  });
});
