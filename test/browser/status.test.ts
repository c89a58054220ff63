// The status pages in a real browser: Debian's Chromium driven by playwright-core (never a
// downloaded browser). The demo fleet runs as a process; the test loads /, finds the failing
// node, opens its page and reads the node's error text. A second exporter polls a node whose
// check name and error text carry HTML: both are shown as text, nothing runs. Screenshots go
// to test-results/browser/.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_CI, ROOT } from '../rules/lib.js';
import { startFakeNode, type FakeNode } from '../helpers/fake-node.js';
import { startTestExporter, waitForPolls, type TestExporter } from '../helpers/exporter.js';
import { defined } from '../helpers/assert.js';
import { DEMO_SCENARIOS } from '../../src/demo.js';
import { startDemo, type Demo } from '../helpers/demo.js';
import { CHROMIUM, MISSING, SHOTS, ARGS } from '../helpers/chromium.js';

describe('status pages in Chromium', () => {
  it('chromium is installed (required under CI=true)', (ctx) => {
    if (!existsSync(CHROMIUM) && !IN_CI) ctx.skip(MISSING);
    expect(existsSync(CHROMIUM), MISSING).toBe(true);
  });

  describe.skipIf(!existsSync(CHROMIUM))('Debian Chromium', () => {
    // Set by beforeAll; undefined when it failed part-way (afterAll stops what was started).
    let browser: Browser | undefined;
    let demo: Demo | undefined;
    let starting: Promise<Demo> | undefined;
    let demoUrl = '';
    let hostile: FakeNode | undefined;
    let exporter: TestExporter | undefined;
    const dialogs: string[] = [];

    async function open(url: string): Promise<Page> {
      const page = await defined(browser, 'the browser').newPage({ viewport: { width: 1400, height: 900 } });
      page.on('dialog', (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      await page.goto(url);
      return page;
    }

    beforeAll(async () => {
      mkdirSync(SHOTS, { recursive: true });
      // The demo starts while the rest is set up; its readiness is awaited last.
      starting = startDemo(ROOT);
      void starting.catch(() => undefined); // awaited below; afterAll stops it if a later step fails first
      hostile = await startFakeNode({
        '/ext/health': {
          body: JSON.stringify({
            jsonrpc: '2.0',
            result: {
              healthy: false,
              checks: {
                '<img src=x onerror="window.__pwned=1">': {
                  message: {},
                  error: { message: '<script>window.__pwned=2</script><b>not bold</b>' },
                  timestamp: new Date().toISOString(),
                  duration: 1,
                  contiguousFailures: 1,
                },
              },
            },
            id: 1,
          }),
        },
      });
      exporter = await startTestExporter(
        `defaults: {interval: 1s, timeout: 500ms, index: {endpoints: []}}\ntargets:\n  - name: hostile\n    url: ${hostile.url}\n`,
      );
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
      await waitForPolls(exporter, 1);
      demo = await starting;
      demoUrl = demo.url;
    }, 150_000);

    afterAll(async () => {
      await browser?.close();
      await exporter?.close();
      await hostile?.close();
      await (demo ?? (await starting?.catch(() => undefined)))?.stop();
    }, 30_000);

    it("on /, finds the node with a stalled chain, opens its page and reads the node's error text", async () => {
      const page = await open(`${demoUrl}/?refresh=off`);
      // The stalled chain's node shows its failing check once the simulated processing queue fills.
      const row = page.locator('tbody tr', { hasText: 'too many processing blocks' }).first();
      await row.waitFor({ timeout: 30_000 }).catch(async () => {
        await page.reload();
        await row.waitFor({ timeout: 30_000 });
      });
      await page.screenshot({ path: join(SHOTS, 'fleet.png'), fullPage: true });
      const name = (await row.locator('td.name a').innerText()).trim();
      // The demo names its nodes as the simulator does (node-<i>); node i runs DEMO_SCENARIOS[i].
      expect(name).toBe(`node-${DEMO_SCENARIOS.indexOf('stalled-chain')}`);
      expect(await row.locator('td.state').innerText()).toMatch(/^unhealthy for \d/);
      await row.locator('td.name a').click();
      await page.waitForURL(`**/node/${name}`);
      await expect.poll(() => page.locator('h1').innerText()).toBe(name);
      const check = page.locator('tr', { has: page.locator('td', { hasText: /^C$/ }) }).first();
      expect(await check.locator('.err').innerText()).toMatch(/too many processing blocks: \d+ > \d+/);
      await page.screenshot({ path: join(SHOTS, 'node.png'), fullPage: true });
      // From the node page, the raw series of that node.
      await page.locator('a', { hasText: 'raw series (/probe)' }).click();
      expect(await page.locator('body').innerText()).toContain(`avalanchego_up{node="${name}"} 1`);
      await page.close();
    }, 90_000);

    it('shows a check name and an error text that carry HTML as text: nothing is injected, nothing runs', async () => {
      for (const path of ['/', '/node/hostile']) {
        const page = await open(`${defined(exporter, 'the exporter').url}${path}`);
        const text = await page.locator('body').innerText();
        expect(text).toContain('<img src=x onerror="window.__pwned=1">');
        expect(text).toContain('<script>window.__pwned=2</script><b>not bold</b>');
        expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
        expect(await page.locator('img').count()).toBe(0);
        expect(await page.locator('td b', { hasText: 'not bold' }).count()).toBe(0);
        await page.screenshot({ path: join(SHOTS, `hostile${path === '/' ? '-fleet' : '-node'}.png`), fullPage: true });
        await page.close();
      }
      expect(dialogs).toEqual([]);
    }, 60_000);
  });
});
