// The simulator's AvalancheGo v1.15.0 answers checked against the v1.15.0 source, not a guess:
// every key it sends in a v1.15 answer is a JSON tag of the Go struct that serves that answer
// (vms/platformvm/api/validator.go, api/info/service.go, network/peer/info.go,
// vms/proposervm/service.go, upgrade/upgrade.go, api/common_args_responses.go), and the
// info.uptime errors, Helicon's Mainnet time and the current ACPs are the source's. The source
// comes from the Go module proxy (`go mod download`); the files read are cached next to the
// node builds (test/real-node/build.ts cacheRoot), so a later run needs neither Go nor the
// network. The fast lane (vitest.fast.config.ts) reads that cache only: it runs no program and
// sends nothing. Without the source every row is skipped with the reason (under CI=true they fail).
import { dirname } from 'node:path';
import { beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { L1_CHAIN, L1_SUBNET_ID, MAINNET_HELICON, PRIMARY_NETWORK_ID } from '../../src/simulator/index.js';
import { UPTIME_START_TIME_ERRORS } from '../../src/simulator/info-api.js';
import { releaseOf } from '../../src/simulator/scenarios.js';
import { START_TIME_ERRORS } from '../../src/sources/info.js';
import { goSourceFiles, goStructs, type GoStruct } from './go-source.js';
import { defined } from '../helpers/assert.js';
import { rpc, simulator } from './helpers.js';

const VERSION = 'v1.15.0';
const FILES = [
  'vms/platformvm/api/validator.go',
  'api/info/service.go',
  'network/peer/info.go',
  'vms/proposervm/service.go',
  'upgrade/upgrade.go',
  'api/common_args_responses.go',
  'network/network.go',
  'snow/uptime/locked_calculator.go',
  'database/errors.go',
  'utils/constants/acps.go',
] as const;
type SourceFile = (typeof FILES)[number];
const TEST_FILE = 'test/simulator/faithfulness-v1.15.test.ts';
const IN_CI = process.env.CI === 'true';

/** The source files, from the cache or from `go mod download` (then cached); a reason when neither can be had. */
function sourceFiles(): { files: Map<SourceFile, string> } | { reason: string } {
  return goSourceFiles(VERSION, FILES, `avalanchego-source-${VERSION}`, TEST_FILE);
}

let source: Map<SourceFile, string> | undefined;
let skipReason = '';
const structs = new Map<string, GoStruct>();

/** The Go package of a file: its folder's name (`api/info/service.go` → `info`). */
const packageOf = (file: string) => defined(dirname(file).split('/').pop(), file);

/**
 * Every JSON key a struct puts on the wire: its own tags and those of its embedded structs. `name` is
 * `pkg.Type`, or a bare type name of the package `pkg` (structs of two packages share names: info.Info, peer.Info).
 */
function keysOf(name: string, pkg?: string): Set<string> {
  const qualified = name.includes('.') ? name : pkg ? `${pkg}.${name}` : [...structs.keys()].find((k) => k.endsWith(`.${name}`));
  const s = qualified ? structs.get(qualified) : undefined;
  if (!qualified || !s) throw new Error(`no struct ${name} in the v1.15.0 files read`);
  const keys = new Set(s.tags);
  for (const e of s.embedded) for (const k of keysOf(e, qualified.split('.')[0])) keys.add(k);
  return keys;
}

beforeAll(() => {
  const got = sourceFiles();
  if ('reason' in got) {
    skipReason = got.reason;
    return;
  }
  source = got.files;
  for (const [file, text] of source) for (const [name, s] of goStructs(text)) structs.set(`${packageOf(file)}.${name}`, s);
}, 320_000);

/** A row without the source is skipped with the reason, never passed; under CI=true it fails. */
function needSource(ctx: TestContext): void {
  if (source) return;
  if (!IN_CI) ctx.skip(skipReason);
  throw new Error(`${skipReason} (required under CI=true)`);
}

describe(`the simulator's v1.15.0 answers against the ${VERSION} source`, () => {
  it('the source is available (required under CI=true)', (ctx) => {
    if (!source && !IN_CI) ctx.skip(skipReason);
    expect(source, skipReason).toBeDefined();
  });

  describe('each key is a JSON tag of the struct that serves the answer', () => {
    // An auto-renewed validator of the primary network and an L1 validator, on v1.15.0 (one per test: the helper stops it after).
    const start = () => simulator({ scenario: 'auto-renewed', validator: true, trackL1: true });
    const answer = async (sim: { url: string }, path: string, method: string, params?: unknown): Promise<Record<string, unknown>> => {
      const body = JSON.parse((await rpc(`${sim.url}${path}`, method, params)).body) as { result?: Record<string, unknown>; error?: unknown };
      return defined(body.result, `the result of ${method}: ${JSON.stringify(body.error)}`);
    };
    const check = (what: string, keys: Iterable<string>, struct: string) => {
      const allowed = keysOf(struct);
      expect({ what, unknown: [...keys].filter((k) => !allowed.has(k)) }).toEqual({ what, unknown: [] });
    };

    it.for<[string, string]>([
      ['info.getNodeVersion', 'info.GetNodeVersionReply'],
      ['info.getNodeID', 'info.GetNodeIDReply'],
      ['info.getNetworkID', 'info.GetNetworkIDReply'],
      ['info.uptime', 'info.UptimeResponse'],
      ['info.acps', 'info.ACPsReply'],
      ['info.peers', 'info.PeersReply'],
      ['info.upgrades', 'upgrade.Config'],
    ])('%s → %s', async ([method, struct], ctx) => {
      needSource(ctx);
      const r = await answer(await start(), '/ext/info', method);
      check(method, Object.keys(r), struct);
      if (method === 'info.peers') {
        const peers = r.peers as Array<Record<string, unknown>>;
        expect(peers.length).toBeGreaterThan(0);
        check('info.peers peers[]', new Set(peers.flatMap((p) => Object.keys(p))), 'info.Peer');
      }
      if (method === 'info.acps') {
        check('info.acps acps{}', new Set(Object.values(r.acps as Record<string, object>).flatMap((a) => Object.keys(a))), 'info.ACP');
      }
    });

    it('platform.getCurrentValidators: the auto-renewed entry (PermissionlessValidator, AutoRenewedConfig, Owner, PrimaryDelegator)', async (ctx) => {
      needSource(ctx);
      const sim = await start();
      const nodeId = defined(sim.nodes[0], 'node-0').nodeId;
      const r = await answer(sim, '/ext/bc/P', 'platform.getCurrentValidators', { subnetID: PRIMARY_NETWORK_ID, nodeIDs: [nodeId] });
      const entry = defined((r.validators as Array<Record<string, unknown>>)[0], 'the entry');
      // The auto-renew keys are there: the check below covers them.
      expect(entry).toHaveProperty('nextPeriod');
      check('the primary entry', Object.keys(entry), 'api.PermissionlessValidator');
      check('validatorAuthority', Object.keys(entry.validatorAuthority as object), 'api.Owner');
      const delegators = (entry.delegators ?? []) as Array<Record<string, unknown>>;
      check('delegators[]', new Set(delegators.flatMap((d) => Object.keys(d))), 'api.PrimaryDelegator');
    });

    it('platform.getCurrentValidators on the L1 (APIL1Validator) and platform.getHeight (GetHeightResponse)', async (ctx) => {
      needSource(ctx);
      const sim = await start();
      const r = await answer(sim, '/ext/bc/P', 'platform.getCurrentValidators', { subnetID: L1_SUBNET_ID });
      const entries = r.validators as Array<Record<string, unknown>>;
      expect(entries.length).toBeGreaterThan(0);
      check('the L1 entries', new Set(entries.flatMap((e) => Object.keys(e))), 'api.APIL1Validator');
      check('platform.getHeight', Object.keys(await answer(sim, '/ext/bc/P', 'platform.getHeight')), 'api.GetHeightResponse');
    });

    it.for<[string, string]>([
      ['C', '/ext/bc/C/proposervm'],
      ['the L1', `/ext/bc/${L1_CHAIN.chainId}/proposervm`],
    ])('proposervm.getCurrentEpoch on %s → GetEpochResponse, in its field order', async ([, path], ctx) => {
      needSource(ctx);
      const r = await answer(await start(), path, 'proposervm.getCurrentEpoch');
      expect(Object.keys(r)).toEqual(defined(structs.get('proposervm.GetEpochResponse'), 'GetEpochResponse').tags);
    });
  });

  describe('strings and values', () => {
    const text = (f: SourceFile) => defined(source?.get(f), f);
    const goError = (f: SourceFile, name: string) =>
      defined(new RegExp(`${name}\\s*=\\s*errors\\.New\\("([^"]+)"\\)`).exec(text(f))?.[1], `${name} in ${f}`);

    it("info.uptime's start-time errors: the simulator's and the exporter's are the source's", (ctx) => {
      needSource(ctx);
      const format = defined(
        /fmt\.Errorf\("(error while fetching local validator start time) %w"/.exec(text('network/network.go'))?.[1],
        'the start-time format',
      );
      expect(/fmt\.Errorf\("couldn't get node uptime: %w"/.test(text('api/info/service.go'))).toBe(true);
      const bootstrapping = `${format} ${goError('snow/uptime/locked_calculator.go', 'errStillBootstrapping')}`;
      const notFound = `${format} ${goError('database/errors.go', 'ErrNotFound')}`;
      expect(UPTIME_START_TIME_ERRORS).toEqual({ bootstrapping, notFound });
      expect(START_TIME_ERRORS).toEqual({ start_time_bootstrapping: bootstrapping, start_time_not_found: notFound });
      expect(goError('network/network.go', 'errNotValidator')).toBe('node is not a validator');
    });

    it("Helicon's Mainnet time and the release's current ACPs", (ctx) => {
      needSource(ctx);
      const mainnet = defined(/Mainnet = Config\{([\s\S]*?)\n\t\}/.exec(text('upgrade/upgrade.go'))?.[1], 'upgrade.Mainnet');
      const m = defined(/HeliconTime:\s*time\.Date\((\d+), time\.(\w+), (\d+), (\d+), (\d+), (\d+), 0, time\.UTC\)/.exec(mainnet), 'HeliconTime');
      const month = new Date(`${m[2]} 1, 2000`).getMonth() + 1;
      const iso = `${m[1]}-${String(month).padStart(2, '0')}-${String(m[3]).padStart(2, '0')}T${String(m[4]).padStart(2, '0')}:${String(m[5]).padStart(2, '0')}:${String(m[6]).padStart(2, '0')}Z`;
      expect(iso).toBe(MAINNET_HELICON);
      const current = defined(/CurrentACPs = set\.Of\[uint32\]\(([\s\S]*?)\)/.exec(text('utils/constants/acps.go'))?.[1], 'CurrentACPs');
      const acps = [...current.matchAll(/^\s*(\d+),/gm)].map((x) => Number(x[1]));
      expect(releaseOf('auto-renewed').acps).toEqual(acps);
      expect(releaseOf('auto-renewed').version).toBe(VERSION.slice(1));
    });
  });
});
