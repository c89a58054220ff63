// An L1 of `l1s:` seen from three vantages, each a loopback fake node: the set-wide series once (no node label) from
// the vantage with the highest P-Chain height, who each vantage sees connected, a VM without the validators API as a
// state (not a failed poll), max_validators, the chain's name and avalanchego_chain_info, and a failed set read.
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/sources/registry.js';
import { startFakeNode, waitFor, type FakeNode, type Route } from '../helpers/fake-node.js';
import { CHAIN, SUBNET, V0, V1, V2, vantage, type Validator } from '../helpers/l1-vantage.js';
import { closeAfterEach, sample, startTestExporter, type TestExporter } from '../helpers/exporter.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';
import { defined } from '../helpers/assert.js';
import { FROM_SLACK_BLOCKS } from '../../src/scheduler/l1-poller.js';

/** Each node a target that lists the L1's subnet, and the L1 with `l1` added to its entry. */
function yaml(nodes: FakeNode[], l1: string, { interval = '10s', timeout = '500ms', l1Interval = '1s' } = {}): string {
  return `defaults:
  interval: ${interval}
  timeout: ${timeout}
targets:
${nodes.map((n, i) => `  - name: v${i}\n    url: ${n.url}\n    platform:\n      subnets: [${SUBNET}]\n`).join('')}l1s:
  - subnet: ${SUBNET}
    interval: ${l1Interval}
${l1}`;
}

let exporter: TestExporter | undefined;
let nodes: FakeNode[] = [];
closeAfterEach(
  () => [exporter, ...nodes],
  () => {
    exporter = undefined;
    nodes = [];
  },
);

const set = (name: string, v: Validator) => `${name}{subnet="${SUBNET}",validation_id="${v.validationID}",validator_node_id="${v.nodeID}"}`;
const seen = (name: string, node: string, v: Validator) =>
  `${name}{subnet="${SUBNET}",node="${node}",validation_id="${v.validationID}",validator_node_id="${v.nodeID}"}`;

async function l1Polled(e: TestExporter, polls = 1): Promise<string> {
  await waitFor(() => (e.scheduler.l1(SUBNET)?.polls ?? 0) >= polls, `${polls} poll(s) of the L1`, 15_000);
  return e.metrics();
}

describe('an L1 seen from every vantage', () => {
  it('serves the set once from the highest P-Chain height, and each vantage its view of who is connected', async () => {
    nodes = await Promise.all([
      startFakeNode(vantage(100, ['1', '1', '1'], [true, true, true])),
      // The highest height: its set wins (the lightest validator is out of balance there).
      startFakeNode(vantage(102, ['1024000', '512', '0'], [true, false, true])),
      startFakeNode(vantage(101, ['1', '1', '1'], 'not_served')),
    ]);
    exporter = await startTestExporter(yaml(nodes, ''));
    const text = await l1Polled(exporter);
    expect(sample(text, `avalanchego_l1_set_validators{subnet="${SUBNET}"}`)).toBe(3);
    expect(sample(text, `avalanchego_l1_set_weight{subnet="${SUBNET}"}`)).toBe(200);
    expect(sample(text, set('avalanchego_l1_set_validator_balance_navax', V0))).toBe(1024000);
    expect(sample(text, set('avalanchego_l1_set_validator_runway_seconds', V0))).toBe(2000);
    expect(sample(text, set('avalanchego_l1_set_validator_active', V2))).toBe(0);
    expect(sample(text, set('avalanchego_l1_set_validator_runway_seconds', V2))).toBe(0);
    expect(sample(text, set('avalanchego_l1_set_validator_weight', V1))).toBe(60);
    // Once per validator: no node label on the set-wide series.
    expect(text.split('\n').filter((l) => l.startsWith('avalanchego_l1_set_validator_weight{'))).toHaveLength(3);
    expect(sample(text, seen('avalanchego_l1_set_validator_connected', 'v1', V1))).toBe(0);
    expect(sample(text, seen('avalanchego_l1_set_validator_connected', 'v0', V1))).toBe(1);
    expect(sample(text, seen('avalanchego_l1_set_validator_uptime_ratio', 'v0', V0))).toBe(0.995);
    // No validators API on v2's VM: a state, not a failed poll; its view is absent.
    expect(text).not.toMatch(/avalanchego_l1_set_validator_connected\{[^}]*node="v2"/);
    expect(sample(text, `avalanchego_exporter_poll_success{subnet="${SUBNET}",source="l1"}`)).toBe(1);
    expect(sample(text, `avalanchego_chain_info{subnet="${SUBNET}",node="v2",chain="${CHAIN}",name="dispatch",blockchain_id="${CHAIN}"}`)).toBe(1);
    const view = exporter.scheduler.l1(SUBNET);
    expect(view?.snapshot?.from).toBe('v1');
    expect(view?.name).toBe('dispatch');
    expect(view?.snapshot?.vantages.map((v) => v.state)).toEqual(['ok', 'ok', 'not_served']);
    // Said once, however many polls.
    await l1Polled(exporter, 3);
    expect(exporter.logs.filter((l) => l.node === 'v2' && String(l.msg).includes('serves no validators API'))).toHaveLength(1);
    expect(promtoolCheckMetrics(text)).toEqual([]);
  }, 30_000);

  it('keeps reading the set from the same vantage while it is within FROM_SLACK_BLOCKS of the highest, then moves', async () => {
    nodes = await Promise.all([
      startFakeNode(vantage(100, ['1', '1', '1'], [true, true, true])),
      startFakeNode(vantage(102, ['1', '1', '1'], [true, true, true])),
    ]);
    exporter = await startTestExporter(yaml(nodes, ''));
    await l1Polled(exporter);
    expect(exporter.scheduler.l1(SUBNET)?.snapshot?.from).toBe('v1');
    const v0 = defined(nodes[0], 'v0');
    // v0 passes v1, by fewer blocks than the slack: v1 stays first (its requests are the ones kept).
    v0.routes.set('/ext/bc/P', defined(vantage(102 + FROM_SLACK_BLOCKS, ['1', '1', '1'], [true, true, true])['/ext/bc/P'], 'route'));
    const polls = exporter.scheduler.l1(SUBNET)?.polls ?? 0;
    await l1Polled(exporter, polls + 2);
    expect(exporter.scheduler.l1(SUBNET)?.snapshot?.from).toBe('v1');
    // One block more and v1 is lagging: the set is read from v0.
    v0.routes.set('/ext/bc/P', defined(vantage(103 + FROM_SLACK_BLOCKS, ['1', '1', '1'], [true, true, true])['/ext/bc/P'], 'route'));
    await waitFor(() => exporter?.scheduler.l1(SUBNET)?.snapshot?.from === 'v0', 'the set read from v0', 15_000);
  }, 30_000);

  it('drops the lightest validators past max_validators, counts them, and keeps the totals whole', async () => {
    nodes = [await startFakeNode(vantage(100, ['5', '5', '5'], [true, true, true]))];
    exporter = await startTestExporter(yaml(nodes, '    max_validators: 2\n    name: my-l1\n'));
    const text = await l1Polled(exporter);
    expect(sample(text, `avalanchego_l1_set_validators_dropped{subnet="${SUBNET}"}`)).toBe(1);
    expect(sample(text, `avalanchego_l1_set_validators{subnet="${SUBNET}"}`)).toBe(3);
    expect(sample(text, set('avalanchego_l1_set_validator_weight', V2))).toBeUndefined();
    expect(sample(text, set('avalanchego_l1_set_validator_weight', V1))).toBe(60);
    expect(sample(text, `avalanchego_chain_info{subnet="${SUBNET}",node="v0",chain="${CHAIN}",name="my-l1",blockchain_id="${CHAIN}"}`)).toBe(1);
    expect(exporter.logs.some((l) => String(l.msg).includes('more validators than max_validators'))).toBe(true);
  }, 30_000);

  it('fails the poll when no vantage answers the set, and serves no old set', async () => {
    const routes = vantage(100, ['5', '5', '5'], [true, true, true]);
    nodes = [await startFakeNode(routes)];
    exporter = await startTestExporter(yaml(nodes, ''));
    let text = await l1Polled(exporter);
    expect(sample(text, `avalanchego_l1_set_validators{subnet="${SUBNET}"}`)).toBe(3);
    defined(nodes[0], 'the node').routes.set('/ext/bc/P', { status: 500, body: 'boom' });
    await waitFor(() => exporter?.scheduler.l1(SUBNET)?.success === false, 'a failed L1 poll', 15_000);
    text = await exporter.metrics();
    expect(sample(text, `avalanchego_exporter_poll_success{subnet="${SUBNET}",source="l1"}`)).toBe(0);
    expect(sample(text, `avalanchego_exporter_poll_errors_total{subnet="${SUBNET}",source="l1",reason="http_status"}`)).toBeGreaterThanOrEqual(1);
    expect(sample(text, `avalanchego_l1_set_validators{subnet="${SUBNET}"}`)).toBeUndefined();
    expect(text).not.toContain('avalanchego_l1_set_validator_connected{');
  }, 30_000);

  it('reads the set from a vantage that has members when the highest answers none (a release before L1s)', async () => {
    // A P-Chain that answers [] for the L1's subnet, as a node of a release before Etna does.
    const noL1Set = (route: Route | undefined): Route => {
      const p = defined(route, 'the P-Chain route');
      return { ...p, methods: { ...p.methods, 'platform.getCurrentValidators': { validators: [] } } };
    };
    // v0 is the highest, and answers none; v1 has the set.
    const old = vantage(102, ['5', '5', '5'], [true, true, true]);
    old['/ext/bc/P'] = noL1Set(old['/ext/bc/P']);
    nodes = await Promise.all([startFakeNode(old), startFakeNode(vantage(101, ['5', '5', '5'], [true, true, true]))]);
    exporter = await startTestExporter(yaml(nodes, ''));
    let text = await l1Polled(exporter, 2);
    expect(exporter.scheduler.l1(SUBNET)?.snapshot?.from).toBe('v1');
    expect(sample(text, `avalanchego_l1_set_validators{subnet="${SUBNET}"}`)).toBe(3);
    expect(sample(text, set('avalanchego_l1_set_validator_weight', V0))).toBe(100);
    // When no vantage has members, the set is empty (read from the first in the order: v1, read from last and within
    // the slack of the highest), not a failed poll.
    const v1 = defined(nodes[1], 'v1');
    v1.routes.set('/ext/bc/P', noL1Set(v1.routes.get('/ext/bc/P')));
    await waitFor(() => exporter?.scheduler.l1(SUBNET)?.snapshot?.validators.length === 0, 'an empty set', 15_000);
    text = await exporter.metrics();
    expect(exporter.scheduler.l1(SUBNET)?.snapshot?.from).toBe('v1');
    expect(sample(text, `avalanchego_l1_set_validators{subnet="${SUBNET}"}`)).toBe(0);
    expect(sample(text, `avalanchego_exporter_poll_success{subnet="${SUBNET}",source="l1"}`)).toBe(1);
  }, 30_000);
});

describe('an L1 with many vantages', () => {
  it('polls 12 vantages without a MaxListenersExceededWarning (one stop listener per vantage deadline, each removed)', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      nodes = await Promise.all(Array.from({ length: 12 }, (_, i) => startFakeNode(vantage(100 + i, ['1', '1', '1'], [true, true, true]))));
      exporter = await startTestExporter(yaml(nodes, ''));
      await l1Polled(exporter, 2);
      // A process warning is emitted on the next tick.
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('an L1 whose vantages change', () => {
  type Poller = { l1: { subnet: string }; members: ReadonlyMap<string, unknown> };
  // The poller itself (the scheduler's l1() gives its view for the pages): read through the scheduler's private list.
  const poller = (e: TestExporter) =>
    defined(
      (e.scheduler as unknown as { l1Pollers: Poller[] }).l1Pollers.find((p) => p.l1.subnet === SUBNET),
      'the L1 poller',
    );
  const errors = `avalanchego_exporter_poll_errors_total{subnet="${SUBNET}",source="l1",reason="http_status"}`;
  const validators = `avalanchego_l1_set_validators{subnet="${SUBNET}"}`;
  const info = (node: string) =>
    `avalanchego_chain_info{subnet="${SUBNET}",node="${node}",chain="${CHAIN}",name="dispatch",blockchain_id="${CHAIN}"}`;

  // A reload that adds, removes or renames a target listing the L1's subnet changes its vantages, and such reloads
  // are the common ones (a fleet's churn). The poller was remade then: until its first poll the exporter served none
  // of the L1's series (each such reload restarted the `for:` of a pending alert on the L1), and its error counts
  // started from nothing. It now goes on with the new vantages; a vantage's series go with it at once.
  it('keeps its poller, its counts and its series across reloads that add and remove a vantage', async () => {
    const routes = Array.from({ length: 3 }, () => vantage(100, ['1', '1', '1'], [true, true, true]));
    nodes = await Promise.all(routes.map((r) => startFakeNode(r)));
    const config = (n: number) => yaml(nodes.slice(0, n), '');
    exporter = await startTestExporter(config(2));
    await l1Polled(exporter);
    // A failed poll first (no vantage answers the set): its count must outlive the reloads.
    for (const n of nodes) n.routes.set('/ext/bc/P', { status: 500, body: 'boom' });
    await waitFor(() => exporter?.scheduler.l1(SUBNET)?.success === false, 'a failed L1 poll', 15_000);
    for (const [i, n] of nodes.entries()) n.routes.set('/ext/bc/P', defined(routes[i]?.['/ext/bc/P'], 'the P-Chain route'));
    await waitFor(() => exporter?.scheduler.l1(SUBNET)?.success === true, 'the L1 polled again', 15_000);
    const failed = defined(sample(await exporter.metrics(), errors), 'the failed polls counted');
    expect(failed).toBeGreaterThanOrEqual(1);
    const first = poller(exporter);
    const members = first.members;
    for (const n of [3, 2, 3]) {
      await l1Polled(exporter, (exporter.scheduler.l1(SUBNET)?.polls ?? 0) + 1);
      const polls = exporter.scheduler.l1(SUBNET)?.polls ?? 0;
      await exporter.scheduler.apply(parseConfigText(config(n), 'l1.yaml', {}));
      const text = await exporter.metrics();
      expect(poller(exporter)).toBe(first);
      expect(exporter.scheduler.l1(SUBNET)?.vantages).toEqual(['v0', 'v1', 'v2'].slice(0, n));
      expect(exporter.scheduler.l1(SUBNET)?.polls ?? 0).toBeGreaterThanOrEqual(polls);
      // Served right after the reload, whether or not the next poll has come: the set, and the counts so far.
      expect(sample(text, validators)).toBe(3);
      expect(sample(text, errors)).toBe(failed);
      expect(sample(text, info('v0'))).toBe(1);
      // A vantage gone takes its series with it now, not at the next poll.
      if (n === 2) expect(text).not.toContain(`{subnet="${SUBNET}",node="v2"`);
    }
    const text = await l1Polled(exporter, (exporter.scheduler.l1(SUBNET)?.polls ?? 0) + 1);
    expect(sample(text, info('v2'))).toBe(1);
    expect(sample(text, seen('avalanchego_l1_set_validator_connected', 'v2', V0))).toBe(1);
    expect(sample(text, errors)).toBe(failed);
    // Read anew each poll, with the strings of the first read (parseL1Set; the strings: test/unit/l1-set-parse.test.ts).
    expect([...poller(exporter).members.keys()].sort()).toEqual([...members.keys()].sort());
    expect(promtoolCheckMetrics(text)).toEqual([]);
  }, 60_000);

  // The same poller through every kind of vantage change, and only when its vantages changed: a target that does not
  // list the subnet leaves it alone (a poll under way is not dropped), a vantage whose settings change is one (its node
  // poller and client are new), and an L1 left with no vantage serves nothing of itself (no old set, no old success)
  // until one comes back.
  it('is retargeted only when its vantages change, and serves nothing while it has none', async () => {
    nodes = await Promise.all(Array.from({ length: 2 }, () => startFakeNode(vantage(100, ['1', '1', '1'], [true, true, true]))));
    const [n0, n1] = [defined(nodes[0], 'n0'), defined(nodes[1], 'n1')];
    const text = (v0: string, v1: string, timeout = '500ms') => `defaults:
  interval: 10s
  timeout: ${timeout}
targets:
  - name: v0
    url: ${n0.url}
${v0}  - name: v1
    url: ${n1.url}
${v1}l1s:
  - subnet: ${SUBNET}
    interval: 1s
`;
    const lists = `    platform:\n      subnets: [${SUBNET}]\n`;
    exporter = await startTestExporter(text(lists, ''));
    await l1Polled(exporter);
    const first = poller(exporter) as Poller & { retarget: (...args: unknown[]) => Promise<void> };
    const retargets: unknown[] = [];
    const retarget = first.retarget.bind(first);
    first.retarget = (...args: unknown[]) => (retargets.push(args[1]), retarget(...args));
    const apply = (t: string) => defined(exporter, 'the exporter').scheduler.apply(parseConfigText(t, 'l1.yaml', {}));
    // v1 gains a platform source of its own, without the subnet: not a vantage.
    await apply(text(lists, '    platform:\n      subnets: []\n'));
    expect(retargets).toEqual([]);
    // v0's timeout: the same name, a new node poller.
    await apply(text(lists, '', '600ms'));
    expect(retargets).toEqual([['v0']]);
    // No vantage: nothing of the L1 is served, and it is not polled.
    await apply(text('', '', '600ms'));
    expect(retargets).toEqual([['v0'], []]);
    const none = await exporter.metrics();
    const ofL1 = new RegExp(`^avalanchego_[a-z_]+\\{subnet="${SUBNET}"`, 'm');
    expect(none).not.toMatch(ofL1);
    expect(exporter.scheduler.l1(SUBNET)?.snapshot).toBeUndefined();
    expect(exporter.logs.some((l) => String(l.msg).startsWith('no vantage for this L1'))).toBe(true);
    // Both back: polled again by the same poller, and served.
    const polls = exporter.scheduler.l1(SUBNET)?.polls ?? 0;
    await apply(text(lists, lists, '600ms'));
    expect(poller(exporter)).toBe(first);
    const back = await l1Polled(exporter, polls + 1);
    expect(sample(back, validators)).toBe(3);
    expect(sample(back, info('v1'))).toBe(1);
    expect(back).toMatch(ofL1);
  }, 30_000);

  // A poll under way when its vantages change asked the old ones: dropped (not counted, nothing of it served), and the
  // next comes as a new poller's first would (within 15 s), not an interval (here 1m) after the dropped one.
  it('drops a poll under way through the old vantages, and polls the new ones within 15 s on a 1m interval', async () => {
    const routes = Array.from({ length: 2 }, () => vantage(100, ['1', '1', '1'], [true, true, true]));
    nodes = await Promise.all(routes.map((r) => startFakeNode(r)));
    const text = (n: number) => yaml(nodes.slice(0, n), '', { interval: '30s', timeout: '20s', l1Interval: '1m' });
    // v0 answers nothing for a while: the L1's first poll waits on it.
    const n0 = defined(nodes[0], 'n0');
    const route = defined(routes[0]?.['/ext/bc/P'], 'the P-Chain route');
    n0.routes.set('/ext/bc/P', { ...route, delayMs: 60_000 });
    exporter = await startTestExporter(text(1));
    const first = poller(exporter) as Poller & { running?: Promise<void> };
    await waitFor(() => first.running !== undefined, 'a poll of the L1 under way', 20_000);
    await exporter.scheduler.apply(parseConfigText(text(2), 'l1.yaml', {}));
    expect(poller(exporter)).toBe(first);
    expect(first.running).toBeUndefined();
    expect(exporter.scheduler.l1(SUBNET)?.polls).toBe(0);
    expect(sample(await exporter.metrics(), validators)).toBeUndefined();
    n0.routes.set('/ext/bc/P', route);
    await waitFor(() => (exporter?.scheduler.l1(SUBNET)?.polls ?? 0) > 0, 'the next poll, through v0 and v1', 20_000);
    expect(exporter.scheduler.l1(SUBNET)?.snapshot?.vantages.map((v) => v.node)).toEqual(['v0', 'v1']);
  }, 60_000);

  // An L1's own config changed (here max_validators): a new poller, which starts from the members its predecessor
  // read. The label table keeps the strings of the poll that first served each series, and a poller that read the set
  // anew made new strings for every validator: each remake left one more copy of the set's IDs (the 1,000-node soak's
  // heap, issue 35: 7,594 validation IDs held by the label table alone for a set of 1,155).
  it("remakes the poller when the L1's own config changes, from the members its predecessor read", async () => {
    nodes = await Promise.all(Array.from({ length: 2 }, () => startFakeNode(vantage(100, ['1', '1', '1'], [true, true, true]))));
    exporter = await startTestExporter(yaml(nodes, ''));
    await l1Polled(exporter);
    const before = poller(exporter);
    expect([...before.members.keys()].sort()).toEqual([V0, V1, V2].map((v) => v.validationID).sort());
    await exporter.scheduler.apply(parseConfigText(yaml(nodes, '    max_validators: 50\n'), 'l1.yaml', {}));
    const after = poller(exporter);
    expect(after).not.toBe(before);
    // Before its first poll (its read is under way at the earliest): the predecessor's own map.
    expect(after.members).toBe(before.members);
    await l1Polled(exporter);
    expect([...poller(exporter).members.keys()].sort()).toEqual([V0, V1, V2].map((v) => v.validationID).sort());
  }, 30_000);
});
