// Every scenario the demo's banner names is visible, on the pages (Chromium) and in /metrics:
// the demo runs as a process, and the test waits (with a deadline) until each node shows its
// fault in both. Then the node page's source sections, and the fleet page on a 420 px phone
// (more than one node on its first screen). Screenshots go to test-results/browser/.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SCENARIOS } from '../../src/demo.js';
import type { ScenarioName } from '../../src/simulator/index.js';
import { defined } from '../helpers/assert.js';
import { sample } from '../helpers/exporter.js';
import { waitFor } from '../helpers/fake-node.js';
import { ROOT } from '../rules/lib.js';
import { startDemo, type Demo } from '../helpers/demo.js';
import { CHROMIUM, SHOTS, ARGS } from '../helpers/chromium.js';

const PRIMARY = '11111111111111111111111111111111LpoYY';

/** What shows a scenario: in the node's /metrics series, and in its row on `/` (the row's text; never `notRow`). */
interface Evidence {
  metrics: (text: string, node: string, now: number) => boolean;
  row: RegExp;
  notRow?: RegExp;
}
const m = (text: string, series: string) => sample(text, series);
const EVIDENCE: Partial<Record<ScenarioName, Evidence>> = {
  healthy: { metrics: (t, n) => m(t, `avalanchego_healthy{node="${n}"}`) === 1, row: /\bhealthy\b/ },
  bootstrapping: {
    // The C-Chain RPC answers 503 while the chain bootstraps: a state, not a failed evm poll (issue 20).
    metrics: (t, n) =>
      m(t, `avalanchego_health_check_passing{node="${n}",check="bootstrapped"}`) === 0 &&
      (m(t, `avalanchego_exporter_poll_success{node="${n}",source="evm"}`) ?? 0) === 1,
    row: /^\S+\s+bootstrapping/m,
    notRow: /HTTP 503|\(evm\)|polls failing/,
  },
  'stalled-chain': {
    metrics: (t, n) => (m(t, `avalanchego_chain_processing_blocks{node="${n}",chain="C"}`) ?? 0) > 256,
    row: /too many processing blocks/,
  },
  'disk-filling': { metrics: (t, n) => m(t, `avalanchego_health_check_passing{node="${n}",check="diskspace"}`) === 0, row: /diskspace/ },
  'peers-dropping': {
    metrics: (t, n) => m(t, `avalanchego_network_connected_peers{node="${n}"}`) === 0,
    row: /not connected to a minimum of 1 peer/,
  },
  flapping: { metrics: (t, n) => m(t, `avalanchego_healthy{node="${n}"}`) === 0, row: /unhealthy/ },
  down: { metrics: (t, n) => m(t, `avalanchego_up{node="${n}"}`) === 0, row: /down[\s\S]*connection (closed by the node|refused)/ },
  'uptime-dropping': {
    metrics: (t, n) => (m(t, `avalanchego_uptime_weighted_average_ratio{node="${n}"}`) ?? 1) < 0.8,
    row: /uptime \d+\.\d % < 80 %: no reward/,
  },
  'stake-expiring': {
    metrics: (t, n, now) => (m(t, `avalanchego_validator_end_timestamp_seconds{node="${n}",subnet="${PRIMARY}"}`) ?? Infinity) - now < 3600,
    row: /at risk[\s\S]*stake ends in \d+m/,
  },
  'l1-balance-draining': {
    metrics: (t, n) => t.includes(`avalanchego_l1_validator_balance_navax{node="${n}",`),
    row: /L1 (balance lasts|validator inactive)/,
  },
  // Healthy itself; as a vantage of the L1 it sees another operator's validator disconnected.
  'l1-validator-stopped': {
    metrics: (t, n) =>
      t.split('\n').some((l) => l.startsWith('avalanchego_l1_set_validator_connected{') && l.includes(`node="${n}"`) && l.endsWith(' 0')),
    row: /\bhealthy\b/,
  },
  // The demo switches it once the exporter has seen it validate: a fault, not "not a validator" (as AvalancheGoNoLongerValidator).
  'node-id-changed': {
    metrics: (t, n) =>
      m(t, `avalanchego_info_method_state{node="${n}",method="info.uptime",state="not_validator"}`) === 1 &&
      m(t, `avalanchego_validator{node="${n}",subnet="${PRIMARY}"}`) === 0,
    row: /at risk[\s\S]*no longer a validator \(primary network, subnet \w+…\): its node ID changed/,
  },
  'version-behind': {
    metrics: (t, n) => (m(t, `avalanchego_network_peers_newer_version_ratio{node="${n}"}`) ?? 0) > 0.5,
    row: /at risk[\s\S]*v1\.\d+\.\d+ behind: .*% of peers newer/,
  },
};

describe.skipIf(!existsSync(CHROMIUM))('the demo in Chromium: every scenario visible', () => {
  let browser: Browser | undefined;
  let demo: Demo | undefined;
  let starting: Promise<Demo> | undefined;
  let url = '';

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    // The demo starts while the rest is set up; its readiness is awaited last.
    starting = startDemo(ROOT);
    void starting.catch(() => undefined); // awaited below; afterAll stops it if a later step fails first
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    demo = await starting;
    url = demo.url;
  }, 150_000);

  afterAll(async () => {
    await browser?.close();
    await (demo ?? (await starting?.catch(() => undefined)))?.stop();
  }, 30_000);

  /** Opens every folded section as a person would, one click each. */
  async function openAll(page: Page): Promise<void> {
    const folded = page.locator('details:not([open]) > summary');
    for (let left = await folded.count(); left > 0; left--) await folded.first().click();
    expect(await folded.count()).toBe(0);
  }

  async function rows(page: Page): Promise<Map<string, string>> {
    await page.reload();
    const texts = await page.locator('table.fleet tbody tr').allInnerTexts();
    return new Map(texts.map((t) => [t.split(/\s/)[0] ?? '', t]));
  }

  it('every scenario of the banner shows on / and in /metrics', async () => {
    const page = await defined(browser, 'the browser').newPage({ viewport: { width: 1500, height: 1000 } });
    await page.goto(`${url}/?refresh=off`);
    const pending = new Map(DEMO_SCENARIOS.map((s, i) => [`node-${i}`, s] as const));
    // Faults develop over seconds (time runs 10x) and a flapping node is healthy half the time:
    // each node's evidence is seen once, in both places at the same look.
    await waitFor(
      async () => {
        const metrics = await (await fetch(`${url}/metrics`)).text();
        const byNode = await rows(page);
        const now = Date.now() / 1000;
        for (const [node, scenario] of pending) {
          const e = defined(EVIDENCE[scenario], `evidence for ${scenario}`);
          const row = byNode.get(node) ?? '';
          if (e.metrics(metrics, node, now) && e.row.test(row) && !e.notRow?.test(row)) pending.delete(node);
        }
        return pending.size === 0;
      },
      'every scenario visible',
      120_000,
    ).catch((err: unknown) => {
      throw new Error(`not visible: ${[...pending].map(([n, s]) => `${n} (${s})`).join(', ')}: ${String(err)}`);
    });
    await page.screenshot({ path: join(SHOTS, 'fleet-wide.png'), fullPage: true });
    // A validator at risk ranks above a healthy node; so does one that is no longer a validator.
    const order = [...(await rows(page)).keys()];
    const healthy = order.indexOf(`node-${DEMO_SCENARIOS.indexOf('healthy')}`);
    for (const scenario of ['stake-expiring', 'node-id-changed'] as const) {
      const atRisk = order.indexOf(`node-${DEMO_SCENARIOS.indexOf(scenario)}`);
      expect(atRisk, scenario).toBeGreaterThanOrEqual(0);
      expect(atRisk, scenario).toBeLessThan(healthy);
    }
    await page.close();
  }, 150_000);

  it('the node page has a section per source: health, index, info, platform', async () => {
    const node = `node-${DEMO_SCENARIOS.indexOf('stake-expiring')}`;
    const page = await defined(browser, 'the browser').newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${url}/node/${node}`);
    const headings = await page.locator('h2').allInnerTexts();
    expect(headings).toEqual(
      expect.arrayContaining(['Health checks', 'Node (info API)', 'Validator (platform API)', 'Sources and their last polls']),
    );
    // A section without a fault is folded (its heading shows); a person opens it.
    const health = page.locator('details', { has: page.locator('h2', { hasText: 'Health checks' }) });
    expect(await health.getAttribute('open')).toBeNull();
    await openAll(page);
    const text = await page.locator('body').innerText();
    expect(text).toMatch(/version\s+1\.\d+\.\d+/);
    expect(text).toMatch(/uptime \(stake-weighted, as the network sees it\)\s+\d+(\.\d)? %/);
    expect(text).toMatch(/primary network: uptime its reward needs\s+(80|90) %/);
    expect(text).toMatch(/primary network: ends\s+in \d+m/);
    // Its state and why, at the top, as on /.
    expect(text).toMatch(/at risk for \d+[\s\S]*stake ends in \d+m/);
    await page.screenshot({ path: join(SHOTS, 'node-validator.png'), fullPage: true });
    await page.close();
  }, 60_000);

  it('a node that is no longer a validator: flagged at the top of its page, its platform section open', async () => {
    const node = `node-${DEMO_SCENARIOS.indexOf('node-id-changed')}`;
    const page = await defined(browser, 'the browser').newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${url}/node/${node}`);
    expect(await page.locator('p.head').innerText()).toMatch(/^at risk/);
    expect(await page.locator('ul.faults li').first().innerText()).toMatch(
      /^no longer a validator \(primary network, subnet \w+…\): its node ID changed$/,
    );
    const platform = page.locator('details', { has: page.locator('h2', { hasText: 'Validator (platform API)' }) });
    expect(await platform.getAttribute('open')).toBe('');
    expect(await platform.innerText()).toMatch(/primary network\s+no longer a validator: it was one as NodeID-\w+, and runs as NodeID-\w+ now/);
    await page.screenshot({ path: join(SHOTS, 'node-no-longer-validator.png'), fullPage: true });
    await page.close();
  }, 60_000);

  it('the node page on a 420 px phone: its state and first fault on the first screen, nothing wider than the screen', async () => {
    const page = await defined(browser, 'the browser').newPage({ viewport: { width: 420, height: 860 }, deviceScaleFactor: 2, isMobile: true });
    for (const scenario of ['stalled-chain', 'node-id-changed', 'down', 'bootstrapping', 'healthy'] as const) {
      const node = `node-${DEMO_SCENARIOS.indexOf(scenario)}`;
      await page.goto(`${url}/node/${node}`);
      const state = defined(await page.locator('p.head').boundingBox(), `${node}: its state`);
      expect(state.y + state.height, `${node}: its state on the first screen`).toBeLessThanOrEqual(860);
      if (scenario !== 'healthy') {
        const fault = defined(await page.locator('ul.faults li').first().boundingBox(), `${node}: its first fault`);
        expect(fault.y + fault.height, `${node}: its first fault on the first screen`).toBeLessThanOrEqual(860);
      }
      // Every section's heading shows, folded unless it has a fault: the page stays a few screens long.
      for (const details of await page.locator('details.sec').all()) expect(await details.locator('summary h2').isVisible()).toBe(true);
      expect(await page.evaluate('document.documentElement.scrollHeight'), `${node}: the page's height`).toBeLessThanOrEqual(4 * 860);
      expect(await page.evaluate('document.documentElement.scrollWidth'), `${node}: no sideways scrolling`).toBeLessThanOrEqual(420);
      await page.screenshot({ path: join(SHOTS, `node-420-${scenario}.png`), fullPage: true });
      // Opened, every table stacks: still nothing wider than the screen.
      await openAll(page);
      expect(await page.evaluate('document.documentElement.scrollWidth'), `${node} opened: no sideways scrolling`).toBeLessThanOrEqual(420);
    }
    await page.close();
  }, 60_000);

  it('on a 420 px phone, the first screen shows more than one node', async () => {
    const page = await defined(browser, 'the browser').newPage({ viewport: { width: 420, height: 860 }, deviceScaleFactor: 2, isMobile: true });
    await page.goto(`${url}/?refresh=off`);
    const rowsShown = page.locator('table.fleet tbody tr');
    const bottoms: number[] = [];
    for (let i = 0; i < Math.min(await rowsShown.count(), 6); i++) {
      const box = await rowsShown.nth(i).boundingBox();
      if (box) bottoms.push(box.y + box.height);
    }
    const onFirstScreen = bottoms.filter((bottom) => bottom <= 860).length;
    await page.screenshot({ path: join(SHOTS, 'fleet-420.png') });
    expect(onFirstScreen).toBeGreaterThan(1);
    // Nothing wider than the screen: no sideways scrolling to read a node.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(420);
    await page.goto(`${url}/node/node-${DEMO_SCENARIOS.indexOf('down')}`);
    await page.screenshot({ path: join(SHOTS, 'node-420.png'), fullPage: true });
    await page.close();
  }, 60_000);
});
