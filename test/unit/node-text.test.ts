// The one boundary a node's text passes on its way out (util/node-text.ts): every
// configured secret masked, whole or where a cut ends it, and the text bounded; for
// any source, including one written after this test (a made-up source below).
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { configFile } from '../../src/config/load.js';
import { lazyChild } from '../../src/log.js';
import { PollError } from '../../src/rpc/errors.js';
import { NodeState } from '../../src/scheduler/node-state.js';
import type { Source } from '../../src/sources/source.js';
import { configSection, sourceKeys } from '../../src/config/source-section.js';
import { MAX_NODE_TEXT, NodeText } from '../../src/util/node-text.js';
import { maskSecrets, REDACTED, secretsOf } from '../../src/util/redact.js';
import { shorten, truncate } from '../../src/util/text.js';
import { defined } from '../helpers/assert.js';

const KEY = 'k3y-0f-the-0perat0r-5ecret';
const PASSWORD = 'hunter2-pa55w0rd';
const TOKEN = Buffer.from(`ops:${PASSWORD}`).toString('base64');
const target = { headers: { 'X-Api-Key': KEY }, basicAuth: { username: 'ops', password: PASSWORD } };

describe('maskSecrets', () => {
  const secrets = secretsOf(target);

  it.each([
    ['the key, the password and the basic token', `key ${KEY}, basic ${TOKEN} (${PASSWORD})`, `key ${REDACTED}, basic ${REDACTED} (${REDACTED})`],
    ['a text cut inside the key (a snippet)', shorten(`key ${KEY}`, 14), `key ${REDACTED}…`],
    ['a text cut inside the password (a bounded message)', truncate(`pw ${PASSWORD} and more`, 9), `pw ${REDACTED}… (19 more characters)`],
    ['fewer than 4 characters of a secret before a cut are left (they would mask ordinary words)', shorten(`key ${KEY}`, 7), 'key k3y…'],
    ['a cut after an ordinary word', shorten('nothing secret here', 7), 'nothing…'],
  ])('%s', (_what, text, masked) => {
    expect(maskSecrets(text, secrets)).toBe(masked);
  });

  it('a secret with a quote or a backslash is masked as it reads inside a JSON string too', () => {
    const quoted = secretsOf({ headers: { Authorization: 'Bearer a"b\\c' } });
    expect(maskSecrets(JSON.stringify({ echo: 'Bearer a"b\\c' }), quoted)).toBe(`{"echo":"${REDACTED}"}`);
  });
});

describe('NodeText', () => {
  const text = new NodeText(target);

  it('masks, then bounds a text to MAX_NODE_TEXT', () => {
    const shown = text.text(`${KEY} ${'E'.repeat(6 << 20)}`);
    expect(shown.startsWith(`${REDACTED} EEE`)).toBe(true);
    expect(shown.length).toBeLessThan(MAX_NODE_TEXT + 40);
    expect(shown).toMatch(/… \(\d+ more characters\)$/);
  });

  it('walks objects, arrays and errors; leaves what holds no secret as it is (the same object)', () => {
    const clean = { a: [1, 'two', { three: true }], b: new Error('fine') };
    expect(text.value(clean)).toBe(clean);
    class Failure extends Error {
      constructor(readonly body: string) {
        super(`HTTP 401: ${KEY}`, { cause: new Error(PASSWORD) });
        this.name = 'Failure';
      }
    }
    const dirty = { rows: [{ label: `with ${KEY}`, values: [{ error: PASSWORD }] }], err: new Failure(`body ${TOKEN}`) };
    const shown = text.value(dirty);
    expect(JSON.stringify(shown)).not.toMatch(new RegExp(`${KEY}|${PASSWORD}|${TOKEN}`));
    expect(shown.rows[0]?.label).toBe(`with ${REDACTED}`);
    expect(shown.err).toBeInstanceOf(Failure);
    expect([shown.err.message, shown.err.body, (shown.err.cause as Error).message]).toEqual([`HTTP 401: ${REDACTED}`, `body ${REDACTED}`, REDACTED]);
    // The original is untouched (a source's snapshot is not rewritten).
    expect(dirty.rows[0]?.label).toBe(`with ${KEY}`);
  });

  it('survives a cycle and a value nested without bound', () => {
    const cycle: Record<string, unknown> = { said: KEY };
    cycle['self'] = cycle;
    expect((text.value(cycle) as { said: string }).said).toBe(REDACTED);
    let deep: unknown = KEY;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(JSON.stringify(text.value(deep))).not.toContain(KEY);
  });
});

describe("a node's state gives every text of every source through the boundary", () => {
  const carelessConfig = configSection('careless', {
    description: "A test source that carries the node's text raw.",
    keys: sourceKeys({ enabled: 'Poll the careless source.', interval: 'the careless source polls' }),
    defaults: { enabled: true, interval: '30s' },
  });
  /** A source written without a thought for secrets or sizes: its sections, summary, errors and logs carry the node's text raw. */
  const careless: Source<{ said: string }, unknown, typeof carelessConfig> = {
    name: 'careless',
    config: carelessConfig,
    poll: () => Promise.resolve({ said: '' }),
    failure: (s) => new Error(s.said),
    samples: () => {},
    watch: (log) => ({ observe: (s) => log.warn({ err: new Error(s?.said), said: s?.said }, `the node said ${s?.said ?? ''}`) }),
    summary: (s) => ({ problems: [{ name: `check ${s.said}`, error: s.said }] }),
    sections: (s) => [{ title: 'careless', rows: [{ label: s?.said ?? '', values: [{ error: s?.said }, { text: s?.said ?? '' }] }], empty: '' }],
  };

  it('on the pages (summary, detail) and in the log, masked and bounded', () => {
    const out: string[] = [];
    const logger = pino(
      { level: 'debug' },
      new Writable({
        write(chunk: Buffer, _enc, done) {
          out.push(chunk.toString());
          done();
        },
      }),
    );
    const config = configFile([carelessConfig]).parse(
      `targets:\n  - name: n\n    url: http://127.0.0.1:9650\n    headers: { X-Api-Key: ${KEY} }\n    basic_auth: { username: ops, password: ${PASSWORD} }\n`,
      'test.yaml',
      {},
    );
    const state = new NodeState(defined(config.targets[0], 'the target'), [careless], { now: () => 1_000_000 }, lazyChild(logger, { node: 'n' }));
    const s = defined(state.sources[0], 'the source');
    const said = `echo ${KEY} ${TOKEN} ${PASSWORD} ${'E'.repeat(1 << 20)}`;
    state.settle(s, { said }, new PollError('rpc_error', `JSON-RPC error from x: ${said}`), 0.01);
    const shown = { summary: JSON.stringify(state.summary()), detail: JSON.stringify(state.detail()), log: out.join('') };
    for (const [where, t] of Object.entries(shown)) {
      for (const secret of [KEY, PASSWORD, TOKEN]) expect(t, where).not.toContain(secret.slice(0, 8));
      expect(t, where).toContain(REDACTED);
    }
    for (const line of shown.log.split('\n')) expect(Buffer.byteLength(line)).toBeLessThan(64 * 1024);
    expect(shown.detail.length).toBeLessThan(100_000);
  });
});
