// The per-node and per-source loggers are made on first use (lazyChild) and behave as pino children.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { RequestFailed } from '../../src/rpc/errors.js';
import { LOG_FORMATS, createLogger, lazyChild, MAX_LOG_LINE_BYTES, toLogfmt, type LogFormat } from '../../src/log.js';
import { NodeText } from '../../src/util/node-text.js';
import { fullCollection } from '../../src/server/debug-state.js';

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

  it('holds its child weakly: a node that logged once keeps no child after a collection, and logs as before', async () => {
    const gc = fullCollection();
    const { logger, lines } = capture();
    const made: Array<WeakRef<pino.Logger>> = [];
    const recording = new Proxy(logger, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (prop !== 'child') return value;
        return (bindings: pino.Bindings) => {
          const child = (value as (b: pino.Bindings) => pino.Logger).call(target, bindings);
          made.push(new WeakRef(child));
          return child;
        };
      },
    });
    const node = lazyChild(recording, { node: 'n6' });
    const source = lazyChild(node, { source: 'health' }, (arg) => arg);
    source.warn('poll failed');
    expect(made.length).toBe(1);
    // A weak reference keeps its object until the job that made it ends.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(made.map((w) => w.deref())).toEqual([undefined]);
    source.warn('poll failed again');
    expect(made.length).toBe(2);
    expect(lines()).toEqual([
      expect.objectContaining({ level: 40, node: 'n6', source: 'health', msg: 'poll failed' }),
      expect.objectContaining({ level: 40, node: 'n6', source: 'health', msg: 'poll failed again' }),
    ]);
    // A property set on it stays: the child is held from then on.
    node.level = 'warn';
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    node.info('not logged');
    expect(node.level).toBe('warn');
    expect(lines()).toHaveLength(2);
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

describe('an expected fault is one line with no stack, in every format (createLogger)', () => {
  /** A node's fault as the transport throws it: a typed error with fields and an undici cause. */
  function nodeFault(): Error {
    const cause = new Error('other side closed');
    cause.name = 'SocketError';
    return new RequestFailed('http://127.0.0.1:9650/ext/bc/C/rpc', 'exchange', false, cause);
  }

  function logged(format: LogFormat, write: (log: pino.Logger) => void): Promise<string> {
    const out: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        out.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger({ level: 'info', format, destination });
    write(lazyChild(lazyChild(logger, { node: 'node-7' }), { source: 'evm' }));
    logger.flush();
    // The json and logfmt destinations are asynchronous: their lines arrive after a turn of the loop.
    return new Promise((resolve) => setTimeout(() => resolve(out.join('')), 50));
  }

  it.each(LOG_FORMATS)('%s: a warning with an error and a poll failure each write one line, with the cause and no stack', async (format) => {
    const text = await logged(format, (log) => {
      log.warn({ chain: 'C', err: nodeFault() }, 'eth_blockNumber fails on /ext/bc/C/rpc');
      log.warn({ reason: 'connect', error: 'cannot reach http://127.0.0.1:9650/ext/health: other side closed' }, 'poll failed');
    });
    const lines = text.trimEnd().split('\n');
    expect(lines, text).toHaveLength(2);
    expect(text).not.toMatch(/^\s+at /m);
    expect(text).not.toContain('"stack"');
    expect(lines[0]).toContain('RequestFailed');
    expect(lines[0]).toContain('request to http://127.0.0.1:9650/ext/bc/C/rpc failed: other side closed');
    expect(lines[1]).toContain('cannot reach http://127.0.0.1:9650/ext/health: other side closed');
    for (const line of lines) expect(line).toContain('node-7');
  });

  it('pretty: the node and the source lead the line', async () => {
    const text = await logged('pretty', (log) => log.warn({ reason: 'connect', error: 'cannot reach …' }, 'poll failed'));
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: node-7 evm: poll failed \{"reason":"connect","error":"cannot reach …"\}\n$/);
  });

  it('json: an error logged at level error (a bug) keeps its stack', async () => {
    const text = await logged('json', (log) =>
      log.error({ err: new TypeError('x is undefined') }, 'internal error while polling: please report this'),
    );
    const record = JSON.parse(text) as { err: { type: string; stack: string } };
    expect(record.err.type).toBe('TypeError');
    expect(record.err.stack).toMatch(/\n\s+at /);
  });

  it('json: the error keeps its fields (url, phase) without the stack', async () => {
    const text = await logged('json', (log) => log.warn({ err: nodeFault() }, 'fails'));
    expect((JSON.parse(text) as { err: unknown }).err).toEqual({
      type: 'RequestFailed',
      message: 'request to http://127.0.0.1:9650/ext/bc/C/rpc failed: other side closed',
      name: 'RequestFailed',
      url: 'http://127.0.0.1:9650/ext/bc/C/rpc',
      phase: 'exchange',
      deadlineExceeded: false,
    });
  });
});

describe('no log line passes MAX_LOG_LINE_BYTES (64 KiB), whatever is logged', () => {
  function sink(): { destination: Writable & { write: (chunk: string) => boolean }; lines: () => string[] } {
    const out: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        out.push(chunk.toString());
        done();
      },
    });
    return { destination, lines: () => out.join('').split('\n').filter(Boolean) };
  }
  const bytes = (line: string) => Buffer.byteLength(line);

  it.each<LogFormat>(['json', 'logfmt'])('%s: a 6 MB text is cut, its line stays readable and says how much was left out', (format) => {
    const { destination, lines } = sink();
    const log = createLogger({ level: 'info', format, destination });
    log.warn({ node: 'n', source: 'evm', err: new Error(`JSON-RPC error -32000 from eth_blockNumber: ${'E'.repeat(6 << 20)}`) }, 'poll failed');
    log.info({ multibyte: '€"\u0001'.repeat(1 << 18) }, 'escapes grow a line past its length in characters');
    log.flush();
    const written = lines();
    expect(written).toHaveLength(2);
    for (const line of written) expect(bytes(line)).toBeLessThanOrEqual(MAX_LOG_LINE_BYTES);
    expect(written[0]).toMatch(/JSON-RPC error -32000 from eth_blockNumber: E+… \(\d+ more characters\)/);
    if (format === 'json') {
      const first = JSON.parse(written[0] ?? '') as { msg: string; node: string; err: { type: string } };
      expect([first.msg, first.node, first.err.type]).toEqual(['poll failed', 'n', 'Error']);
    } else expect(written[0]).toMatch(/^time=\S+ level=WARN msg="poll failed" node=n source=evm err.type=Error err.message="JSON-RPC error/);
  });

  it.each<LogFormat>(['json', 'logfmt'])('%s: a line of 20,000 short fields keeps its own fields and says it was cut', (format) => {
    const { destination, lines } = sink();
    const log = createLogger({ level: 'info', format, destination });
    log.warn({ node: 'n', many: Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, `v${i}`])) }, 'wide');
    log.flush();
    const [line = ''] = lines();
    expect(bytes(line)).toBeLessThanOrEqual(MAX_LOG_LINE_BYTES);
    expect(line).toContain('wide');
    expect(line).toMatch(/this line was \d+ bytes; its other fields are left out/);
  });

  it('a line under the cap is written as pino writes it', () => {
    const { destination, lines } = sink();
    const log = createLogger({ level: 'info', format: 'json', destination });
    const text = 'x'.repeat(30_000);
    log.info({ node: 'n', text }, 'fits');
    log.flush();
    expect(JSON.parse(lines()[0] ?? '')).toMatchObject({ msg: 'fits', node: 'n', text });
  });
});

describe("a guarded lazy child (a node's sources: util/node-text.ts)", () => {
  it("masks and bounds every argument of every call, its children's too; an error keeps its class", () => {
    const out: string[] = [];
    const logger = pino(
      { level: 'debug', base: null },
      new Writable({
        write(chunk: Buffer, _enc, done) {
          out.push(chunk.toString());
          done();
        },
      }),
    );
    const text = new NodeText({ headers: { 'X-Api-Key': 'k3y-of-the-operator' } });
    const log = lazyChild(logger, { source: 'evm' }, text.logArgument);
    class RpcFailure extends Error {
      constructor(readonly body: string) {
        super(`echo: k3y-of-the-operator ${'E'.repeat(100_000)}`);
        this.name = 'RpcFailure';
      }
    }
    log.warn({ chain: 'C', err: new RpcFailure('body with k3y-of-the-operator') }, 'fails with k3y-of-the-operator');
    log.child({ extra: 1 }).info({ said: 'k3y-of-the-operator' }, 'child');
    const written = out.join('');
    expect(written).not.toContain('k3y-of-the-operator');
    const [first, second] = written
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(first).toMatchObject({ source: 'evm', chain: 'C', msg: 'fails with <secret>', err: { type: 'RpcFailure', body: 'body with <secret>' } });
    expect((first?.['err'] as { message: string }).message).toMatch(/^echo: <secret> E+… \(\d+ more characters\)$/);
    expect(second).toMatchObject({ source: 'evm', extra: 1, said: '<secret>', msg: 'child' });
  });
});
