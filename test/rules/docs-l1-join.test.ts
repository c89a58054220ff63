// The recording rules docs/l1.md gives for joining an ICM relayer's series with the exporter's, run through promtool
// on the series the exporter serves: an L1 chain's avalanchego_chain_info (from the L1 set, `chain` its ID as on the
// node's health series) and a primary chain's (the chain_info source, `chain` its alias). The rules are read from
// the document, so the documented text is what is tested.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IN_CI, ROOT, run } from './lib.js';
import { prometheusGenerations } from '../helpers/monitoring.js';

/** The one YAML block of the section "Joining an ICM relayer's series". */
function documentedRules(): string {
  const doc = readFileSync(join(ROOT, 'docs', 'l1.md'), 'utf8');
  const section = doc.slice(doc.indexOf("## Joining an ICM relayer's series"));
  const block = /```yaml\n([\s\S]*?)```/.exec(section);
  if (!block?.[1]) throw new Error('docs/l1.md: no yaml block under "## Joining an ICM relayer\'s series"');
  return block[1];
}

const E = 'job="avalanchego",instance="e:9101"';
// dispatch (chain B of subnet S) watched from n1 and n2; n1's C-Chain from the chain_info source. The relayer's
// committed height of B is 100; the nodes accepted 110 and 112.
const TESTS = `rule_files: [rules.yml]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'avalanchego_chain_info{${E},subnet="S",node="n1",chain="B",name="dispatch",blockchain_id="B"}'
        values: '1x5'
      - series: 'avalanchego_chain_info{${E},subnet="S",node="n2",chain="B",name="dispatch",blockchain_id="B"}'
        values: '1x5'
      - series: 'avalanchego_chain_info{${E},node="n1",chain="C",name="C",blockchain_id="CID",subnet="11111111111111111111111111111111LpoYY"}'
        values: '1x5'
      - series: 'avalanchego_chain_last_accepted_height{${E},node="n1",chain="B"}'
        values: '110x5'
      - series: 'avalanchego_chain_last_accepted_height{${E},node="n2",chain="B"}'
        values: '112x5'
      - series: 'avalanchego_chain_last_accepted_height{${E},node="n1",chain="C"}'
        values: '5000x5'
      - series: 'checkpoint_committed_height{job="relayer",instance="r:9090",relayer_id="r1",source_blockchain_id="B",destination_blockchain_id="CID"}'
        values: '100x5'
    promql_expr_test:
      - expr: chain:checkpoint_committed_height:max
        eval_time: 3m
        exp_samples:
          - labels: 'chain:checkpoint_committed_height:max{blockchain_id="B",name="dispatch"}'
            value: 100
      - expr: chain:checkpoint_lag_blocks:max
        eval_time: 3m
        exp_samples:
          - labels: 'chain:checkpoint_lag_blocks:max{blockchain_id="B",name="dispatch"}'
            value: 12
`;

describe.each(prometheusGenerations().map((g) => [g.label, g.promtool] as const))("docs/l1.md's relayer join (%s)", (_label, promtool) => {
  it('records the relayer height by name and its lag behind the nodes', (ctx) => {
    if (!promtool.path && !IN_CI) ctx.skip(promtool.missing);
    const dir = mkdtempSync(join(tmpdir(), 'avalanchego-docs-join-'));
    try {
      writeFileSync(join(dir, 'rules.yml'), documentedRules());
      writeFileSync(join(dir, 'join.test.yml'), TESTS);
      const check = run(promtool.path ?? 'promtool', ['check', 'rules', join(dir, 'rules.yml')]);
      expect(check.code, check.output).toBe(0);
      const r = run(promtool.path ?? 'promtool', ['test', 'rules', join(dir, 'join.test.yml')]);
      expect(r.code, r.output).toBe(0);
      expect(r.output).toContain('SUCCESS');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
