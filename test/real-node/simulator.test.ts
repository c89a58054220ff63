// The simulator (dist/simulator) versus the real node: the same requests to both, compared by
// status, content type, key sets, value types, JSON-RPC error codes and messages (compare.ts).
// Every difference is either fixed in the simulator or listed in KNOWN_DIFFERENCES with the reason.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator, SimulatorOptions } from '../../src/simulator/index.js';
import { REPO_ROOT, legacyVersions, pinnedVersion } from './build.js';
import { sendCChainTransfers } from './chain.js';
import { compareAnswers } from './compare.js';
import { UNSERVED_PLATFORM_METHODS, explain, type Difference } from './differences.js';
import { startRealNode, type RealNode } from './node.js';
import { healthReport } from './queries.js';
import {
  INDEX_ENDPOINTS,
  STARTUP_PREFIX,
  readNodeFacts,
  readRecording,
  readValidatorFacts,
  recordingCases,
  requestCase,
  validatorCases,
  type NodeFacts,
  type RecordingCase,
} from './record.js';
import { waitFor } from './wait.js';
import { defined } from '../helpers/assert.js';

const SIMULATOR_MAIN = join(REPO_ROOT, 'dist', 'simulator', 'index.js');
const SIMULATOR_CHAINS = join(REPO_ROOT, 'dist', 'simulator', 'chain.js');

/**
 * Differences that are not simulator bugs: the two sides are in different states (a lone local
 * node without peers or history versus a simulated mainnet node), or the node's answer depends
 * on something the simulator does not model. `case` and `difference` are matched as regexes
 * against the case name and the difference text.
 */
const KNOWN_DIFFERENCES: Array<{ case: RegExp; difference: RegExp; reason: string }> = [
  {
    case: /^health-(get|rpc)/,
    difference: /network\.message\.(timeSinceLastMsgReceived|timeSinceLastMsgSent|primary network validator health): missing in first/,
    reason:
      'a lone local node has no peers: it never received or sent a message (so no timeSince* keys) and the ' +
      'ingress-connection key appears only after 10 minutes of uptime; the simulator models a connected mainnet node',
  },
];

/**
 * The simulator's `old-version` scenario against the recorded AvalancheGo v1.10.19 (the newest
 * v1.10), health answers only. The simulator models an earlier v1.10 (before v1.10.16), so the
 * consensus map and the P-chain `vm` details differ by design.
 */
const OLD_VERSION_DIFFERENCES: Array<{ difference: RegExp; reason: string }> = [
  {
    difference: /network\.message\.(timeSinceLastMsgReceived|timeSinceLastMsgSent): missing in first/,
    reason: 'the lone local node has no peers (see KNOWN_DIFFERENCES)',
  },
  {
    difference:
      /engine\.consensus\.(lastAcceptedHeight|lastAcceptedID|longestProcessingBlock|processingBlocks|outstandingBlocks|longestRunningBlock): missing in (first|second)/,
    reason:
      'v1.10.16 replaced consensus {outstandingBlocks, longestRunningBlock} by {lastAcceptedHeight, lastAcceptedID, ' +
      'longestProcessingBlock, processingBlocks}: v1.10.19 has the new map, the simulated v1.10 the old one',
  },
  {
    difference: /checks\.P\.message\.engine\.vm: null vs object/,
    reason: 'the P-chain VM reported {"primary-percentConnected": …} in early v1.10 only; by v1.10.19 its health details are nil',
  },
];

describe('simulator versus the real node', () => {
  // Set by beforeAll; undefined when it failed before starting them (afterAll stops what was started).
  let realNode: RealNode | undefined;
  /** A simulated mainnet node with complete indexes: compared where the real index holds containers. */
  let fullSim: RunningSimulator | undefined;
  /**
   * Indexing started with the simulator and time nearly frozen (timeScale 0.001: a C block every
   * ~33 minutes), so its indexes stay empty: compared where the real index is empty.
   */
  let freshSim: RunningSimulator | undefined;
  let simCChainId: string;
  let startSimulator: (o: SimulatorOptions) => Promise<RunningSimulator>;

  beforeAll(async () => {
    if (!existsSync(SIMULATOR_MAIN)) throw new Error(`${SIMULATOR_MAIN} is missing: run npm run build`);
    ({ startSimulator } = (await import(SIMULATOR_MAIN)) as {
      startSimulator: (o: SimulatorOptions) => Promise<RunningSimulator>;
    });
    // The simulator has no info API; its chain IDs are mainnet's, from its chain table.
    const { CHAINS } = (await import(SIMULATOR_CHAINS)) as { CHAINS: Record<'C', { chainId: string }> };
    simCChainId = CHAINS.C.chainId;
    const node = await startRealNode();
    realNode = node;
    await sendCChainTransfers(node.url, 3);
    await waitFor(async () => (await healthReport(node.url)).healthy, { timeoutMs: 30_000, what: 'node healthy' });
    fullSim = await startSimulator({ nodes: 1, scenario: 'healthy', checkFrequencyMs: 2_000 });
    freshSim = await startSimulator({
      nodes: 1,
      scenario: 'healthy',
      checkFrequencyMs: 2_000,
      freshIndex: true,
      timeScale: 0.001,
    });
    // Let the simulators' health workers run once, as the real node's has.
    for (const sim of [fullSim, freshSim]) {
      await waitFor(async () => (await healthReport(urlOf(sim))).healthy, { timeoutMs: 30_000, what: 'simulator healthy' });
    }
  });
  afterAll(async () => {
    await fullSim?.close();
    await freshSim?.close();
    await realNode?.stop();
  });

  const urlOf = (sim: RunningSimulator): string => {
    const info = sim.nodes[0];
    if (!info) throw new Error('the simulator started no node');
    return info.baseUrl;
  };

  it('answers the recorded requests like the real node', async () => {
    const node = defined(realNode, 'the real node');
    const simFull = defined(fullSim, 'the simulator with complete indexes');
    const simFresh = defined(freshSim, 'the simulator with empty indexes');
    const realFacts = await readNodeFacts(node.url);
    const fullFacts = await readNodeFacts(urlOf(simFull), simCChainId);
    const freshFacts = await readNodeFacts(urlOf(simFresh), simCChainId);
    // Per index endpoint, the simulator whose index is in the real one's state (empty or not).
    const simFor = (name: string): { url: string; facts: NodeFacts } => {
      const endpoint = INDEX_ENDPOINTS.find((e) => name.startsWith(`index-${e.replace('/', '-')}-`));
      if (endpoint && realFacts.lastAccepted[endpoint] === undefined) return { url: urlOf(simFresh), facts: freshFacts };
      return { url: urlOf(simFull), facts: fullFacts };
    };
    for (const endpoint of INDEX_ENDPOINTS) {
      const sim = simFor(`index-${endpoint.replace('/', '-')}-`);
      expect(sim.facts.lastAccepted[endpoint] === undefined, `${endpoint} emptiness`).toBe(realFacts.lastAccepted[endpoint] === undefined);
    }
    const realCases = new Map(recordingCases(realFacts).map((c) => [c.name, c]));
    const fullCases = new Map(recordingCases(fullFacts).map((c) => [c.name, c]));
    const freshCases = new Map(recordingCases(freshFacts).map((c) => [c.name, c]));

    const found: Array<{ case: string; difference: string }> = [];
    for (const name of new Set([...realCases.keys(), ...fullCases.keys(), ...freshCases.keys()])) {
      const sim = simFor(name);
      const realCase: RecordingCase | undefined = realCases.get(name);
      const simCase: RecordingCase | undefined = (sim.facts === fullFacts ? fullCases : freshCases).get(name);
      if (!realCase || !simCase) {
        if (realCase || simCase) {
          found.push({ case: name, difference: `asked only of the ${realCase ? 'real node' : 'simulator'}` });
        }
        continue;
      }
      const real = await requestCase(node.url, realCase);
      const simulated = await requestCase(sim.url, simCase);
      for (const difference of compareAnswers(real, simulated)) found.push({ case: name, difference });
    }

    const unexplained = found.filter((f) => !KNOWN_DIFFERENCES.some((k) => k.case.test(f.case) && k.difference.test(f.difference)));
    const explained = found.length - unexplained.length;
    process.stderr.write(
      `[real-node] simulator vs node: ${realCases.size} cases, ${explained} known differences, ${unexplained.length} unexplained\n`,
    );
    expect(unexplained.map((f) => `${f.case}: ${f.difference}`)).toEqual([]);
    // An entry that no longer matches anything is stale (e.g. a fixed simulator bug): remove it.
    const stale = KNOWN_DIFFERENCES.filter((k) => !found.some((f) => k.case.test(f.case) && k.difference.test(f.difference)));
    expect(stale.map((k) => k.reason)).toEqual([]);
  });
  it('answers like a starting node (the recorded startup states)', async () => {
    const { answers } = await readRecording(await pinnedVersion());
    // The recorded start-up state with every chain registered and still `not yet run` (the states
    // seen, and their order, vary from run to run).
    const lastState = [...answers.entries()]
      .filter(([name, a]) => name.startsWith(`${STARTUP_PREFIX}health-get-`) && a.status === 503)
      .map(([, a]) => a)
      .find((a) => ['"C":{"error":"not yet run"', '"P":{"error":"not yet run"', '"X":{"error":"not yet run"'].every((s) => a.body.includes(s)));
    const readiness = answers.get(`${STARTUP_PREFIX}readiness-get`);
    if (!lastState || !readiness) throw new Error('no startup answers recorded: run RECORD=1 npm run test:real-node');

    const sim = await startSimulator({ nodes: 1, scenario: 'starting', checkFrequencyMs: 2_000 });
    try {
      const url = urlOf(sim);
      const simReadiness = await requestCase(url, { name: 'readiness', request: readiness.request });
      expect(compareAnswers(readiness, simReadiness)).toEqual([]);
      expect(simReadiness.body).toBe(readiness.body);

      const simHealth = await requestCase(url, { name: 'health', request: lastState.request });
      expect(simHealth.status).toBe(lastState.status);
      type Report = { checks: Record<string, { error?: string }>; healthy: boolean };
      const real = JSON.parse(lastState.body) as Report;
      const simulated = JSON.parse(simHealth.body) as Report;
      expect(Object.keys(simulated.checks).sort()).toEqual(Object.keys(real.checks).sort());
      expect(simulated.healthy).toBe(real.healthy);
      // Checks not run yet are byte-for-byte the same constant result on both.
      for (const [name, check] of Object.entries(real.checks)) {
        if (check.error === 'not yet run') expect(simulated.checks[name], name).toEqual(check);
      }
    } finally {
      await sim.close();
    }
  });
  it('answers like a bootstrapping node (the recorded bootstrapping validator)', async () => {
    const { answers } = await readRecording(await pinnedVersion(), 'bootstrapping-validator');
    const recordedHealth = answers.get('health-get');
    const recordedReadiness = answers.get('health-get-readiness');
    if (!recordedHealth || !recordedReadiness) throw new Error('no bootstrapping recording: run RECORD=1 npm run test:real-node');

    const sim = await startSimulator({ nodes: 1, scenario: 'bootstrapping', checkFrequencyMs: 500 });
    try {
      const url = urlOf(sim);
      type Check = { message?: unknown; error?: string; contiguousFailures?: number };
      type Report = { checks: Record<string, Check>; healthy: boolean };
      // Wait for the simulator's first check run (chains leave `not yet run`).
      const simHealth = await waitFor(
        async () => {
          const a = await requestCase(url, { name: 'health', request: recordedHealth.request });
          const r = JSON.parse(a.body) as Report;
          return r.checks.C?.error === 'not yet run' ? false : a;
        },
        { timeoutMs: 10_000, intervalMs: 100, what: 'simulator check run' },
      );
      const real = JSON.parse(recordedHealth.body) as Report;
      const simulated = JSON.parse(simHealth.body) as Report;
      expect(simHealth.status).toBe(recordedHealth.status);
      expect(Object.keys(simulated.checks).sort()).toEqual(Object.keys(real.checks).sort());
      expect(simulated.healthy).toBe(false);
      // `bootstrapped`: the same message (the subnet still bootstrapping), error and bookkeeping keys.
      expect(
        compareAnswers(
          { ...recordedHealth, body: `${JSON.stringify(real.checks.bootstrapped)}\n` },
          { ...simHealth, body: `${JSON.stringify(simulated.checks.bootstrapped)}\n` },
        ),
      ).toEqual([]);
      expect(simulated.checks.bootstrapped?.message).toEqual(real.checks.bootstrapped?.message);
      expect(simulated.checks.bootstrapped?.error).toBe(real.checks.bootstrapped?.error);
      // Chains: an empty consensus object and a null vm while bootstrapping, on both. (Whether the
      // chain check fails depends on connected stake: 20% on the lone validator, ~99.8% simulated.)
      for (const chain of ['C', 'P', 'X']) {
        const engine = (c: Check | undefined) => (c?.message as { engine?: unknown } | undefined)?.engine;
        expect(engine(simulated.checks[chain]), chain).toEqual({ consensus: {}, vm: null });
        expect(engine(real.checks[chain]), chain).toEqual({ consensus: {}, vm: null });
      }

      const simReadiness = await requestCase(url, { name: 'readiness', request: recordedReadiness.request });
      expect(compareAnswers(recordedReadiness, simReadiness)).toEqual([]);
    } finally {
      await sim.close();
    }
  });
  // The info and platform answers of older releases (methods missing, older entry shapes) against
  // the scenarios that run those releases. Compared with the recording (a lone node with sybil
  // protection off: info.uptime answers, its own validator entry is empty, which an empty array
  // on either side matches); the live validators are compared in local-network.test.ts.
  const RELEASE_SCENARIOS: Array<[string, SimulatorOptions['scenario']]> = [
    ['v1.10.19', 'old-version'],
    ['v1.13.5', 'version-behind'],
  ];
  it.each(RELEASE_SCENARIOS.filter(([version]) => legacyVersions().includes(version)))(
    'info and platform answers of the recorded %s against the %s scenario',
    async (version, scenario) => {
      const { answers } = await readRecording(version);
      const sim = await startSimulator({ nodes: 1, scenario, validator: true, checkFrequencyMs: 2_000 });
      try {
        const url = urlOf(sim);
        await waitFor(async () => (await healthReport(url)).checks.P?.error !== 'not yet run', {
          timeoutMs: 10_000,
          intervalMs: 100,
          what: 'simulator check run',
        });
        const found: Difference[] = [];
        for (const c of validatorCases(await readValidatorFacts(url))) {
          const recorded = answers.get(c.name);
          if (!recorded) found.push({ case: c.name, difference: `not recorded from ${version}` });
          else for (const difference of compareAnswers(recorded, await requestCase(url, c))) found.push({ case: c.name, difference });
        }
        // v1.10.19 lacks getValidatorFeeConfig as the simulator does: nothing to explain there.
        const known = version === 'v1.10.19' ? [] : [UNSERVED_PLATFORM_METHODS];
        expect(explain(found, known)).toEqual({ unexplained: [], stale: [] });
      } finally {
        await sim.close();
      }
    },
  );
  it.runIf(legacyVersions().includes('v1.10.19'))('old-version scenario against the recorded v1.10.19', async () => {
    const { answers } = await readRecording('v1.10.19');
    const sim = await startSimulator({ nodes: 1, scenario: 'old-version', checkFrequencyMs: 300 });
    try {
      const found: Array<{ case: string; difference: string }> = [];
      for (const name of ['health-get', 'health-rpc-health', 'health-get-readiness', 'health-get-liveness', 'health-get-tag-unknown']) {
        const recorded = answers.get(name);
        if (!recorded) throw new Error(`v1.10.19 recording has no ${name}`);
        // Wait for the simulator's first check run.
        const simulated = await waitFor(
          async () => {
            const a = await requestCase(urlOf(sim), { name, request: recorded.request });
            return a.body.includes('not yet run') ? false : a;
          },
          { timeoutMs: 10_000, intervalMs: 100, what: `simulator ${name}` },
        );
        for (const difference of compareAnswers(recorded, simulated)) found.push({ case: name, difference });
      }
      const unexplained = found.filter((f) => !OLD_VERSION_DIFFERENCES.some((k) => k.difference.test(f.difference)));
      expect(unexplained.map((f) => `${f.case}: ${f.difference}`)).toEqual([]);
      const stale = OLD_VERSION_DIFFERENCES.filter((k) => !found.some((f) => k.difference.test(f.difference)));
      expect(stale.map((k) => k.reason)).toEqual([]);
    } finally {
      await sim.close();
    }
  });
});
