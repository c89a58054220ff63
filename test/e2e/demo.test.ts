// The README's first command: the demo fleet and the exporter, stopped by Ctrl-C.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/fake-node.js';
import { sample } from '../helpers/exporter.js';
import { DEMO_SCENARIOS } from '../../src/demo.js';
import { freePort } from '../helpers/net.js';


describe('demo', () => {
  it('serves every demo node, the down one as up 0, and stops on SIGINT with exit 0', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ['dist/main.js', 'demo', `--web.listen-address=127.0.0.1:${port}`, '--log.format=json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    try {
      const url = `http://127.0.0.1:${port}`;
      await waitFor(async () => (await fetch(`${url}/-/ready`)).status === 200, 'demo ready', 20_000);
      const text = await (await fetch(`${url}/metrics`)).text();
      DEMO_SCENARIOS.forEach((scenario, i) => {
        expect(sample(text, `avalanchego_up{node="${scenario}-${i}"}`), `${scenario}-${i}`).toBe(scenario === 'down' ? 0 : 1);
      });
      expect(stdout).toContain(`Landing page:      ${url}/`);
      const page = await (await fetch(url)).text();
      expect(page).toMatch(/<td class="state bad">down( <span class="dim">for \d+s<\/span>)?<\/td>/);
      child.kill('SIGINT');
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
