// The L1 page (/l1/<subnet>) in Debian's Chromium driven by playwright-core: three vantages (loopback fake nodes) of an
// L1 whose lightest validator is inactive and whose middle one two vantages of three see disconnected. From / the L1's
// link opens its page: the validators worst first, one column per vantage, the VM without a validators API said once,
// and nothing wider than a 420 px phone. Screenshots go to test-results/browser/.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_CI } from '../rules/lib.js';
import { startFakeNode, waitFor, type FakeNode } from '../helpers/fake-node.js';
import { startTestExporter, type TestExporter } from '../helpers/exporter.js';
import { defined } from '../helpers/assert.js';
import { SUBNET, V0, V1, V2, vantage } from '../helpers/l1-vantage.js';
import { CHROMIUM, MISSING, SHOTS, ARGS } from '../helpers/chromium.js';

describe('the L1 page in Chromium', () => {
  it('chromium is installed (required under CI=true)', (ctx) => {
    if (!existsSync(CHROMIUM) && !IN_CI) ctx.skip(MISSING);
    expect(existsSync(CHROMIUM), MISSING).toBe(true);
  });

  describe.skipIf(!existsSync(CHROMIUM))('Debian Chromium', () => {
    let browser: Browser | undefined;
    let exporter: TestExporter | undefined;
    const nodes: FakeNode[] = [];

    beforeAll(async () => {
      mkdirSync(SHOTS, { recursive: true });
      nodes.push(
        await startFakeNode(vantage(100, ['86400000000', '4000000', '0'], [true, false, true])),
        await startFakeNode(vantage(100, ['86400000000', '4000000', '0'], [true, false, true])),
        await startFakeNode(vantage(99, ['1', '1', '1'], 'not_served')),
      );
      exporter = await startTestExporter(
        `targets:\n${nodes.map((n, i) => `  - name: vantage-${i}\n    url: ${n.url}\n    platform:\n      subnets: [${SUBNET}]\n`).join('')}l1s:\n  - subnet: ${SUBNET}\n    name: dispatch\n    interval: 10s\n`,
      );
      await waitFor(() => (exporter?.scheduler.l1(SUBNET)?.polls ?? 0) >= 1, 'a poll of the L1', 15_000);
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await exporter?.close();
      await Promise.all(nodes.map((n) => n.close()));
    });

    it('from /, opens the L1: worst first, a column per vantage, the VM without the API said', async () => {
      const page = await defined(browser, 'the browser').newPage({ viewport: { width: 1400, height: 900 } });
      await page.goto(`${defined(exporter, 'the exporter').url}/?refresh=off`);
      await page.getByRole('link', { name: '/l1/dispatch' }).click();
      await page.waitForURL(/\/l1\//);
      expect(await page.locator('h1').textContent()).toBe('L1 dispatch');
      const rows = page.locator('table.sec tbody tr');
      expect(await rows.count()).toBe(3);
      // Inactive (V2), then down for two vantages of three (V1), then the rest.
      expect(await rows.nth(0).locator('td').first().textContent()).toContain(V2.nodeID);
      expect(await rows.nth(0).textContent()).toContain('inactive');
      expect(await rows.nth(1).locator('td').first().textContent()).toContain(V1.nodeID);
      expect(await rows.nth(1).textContent()).toContain('down');
      expect(await rows.nth(2).locator('td').first().textContent()).toContain(V0.nodeID);
      expect(await page.locator('table.sec thead th').allTextContents()).toEqual(expect.arrayContaining(['vantage-0', 'vantage-1', 'vantage-2']));
      expect(await rows.nth(1).locator('td[data-col="vantage-0"]').textContent()).toBe('disconnected');
      expect(await rows.nth(1).locator('td[data-col="vantage-2"]').textContent()).toBe('–');
      expect(await page.locator('body').textContent()).toContain('serves no validators API (HTTP 404)');
      // V1 (60, down and a runway of 2 h) and V2 (40, inactive): 100 of 200 at risk.
      expect(await page.locator('ul.faults').textContent()).toContain('50 % of the weight at risk');
      await page.screenshot({ path: join(SHOTS, 'l1-1400.png'), fullPage: true });
      await page.close();
    }, 60_000);

    it('on a 420 px phone: the worst validator on the first screen, nothing wider than the screen', async () => {
      const page = await defined(browser, 'the browser').newPage({ viewport: { width: 420, height: 860 }, deviceScaleFactor: 2, isMobile: true });
      await page.goto(`${defined(exporter, 'the exporter').url}/l1/${SUBNET}`);
      const first = defined(await page.locator('table.sec tbody tr').first().boundingBox(), 'the first validator');
      expect(first.y + first.height).toBeLessThanOrEqual(860);
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(420);
      await page.screenshot({ path: join(SHOTS, 'l1-420.png'), fullPage: true });
      await page.close();
    }, 60_000);
  });
});
