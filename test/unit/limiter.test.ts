// The request limiter through the calls production makes (rpc/client.ts): take()
// for a free slot now, wait() under the poll's deadline otherwise, release() once a slot.
import { describe, expect, it } from 'vitest';
import { Limiter } from '../../src/rpc/limiter.js';

describe('request limiter', () => {
  it('grants slots up to the cap, then in arrival order as slots free', async () => {
    const limiter = new Limiter(2);
    expect(limiter.take()).toBe(true);
    await limiter.wait();
    expect(limiter.take()).toBe(false);
    expect(limiter.inFlight).toBe(2);
    const order: string[] = [];
    const c = limiter.wait().then(() => order.push('c'));
    const d = limiter.wait().then(() => order.push('d'));
    expect(limiter.queued).toBe(2);
    limiter.release();
    await c;
    expect(order).toEqual(['c']);
    expect(limiter.inFlight).toBe(2);
    limiter.release();
    await d;
    expect(order).toEqual(['c', 'd']);
    expect(limiter.queued).toBe(0);
    limiter.release();
    limiter.release();
    expect(limiter.inFlight).toBe(0);
  });

  it('a waiter whose deadline passes leaves the queue; the others keep their turn', async () => {
    const limiter = new Limiter(1);
    expect(limiter.take()).toBe(true);
    const deadline = new AbortController();
    const first = limiter.wait();
    const dropped = limiter.wait(deadline.signal);
    const last = limiter.wait();
    deadline.abort(new Error('poll deadline passed'));
    await expect(dropped).rejects.toThrow('poll deadline passed');
    expect(limiter.queued).toBe(2);
    limiter.release();
    await first;
    limiter.release();
    await last;
    limiter.release();
    expect(limiter.inFlight).toBe(0);
    expect(limiter.queued).toBe(0);
  });

  it('refuses a wait whose deadline has already passed, without queueing it', async () => {
    const limiter = new Limiter(1);
    const deadline = new AbortController();
    deadline.abort('gone');
    await expect(limiter.wait(deadline.signal)).rejects.toThrow('aborted');
    expect(limiter.inFlight).toBe(0);
    expect(limiter.queued).toBe(0);
  });

  it('does not let a new request overtake the queue, and grants waiters when the cap is raised', async () => {
    const limiter = new Limiter(1);
    expect(limiter.take()).toBe(true);
    const waiting = limiter.wait();
    limiter.release();
    // The slot went to the waiter: a take() now would overtake it.
    expect(limiter.take()).toBe(false);
    await waiting;
    limiter.release();
    expect(limiter.take()).toBe(true);
    const two = limiter.wait();
    limiter.setMax(2);
    await two;
    expect(limiter.inFlight).toBe(2);
  });

  it('keeps 10,000 waiters and drops every other one without slowing down (linked queue)', async () => {
    const limiter = new Limiter(1);
    expect(limiter.take()).toBe(true);
    const controllers = Array.from({ length: 10_000 }, () => new AbortController());
    const waits = controllers.map((c) => limiter.wait(c.signal).then(() => limiter.release()));
    controllers.forEach((c, i) => i % 2 === 0 && c.abort(new Error('deadline')));
    expect(limiter.queued).toBe(5_000);
    limiter.release();
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

describe('hanging nodes are held back, never starved', () => {
  it('while answering requests keep waiting, every fourth free slot goes to the oldest hanging request', async () => {
    // The origin's admission: no hanging share, only turns.
    const limiter = new Limiter(1, false);
    expect(limiter.take()).toBe(true);
    const order: string[] = [];
    const hanging = limiter.wait(undefined, true).then(() => order.push('hanging'));
    // A saturated process: more answering requests wait than slots free.
    const answering = Array.from({ length: 8 }, (_, i) => limiter.wait().then(() => order.push(`a${i}`)));
    for (let i = 0; i < 4; i++) {
      limiter.release(order.at(-1) === 'hanging');
      await Promise.resolve();
      await Promise.resolve();
    }
    await hanging;
    // Three answering requests first, then the hanging one on its turn (with a strict order it would wait for ever).
    expect(order).toEqual(['a0', 'a1', 'a2', 'hanging']);
    for (let i = 0; i < 5; i++) limiter.release(order.at(-1) === 'hanging');
    await Promise.all(answering);
    expect(order).toHaveLength(9);
  });
});

describe('expected wait: what a request that joins now would wait', () => {
  it('is 0 with nobody waiting, the oldest wait while no rate is measured, then the queue over the measured rate', async () => {
    const limiter = new Limiter(1);
    const t0 = performance.now();
    expect(limiter.expectedWaitMs(t0, 4000)).toBe(0);
    expect(limiter.take()).toBe(true);
    const c = new AbortController();
    const waits = Array.from({ length: 100 }, () => limiter.wait(c.signal).catch(() => undefined));
    // No slot was taken in a measured span yet: the oldest waiter's wait (about 0 now).
    expect(limiter.expectedWaitMs(performance.now(), 4000)).toBeLessThan(50);
    // 10 slots taken in the next (at least) second: a rate of about 10 a second, 90 waiting.
    for (let i = 0; i < 10; i++) {
      limiter.release();
      await Promise.resolve();
    }
    const later = performance.now() + 1100;
    const expected = limiter.expectedWaitMs(later, 4000);
    // The oldest waiter has waited ~1.1 s, past a quarter of the 4 s target: 90 waiting / (~10 in 1.1 s) ≈ 9.9 s.
    expect(expected).toBeGreaterThan(5000);
    // A burst that has just arrived (its oldest waiter younger than a quarter of the target) is not a standing queue yet.
    expect(limiter.expectedWaitMs(later, 8000)).toBeLessThan(1200);
    c.abort();
    await Promise.all(waits);
    expect(limiter.queued).toBe(0);
    expect(limiter.expectedWaitMs(performance.now(), 4000)).toBe(0);
  });

  it('counts only answering nodes: a queue of hanging requests does not make answering polls skip', () => {
    const limiter = new Limiter(2, false);
    expect(limiter.take(true)).toBe(true);
    expect(limiter.take(true)).toBe(true);
    const c = new AbortController();
    for (let i = 0; i < 50; i++) void limiter.wait(c.signal, true).catch(() => undefined);
    expect(limiter.queued).toBe(50);
    expect(limiter.expectedWaitMs(performance.now() + 10_000, 1000)).toBe(0);
    c.abort();
  });
});
