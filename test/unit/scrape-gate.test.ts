import { describe, expect, it } from 'vitest';
import { ScrapeGate, SharedRender } from '../../src/server/exposition.js';

async function text(from: SharedRender | AsyncGenerator<Buffer>): Promise<string> {
  let out = '';
  for await (const chunk of from instanceof SharedRender ? from.read() : from) out += chunk.toString();
  return out;
}

const own = () => Promise.resolve(Buffer.from('# own\n'));

describe('scrapes: one render shared by the scrapes that come while it starts, made as they send it, and a cap', () => {
  it('scrapes that come while a render starts share it; one after it finished starts a new one', async () => {
    let renders = 0;
    const gate = new ScrapeGate(3, () => {
      renders++;
      return new SharedRender(own, () => [Buffer.from(`a ${renders}\n`), Buffer.from('b 2\n')]);
    });
    const one = gate.enter();
    const two = gate.enter();
    expect(one).toBeDefined();
    expect(two).toBe(one);
    const [t1, t2] = await Promise.all([text(one as SharedRender), text(two as SharedRender)]);
    expect(t1).toBe('# own\na 1\nb 2\n');
    expect(t2).toBe(t1);
    expect(renders).toBe(1);
    const three = gate.enter();
    expect(three).not.toBe(one);
    expect(await text(three as SharedRender)).toBe('# own\na 2\nb 2\n');
  });

  it('past maxScrapes served at once, enter() refuses (503) until one leaves', () => {
    const gate = new ScrapeGate(2, () => new SharedRender(own, () => []));
    expect(gate.enter()).toBeDefined();
    expect(gate.enter()).toBeDefined();
    expect(gate.enter()).toBeUndefined();
    gate.leave();
    expect(gate.enter()).toBeDefined();
  });

  it('a scrape that keeps pace holds a chunk at a time, not the exposition; the body is made as it is asked for', async () => {
    let made = 0;
    const render = new SharedRender(own, function* () {
      for (let i = 0; i < 50; i++) {
        made++;
        yield Buffer.alloc(1000, 'x');
      }
    });
    render.start();
    let most = 0;
    let chunks = 0;
    for await (const chunk of render.read()) {
      chunks++;
      expect(chunk.length).toBeGreaterThan(0);
      most = Math.max(most, render.heldBytes);
      // Made as it is asked for: never more than one chunk ahead of what this scrape has sent.
      expect(made).toBeLessThanOrEqual(chunks);
    }
    expect(chunks).toBe(51);
    expect(most).toBeLessThanOrEqual(1000);
    expect(render.heldBytes).toBe(0);
  });

  it('a scrape that comes once the render let its first chunk go joins the next render, which starts when this one has ended', async () => {
    const started: number[] = [];
    let n = 0;
    const gate = new ScrapeGate(10, () => {
      const id = ++n;
      return new SharedRender(
        () => {
          started.push(id);
          return Promise.resolve(Buffer.from(`# render ${id}\n`));
        },
        () => [Buffer.from('a\n'), Buffer.from('b\n'), Buffer.from('c\n')],
      );
    });
    const first = gate.enter() as SharedRender;
    const reader = first.read();
    expect(String((await reader.next()).value)).toBe('# render 1\n');
    await reader.next(); // the reader is past its first chunk: the render let it go
    expect(first.joinable).toBe(false);
    const late = gate.enter() as SharedRender;
    const another = gate.enter() as SharedRender;
    expect(late).not.toBe(first);
    expect(another).toBe(late);
    // A scrape is counted from read() (as sendShared calls it at once), before its stream asks for a chunk.
    const anotherReader = another.read();
    const lateText = text(late);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // One render at a time: the next has not started while the first is under way.
    expect(started).toEqual([1]);
    for (let r = await reader.next(); !r.done; r = await reader.next());
    expect(await lateText).toBe('# render 2\na\nb\nc\n');
    expect(await text(anotherReader)).toBe('# render 2\na\nb\nc\n');
    expect(started).toEqual([1, 2]);
  });

  it('a render that every reader left ends at once (the next may start), and holds nothing', async () => {
    let made = 0;
    const gate = new ScrapeGate(
      10,
      () =>
        new SharedRender(own, function* () {
          for (;;) {
            made++;
            yield Buffer.alloc(100, 'y');
          }
        }),
    );
    const first = gate.enter() as SharedRender;
    const reader = first.read();
    await reader.next();
    await reader.next();
    const next = gate.enter() as SharedRender;
    expect(next).not.toBe(first);
    // The scraper goes away (the stream returns the generator).
    await reader.return(undefined);
    expect(first.finished).toBe(true);
    expect(first.heldBytes).toBe(0);
    const madeThen = made;
    const r2 = next.read();
    expect(String((await r2.next()).value)).toBe('# own\n');
    await r2.return(undefined);
    expect(made).toBeLessThanOrEqual(madeThen + 1);
  });

  it('a reader closed before its stream asked for a chunk (a scraper gone at once, a HEAD) does not hold the render or the next one', async () => {
    const gate = new ScrapeGate(10, () => new SharedRender(own, () => [Buffer.from('a\n')]));
    const first = gate.enter() as SharedRender;
    first.reader().close();
    expect(first.finished).toBe(true);
    const next = gate.enter() as SharedRender;
    expect(next).not.toBe(first);
    expect(await text(next)).toBe('# own\na\n');
  });

  it('a render that fails fails every reader', async () => {
    const render = new SharedRender(
      () => Promise.reject(new Error('registry broke')),
      () => [],
    );
    render.start();
    await expect(text(render)).rejects.toThrow('registry broke');
  });
});
