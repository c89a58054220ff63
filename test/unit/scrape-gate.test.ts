import { describe, expect, it } from 'vitest';
import { ScrapeGate, SharedRender } from '../../src/server/exposition.js';

async function text(render: SharedRender): Promise<string> {
  let out = '';
  for await (const chunk of render.read()) out += chunk.toString();
  return out;
}

describe('scrapes: one render shared by the scrapes in flight, and a cap', () => {
  it('scrapes that come while a render runs share it; one after it finished starts a new one', async () => {
    let renders = 0;
    const gate = new ScrapeGate(3, () => {
      renders++;
      return new SharedRender(Promise.resolve(Buffer.from('# own\n')), () => [Buffer.from(`a ${renders}\n`), Buffer.from('b 2\n')]);
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
    const gate = new ScrapeGate(2, () => new SharedRender(Promise.resolve(Buffer.from('')), () => []));
    expect(gate.enter()).toBeDefined();
    expect(gate.enter()).toBeDefined();
    expect(gate.enter()).toBeUndefined();
    gate.leave();
    expect(gate.enter()).toBeDefined();
  });

  it('a finished render lets its chunks go once its last reader has them, also when a reader leaves early', async () => {
    const body = () => [Buffer.alloc(1000, 'a'), Buffer.alloc(1000, 'b')];
    const render = new SharedRender(Promise.resolve(Buffer.from('# own\n')), body);
    const reader = render.read();
    await reader.next();
    // A reader in the middle holds the chunks, however far the render has got.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(render.finished).toBe(true);
    expect(render.heldBytes).toBe(2006);
    // The scraper goes away (the stream returns the generator): nothing is held any more.
    await reader.return(undefined);
    expect(render.heldBytes).toBe(0);

    const whole = new SharedRender(Promise.resolve(Buffer.from('# own\n')), body);
    expect(await text(whole)).toHaveLength(2006);
    expect(whole.heldBytes).toBe(0);
  });

  it('a render that fails fails every reader', async () => {
    const render = new SharedRender(Promise.reject(new Error('registry broke')), () => []);
    await expect(text(render)).rejects.toThrow('registry broke');
  });
});
