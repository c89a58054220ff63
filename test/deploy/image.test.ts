// The production image's runtime: the Dockerfile builds on a Node.js release line that is still
// supported, pinned to one release (a tag that cannot move under a rebuild), the same in every
// stage; package.json's engines stays what CI runs; the README says which versions are tested;
// and CI runs the fast lane on the image's very release. No Docker engine is needed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defined } from '../helpers/assert.js';
import { ROOT } from './lib.js';

/**
 * End of life of the LTS release lines (the Node.js Release working group's schedule.json). An odd
 * line is never LTS; a line missing here is refused until its date is added.
 */
const END_OF_LIFE: Record<number, string> = {
  20: '2026-04-30',
  22: '2027-04-30',
  24: '2028-04-30',
  26: '2029-04-30',
};

const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const froms = [...dockerfile.matchAll(/^FROM\s+(\S+)/gm)].map((m) => defined(m[1], 'a FROM image'));
/** The Node.js release the image runs: `node:24.21.0-bookworm-slim` → 24.21.0. */
function imageNodeVersion(text = dockerfile): string {
  return defined(/^FROM node:(\d+\.\d+\.\d+)-/m.exec(text)?.[1], 'a FROM node:X.Y.Z-… line in the Dockerfile');
}

describe('the image runs a supported, pinned Node.js', () => {
  it('every stage is the same node:X.Y.Z-<variant> tag: a release, not a line (node:24) or a moving alias (lts)', () => {
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const image of froms) expect(image).toMatch(/^node:\d+\.\d+\.\d+-[a-z]+(-slim)?$/);
    expect(new Set(froms).size, froms.join(', ')).toBe(1);
  });

  it('its release line is an LTS line before its end of life', () => {
    const major = Number(imageNodeVersion().split('.')[0]);
    const end = END_OF_LIFE[major];
    expect(end, `Node.js ${major} is not a known LTS line: add its end of life to this test`).toBeDefined();
    expect(Date.now(), `Node.js ${major} reached its end of life on ${end}: move the Dockerfile to a supported LTS`).toBeLessThan(
      Date.parse(`${end}T00:00:00Z`),
    );
  });

  it("package.json's engines admits the image's release and the one running these tests (CI's)", () => {
    const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    const minimum = Number(defined(/^>=(\d+)(\.\d+\.\d+)?$/.exec(engines)?.[1], `engines.node ${engines} as >=N`));
    expect(Number(imageNodeVersion().split('.')[0])).toBeGreaterThanOrEqual(minimum);
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(minimum);
  });

  it('the README names the tested versions: the lowest engines admits and the image’s release', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(`Node.js ${imageNodeVersion()}`);
    expect(readme).toMatch(/Node\.js 20\b/);
  });

  it(".ci/run runs the fast lane on the image's release, read from the Dockerfile", () => {
    const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
    expect(ci).toContain('Dockerfile');
    expect(ci).toMatch(/node-linux-\$\{?\w+\}?@\$\{?image_node\}?/);
    expect(ci).toContain('npm run test:fast');
  });
});
