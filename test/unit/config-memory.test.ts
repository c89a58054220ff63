// A config keeps none of the text it was read from. V8 makes a substring of 13 characters or more a "sliced string"
// that holds its whole parent; the YAML library's plain scalars are such slices of the file's text, so one subnet ID
// kept by a target would keep the whole file. Every reload makes new targets, the old ones live on while they are
// configured: the 1,000-node soak held 15 copies of its 54 KiB file after 15 reloads, one for each reload that made
// a target still configured (its heap grew 3.7 % an hour, the steps halving as the old targets went).
import { describe, expect, it } from 'vitest';
import { fullCollection } from '../../src/server/debug-state.js';
import { parseConfigText } from '../../src/sources/registry.js';

/** V8's full collection, as /-/debug/state takes it. */
const gc = fullCollection();

const SUBNET = '2v3qLBtRK4VHC1W1JJMgKYPrSzsXEc83DuWBrhhLKRJXJbiRVA';
/** A config file of about 1 MiB: a long comment, then one target and one L1 of strings long enough to be slices. */
const text = (i: number) =>
  `# ${'a comment line of a long config file '.repeat(28_000)}\n` +
  `defaults:\n  platform:\n    subnets: [${SUBNET}]\n` +
  `targets:\n  - name: validator-number-${i}-of-the-fleet\n    url: http://127.0.0.1:9650/some/path/to/node-${i}\n` +
  `l1s:\n  - subnet: ${SUBNET}\n    name: the-l1-of-the-fleet-number-${i}\n`;

describe('a config read from YAML', () => {
  it('keeps none of the text: 40 configs of 1 MiB files held, the heap grows by far less than one file each', () => {
    expect(text(0).length).toBeGreaterThan(1_000_000);
    const kept = [];
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 40; i++) kept.push(parseConfigText(text(i), `c${i}.yaml`, {}));
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    // The strings a target keeps are its own: what the 40 configs hold is a few KiB each (40 MiB with the texts).
    expect(kept.map((c) => c.targets[0]?.name)).toContain('validator-number-39-of-the-fleet');
    expect(grown).toBeLessThan(4 * 2 ** 20);
  });
});
