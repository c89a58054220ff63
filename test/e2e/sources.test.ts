// The Source contract end to end: a source written in its own module against
// src/sources/source.ts (the worked example, test/fixtures/version-source.ts),
// registered beside the shipped ones, brings its config section (keys, defaults,
// the config checks, /config), is polled on its own interval, reads another
// source's facts through `uses`, and gets its series, page section, poll
// metrics and logs like the built-in ones.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { parse as parseYaml } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, configFile } from '../../src/config/load.js';
import { Dispatchers } from '../../src/rpc/sockets.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { configYaml } from '../../src/server/config-page.js';
import { health } from '../../src/sources/health.js';
import { indexApi } from '../../src/sources/index-api.js';
import { info } from '../../src/sources/info.js';
import { SOURCES, parseConfigText } from '../../src/sources/registry.js';
import { checkSources } from '../../src/sources/source.js';
import { startFakeNode, waitFor, type FakeNode } from '../helpers/fake-node.js';
import { nodeSeries, sample } from '../helpers/exporter.js';
import { defined } from '../helpers/assert.js';
import { version } from '../fixtures/version-source.js';

const NODE_ID = 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg';

/** The shipped sources and the example, as its line in src/sources/registry.ts would list them; and their config file. */
const WITH_VERSION = checkSources([...SOURCES, version]);
const VERSION_FILE = configFile(WITH_VERSION.map((s) => s.config));

/** A node that answers health and the info methods the example asks (info.getNodeID for the info source's facts). */
const versionNode = () =>
  startFakeNode({
    '/ext/health': { fixture: 'health/healthy-v1.14.2.json', headers: { 'node-id': NODE_ID } },
    '/ext/info': {
      methods: {
        'info.getNodeVersion': { version: 'avalanchego/1.14.2' },
        'info.getNodeID': { nodeID: NODE_ID, nodePOP: null },
        'info.upgrades': {},
      },
    },
  });

let node: FakeNode | undefined;
let scheduler: Scheduler | undefined;
let dispatchers: Dispatchers | undefined;
afterEach(async () => {
  await scheduler?.stop();
  await dispatchers?.close();
  await node?.close();
  scheduler = dispatchers = node = undefined;
});

/** Polls of the scheduler's only target. */
const polls = (s: Scheduler) => s.summaries()[0]?.polls ?? 0;

function memoryLogger() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const logs = () =>
    lines
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { logger: pino({ level: 'debug' }, sink), logs };
}

describe('the Source contract', () => {
  it('registry: every source has a unique lowercase name keying its config section; health comes first (its series lead the output)', () => {
    const names = SOURCES.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    for (const s of SOURCES) {
      expect(s.name).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(s.config.key).toBe(s.name);
    }
    expect(SOURCES[0]).toBe(health);
    expect(SOURCES).toContain(indexApi);
  });

  it('registry: a source that uses one not listed, or one that offers nothing, is refused at start', () => {
    expect(() => checkSources([version])).toThrow('source version uses info, which is not among the sources or offers nothing (Source.offers)');
    expect(() => checkSources([health, info, indexApi, { ...version, uses: ['index'] }])).toThrow(
      /version uses index, which is not among the sources or offers nothing/,
    );
    expect(() => checkSources([health, health])).toThrow('source health is listed twice');
    expect(() => checkSources([{ ...version, name: 'Version' }])).toThrow(/a name is lowercase/);
  });

  it('a new source in its own module: its config section, polls on its own interval, its series, page section and /config', async () => {
    const fake = await versionNode();
    node = fake;
    const { logger, logs } = memoryLogger();
    dispatchers = new Dispatchers();
    // The info source is off: the example's `uses: ['info']` is answered by the info source's own code (info.getNodeID).
    const config = VERSION_FILE.parse(
      `defaults: { interval: 2s, timeout: 250ms, index: { endpoints: [] }, info: { enabled: false }, platform: { enabled: false }, chain_info: { enabled: false }, evm: { enabled: false } }\ntargets:\n  - name: n\n    url: ${fake.url}\n`,
      'test.yaml',
      {},
    );
    scheduler = new Scheduler({ dispatchers, logger, sources: WITH_VERSION }, config);
    await scheduler.start();
    // The version source polls every 300 ms (its built-in default), health every 2 s.
    const asked = (method: string) => fake.requests.filter((r) => r.path === '/ext/info' && r.body.includes(`"${method}"`)).length;
    await waitFor(() => asked('info.getNodeVersion') >= 4, 'four version polls', 15_000);
    expect(fake.requests.filter((r) => r.path === '/ext/health').length).toBeLessThan(asked('info.getNodeVersion'));

    const text = nodeSeries(scheduler);
    expect(sample(text, 'avalanchego_node_version_number{node="n"}')).toBe(1_014_002);
    expect(sample(text, 'avalanchego_exporter_poll_success{node="n",source="version"}')).toBe(1);
    expect(sample(text, 'avalanchego_up{node="n"}')).toBe(1);
    // Poll metrics of each family in the order of the sources list: the example's line comes last.
    const successLines = text.split('\n').filter((l) => l.startsWith('avalanchego_exporter_poll_success{'));
    expect(successLines).toEqual([
      'avalanchego_exporter_poll_success{node="n",source="health"} 1',
      'avalanchego_exporter_poll_success{node="n",source="version"} 1',
    ]);
    // Its node-page section, with the node ID the info source's facts gave it.
    const detail = defined(scheduler.detail('n'), 'the node page');
    const section = defined(
      detail.sections.find((s) => s.title.startsWith('Version')),
      'the version section',
    );
    expect(section.rows[0]?.values[0]).toEqual({ text: `1.14.2 on ${NODE_ID}` });
    expect(detail.sources.find((s) => s.name === 'version')?.intervalMs).toBe(300);
    // State changes only: the version is logged once, by the source's child logger.
    expect(logs().filter((l) => l.msg === 'node version')).toEqual([expect.objectContaining({ node: 'n', source: 'version', version: '1.14.2' })]);

    // /config shows its section as the file writes it, and reads back to the same settings.
    const shown = parseYaml(configYaml(config)) as { targets: Array<Record<string, unknown>> };
    expect(shown.targets[0]?.version).toEqual({ enabled: true, interval: '300ms' });
    expect(VERSION_FILE.parse(configYaml(config), '/config', {}).targets).toEqual(config.targets);
    expect(VERSION_FILE.parse(configYaml(config), '/config', {}).targets[0]?.version).toEqual({ enabled: true, intervalMs: 300 });
  });

  it("the config checks hold for a new source's section: unknown keys, types, timeout against its interval", () => {
    const problems = (yaml: string) => {
      try {
        VERSION_FILE.parse(yaml, 'test.yaml', {});
      } catch (err) {
        if (err instanceof ConfigError) return err.message;
        throw err;
      }
      return 'no ConfigError';
    };
    expect(problems('targets:\n  - name: n\n    url: http://127.0.0.1:9650\n    version: { intervall: 1s }\n')).toContain(
      'targets[0].version: unknown key "intervall" (did you mean "interval"?); known keys here: enabled, interval',
    );
    expect(problems('targets:\n  - name: n\n    url: http://127.0.0.1:9650\n    version: { enabled: yes }\n')).toContain(
      'targets[0].version.enabled: expected true or false, got string "yes"',
    );
    expect(problems('defaults: { timeout: 500ms }\ntargets:\n  - name: n\n    url: http://127.0.0.1:9650\n')).toContain(
      'defaults.timeout: timeout (500ms, from defaults) must be shorter than version.interval (300ms, built-in default) for target "n"',
    );
    // Off, its interval is not checked; the shipped config file does not know the key.
    expect(
      VERSION_FILE.parse(
        'defaults: { timeout: 500ms, version: { enabled: false } }\ntargets:\n  - name: n\n    url: http://127.0.0.1:9650\n',
        't',
        {},
      ).targets,
    ).toHaveLength(1);
    expect(() => parseConfigText('targets:\n  - name: n\n    url: http://127.0.0.1:9650\n    version: {}\n', 'test.yaml', {})).toThrow(
      /unknown key "version"/,
    );
  });

  it('a source that is not enabled for a target is not polled and has no series', async () => {
    node = await versionNode();
    const { logger } = memoryLogger();
    dispatchers = new Dispatchers();
    const config = VERSION_FILE.parse(
      `defaults: { interval: 200ms, timeout: 100ms, index: { endpoints: [] }, info: { enabled: false }, platform: { enabled: false }, chain_info: { enabled: false }, evm: { enabled: false }, version: { enabled: false } }\ntargets:\n  - name: n\n    url: ${node.url}\n`,
      'test.yaml',
      {},
    );
    const s = new Scheduler({ dispatchers, logger, sources: WITH_VERSION }, config);
    scheduler = s;
    await s.start();
    await waitFor(() => polls(s) >= 2, 'two health polls');
    expect(node.requests.every((r) => r.path === '/ext/health')).toBe(true);
    expect(nodeSeries(scheduler)).not.toContain('source="version"');
  });

  it('the scheduler polls nothing before start()', async () => {
    node = await startFakeNode({ '/ext/health': { fixture: 'health/healthy-v1.14.2.json' } });
    const { logger } = memoryLogger();
    dispatchers = new Dispatchers();
    const config = parseConfigText(
      `defaults: { interval: 100ms, timeout: 50ms, info: { enabled: false }, platform: { enabled: false }, chain_info: { enabled: false } }\ntargets:\n  - name: n\n    url: ${node.url}\n`,
      'test.yaml',
      {},
    );
    const s = new Scheduler({ dispatchers, logger }, config);
    scheduler = s;
    // A control scheduler that is started: once it has polled twice, the other had the time to.
    const control = new Scheduler({ dispatchers, logger }, config);
    await control.start();
    try {
      await waitFor(() => polls(control) >= 2, 'two polls of the started scheduler');
    } finally {
      await control.stop();
    }
    const polled = node.requests.length;
    expect(scheduler.summaries()).toEqual([]);
    expect(nodeSeries(scheduler).length).toBe(0);
    await scheduler.start();
    await waitFor(() => polls(s) >= 1, 'a poll after start()');
    expect(node.requests.length).toBeGreaterThan(polled);
  });
});
