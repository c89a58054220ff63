// The node-metrics fixtures (test/fixtures/node-metrics/<version>/), without a node: each trimmed
// body holds exactly the families the recorder keeps, as served, and says per release which
// families carry each stable fact. The live checks are in record.test.ts and local-network.test.ts.
import { gunzipSync } from 'node:zlib';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { legacyVersions, pinnedVersion } from './build.js';
import {
  NODE_METRICS_DIR,
  STABLE_FACTS,
  TABLE_END,
  TABLE_START,
  chainValue,
  compareMetrics,
  factsTable,
  fixtureFiles,
  isKeptFamily,
  isStableFamily,
  labelNames,
  readNodeMetrics,
  splitFamilies,
  trimBody,
  withTable,
  type NodeMetricsMeta,
} from './node-metrics.js';
import { records, type RecordingKind } from './record.js';

const versions = [...legacyVersions(), await pinnedVersion()];

describe('the recorder', () => {
  const body = [
    '# HELP avalanche_snowman_polls_successful number of successful polls',
    '# TYPE avalanche_snowman_polls_successful counter',
    'avalanche_snowman_polls_successful{chain="C"} 12',
    'avalanche_snowman_polls_successful{chain="P"} 3',
    '# HELP avalanche_snowman_polls_successful_rate not a family of the allow-list',
    '# TYPE avalanche_snowman_polls_successful_rate gauge',
    'avalanche_snowman_polls_successful_rate{chain="C"} 1',
    '# HELP avalanche_snowman_poll_duration time (in ns) spent polling',
    '# TYPE avalanche_snowman_poll_duration summary',
    'avalanche_snowman_poll_duration_sum{chain="C"} 5',
    'avalanche_snowman_poll_duration_count{chain="C"} 2',
    '# HELP avalanche_network_peers number of peers',
    '# TYPE avalanche_network_peers gauge',
    'avalanche_network_peers 4',
    '',
  ].join('\n');

  it('splits families with their samples, suffixed samples included', () => {
    const families = splitFamilies(body);
    expect(families.map((f) => [f.name, f.type, f.samples.length])).toEqual([
      ['avalanche_snowman_polls_successful', 'counter', 2],
      ['avalanche_snowman_polls_successful_rate', 'gauge', 1],
      ['avalanche_snowman_poll_duration', 'summary', 2],
      ['avalanche_network_peers', 'gauge', 1],
    ]);
    expect(labelNames('x{chain="C",op="chits"} 1')).toEqual(['chain', 'op']);
    expect(labelNames('x{a="q\\"uote,b=\\"x"} 1')).toEqual(['a']);
  });

  it('keeps whole families by name: the allow-list and its neighbours, not a name that only starts like one', () => {
    expect(trimBody(body)).toBe(
      [
        '# HELP avalanche_snowman_polls_successful number of successful polls',
        '# TYPE avalanche_snowman_polls_successful counter',
        'avalanche_snowman_polls_successful{chain="C"} 12',
        'avalanche_snowman_polls_successful{chain="P"} 3',
        '# HELP avalanche_snowman_poll_duration time (in ns) spent polling',
        '# TYPE avalanche_snowman_poll_duration summary',
        'avalanche_snowman_poll_duration_sum{chain="C"} 5',
        'avalanche_snowman_poll_duration_count{chain="C"} 2',
        '',
      ].join('\n'),
    );
  });

  it('tabulates per recording the families that carry each fact, with their label names, between the README markers', () => {
    const v110 = '# TYPE avalanche_C_polls_successful counter\navalanche_C_polls_successful 4\n';
    const table = factsTable([
      { column: 'new', trimmed: trimBody(body) },
      { column: 'old', trimmed: v110 },
    ]);
    const lines = table.split('\n');
    expect(lines.slice(0, 4)).toEqual([TABLE_START, '', '| fact | new | old |', '|---|---|---|']);
    expect(lines[4]).toBe('| consensus polls, successful | `avalanche_snowman_polls_successful{chain}` | `avalanche_C_polls_successful` |');
    expect(lines[5]).toBe('| consensus polls, failed | (none) | (none) |');
    expect(lines.at(-1)).toBe(TABLE_END);
    const readme = `# x\n${TABLE_START}\nold table\n${TABLE_END}\nafter\n`;
    expect(withTable(readme, table)).toBe(`# x\n${table}\nafter\n`);
    expect(withTable(withTable(readme, table), table)).toBe(withTable(readme, table));
  });

  it("reads a chain's value under either naming: the chain label, or its alias in the family name (v1.10)", () => {
    expect(chainValue(body, 'consensus polls, successful', 'P')).toBe(3);
    expect(chainValue(body, 'consensus polls, successful', 'X')).toBeUndefined();
    const v110 =
      '# TYPE avalanche_C_polls_successful counter\navalanche_C_polls_successful 4\n# TYPE avalanche_P_polls_successful counter\navalanche_P_polls_successful 2\n';
    expect(chainValue(v110, 'consensus polls, successful', 'C')).toBe(4);
    expect(chainValue(v110, 'consensus polls, failed', 'C')).toBeUndefined();
  });

  it('records a kind when RECORD is 1 or names it', () => {
    expect(['answers', 'node-metrics', 'l1-chain'].map((k) => records(k as RecordingKind, '1'))).toEqual([true, true, true]);
    expect(['answers', 'node-metrics', 'l1-chain'].map((k) => records(k as RecordingKind, 'node-metrics, l1-chain'))).toEqual([false, true, true]);
    expect(records('answers', undefined)).toBe(false);
    expect(records('answers', '0')).toBe(false);
  });

  it('compares a recording with a live body by family, type and label names', () => {
    const live = body.replace('{chain="P"} 3', '{chain="P",extra="1"} 4').replace('summary', 'histogram');
    expect(compareMetrics(trimBody(body), live)).toEqual([
      'avalanche_snowman_polls_successful: labels {chain} recorded, {chain,extra} live',
      'avalanche_snowman_poll_duration: type summary recorded, histogram live',
    ]);
    expect(compareMetrics(trimBody(body), body.split('\n').slice(0, 4).join('\n'))).toEqual([
      'avalanche_snowman_poll_duration: recorded, not served live',
    ]);
  });
});

describe.each(versions)('the /ext/metrics recording of %s', (version) => {
  const files = fixtureFiles(version, 'single-node');

  it('exists (RECORD=1 npm run test:real-node records it)', () => {
    expect(existsSync(files.trimmed)).toBe(true);
  });

  it('holds exactly the kept families, as its description lists them, and a neighbour', async () => {
    const { meta, trimmed } = await readNodeMetrics(version, 'single-node');
    expect(meta.version).toBe(version);
    const families = splitFamilies(trimmed);
    expect(families.every((f) => isKeptFamily(f.name))).toBe(true);
    expect(Object.fromEntries(families.map((f) => [f.name, f.type]))).toEqual(meta.kept);
    // A neighbour: a family kept although no stable fact is read from it, to test a filter.
    expect(families.some((f) => !isStableFamily(f.name))).toBe(true);
    // Nothing lost in trimming: the kept families are as the node served them.
    expect(trimBody(trimmed)).toBe(trimmed);
  });

  it('has the consensus poll counters of P, X and C, and the C-Chain bad block counter', async () => {
    const { meta, trimmed } = await readNodeMetrics(version, 'single-node');
    const facts = meta.facts;
    for (const fact of ['consensus polls, successful', 'consensus polls, failed', 'EVM bad blocks']) {
      expect(facts[fact]?.length, `${version}: ${fact}`).toBeGreaterThan(0);
    }
    const samples = splitFamilies(trimmed).flatMap((f) => f.samples);
    const polls = samples.filter((s) => /polls_(successful|failed)[{ ]/.test(s));
    // Per chain: in the name in v1.10 (avalanche_C_…), in the `chain` label later.
    for (const chain of ['C', 'P', 'X']) {
      expect(
        polls.some((s) => s.startsWith(`avalanche_${chain}_`) || s.includes(`chain="${chain}"`)),
        `${version}: polls of ${chain}`,
      ).toBe(true);
    }
    // With values: the lone node's polls finalized the recorded transfers; nothing failed, no bad block.
    expect(chainValue(trimmed, 'consensus polls, successful', 'C')).toBeGreaterThanOrEqual(3);
    expect(chainValue(trimmed, 'consensus polls, failed', 'C')).toBe(0);
    expect(chainValue(trimmed, 'EVM bad blocks', 'C')).toBe(0);
  });
});

describe('the README of the recordings', async () => {
  const pinned = await pinnedVersion();
  it('tabulates what every recording serves per stable fact (RECORD=node-metrics on this file rewrites it)', async () => {
    const recordings = [];
    for (const version of versions) recordings.push({ column: version, trimmed: (await readNodeMetrics(version, 'single-node')).trimmed });
    recordings.push({ column: `${pinned}, L1 validator`, trimmed: (await readNodeMetrics(pinned, 'local-network')).trimmed });
    const file = join(NODE_METRICS_DIR, 'README.md');
    const readme = readFileSync(file, 'utf8');
    const updated = withTable(readme, factsTable(recordings));
    if (records('node-metrics') && updated !== readme) writeFileSync(file, updated);
    else expect(readme).toBe(updated);
  });
});

describe('the whole body of the current release', async () => {
  const version = await pinnedVersion();
  it('is kept, gzipped, with its size and series count in its description', () => {
    const files = fixtureFiles(version, 'local-network');
    const meta = JSON.parse(readFileSync(files.meta, 'utf8')) as NodeMetricsMeta;
    const full = gunzipSync(readFileSync(files.full)).toString('utf8');
    expect(Buffer.byteLength(full)).toBe(meta.full.bytes);
    const families = splitFamilies(full);
    expect(families.length).toBe(meta.full.families);
    expect(families.reduce((n, f) => n + f.samples.length, 0)).toBe(meta.full.series);
    expect(trimBody(full)).toBe(readFileSync(files.trimmed, 'utf8'));
    expect(STABLE_FACTS.filter((f) => (meta.facts[f.fact] ?? []).length === 0).map((f) => f.fact)).toEqual([]);
  });
});
