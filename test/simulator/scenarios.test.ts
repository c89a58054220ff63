// Scenario transitions: each fault appears in the health report within the
// expected (scaled) time and clears after recovery. Time runs 60 times faster
// than real time and checks run every 40 ms; every wait has a deadline.

import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { defined, jsonObject } from '../helpers/assert.js';
import {
  anyNumber,
  control,
  http,
  legacyReport,
  matching,
  parseReport,
  post,
  report,
  result,
  rpc,
  serviceError,
  simulator,
  waitFor,
} from './helpers.js';
import type { HealthReport, LegacyHealthReport } from './results.js';

const FAST = { timeScale: 60, checkFrequencyMs: 40 };

async function fetchHealth<R>(baseUrl: string, query: string, parse: (body: string) => R): Promise<R & { status: number; raw: string }> {
  const r = await http(`${baseUrl}/ext/health${query}`);
  return { ...parse(r.body), status: r.status, raw: r.body };
}

function health(baseUrl: string, query = ''): Promise<HealthReport & { status: number; raw: string }> {
  return fetchHealth(baseUrl, query, report);
}

/** A v1.7 node's report (go-sundheit results). */
function legacyHealth(baseUrl: string, query = ''): Promise<LegacyHealthReport & { status: number; raw: string }> {
  return fetchHealth(baseUrl, query, legacyReport);
}

describe('stalled-chain', () => {
  it('stops the chain, piles up processing blocks, fails its check after 30 s and recovers', async () => {
    const sim = await simulator(FAST);
    const url = sim.url;
    const before = await health(url);
    expect(before.status).toBe(200);
    sim.setScenario('node-0', 'stalled-chain');
    const started = Date.now();
    const failing = await waitFor(
      () => health(url),
      (r) => r.checks.C.error !== undefined,
      5_000,
      'the C check to fail',
    );
    // 30 s of scenario time is 0.5 s here; allow for one tick and scheduling.
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(failing.status).toBe(503);
    expect(failing.checks.C.error).toMatch(/^block processing too long: \d+(\.\d+)?s > 30s$/);
    expect(failing.raw).toContain('block processing too long: ');
    expect(failing.raw).toMatch(/s \\u003e 30s"/);
    expect(failing.checks.C.contiguousFailures).toBeGreaterThanOrEqual(1);
    expect(failing.checks.P.error).toBeUndefined();
    // A filtered report without the chain checks stays healthy.
    const filtered = await http(`${url}/ext/health?tag=none`);
    expect(filtered.status).toBe(200);
    // Past 256 processing blocks both consensus errors show, joined by a newline.
    const both = await waitFor(
      () => health(url),
      (r) => r.checks.C.error?.startsWith('too many processing blocks') === true,
      5_000,
      'too many processing blocks',
    );
    expect(both.checks.C.error).toMatch(/^too many processing blocks: \d+ > 256\nblock processing too long: .+ > 30s$/);
    expect(both.raw).toMatch(/too many processing blocks: \d+ \\u003e 256\\nblock processing too long/);
    const c = both.checks.C;
    expect(c.contiguousFailures).toBeGreaterThan(defined(failing.checks.C.contiguousFailures, 'the first count of failures'));
    expect(c.timeOfFirstFailure).toBe(failing.checks.C.timeOfFirstFailure);
    const consensus = defined(c.message, 'the C message').engine.consensus;
    const frozen = defined(consensus.lastAcceptedHeight, 'the height of the stalled chain');
    expect(consensus.processingBlocks).toBeGreaterThan(256);
    const lastIndex = async () => (await result(`${url}/ext/index/C/block`, 'index.getLastAccepted')).index;
    expect(await lastIndex()).toBe(String(frozen - 1));

    sim.setScenario('node-0', 'healthy');
    const recovered = await waitFor(
      () => health(url),
      (r) => r.status === 200,
      5_000,
      'recovery',
    );
    expect(Object.keys(recovered.checks.C)).toEqual(['message', 'timestamp', 'duration']);
    const recoveredConsensus = defined(recovered.checks.C.message, 'the C message').engine.consensus;
    expect(recoveredConsensus.lastAcceptedHeight).toBeGreaterThan(frozen);
    expect(recoveredConsensus.processingBlocks).toBe(0);
    expect(Number(await lastIndex())).toBeGreaterThan(frozen - 1);
  });
});

describe('peers-dropping', () => {
  it('loses stake until the chain checks fail, then the last peer, then recovers', async () => {
    const sim = await simulator({ ...FAST, timings: { peersDropSeconds: 60 } });
    sim.setScenario('node-0', 'peers-dropping');
    const stake = await waitFor(
      () => health(sim.url),
      (r) => r.checks.X.error !== undefined,
      5_000,
      'chain stake error',
    );
    expect(stake.checks.X.error).toMatch(/^not connected to enough stake: connected to \d{2}\.\d{6}%; required at least 80\.000000%$/);
    const ids = defined(defined(stake.checks.X.message, 'the X message').networking.disconnectedValidators, 'disconnectedValidators');
    expect(ids.length).toBeGreaterThan(0);
    expect([...ids].sort()).toEqual(ids);
    expect(ids.every((id) => id.startsWith('NodeID-'))).toBe(true);
    const gone = await waitFor(
      () => health(sim.url),
      (r) => defined(r.checks.network.message, 'the network message').connectedPeers === 0 && r.checks.network.error !== undefined,
      5_000,
      'no peers left',
    );
    expect(gone.checks.network.error).toMatch(/^network layer is unhealthy reason: not connected to a minimum of 1 peer\(s\) only 0/);
    // A minute later nothing has been received either.
    const silent = await waitFor(
      () => health(sim.url),
      (r) => String(r.checks.network.error).includes('no messages from network received in'),
      5_000,
      'silence',
    );
    expect(silent.checks.network.error).toMatch(/no messages from network received in \dm\d+(\.\d+)?s > 1m0s/);
    sim.setScenario('node-0', 'healthy');
    const back = await waitFor(
      () => health(sim.url),
      (r) => r.status === 200,
      5_000,
      'recovery',
    );
    expect(back.checks.network.message?.connectedPeers).toBeGreaterThan(1000);
    expect(back.checks.X.message?.networking.disconnectedValidators).toEqual([]);
  });
});

describe('disk-filling', () => {
  // 60 s of scenario time to 4.5 %, 60 s more to the 3 % minimum: a second each here.
  const DISK = { ...FAST, timings: { diskFillSeconds: 60, diskShutdownSeconds: 60 } };
  const refusedOrUp = (url: string): Promise<HealthReport | string> =>
    health(url).then(
      (r) => r,
      (e: unknown) => (e instanceof Error ? `${e.message} ${String((e as { code?: unknown }).code)}` : String(e)),
    );

  it('fails its diskspace check below 10 %, shuts itself down below 3 % (port refused), and starts again on a switch', async () => {
    const sim = await simulator({ ...DISK, portPerNode: true, nodes: 2 });
    const a = defined(sim.nodes[0], 'node-0');
    const b = defined(sim.nodes[1], 'node-1');
    sim.setScenario('node-0', 'disk-filling');
    const warn = await waitFor(
      () => health(a.baseUrl),
      (r) => r.checks.diskspace.error !== undefined,
      5_000,
      'disk warning',
    );
    expect(warn.status).toBe(503);
    expect(warn.checks.diskspace.error).toMatch(
      /^remaining available disk space percentage \(\d%\) is below warning threshold available space percentage \(10%\)$/,
    );
    const pct = defined(defined(warn.checks.diskspace.message, 'the diskspace message').availableDiskPercentage, 'availableDiskPercentage');
    expect(pct).toBeLessThan(10);
    expect(warn.checks.diskspace.error).toContain(`(${pct}%)`);
    // Below the rules' 5 % the node still answers, with the warning's message: the node has no level between.
    const low = await waitFor(
      () => health(a.baseUrl),
      (r) => (r.checks.diskspace.message?.availableDiskPercentage ?? 100) < 5,
      5_000,
      'less than 5 % free',
    );
    expect(low.checks.diskspace.error).toMatch(/^remaining available disk space percentage \([34]%\) is below warning threshold/);
    // Then, below 3 %, the process is gone: connections refused, never a minimum-required answer.
    const seen: Array<HealthReport | string> = [];
    await waitFor(
      async () => {
        const r = await refusedOrUp(a.baseUrl);
        seen.push(r);
        return r;
      },
      (r) => typeof r === 'string' && /ECONNREFUSED/.test(r),
      5_000,
      'the node to shut itself down',
    );
    // A request on a connection open when the process went away may be reset first; then every new one is refused.
    for (const r of seen) if (typeof r === 'string') expect(r).toMatch(/ECONNREFUSED|ECONNRESET|other side closed/);
    for (const r of seen) if (typeof r !== 'string') expect(r.checks.diskspace.error ?? '').not.toContain('minimum required');
    const described = control((await http(`${sim.url}/sim/nodes/node-0`)).body, 'node');
    expect(described).toMatchObject({ scenario: 'disk-filling', exited: 'low on disk space' });
    // It stays down (a process does not come back by itself); the other node is untouched.
    expect(await refusedOrUp(a.baseUrl)).toMatch(/ECONNREFUSED/);
    expect((await http(`${b.baseUrl}/ext/health/liveness`)).status).toBe(200);
    // Switched to healthy (the disk freed, the node restarted): it listens again with room on its disk.
    sim.setScenario('node-0', 'healthy');
    const ok = await waitFor(
      () => refusedOrUp(a.baseUrl),
      (r) => typeof r !== 'string' && r.checks.diskspace.error === undefined && r.checks.diskspace.message !== undefined,
      5_000,
      'disk recovery',
    );
    expect(typeof ok !== 'string' && ok.checks.diskspace.message?.availableDiskPercentage).toBeGreaterThan(25);
    expect(control((await http(`${sim.url}/sim/nodes/node-0`)).body, 'node').exited).toBeUndefined();
  });

  it('on a shared port, a node that shut itself down resets its connections; the control API still answers', async () => {
    const sim = await simulator({ ...DISK, nodes: 2 });
    sim.setScenario('node-0', 'disk-filling');
    const url = `${sim.url}/node-0`;
    await waitFor(
      () => refusedOrUp(url),
      (r) => typeof r === 'string',
      5_000,
      'the node to shut itself down',
    );
    await expect(http(`${url}/ext/health/liveness`)).rejects.toThrow();
    expect((await http(`${sim.url}/node-1/ext/health/liveness`)).status).toBe(200);
    const nodes = control((await http(`${sim.url}/sim/nodes`)).body, 'nodes');
    expect(nodes.nodes.map((n) => n.exited)).toEqual(['low on disk space', undefined]);
    sim.setScenario('node-0', 'disk-filling');
    // A new fill starts from the node's usual free space: it answers again at once.
    expect((await http(`${url}/ext/health/liveness`)).status).toBe(200);
  });
});

describe('router-overload', () => {
  it('passes 1024 outstanding requests and fails the router check', async () => {
    const sim = await simulator({ ...FAST, timings: { routerOverloadSeconds: 30 } });
    sim.setScenario('node-0', 'router-overload');
    const r = await waitFor(
      () => health(sim.url),
      (x) => x.checks.router.error !== undefined,
      5_000,
      'router error',
    );
    expect(r.checks.router.error).toMatch(/^the router is not healthy reason: number of outstanding requests (\d+) > 1024$/);
    expect(r.checks.router.message?.outstandingRequests).toBeGreaterThan(1024);
    expect(r.checks.router.message?.longestRunningRequest).toMatch(/^\d+(\.\d+)?s$/);
    sim.setScenario('node-0', 'healthy');
    await waitFor(
      () => health(sim.url),
      (x) => x.checks.router.error === undefined,
      5_000,
      'router recovery',
    );
  });
});

describe('flapping', () => {
  it('fails and recovers repeatedly, counting failures anew each time', async () => {
    const sim = await simulator({ ...FAST, timings: { flapTicks: 2 } });
    sim.setScenario('node-0', 'flapping');
    const seen: string[] = [];
    await waitFor(
      async () => {
        const r = await health(sim.url);
        const n = r.checks.network;
        const state = n.error === undefined ? 'ok' : `fail${String(n.contiguousFailures)}`;
        if (seen[seen.length - 1] !== state) seen.push(state);
        if (n.error !== undefined) {
          expect(n.error).toBe('network layer is unhealthy reason: messages failure send rate 0.95 > 0.9');
          expect(n.message?.sendFailRate).toBe(0.95);
        } else {
          expect(n.contiguousFailures).toBeUndefined();
          expect(n.timeOfFirstFailure).toBeUndefined();
        }
        return seen.join(',');
      },
      (s) => /fail1,fail2,ok,fail1,fail2,ok/.test(s),
      8_000,
      'two flaps',
    );
  });
});

describe('transport scenarios', () => {
  it('slow: holds every answer back', async () => {
    const sim = await simulator({ ...FAST, timings: { slowResponseMs: 600 } });
    sim.setScenario('node-0', 'slow');
    const t0 = Date.now();
    const r = await http(`${sim.url}/ext/health/liveness`);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(580);
    expect(r.body).toBe('{"checks":{},"healthy":true}\n');
    sim.setScenario('node-0', 'healthy');
    const t1 = Date.now();
    await http(`${sim.url}/ext/health/liveness`);
    expect(Date.now() - t1).toBeLessThan(500);
  });

  it('down (reset): drops the connection; the control API still answers', async () => {
    const sim = await simulator(FAST);
    sim.setScenario('node-0', 'down');
    await expect(http(`${sim.url}/ext/health`)).rejects.toThrow();
    const nodes = control((await http(`${sim.url}/sim/nodes`)).body, 'nodes');
    expect(nodes.nodes[0]?.scenario).toBe('down');
    sim.setScenario('node-0', 'healthy');
    expect((await http(`${sim.url}/ext/health/liveness`)).status).toBe(200);
  });

  it('down (hang): accepts and never answers; close() still ends', async () => {
    const sim = await simulator(FAST);
    sim.setScenario('node-0', 'down', { downMode: 'hang' });
    await expect(request(`${sim.url}/ext/health`, { headersTimeout: 300 })).rejects.toThrow(/timeout/i);
  });

  it('down (refused): closes the node port and reopens it on recovery', async () => {
    const sim = await simulator({ ...FAST, portPerNode: true, nodes: 2 });
    const a = defined(sim.nodes[0], 'node-0');
    const b = defined(sim.nodes[1], 'node-1');
    expect(a.baseUrl).not.toBe(sim.url);
    sim.setScenario('node-0', 'down');
    await expect(http(`${a.baseUrl}/ext/health`)).rejects.toThrow(/ECONNREFUSED/);
    expect((await http(`${b.baseUrl}/ext/health/liveness`)).status).toBe(200);
    sim.setScenario('node-0', 'healthy');
    await waitFor(
      () =>
        http(`${a.baseUrl}/ext/health/liveness`).then(
          (r) => r.status,
          () => 0,
        ),
      (s) => s === 200,
      5_000,
      'the port to reopen',
    );
  });

  it('down (refused): survives quick toggling and ends listening exactly when up', async () => {
    const sim = await simulator({ ...FAST, portPerNode: true });
    const url = `${defined(sim.nodes[0], 'node-0').baseUrl}/ext/health/liveness`;
    for (const s of ['down', 'healthy', 'down', 'healthy', 'down'] as const) sim.setScenario('node-0', s);
    await waitFor(
      () =>
        http(url).then(
          () => 'up',
          (e: unknown) => (e instanceof Error ? e.message : String(e)),
        ),
      (s) => /ECONNREFUSED/.test(s),
      5_000,
      'refused',
    );
    sim.setScenario('node-0', 'healthy');
    await waitFor(
      () =>
        http(url).then(
          (r) => r.status,
          () => 0,
        ),
      (s) => s === 200,
      5_000,
      'up again',
    );
  });

  it('refuses downMode refused without a port per node', async () => {
    const sim = await simulator(FAST);
    expect(() => sim.setScenario('node-0', 'down', { downMode: 'refused' })).toThrow(/port per node/);
  });

  it('garbage: an HTML error page, a cut-off body and wrong types, in turn', async () => {
    const sim = await simulator(FAST);
    sim.setScenario('node-0', 'garbage');
    const replies = [await http(`${sim.url}/ext/health`), await http(`${sim.url}/ext/health`), await http(`${sim.url}/ext/health`)];
    const html = defined(
      replies.find((r) => r.status === 502),
      'the HTML error page',
    );
    expect(html.headers['content-type']).toBe('text/html');
    expect(html.body).toContain('<title>502 Bad Gateway</title>');
    const truncated = defined(
      replies.find((r) => r.status === 200 && !r.body.endsWith('\n')),
      'the cut-off body',
    );
    expect((): unknown => JSON.parse(truncated.body)).toThrow();
    const typed = defined(
      replies.find((r) => r.body.endsWith('\n') && r.status !== 502),
      'the body with wrong types',
    );
    // Wrong types on purpose: read as unknown, not as a report.
    const parsed = jsonObject(JSON.parse(typed.body), 'the body with wrong types');
    expect(parsed.healthy).toBe('true');
    const checks: unknown = parsed.checks;
    expect(Array.isArray(checks)).toBe(true);
    const first: unknown = Array.isArray(checks) ? checks[0] : undefined;
    expect(typeof jsonObject(first, 'the first check').duration).toBe('string');
    // JSON-RPC answers are garbled too.
    sim.setScenario('node-0', 'garbage', { garbageMode: 'wrong-types' });
    const idx = jsonObject(JSON.parse((await rpc(`${sim.url}/ext/index/C/block`, 'index.getLastAccepted')).body), 'the garbled reply');
    expect(typeof jsonObject(idx.result, 'the garbled result').index).toBe('number');
    sim.setScenario('node-0', 'healthy');
    expect(parseReport((await http(`${sim.url}/ext/health`)).body).healthy).toBe(true);
  });
});

describe('startup scenarios', () => {
  it('starting → healthy: not-yet-run checks run on the next tick', async () => {
    const sim = await simulator({ ...FAST, scenario: 'starting' });
    const start = await health(sim.url);
    expect(start.checks.C.error).toBe('not yet run');
    // `starting` holds: several ticks later the chains still have not run.
    await waitFor(
      () => health(sim.url),
      (r) => (r.checks.network.contiguousFailures ?? 0) >= 3,
      5_000,
      'ticks',
    );
    expect((await health(sim.url)).checks.C.error).toBe('not yet run');
    sim.setScenario('node-0', 'healthy');
    const ok = await waitFor(
      () => health(sim.url),
      (r) => r.status === 200,
      5_000,
      'healthy',
    );
    expect(ok.checks.C.message?.engine.consensus.lastAcceptedHeight).toBeGreaterThan(0);
    expect(ok.checks.network.contiguousFailures).toBeUndefined();
  });

  it('healthy → bootstrapping (a restart) → healthy: readiness 503 then 200', async () => {
    const sim = await simulator(FAST);
    expect((await http(`${sim.url}/ext/health/readiness`)).status).toBe(200);
    sim.setScenario('node-0', 'bootstrapping');
    const ready = await http(`${sim.url}/ext/health/readiness`);
    expect(ready.status).toBe(503);
    const boot = await waitFor(
      () => health(sim.url),
      (r) => r.checks.bootstrapped.error === 'subnets not bootstrapped',
      5_000,
      'bootstrapping',
    );
    expect(boot.checks.bootstrapped.message).toEqual(['11111111111111111111111111111111LpoYY']);
    // A fresh start: the validator-health key waits out its 10 minute grace period.
    expect(Object.keys(defined(boot.checks.network.message, 'the network message'))).not.toContain('primary network validator health');
    sim.setScenario('node-0', 'healthy');
    await waitFor(
      () => http(`${sim.url}/ext/health/readiness`),
      (r) => r.status === 200,
      5_000,
      'ready',
    );
    const ok = await waitFor(
      () => health(sim.url),
      (r) => r.status === 200,
      5_000,
      'healthy',
    );
    expect(ok.checks.bootstrapped.message).toEqual([]);
    // 10 minutes of scenario time is 10 s of real time at this scale: not yet.
    expect(Object.keys(defined(ok.checks.network.message, 'the network message'))).not.toContain('primary network validator health');
  });
});

describe('chain-added', () => {
  it('restarts tracking one more chain (a check keyed by a chain ID not seen before, tagged with its subnet); leaving drops it; each entry is another chain', async () => {
    const sim = await simulator(FAST);
    const before = Object.keys((await health(sim.url)).checks);
    sim.setScenario('node-0', 'chain-added');
    const added = await waitFor(
      () => health(sim.url),
      (r) => r.status === 200 && Object.keys(r.checks).length === before.length + 1,
      5_000,
      'the added chain to pass its check',
    );
    const name = defined(
      Object.keys(added.checks).find((k) => !before.includes(k)),
      'the added check',
    );
    expect(name).toMatch(/^[1-9A-HJ-NP-Za-km-z]{49,50}$/);
    expect(added.checks[name]?.message?.engine.consensus.lastAcceptedHeight).toBeGreaterThan(0);
    // Tagged with its own subnet, not the primary network's.
    const primary = await http(`${sim.url}/ext/health?tag=11111111111111111111111111111111LpoYY`);
    expect(Object.keys(report(primary.body).checks)).toEqual(expect.arrayContaining(['C', 'P', 'X']));
    expect(Object.keys(report(primary.body).checks)).not.toContain(name);
    sim.setScenario('node-0', 'healthy');
    expect(Object.keys((await health(sim.url)).checks).sort()).toEqual([...before].sort());
    sim.setScenario('node-0', 'chain-added');
    const again = await waitFor(
      () => health(sim.url),
      (r) => Object.keys(r.checks).length === before.length + 1,
      5_000,
      'another chain',
    );
    const second = Object.keys(again.checks).find((k) => !before.includes(k));
    expect(second).toBeDefined();
    expect(second).not.toBe(name);
  });
});

describe('old versions', () => {
  it('old-version: the v1.10.x shapes (consensus keys before v1.10.16, no bls, bytes-only disk)', async () => {
    const sim = await simulator({ ...FAST, scenario: 'old-version' });
    const r = await waitFor(
      () => health(sim.url),
      (x) => x.checks.C.error === undefined && x.status === 200,
      5_000,
      'first tick',
    );
    expect(Object.keys(r.checks)).toEqual(['C', 'P', 'X', 'bootstrapped', 'database', 'diskspace', 'network', 'router']);
    const cMessage = defined(r.checks.C.message, 'the C message');
    expect(cMessage).toEqual({
      engine: { consensus: { longestRunningBlock: '0s', outstandingBlocks: 0 }, vm: null },
      networking: { percentConnected: cMessage.networking.percentConnected },
    });
    expect(Object.keys(defined(defined(r.checks.P.message, 'the P message').engine.vm, 'the P-Chain VM details'))).toEqual([
      'primary-percentConnected',
    ]);
    expect(Object.keys(defined(r.checks.diskspace.message, 'the diskspace message'))).toEqual(['availableDiskBytes']);
    expect(Object.keys(defined(r.checks.network.message, 'the network message'))).not.toContain('primary network validator health');
    // Tags work (v1.10.0+).
    expect(Object.keys((await health(sim.url, '?tag=x')).checks)).toEqual(['bootstrapped', 'database', 'diskspace', 'network', 'router']);
  });

  it('old-version-v1.7: go-sundheit results with an error object; no readiness or liveness', async () => {
    const sim = await simulator({ ...FAST, scenario: 'old-version-v1.7' });
    const r = await waitFor(
      () => legacyHealth(sim.url),
      (x) => x.checks.C.timestamp !== '0001-01-01T00:00:00Z',
      5_000,
      'first tick',
    );
    expect(Object.keys(r.checks)).toEqual(['C', 'P', 'X', 'chains.default.bootstrapped', 'network.validators.heartbeat']);
    expect(r.status).toBe(503);
    expect(Object.keys(r.checks.C)).toEqual(['message', 'error', 'timestamp', 'duration', 'contiguousFailures', 'timeOfFirstFailure']);
    expect(r.checks.C.message).toBeNull();
    expect(r.checks.C.error).toEqual({ message: matching(/^block processing time \d+(\.\d+)?s > 30s$/) });
    expect(r.raw).toContain('\\u003e 30s');
    expect(r.checks.X).toEqual({ timestamp: r.checks.X.timestamp, duration: r.checks.X.duration, contiguousFailures: 0, timeOfFirstFailure: null });
    expect(r.checks.P.message).toEqual({ percentConnected: anyNumber() });
    expect(Object.keys(defined(r.checks['network.validators.heartbeat'].message, 'the heartbeat message'))).toEqual(['heartbeat']);
    // Tags did not exist: a filter is ignored.
    expect(Object.keys((await legacyHealth(sim.url, '?tag=x')).checks)).toHaveLength(5);
    expect((await rpc(`${sim.url}/ext/health`, 'health.readiness')).body).toBe(serviceError('rpc: can\'t find method "health.Readiness"'));
    expect((await http(`${sim.url}/ext/health/readiness`)).status).toBe(404);
    expect((await post(`${sim.url}/ext/index/X/block`, '{}')).status).toBe(404);
    const viaRpc = await result(`${sim.url}/ext/health`, 'health.health', { tags: ['x'] });
    expect(viaRpc.healthy).toBe(false);
    // Back to the current version: the modern shape again.
    sim.setScenario('node-0', 'healthy');
    const now = await waitFor(
      () => health(sim.url),
      (x) => x.status === 200,
      5_000,
      'modern',
    );
    expect(now.checks.X.contiguousFailures).toBeUndefined();
  });
});

describe('control API', () => {
  it('lists nodes and switches scenarios over HTTP, with clear errors', async () => {
    const sim = await simulator(FAST);
    const list = control((await http(`${sim.url}/sim/nodes`)).body, 'nodes');
    expect(list.nodes).toHaveLength(1);
    expect(list.nodes[0]).toMatchObject({
      name: 'node-0',
      baseUrl: sim.url,
      nodeId: defined(sim.nodes[0], 'node-0').nodeId,
      scenario: 'healthy',
      version: 'v1.14',
    });
    const set = await post(`${sim.url}/sim/nodes/node-0/scenario`, '{"scenario":"bootstrapping"}');
    expect(set.status).toBe(200);
    expect(control(set.body, 'node').scenario).toBe('bootstrapping');
    expect(sim.scenarioOf('node-0')).toBe('bootstrapping');
    expect((await http(`${sim.url}/ext/health/readiness`)).status).toBe(503);
    const bad = await post(`${sim.url}/sim/nodes/node-0/scenario`, '{"scenario":"exploding"}');
    expect([bad.status, control(bad.body, 'error').error]).toEqual([400, 'unknown scenario "exploding"']);
    expect((await post(`${sim.url}/sim/nodes/node-9/scenario`, '{"scenario":"healthy"}')).status).toBe(404);
    expect((await post(`${sim.url}/sim/nodes/node-0/scenario`, 'not json')).status).toBe(400);
    expect((await post(`${sim.url}/sim/nodes/node-0/scenario`, '{"scenario":"down","downMode":"refused"}')).status).toBe(400);
    expect(control((await http(`${sim.url}/sim/scenarios`)).body, 'scenarios').scenarios).toContain('old-version-v1.7');
    expect(() => sim.setScenario('node-0', 'nope' as never)).toThrow(/unknown scenario/);
    expect(() => sim.setScenario('node-7', 'healthy')).toThrow(/unknown node/);
  });
});
