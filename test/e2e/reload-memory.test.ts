// A reload keeps one copy of each target. A poller whose target did not change keeps the object of the load that
// started it; the exporter's config must then hold that same object, not the reload's equal copy: otherwise every
// reload since a poller started keeps a second copy of its target (the 1,000-node soak, issue 35: about 0.5 MiB more
// at each return to the original targets). Checked with weak references to what each reload loaded: after a
// collection, nothing of a reload's unchanged targets is left; a changed target's new object is (its poller's).
import { describe, expect, it } from 'vitest';
import { fullCollection } from '../../src/server/debug-state.js';
import { parseConfigText } from '../../src/sources/registry.js';
import type { Config, TargetConfig } from '../../src/config/schema.js';
import { startFakeNode, type FakeNode } from '../helpers/fake-node.js';
import { closeAfterEach, startTestExporter, waitForPolls, type TestExporter } from '../helpers/exporter.js';
import { defined } from '../helpers/assert.js';

/** V8's full collection, as /-/debug/state takes it. */
const gc = fullCollection();

let node: FakeNode | undefined;
let exporter: TestExporter | undefined;
closeAfterEach(
  () => [exporter, node],
  () => (exporter = node = undefined),
);

const yaml = (url: string, bInterval: string) => `
defaults: { interval: 1s, timeout: 500ms, index: { endpoints: [] }, info: { enabled: false }, platform: { enabled: false }, chain_info: { enabled: false } }
targets:
  - { name: validator-a-of-the-fleet, url: '${url}/a' }
  - { name: validator-b-of-the-fleet, url: '${url}/b', interval: ${bInterval} }
`;

/** After a turn of the event loop (a weak reference made in this job holds its object until the job ends) and a collection. */
async function collected(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  gc();
}

/** The fake node that answers for both targets (a and b under one origin); its URL. */
async function twoNodes(): Promise<string> {
  node = await startFakeNode({
    '/a/ext/health': { fixture: 'health/healthy-v1.14.2.json' },
    '/b/ext/health': { fixture: 'health/healthy-v1.14.2.json' },
  });
  return node.url;
}

describe('a reload', () => {
  it('keeps no copy of the targets it left unchanged: their pollers’ objects serve, the equal ones it loaded are collected', async () => {
    const url = await twoNodes();
    let text = yaml(url, '1s');
    const loaded: Array<Array<WeakRef<object>>> = [];
    const load = (): Config => {
      const config = parseConfigText(text, 'reload.yaml', {});
      loaded.push(config.targets.map((t) => new WeakRef(t)));
      return config;
    };
    const started = await startTestExporter(text, { exporter: { loadConfig: load } });
    exporter = started;
    await waitForPolls(started, 1);
    /** The target object the poller of `name` holds (held() gives it for a target of that name). */
    const heldOf = (name: string) => started.scheduler.held([{ name } as TargetConfig])[0];
    const first = [heldOf('validator-a-of-the-fleet'), heldOf('validator-b-of-the-fleet')];

    for (let i = 0; i < 3; i++) await started.reload();
    await collected();
    // Three reloads of the same file: every target object they made is gone; the pollers kept the first load's.
    expect(loaded.flat().map((r) => r.deref() === undefined)).toEqual([true, true, true, true, true, true]);
    expect(heldOf('validator-a-of-the-fleet')).toBe(first[0]);
    expect(heldOf('validator-b-of-the-fleet')).toBe(first[1]);

    // b changes: its poller restarts with the new object, which stays; a's new copy is collected as before.
    text = yaml(url, '2s');
    loaded.length = 0;
    await started.reload();
    await collected();
    const [a, b] = defined(loaded[0], 'the reload');
    expect(a?.deref()).toBeUndefined();
    const bNow = b?.deref();
    expect(bNow).toMatchObject({ name: 'validator-b-of-the-fleet', intervalMs: 2000 });
    expect(heldOf('validator-b-of-the-fleet')).toBe(bNow);
    expect(heldOf('validator-a-of-the-fleet')).toBe(first[0]);
  });

  it('lets the config it started with go: a target a reload changed is collected, nothing holds the first load', async () => {
    const url = await twoNodes();
    let text = yaml(url, '1s');
    const started = await startTestExporter(text, { exporter: { loadConfig: () => parseConfigText(text, 'reload.yaml', {}) } });
    exporter = started;
    await waitForPolls(started, 1);
    // b's object of the start-up load (its poller's, until b changes).
    const firstB = new WeakRef(defined(started.scheduler.held([{ name: 'validator-b-of-the-fleet' } as TargetConfig])[0], 'b'));

    text = yaml(url, '2s');
    await started.reload();
    await collected();
    // Its poller restarted with the new object, and the config is the reload's: the start-up load's b is gone. It was
    // not while the reload's closure held the exporter's options (the start-up config among them, for the process's life).
    expect(firstB.deref()).toBeUndefined();
  });
});
