// Records the node's answers into test/fixtures/real/<version>/ when RECORD=1, and otherwise
// checks that the recorded answers still describe the live node: the same cases, statuses,
// content types, key sets, value types and error messages (see compare.ts).
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { TOOLS_MODULE_DIR, legacyModuleDir, legacyVersions, pinnedVersion } from './build.js';
import { sendCChainTransfers } from './chain.js';
import { compareAnswers } from './compare.js';
import { portableFlags, startRealNode, type RealNode } from './node.js';
import { chainValue, compareMetrics, fetchNodeMetrics, readNodeMetrics, recordNodeMetrics } from './node-metrics.js';
import { chainHeight, healthReport, lastAcceptedIndex } from './queries.js';
import {
  bootstrappingCases,
  fixturesDir,
  recordBootstrapping,
  readRecording,
  records,
  recordAll,
  requestCase,
  singleNodeCases,
  startupObserver,
  STARTUP_PREFIX,
} from './record.js';
import { waitFor } from './wait.js';
import { defined } from '../helpers/assert.js';

const RECORD = records('answers');
/** The recording steps exist only when RECORD asks for them (not as skipped tests in every other run). */
const itRecords = RECORD ? it : undefined;
const itRecordsMetrics = records('node-metrics') ? it : undefined;
/** Transfers sent before recording, so that C/block holds containers. */
const TRANSFERS = 3;

/** The current pin and every older one (tools/avalanchego/legacy/<version>). */
const MODULES = [TOOLS_MODULE_DIR, ...legacyVersions().map(legacyModuleDir)];

describe.each(MODULES)('recorded node answers (%s)', async (moduleDir) => {
  const version = await pinnedVersion(moduleDir);
  // Set by beforeAll; undefined when the node did not start.
  let started: RealNode | undefined;
  const theNode = (): RealNode => defined(started, 'the node');
  const startup = startupObserver();

  beforeAll(async () => {
    const node = await startRealNode({ moduleDir, ...(RECORD ? { onStartupPoll: startup.poll } : {}) });
    started = node;
    // Bring the node to the recorded state: TRANSFERS C-Chain blocks, every check run and passing,
    // and the C check reporting the height of the last transfer.
    const { lastBlock } = await sendCChainTransfers(node.url, TRANSFERS);
    await waitFor(
      async () => {
        const report = await healthReport(node.url);
        const height = await chainHeight(node.url, 'C');
        return report.healthy && height === Number(lastBlock);
      },
      { timeoutMs: 30_000, what: 'healthy report with the new C height' },
    );
    await waitFor(async () => (await lastAcceptedIndex(node.url, 'C/block')) === TRANSFERS - 1, {
      timeoutMs: 30_000,
      what: `C/block index ${TRANSFERS - 1}`,
    });
  });
  afterAll(async () => {
    await started?.stop();
  });

  itRecords?.('records every case', async () => {
    const node = theNode();
    const { dir, cases } = await recordAll(
      node.url,
      {
        version,
        nodeId: node.nodeId,
        flags: portableFlags(node),
        cChainTransfers: TRANSFERS,
      },
      startup,
    );
    process.stderr.write(`[real-node] recorded ${cases.length} answers into ${dir}\n`);
    expect(cases.length).toBeGreaterThan(50);
  });

  itRecordsMetrics?.('records /ext/metrics', async () => {
    const node = theNode();
    const meta = await recordNodeMetrics(node.url, version, 'single-node', node.nodeId, {
      notes: [`a one-node network (sybil protection off) after ${TRANSFERS} C-Chain transfers`],
    });
    process.stderr.write(
      `[real-node] recorded /ext/metrics of ${version}: ${meta.full.bytes} bytes, ${meta.full.families} families, ${meta.full.series} series; kept ${Object.keys(meta.kept).length} families\n`,
    );
  });

  it('the recorded /ext/metrics families are still served, with their types and label names', async () => {
    const node = theNode();
    const recorded = await readNodeMetrics(version, 'single-node');
    expect(compareMetrics(recorded.trimmed, await fetchNodeMetrics(node.url))).toEqual([]);
  });

  it("serves the C-Chain's poll counters and bad-block count with live values, under this release's names", async () => {
    const body = await fetchNodeMetrics(theNode().url);
    // Each transfer is a block that the lone node finalizes through its own polls.
    expect(chainValue(body, 'consensus polls, successful', 'C')).toBeGreaterThanOrEqual(TRANSFERS);
    expect(chainValue(body, 'consensus polls, failed', 'C')).toBe(0);
    expect(chainValue(body, 'EVM bad blocks', 'C')).toBe(0);
    for (const chain of ['P', 'X']) expect(chainValue(body, 'consensus polls, failed', chain), chain).toBe(0);
  });

  it('the recording exists for the pinned version', () => {
    expect(existsSync(fixturesDir(version)), `run RECORD=1 npm run test:real-node (see docs/real-node.md)`).toBe(true);
  });

  it('the recorded answers still match the live node', async () => {
    const node = theNode();
    onTestFailed(async () => {
      process.stderr.write(`--- node log tail ---\n${await node.logTail(60)}\n`);
    });
    const { meta, answers } = await readRecording(version);
    expect(meta.cChainTransfers).toBe(TRANSFERS);
    const { cases } = await singleNodeCases(node.url);
    const replayable = [...answers.keys()].filter((name) => !name.startsWith(STARTUP_PREFIX));
    expect(cases.map((c) => c.name).sort()).toEqual(replayable.sort());

    const differences: string[] = [];
    for (const c of cases) {
      const recorded = answers.get(c.name);
      if (!recorded) continue;
      const live = await requestCase(node.url, c);
      for (const d of compareAnswers(recorded, live)) differences.push(`${c.name}: ${d}`);
    }
    expect(differences).toEqual([]);
  });
});

describe('recorded answers of a bootstrapping validator', async () => {
  const version = await pinnedVersion();
  // Set by beforeAll; undefined when the node did not start.
  let started: RealNode | undefined;
  const theNode = (): RealNode => defined(started, 'the node');

  beforeAll(async () => {
    started = await startRealNode({ profile: 'bootstrapping-validator' });
  });
  afterAll(async () => {
    await started?.stop();
  });

  itRecords?.('records every case', async () => {
    const node = theNode();
    const { dir, cases } = await recordBootstrapping(node.url, {
      version,
      nodeId: node.nodeId,
      flags: portableFlags(node),
    });
    process.stderr.write(`[real-node] recorded ${cases.length} answers into ${dir}\n`);
  });

  it('the recorded answers still match the live node', async () => {
    const node = theNode();
    onTestFailed(async () => {
      process.stderr.write(`--- node log tail ---\n${await node.logTail(60)}\n`);
    });
    const { meta, answers } = await readRecording(version, 'bootstrapping-validator');
    // The genesis key gives the same node ID on every run.
    expect(node.nodeId).toBe(meta.nodeId);
    const cases = bootstrappingCases();
    expect(cases.map((c) => c.name).sort()).toEqual([...answers.keys()].sort());
    const differences: string[] = [];
    for (const c of cases) {
      const recorded = answers.get(c.name);
      if (!recorded) continue;
      for (const d of compareAnswers(recorded, await requestCase(node.url, c))) differences.push(`${c.name}: ${d}`);
    }
    expect(differences).toEqual([]);
  });
});
