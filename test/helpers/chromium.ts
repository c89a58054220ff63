// Debian's Chromium for the browser tests (driven by playwright-core; never a downloaded browser): where it is,
// the flags of a headless Chromium on a machine with no network but loopback, and where screenshots go.
import { join } from 'node:path';
import { ROOT } from '../rules/lib.js';

export const CHROMIUM = '/usr/bin/chromium';
export const MISSING = `${CHROMIUM} not found (apt-get install chromium; .ci/run installs it)`;
export const SHOTS = join(ROOT, 'test-results', 'browser');
export const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
