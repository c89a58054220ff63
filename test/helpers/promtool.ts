// `promtool check metrics` over exposition text, from both promtool generations the tests
// run (the current Prometheus 3 build and Debian's 2.42): no finding is accepted.
import { spawnSync } from 'node:child_process';
import { IN_CI } from '../rules/lib.js';
import { prometheusGenerations } from './monitoring.js';

/** One promtool's findings (one per line); a parse error (exit status other than 0 and 3) is a finding by itself. */
export function promtoolFindings(promtool: string, text: string): string[] {
  const res = spawnSync(promtool, ['check', 'metrics'], { input: text, encoding: 'utf8', timeout: 20_000 });
  if (res.error) throw res.error;
  const findings = `${res.stdout}${res.stderr}`
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  // Exit status 3 is "lint findings only"; anything else non-zero is a parse error.
  if (res.status !== 0 && res.status !== 3 && findings.length === 0) findings.push(`promtool exited with ${res.status}`);
  return findings;
}

/**
 * The findings of every promtool generation, each prefixed with its label ("Prometheus
 * 3.16.0: …"). A missing promtool is a finding under CI=true and skipped elsewhere; with
 * none installed at all the check cannot run, and that is a finding too.
 */
export function promtoolCheckMetrics(text: string): string[] {
  const findings: string[] = [];
  let ran = 0;
  for (const g of prometheusGenerations()) {
    if (!g.promtool.path) {
      if (IN_CI) findings.push(`${g.label}: ${g.promtool.missing}`);
      continue;
    }
    ran++;
    findings.push(...promtoolFindings(g.promtool.path, text).map((f) => `${g.label}: ${f}`));
  }
  if (ran === 0) findings.push('no promtool to run: install the Debian package "prometheus" or build Prometheus 3 (.ci/go-tools.sh)');
  return findings;
}
