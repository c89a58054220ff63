// `npm run test:fast` needs no network and no other program: the v1.15 faithfulness test, which
// can fetch its AvalancheGo source with `go mod download`, reads only its cache in that lane, and
// without the source its rows are skipped with the reason (never passed), or fail under CI=true.
// Run here as a child vitest, with an empty cache and a `go` on PATH that records being called.
// Not in the fast lane itself: it runs a child process.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const FILE = 'test/simulator/faithfulness-v1.15.test.ts';
const dir = mkdtempSync(join(tmpdir(), 'avaxexp-fast-lane-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Report {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTotalTests: number;
}

function runFastLane(ci: boolean): { report: Report; output: string; goRan: boolean } {
  const run = mkdtempSync(join(dir, 'run-'));
  const bin = join(run, 'bin');
  mkdirSync(bin);
  const marker = join(run, 'go-ran');
  writeFileSync(join(bin, 'go'), `#!/bin/sh\necho "$@" > '${marker}'\nexit 1\n`);
  chmodSync(join(bin, 'go'), 0o755);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    AVALANCHEGO_CACHE_DIR: join(run, 'cache'),
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    FORCE_COLOR: '0',
  };
  delete env.CI;
  delete env.VITEST;
  delete env.VITEST_POOL_ID;
  delete env.VITEST_WORKER_ID;
  delete env.AVALANCHEGO_FAST_LANE;
  if (ci) env.CI = 'true';
  const json = join(run, 'report.json');
  const r = spawnSync(
    process.execPath,
    [
      'node_modules/vitest/vitest.mjs',
      'run',
      '--config',
      'vitest.fast.config.ts',
      FILE,
      '--reporter=verbose',
      '--reporter=json',
      `--outputFile.json=${json}`,
    ],
    { encoding: 'utf8', env, timeout: 120_000 },
  );
  const output = `${r.stdout}${r.stderr}`;
  if (!existsSync(json)) throw new Error(`the child vitest wrote no report: ${output.slice(-2000)}`);
  return { report: JSON.parse(readFileSync(json, 'utf8')) as Report, output, goRan: existsSync(marker) };
}

describe('the fast lane needs no network and no other program', () => {
  it('without the cached v1.15 source: no `go` is run, and every row is skipped with the reason', { timeout: 150_000 }, () => {
    const { report, output, goRan } = runFastLane(false);
    expect(goRan, 'the fast lane ran `go`').toBe(false);
    expect(report.numTotalTests).toBeGreaterThan(5);
    expect(report).toMatchObject({ numPassedTests: 0, numFailedTests: 0, numPendingTests: report.numTotalTests });
    expect(output).toContain('source is not cached under');
    expect(output).toContain('the fast lane fetches nothing');
  });

  it('under CI=true the missing source fails every row', { timeout: 150_000 }, () => {
    const { report, goRan } = runFastLane(true);
    expect(goRan).toBe(false);
    expect(report).toMatchObject({ numPassedTests: 0, numPendingTests: 0, numFailedTests: report.numTotalTests });
  });
});
