// The simulator's L1 chain validators API checked against the Subnet-EVM source of the release the real L1 runs
// (github.com/ava-labs/avalanchego/graft/subnet-evm v1.14.2), not a guess: the answer's keys are the JSON tags of
// plugin/evm/client/client.go's CurrentValidator in their order, its numbers are the Go types' (uint64 weight and
// startTimestamp as plain numbers, a float32 uptimePercentage written the shortest way), the request's key is
// GetCurrentValidatorsRequest's, and the service (plugin/evm/service.go) computes what the simulator says it does:
// connectivity from the chain's P2P validator set, the uptime as upDuration / (lastUpdated - start) × 100. The source
// comes as the v1.15 faithfulness test's does (go-source.ts): cached, or `go mod download`; the fast lane reads the
// cache only. Without it every row is skipped with the reason (under CI=true they fail).
import { beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { L1_CHAIN } from '../../src/simulator/index.js';
import { float32Json } from '../../src/simulator/platform-api.js';
import { goSourceFiles, goStructs } from './go-source.js';
import { defined } from '../helpers/assert.js';
import { rpc, simulator } from './helpers.js';

const MODULE = 'github.com/ava-labs/avalanchego/graft/subnet-evm';
const VERSION = 'v1.14.2';
const FILES = ['plugin/evm/client/client.go', 'plugin/evm/service.go'] as const;
const TEST_FILE = 'test/simulator/faithfulness-subnet-evm.test.ts';
const IN_CI = process.env.CI === 'true';

let source: Map<(typeof FILES)[number], string> | undefined;
let skipReason = '';

beforeAll(() => {
  const got = goSourceFiles(VERSION, FILES, `subnet-evm-source-${VERSION}`, TEST_FILE, MODULE);
  if ('reason' in got) skipReason = got.reason;
  else source = got.files;
}, 320_000);

function needSource(ctx: TestContext): Map<(typeof FILES)[number], string> {
  if (source) return source;
  if (!IN_CI) ctx.skip(skipReason);
  throw new Error(`${skipReason} (required under CI=true)`);
}

/** A struct's fields as `Name Type` pairs with their JSON tag, in order. */
function fields(text: string, struct: string): Array<{ name: string; type: string; tag: string }> {
  const m = new RegExp(`^type ${struct} struct \\{\\n([\\s\\S]*?)^\\}`, 'm').exec(text);
  const body = defined(m?.[1], `the struct ${struct}`);
  return [...body.matchAll(/^\s*(\w+)\s+(\S+)\s+`json:"([^",]*)[^"]*"`/gm)].map((f) => ({
    name: defined(f[1], 'a field'),
    type: defined(f[2], 'a type'),
    tag: defined(f[3], 'a tag'),
  }));
}

describe(`the simulator's L1 validators API against Subnet-EVM ${VERSION}`, () => {
  it('the source is available (required under CI=true)', (ctx) => {
    if (!source && !IN_CI) ctx.skip(skipReason);
    expect(source, skipReason).toBeDefined();
  });

  it("validators.getCurrentValidators: CurrentValidator's tags in order, uint64 as numbers, a float32 percentage; the request's nodeIDs", async (ctx) => {
    const src = defined(needSource(ctx).get('plugin/evm/client/client.go'), 'client.go');
    const current = fields(src, 'CurrentValidator');
    expect(goStructs(src).get('GetCurrentValidatorsResponse')?.tags).toEqual(['validators']);
    expect(goStructs(src).get('GetCurrentValidatorsRequest')?.tags).toEqual(['nodeIDs']);
    // The service is registered as "validators" (plugin/evm/vm.go): the simulator serves it on /validators, as the method the client sends.
    expect(src).toContain('"validators.getCurrentValidators"');
    const sim = await simulator({ timeScale: 60, checkFrequencyMs: 40, nodes: 2, trackL1: true });
    const node = defined(sim.nodes[0], 'node-0');
    sim.setScenario('node-1', 'l1-validator-stopped');
    const body = (await rpc(`${node.baseUrl}/ext/bc/${L1_CHAIN.chainId}/validators`, 'validators.getCurrentValidators', { nodeIDs: [] })).body;
    const validators = (JSON.parse(body) as { result: { validators: Array<Record<string, unknown>> } }).result.validators;
    expect(validators.length).toBeGreaterThan(2);
    for (const v of validators) {
      expect(Object.keys(v)).toEqual(current.map((f) => f.tag));
      for (const f of current) {
        const value = v[f.tag];
        if (f.type === 'uint64') expect(Number.isInteger(value) && (value as number) >= 0, `${f.tag} ${String(value)}`).toBe(true);
        else if (f.type === 'bool') expect(typeof value, f.tag).toBe('boolean');
        else if (f.type === 'float32') {
          expect(typeof value, f.tag).toBe('number');
          // Written as Go writes a float32: the shortest decimal that reads back as the same float32.
          expect(float32Json(value as number), f.tag).toBe(String(value));
        } else expect(typeof value, `${f.tag} (${f.type})`).toBe('string');
      }
    }
    // Every number on the wire is a plain JSON number: no quoted uint64 as the P-Chain writes them.
    expect(body).toMatch(/"weight":\d+,"startTimestamp":\d+,/);
  });

  it('the service: connectivity from the P2P validator set, the uptime as a float32 percentage of the best possible', (ctx) => {
    const src = defined(needSource(ctx).get('plugin/evm/service.go'), 'service.go');
    expect(src).toContain('isConnected := api.vm.P2PValidators().Has(ctx, validator.NodeID)');
    expect(src).toContain('bestPossibleUpDuration := lastUpdated.Sub(startTime)');
    expect(src).toContain('uptimePercentage := float32(uptimeFloat * 100)');
    // Filtered by the requested node IDs, every validator of the set otherwise (inactive ones included: IsActive).
    expect(src).toContain('if requestedNodeIDs.Len() > 0 && !requestedNodeIDs.Contains(validator.NodeID)');
    expect(src).toContain('IsActive:         validator.IsActive');
  });

  it("float32Json writes Go's shortest float32 text", () => {
    expect([100, 0, 99.5, 96.66666666, 12.3456789].map(float32Json)).toEqual(['100', '0', '99.5', '96.666664', '12.345679']);
  });
});
