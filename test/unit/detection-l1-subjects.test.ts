// The detection report's view of the L1 set's alerts (no node label): whom each is about (l1Subjects), and the plan of
// a fault that starts late (l1-halted holds back every ticket of the L1, so it starts after the others have notified).
import { describe, expect, it } from 'vitest';
import { L1_SUBNET_ID, otherL1Validators } from '../../src/simulator/index.js';
import { l1Subjects, type NodePlan } from '../rules/detection-harness.js';
import { FAULTS, RECOVERY_SECONDS, faultFleet, faultRunSeconds } from '../rules/detection-plans.js';
import { defined } from '../helpers/assert.js';

const SEED = 'subjects';
const plans: NodePlan[] = [
  { label: 'healthy', steps: [] },
  { label: 'l1-validator-stopped', steps: [[0, 'l1-validator-stopped']] },
  { label: 'l1-halted', steps: [[900, 'l1-halted']] },
];
const nodes = plans.map((_, i) => ({ name: `node-${i}`, nodeId: `NodeID-fleet${i}` }));
const others = otherL1Validators(SEED, 0n).map((v) => v.nodeId);
const down = (id: string | undefined) => ({
  alertname: 'AvalancheGoL1ValidatorDown',
  subnet: L1_SUBNET_ID,
  validator_node_id: defined(id, 'a node ID'),
});

describe('l1Subjects', () => {
  const subjectOf = l1Subjects(plans, nodes, SEED);

  it("a node label is the subject; a fleet validator is its node; another operator's, the node whose scenario stops it", () => {
    expect(subjectOf({ alertname: 'AvalancheGoNodeDown', node: 'node-2' })).toBe('node-2');
    expect(subjectOf(down('NodeID-fleet0'))).toBe('node-0');
    expect(others.map((id) => subjectOf(down(id)))).toEqual(['node-1', 'node-2', 'node-2', others[3]]);
  });

  it('the L1 itself (its weight at risk) is the node that halts it; without one, the subnet', () => {
    expect(subjectOf({ alertname: 'AvalancheGoL1WeightAtRisk', subnet: L1_SUBNET_ID })).toBe('node-2');
    expect(l1Subjects(plans.slice(0, 2), nodes.slice(0, 2), SEED)({ alertname: 'AvalancheGoL1WeightAtRisk', subnet: L1_SUBNET_ID })).toBe(
      L1_SUBNET_ID,
    );
  });
});

describe('a fault that starts late', () => {
  it('l1-halted switches at its start and back after its hold; the run covers both, then the recovery', () => {
    const f = defined(
      FAULTS.find((x) => x.scenario === 'l1-halted'),
      'the l1-halted fault',
    );
    const [plan] = faultFleet([f]);
    expect(plan).toEqual({
      label: 'l1-halted',
      steps: [
        [900, 'l1-halted'],
        [900 + 2100, 'healthy'],
      ],
      recoveryAt: 3000,
    });
    expect(faultRunSeconds([f])).toBe(3000 + RECOVERY_SECONDS);
  });
});
