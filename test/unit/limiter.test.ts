import { describe, expect, it } from 'vitest';
import { Limiter } from '../../src/rpc/limiter.js';

describe('request limiter', () => {
  it('grants slots up to the cap, then in arrival order as slots free', async () => {
    const limiter = new Limiter(2);
    const a = limiter.tryAcquire();
    const b = await limiter.acquire();
    expect(a).toBeDefined();
    expect(limiter.tryAcquire()).toBeUndefined();
    const order: string[] = [];
    const c = limiter.acquire().then((release) => (order.push('c'), release));
    const d = limiter.acquire().then((release) => (order.push('d'), release));
    expect(limiter.queued).toBe(2);
    a?.();
    a?.(); // a second release of the same slot changes nothing
    const releaseC = await c;
    expect(order).toEqual(['c']);
    expect(limiter.inFlight).toBe(2);
    b();
    await d;
    expect(order).toEqual(['c', 'd']);
    expect(limiter.queued).toBe(0);
    releaseC();
    expect(limiter.inFlight).toBe(1);
  });

  it('a waiter whose deadline passes leaves the queue; the others keep their turn', async () => {
    const limiter = new Limiter(1);
    const held = limiter.tryAcquire();
    const deadline = new AbortController();
    const first = limiter.acquire();
    const dropped = limiter.acquire(deadline.signal);
    const last = limiter.acquire();
    deadline.abort(new Error('poll deadline passed'));
    await expect(dropped).rejects.toThrow('poll deadline passed');
    expect(limiter.queued).toBe(2);
    held?.();
    (await first)();
    (await last)();
    expect(limiter.inFlight).toBe(0);
    expect(limiter.queued).toBe(0);
  });

  it('does not let a new request overtake the queue, and grants waiters when the cap is raised', async () => {
    const limiter = new Limiter(1);
    const held = limiter.tryAcquire();
    const waiting = limiter.acquire();
    held?.();
    expect(limiter.tryAcquire()).toBeUndefined();
    (await waiting)();
    const one = limiter.tryAcquire();
    const two = limiter.acquire();
    limiter.setMax(2);
    await two;
    expect(limiter.inFlight).toBe(2);
    one?.();
  });

  it('keeps 10,000 waiters and drops every other one without slowing down (linked queue)', async () => {
    const limiter = new Limiter(1);
    const held = limiter.tryAcquire();
    const controllers = Array.from({ length: 10_000 }, () => new AbortController());
    const waits = controllers.map((c) => limiter.acquire(c.signal).then((release) => release()));
    controllers.forEach((c, i) => i % 2 === 0 && c.abort(new Error('deadline')));
    expect(limiter.queued).toBe(5_000);
    held?.();
    const outcomes = await Promise.allSettled(waits);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(5_000);
    expect(limiter.inFlight).toBe(0);
  });
});

describe('fair sharing: requests of hanging nodes hold at most half the slots', () => {
  it('a hanging request waits past its share; an answering one overtakes it and gets the free slot', async () => {
    const limiter = new Limiter(4);
    expect(limiter.hangingShare).toBe(2);
    expect(limiter.take(true)).toBe(true);
    expect(limiter.take(true)).toBe(true);
    // The share is full: a third hanging request waits although two slots are free.
    expect(limiter.take(true)).toBe(false);
    const order: string[] = [];
    const hanging = limiter.wait(undefined, true).then(() => order.push('hanging'));
    expect(limiter.take()).toBe(true);
    expect(limiter.take()).toBe(true);
    const answering = limiter.wait().then(() => order.push('answering'));
    // A hanging slot frees: the answering node's request is served first, the hanging one stays within the share.
    limiter.release(true);
    await answering;
    expect(order).toEqual(['answering']);
    // Four slots held, one of them hanging: the hanging waiter gets the next free slot (its share has room).
    expect(limiter.queued).toBe(1);
    limiter.release(false);
    await hanging;
    expect(order).toEqual(['answering', 'hanging']);
    expect(limiter.inFlight).toBe(4);
  });
});
