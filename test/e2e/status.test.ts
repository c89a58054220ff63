// The status pages for people: the fleet overview on /, one node on /node/<name>, the
// configuration on /config (secrets redacted) and a traced fresh poll on
// /probe?target=…&debug=true. A node's own text (check names, error texts) is shown
// escaped and truncated, and never becomes a label.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeNode, waitFor, type FakeNode } from '../helpers/fake-node.js';
import { startTestExporter, waitForPolls, type TestExporter } from '../helpers/exporter.js';

const HOSTILE_CHECK = '<img src=x onerror=alert(1)>';
const HOSTILE_ERROR = '<script>window.__pwned = 1</script> too many processing blocks: 5784 > 256';
const LONG_ERROR = `${'x'.repeat(5000)} the end`;

function healthAnswer(): string {
  const now = new Date().toISOString();
  const check = (error?: string) => ({
    message: { engine: { consensus: { lastAcceptedHeight: 1234, processingBlocks: 5784 } } },
    ...(error ? { error: { message: error } } : {}),
    timestamp: now,
    duration: 1000,
    contiguousFailures: error ? 3 : 0,
    ...(error ? { timeOfFirstFailure: new Date(Date.now() - 120_000).toISOString() } : {}),
  });
  return JSON.stringify({
    jsonrpc: '2.0',
    result: {
      checks: { C: check(HOSTILE_ERROR), [HOSTILE_CHECK]: check('a check named with HTML'), database: check(), router: check(LONG_ERROR) },
      healthy: false,
    },
    id: 1,
  });
}

let sick: FakeNode;
let fine: FakeNode;
let exporter: TestExporter;

beforeAll(async () => {
  sick = await startFakeNode({ '/ext/health': { body: healthAnswer(), headers: { 'node-id': 'NodeID-6NptFsaUZsFk8A626YgwkkgiB8PhqMWxH' } } });
  fine = await startFakeNode({ '/ext/health': { fixture: 'health/healthy-v1.14.2.json' } });
  exporter = await startTestExporter(`
defaults:
  interval: 1s
  timeout: 500ms
  index: {endpoints: []}
  info: {enabled: false}
  platform: {enabled: false}
  chain_info: {enabled: false}
targets:
  - name: sick
    url: ${sick.url}
    headers: {X-Api-Key: super-secret-token-1234}
    basic_auth: {username: ops, password: hunter2-password}
  - name: fine
    url: ${fine.url}
  - name: gone
    url: http://127.0.0.1:9
`);
  // Two polls of every node; generous for a loaded 2-core machine (1 s interval).
  await waitForPolls(exporter, 2, 30_000);
}, 40_000);

afterAll(async () => {
  await exporter.close();
  await sick.close();
  await fine.close();
});

describe('fleet overview on /', () => {
  it("lists the worst first, with the state and since when, the failing checks with the node's error text escaped, and the last poll", async () => {
    const res = await fetch(`${exporter.url}/`);
    expect(res.status).toBe(200);
    const html = await res.text();
    const order = ['gone', 'sick', 'fine'].map((n) => html.indexOf(`>${n}</a>`));
    expect(order.every((i) => i > 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(html).toMatch(/down <span class="dim">for \d+s<\/span>/);
    expect(html).toContain('&#60;script&#62;window.__pwned = 1&#60;/script&#62; too many processing blocks: 5784 &#62; 256');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;');
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    // A long error text is cut on the overview.
    expect(html).not.toContain('x'.repeat(300));
    expect(html).toMatch(/… \(\d+ more characters\)/);
    expect(html).toMatch(/<time datetime="[^"]+" title="[^"]+">\d+s ago<\/time>/);
    expect(html).toContain('<meta http-equiv="refresh" content="10">');
    expect(await (await fetch(`${exporter.url}/?refresh=off`)).text()).not.toContain('http-equiv="refresh"');
  });

  it('links each node to its page', async () => {
    const html = await (await fetch(`${exporter.url}/`)).text();
    expect(html).toContain('<a href="node/sick">sick</a>');
  });
});

describe('one node on /node/<name>', () => {
  it("shows every check with its error text, the chains, each source's last polls and links to /probe", async () => {
    const res = await fetch(`${exporter.url}/node/sick`);
    expect(res.status).toBe(200);
    const html = await res.text();
    // A failing check's row is marked (and its section open); a passing one is not.
    for (const check of ['C', 'database', 'router']) expect(html).toMatch(new RegExp(`<tr( class="fault")?><td>${check}</td>`));
    expect(html).toContain('<tr class="fault"><td>&#60;img src=x onerror=alert(1)&#62;</td>');
    expect(html).toMatch(/<details class="sec" open><summary><h2>Health checks<\/h2> <span class="bad">· \d+ of \d+ with a fault<\/span><\/summary>/);
    expect(html).toContain('&#60;script&#62;window.__pwned = 1&#60;/script&#62;');
    expect(html).not.toContain('<script>');
    // Up to 2,000 characters of an error text here.
    expect(html).toContain('x'.repeat(2000));
    expect(html).not.toContain('x'.repeat(2001));
    expect(html).toContain('NodeID-6NptFsaUZsFk8A626YgwkkgiB8PhqMWxH');
    expect(html).toMatch(/<tr><td>health<\/td><td data-col="interval">1s<\/td><td class="n" data-col="polls">\d+<\/td>/);
    expect(html).toContain('<a href="../probe?target=sick">raw series (/probe)</a>');
    expect(html).toContain('href="../probe?target=sick&#38;debug=true"');
  });

  it('shows a node that is down with its poll error and no checks', async () => {
    const html = await (await fetch(`${exporter.url}/node/gone`)).text();
    expect(html).toContain('class="bad">down</span>');
    expect(html).toMatch(/<span class="bad">connect<\/span>: <span class="err">cannot reach http:\/\/127\.0\.0\.1:9\/ext\/health/);
    expect(html).toContain('No health report');
  });

  it('answers 404 for a name that is not polled here', async () => {
    const res = await fetch(`${exporter.url}/node/nope`);
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('no node named "nope" is polled here (see / for the list)\n');
  });
});

describe('/config', () => {
  it('shows the resolved configuration with header values, passwords and keys redacted', async () => {
    const html = await (await fetch(`${exporter.url}/config`)).text();
    expect(html).toContain('name: sick');
    expect(html).toContain('X-Api-Key: &#60;secret&#62;');
    expect(html).toContain('username: ops');
    expect(html).toContain('password: &#60;secret&#62;');
    expect(html).not.toContain('super-secret-token-1234');
    expect(html).not.toContain('hunter2-password');
  });
});

describe('/probe?target=…&debug=true', () => {
  it('prints a step-by-step log of one fresh poll: requests, statuses, timings, what was parsed, then the served series', async () => {
    const before = sick.requests.length;
    const res = await fetch(`${exporter.url}/probe?target=sick&debug=true`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/\[health\] poll started \(deadline 500 ms\)/);
    expect(text).toMatch(new RegExp(`\\[health\\] POST ${sick.url.replace(/\./g, '\\.')}/ext/health health\\.health \\{\\}`));
    expect(text).toMatch(/\[health\] {3}→ HTTP 200, \d+ bytes in [\d.]+ ms, node-id NodeID-6NptFsaUZsFk8A626YgwkkgiB8PhqMWxH/);
    expect(text).toMatch(/\[health\] poll succeeded in \d+ ms/);
    expect(text).toMatch(/\[health\] parsed: \{"nodeId":"NodeID-6NptFsaUZsFk8A626YgwkkgiB8PhqMWxH","healthy":false/);
    expect(text).toContain('avalanchego_up{node="sick"} 1');
    expect(sick.requests.length).toBeGreaterThan(before);
  });

  it('shows a failed poll with its reason', async () => {
    const text = await (await fetch(`${exporter.url}/probe?target=gone&debug=true`)).text();
    expect(text).toMatch(/\[health\] {3}→ no answer after \d+ ms/);
    expect(text).toMatch(/\[health\] poll FAILED after \d+ ms, reason=connect: cannot reach/);
  });

  it('never shows a configured secret, even when the node echoes it back', async () => {
    sick.routes.set('/ext/health', {
      status: 401,
      body: 'unauthorized: X-Api-Key super-secret-token-1234 rejected; basic b3BzOmh1bnRlcjItcGFzc3dvcmQ= hunter2-password',
    });
    try {
      // A target is polled for debugging at most once per interval (1 s here): the trace of an earlier test may come first.
      const text = await waitFor(async () => {
        const t = await (await fetch(`${exporter.url}/probe?target=sick&debug=true`)).text();
        return t.includes('HTTP 401') && t;
      }, 'a fresh debug trace');
      expect(text).toContain('X-Api-Key <secret> rejected; basic <secret> <secret>');
      expect(text).not.toContain('super-secret-token-1234');
      expect(text).not.toContain('hunter2-password');
    } finally {
      sick.routes.set('/ext/health', { body: healthAnswer(), headers: { 'node-id': 'NodeID-6NptFsaUZsFk8A626YgwkkgiB8PhqMWxH' } });
    }
  });

  it('is only for configured names', async () => {
    expect((await fetch(`${exporter.url}/probe?target=http://example.com&debug=true`)).status).toBe(404);
  });
});

describe('/probe in every form: one handler, the same answers and the same safe headers', () => {
  it.each<[string, RequestInit | undefined, number, RegExp]>([
    ['/probe?target=fine', undefined, 200, /^# HELP /],
    ['/probe/?target=fine', undefined, 200, /^# HELP /],
    ['/PROBE?target=fine', undefined, 200, /^# HELP /],
    ['/probe?target=fine&debug=false', undefined, 200, /^# HELP /],
    ['/probe?target=fine&debug=true', undefined, 200, /^Debug poll of fine /],
    ['/probe?target=nobody', undefined, 404, /^no configured target named "nobody"/],
    ['/probe?target=nobody&debug=1', undefined, 404, /^no configured target named "nobody"/],
    ['/probe', undefined, 400, /^missing parameter "target"/],
    ['/probe?target=', undefined, 400, /^missing parameter "target"/],
    ['/probe?target=a&target=b', undefined, 400, /^give exactly one "target" parameter/],
    ['/probe?target=fine', { method: 'POST' }, 405, /^method POST not allowed on \/probe; use GET/],
  ])('%s %j: %i', async (path, init, status, body) => {
    const res = await fetch(`${exporter.url}${path}`, init);
    expect(res.status).toBe(status);
    expect(await res.text()).toMatch(body);
    // The safe defaults of every answer of the exporter, the scrape's included.
    expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    if (status === 405) expect(res.headers.get('allow')).toBe('GET');
  });

  it('a HEAD scrape gets the headers and no body', async () => {
    const res = await fetch(`${exporter.url}/probe?target=fine`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('content-length'))).toBeGreaterThan(0);
    expect(await res.text()).toBe('');
  });
});

describe("the node's error text is never a label", () => {
  it('appears in no series of /metrics', async () => {
    const text = await exporter.metrics();
    expect(text).not.toContain('too many processing blocks');
    expect(text).not.toContain('__pwned');
  });
});
