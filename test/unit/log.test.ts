// The per-node and per-source loggers are made on first use (lazyChild) and behave as pino children.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { lazyChild, toLogfmt } from '../../src/log.js';

describe('lazyChild', () => {
  function capture(level = 'debug'): { lines: () => Array<Record<string, unknown>>; logger: pino.Logger } {
    const out: string[] = [];
    const dest = new Writable({
      write(chunk: Buffer, _enc, done) {
        out.push(chunk.toString());
        done();
      },
    });
    return {
      logger: pino({ level, base: null }, dest),
      lines: () =>
        out
          .join('')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>),
    };
  }

  /** The logger, seen through a proxy that counts the calls of its child(). */
  function countChildren(logger: pino.Logger): { counting: pino.Logger; children: () => number } {
    let calls = 0;
    const counting = new Proxy(logger, {
      get(target, prop, receiver) {
        if (prop === 'child') calls++;
        return Reflect.get(target, prop, receiver) as unknown;
      },
    });
    return { counting, children: () => calls };
  }

  it('logs with its bindings and its own children, as parent.child would', () => {
    const { logger, lines } = capture();
    const node = lazyChild(logger, { node: 'n1' });
    const source = lazyChild(node, { source: 'health' });
    source.warn({ reason: 'timeout' }, 'poll failed');
    node.child({ extra: 1 }).info('hello');
    expect(source.isLevelEnabled('debug')).toBe(true);
    expect(lines()).toEqual([
      expect.objectContaining({ level: 40, node: 'n1', source: 'health', reason: 'timeout', msg: 'poll failed' }),
      expect.objectContaining({ level: 30, node: 'n1', extra: 1, msg: 'hello' }),
    ]);
  });

  it('makes no pino child until it is used', () => {
    const { logger } = capture();
    const { counting, children } = countChildren(logger);
    const lazy = lazyChild(counting, { node: 'n2' });
    expect(children()).toBe(0);
    lazy.debug('first');
    lazy.debug('second');
    expect(children()).toBe(1);
  });

  it('a call at a level the parent does not log makes no child, even through a lazy parent', () => {
    const { logger, lines } = capture('info');
    const { counting, children } = countChildren(logger);
    const node = lazyChild(counting, { node: 'n3' });
    const source = lazyChild(node, { source: 'index' });
    source.debug('poll ok');
    node.debug('poll ok');
    expect(source.isLevelEnabled('debug')).toBe(false);
    expect(children()).toBe(0);
    expect(lines()).toEqual([]);
    source.warn('poll failed');
    // Now both are made: the node's child and the source's (a pino child's prototype is its parent, so the
    // source's child() is counted through the node's too).
    expect(children()).toBe(2);
    expect(lines()).toEqual([expect.objectContaining({ level: 40, node: 'n3', source: 'index', msg: 'poll failed' })]);
  });
});

describe('toLogfmt (--log.format=logfmt)', () => {
  const line = (o: Record<string, unknown>) =>
    JSON.stringify({ level: 40, time: Date.UTC(2026, 10, 25, 3, 0, 0), app: 'avalanchego-exporter', ...o });
  it.each([
    [{ msg: 'poll failed', node: 'n1', reason: 'timeout' }, 'time=2026-11-25T03:00:00.000Z level=WARN msg="poll failed" node=n1 reason=timeout'],
    [
      { msg: 'x', empty: '', eq: 'a=b', quote: 'say "hi"', nl: 'two\nlines', ctl: 'bell\u0007' },
      'time=2026-11-25T03:00:00.000Z level=WARN msg=x empty="" eq="a=b" quote="say \\"hi\\"" nl="two\\nlines" ctl="bell\\u0007"',
    ],
    [
      { msg: 'nested', shard: { index: 1, count: 3 }, tags: ['a', 'b'], ok: true, n: 1.5 },
      String.raw`time=2026-11-25T03:00:00.000Z level=WARN msg=nested shard.index=1 shard.count=3 tags="[\"a\",\"b\"]" ok=true n=1.5`,
    ],
    // An error: its message, not its stack.
    [
      { msg: 'boom', err: { type: 'Error', message: 'cannot reach http://x: refused', stack: 'Error: cannot\n    at f (a.js:1:1)' } },
      'time=2026-11-25T03:00:00.000Z level=WARN msg=boom err="cannot reach http://x: refused"',
    ],
  ])('%j', (record, expected) => {
    expect(toLogfmt(line(record))).toBe(`${expected}\n`);
  });
  it('a line that is not JSON passes through', () => {
    expect(toLogfmt('plain\n')).toBe('plain\n');
  });
});
