// Release basics a user expects: the licence file matches package.json, the repository
// field is the one the runbook links and the systemd unit name, the example configuration
// passes --config.check as shipped, and the systemd notes install the package with production
// dependencies only (test/deploy/package.test.ts runs them).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, RUNBOOK_BASE, alertRules } from '../rules/lib.js';
import { CHART, findTool, parseManifests, run } from '../deploy/lib.js';
import { defined } from '../helpers/assert.js';

const helm = findTool('helm', ['version', '--short'], true);

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  license: string;
  repository: { type: string; url: string };
  homepage: string;
};
const REPO = 'https://github.com/avalanchego-exporter/avalanchego-exporter';

describe('release basics', () => {
  it('LICENSE is the Apache License 2.0 that package.json names', () => {
    expect(pkg.license).toBe('Apache-2.0');
    const text = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
    expect(text).toContain('Apache License\n                           Version 2.0, January 2004');
    expect(text).toContain('END OF TERMS AND CONDITIONS');
  });

  it('the repository field is the repository that the runbook links and the docs name', () => {
    expect(pkg.repository).toEqual({ type: 'git', url: `git+${REPO}.git` });
    expect(pkg.homepage.startsWith(REPO)).toBe(true);
    expect(RUNBOOK_BASE).toBe(`${REPO}/blob/main/docs/runbook.md`);
    for (const a of alertRules()) expect(a.annotations?.runbook_url?.startsWith(`${RUNBOOK_BASE}#`), a.alert).toBe(true);
    expect(readFileSync(join(ROOT, 'deploy', 'systemd', 'avalanchego-exporter.service'), 'utf8')).toContain(`Documentation=${REPO}`);
  });

  // Without helm, test/deploy/helm.test.ts says so (and fails under CI).
  it.skipIf(!helm.path)("the runbook base URL is a value of the Helm chart; by default the repository's runbook", () => {
    const urls = (extra: string[]) => {
      const r = run(defined(helm.path, 'helm'), ['template', 'x', CHART, '--set', 'prometheusRule.enabled=true', ...extra]);
      expect(r.code, r.output).toBe(0);
      const rule = parseManifests(r.stdout).find((o) => o.kind === 'PrometheusRule') as unknown as {
        spec: { groups: Array<{ rules: Array<{ alert?: string; annotations?: { runbook_url?: string } }> }> };
      };
      return rule.spec.groups
        .flatMap((g) => g.rules)
        .filter((x) => x.alert)
        .map((x) => x.annotations?.runbook_url);
    };
    const byDefault = urls([]);
    expect(byDefault.length).toBe(alertRules().length);
    for (const u of byDefault) expect(u).toMatch(new RegExp(`^${RUNBOOK_BASE.replaceAll('.', '\\.')}#avalanchego[a-z0-9]+$`));
    for (const u of urls(['--set', 'prometheusRule.runbookBaseUrl=https://wiki.example.org/runbook']))
      expect(u).toMatch(/^https:\/\/wiki\.example\.org\/runbook#avalanchego[a-z0-9]+$/);
  });

  it('config.example.yaml passes --config.check as shipped (no variable to set)', (ctx) => {
    const main = join(ROOT, 'dist', 'main.js');
    if (!existsSync(main)) ctx.skip(`${main} is missing: run npm run build first`);
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^NODE_(TOKEN|PASSWORD)$/.test(k)));
    const r = spawnSync(process.execPath, [main, '--config.file=config.example.yaml', '--config.check'], {
      cwd: ROOT,
      encoding: 'utf8',
      env,
      timeout: 30_000,
    });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
  });

  it('the systemd notes install the packed tarball with production dependencies only, and the unit runs its binary', () => {
    const unit = readFileSync(join(ROOT, 'deploy', 'systemd', 'avalanchego-exporter.service'), 'utf8');
    const notes = unit
      .split('\n')
      .filter((l) => l.startsWith('#'))
      .join('\n');
    // On the host: the package's dist/ and its production dependencies, no dev tools, no build.
    expect(notes).toContain('npm ci && npm pack');
    expect(notes).toContain('npm install --global --omit=dev --prefix /opt/avalanchego-exporter ./avalanchego-exporter-*.tgz');
    expect(notes).toContain('avalanchego-exporter.sysusers as /etc/sysusers.d/avalanchego-exporter.conf');
    // The binary, not a fixed /usr/bin/node (Debian 12's is Node.js 18); the node on PATH runs it.
    expect(unit).toContain('ExecStart=/opt/avalanchego-exporter/bin/avalanchego-exporter ');
    expect(unit).not.toContain('/usr/bin/node');
    expect(unit).toMatch(/^Environment=PATH=\/usr\/local\/bin:/m);
  });
});
