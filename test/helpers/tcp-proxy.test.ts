// The slow-link proxy of the fault drills: forwards HTTP as it is, delays the answers past a
// client's timeout, and resets open and new connections, switching while connections are open.
import { createServer, request, type Agent, type Server } from 'node:http';
import { Agent as HttpAgent } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TcpProxy } from './tcp-proxy.js';

function get(port: number, timeoutMs: number, agent: Agent | false = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', agent, signal: AbortSignal.timeout(timeoutMs) }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve(body));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('TcpProxy', () => {
  let upstream: Server;
  let proxy: TcpProxy;
  beforeAll(async () => {
    upstream = createServer((_req, res) => res.end('answer'));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const address = upstream.address();
    if (!address || typeof address !== 'object') throw new Error('no address');
    proxy = await TcpProxy.start({ host: '127.0.0.1', port: address.port });
  });
  afterAll(async () => {
    await proxy.close();
    await new Promise<void>((resolve) => upstream.close(() => resolve()));
  });

  it('passes requests and answers through', async () => {
    proxy.set({ mode: 'pass' });
    expect(await get(proxy.port, 2000)).toBe('answer');
  });

  it('delays the answers: a client with a shorter timeout times out, a patient one gets the answer late', async () => {
    proxy.set({ mode: 'delay', delayMs: 600 });
    // The request's AbortSignal.timeout fires first: node:http reports it as an AbortError.
    await expect(get(proxy.port, 200)).rejects.toMatchObject({ name: 'AbortError' });
    const started = Date.now();
    expect(await get(proxy.port, 3000)).toBe('answer');
    expect(Date.now() - started).toBeGreaterThanOrEqual(550);
  });

  it('resets new connections, and the open ones when switched', async () => {
    const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
    try {
      proxy.set({ mode: 'pass' });
      expect(await get(proxy.port, 2000, agent)).toBe('answer');
      proxy.set({ mode: 'reset' });
      // The kept-alive connection was reset: the next request on it, or on a new one, fails.
      await expect(get(proxy.port, 2000, agent)).rejects.toThrow(/ECONNRESET|EPIPE|socket hang up/);
      await expect(get(proxy.port, 2000)).rejects.toMatchObject({ code: 'ECONNRESET' });
      proxy.set({ mode: 'pass' });
      expect(await get(proxy.port, 2000)).toBe('answer');
    } finally {
      agent.destroy();
    }
  });
});
