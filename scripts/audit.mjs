#!/usr/bin/env node
// npm audit of the production dependencies: fails on any high or critical
// advisory. Run by .ci/run. When the registry's advisory endpoint cannot be
// reached (a mirror or proxy that does not serve it), says so on one line and
// exits 0: that is not a finding, and CI must not pass or fail on the network.
import { spawnSync } from 'node:child_process';

/** The verdict for `npm audit --json` output: { ok, line }. */
export function judge(text) {
  let report;
  try {
    report = JSON.parse(text);
  } catch {
    return { ok: false, line: `npm audit: unreadable output: ${text.slice(0, 200)}` };
  }
  const counts = report?.metadata?.vulnerabilities;
  if (!counts) {
    const why = report?.error?.summary || report?.message || 'no vulnerability counts in the answer';
    return { ok: true, unchecked: true, line: `npm audit: NOT CHECKED: the advisory endpoint did not answer (${String(why).slice(0, 200)})` };
  }
  const bad = Object.entries(report.vulnerabilities ?? {})
    .filter(([, v]) => v.severity === 'high' || v.severity === 'critical')
    .map(([name, v]) => `${name} (${v.severity})`);
  const line = `npm audit (production dependencies): ${counts.critical ?? 0} critical, ${counts.high ?? 0} high, ${counts.moderate ?? 0} moderate, ${counts.low ?? 0} low`;
  return bad.length > 0 ? { ok: false, line: `${line}: ${bad.join(', ')}; run npm audit --omit=dev for the fixes` } : { ok: true, line };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = spawnSync('npm', ['audit', '--omit=dev', '--json'], { encoding: 'utf8' });
  const verdict = judge(r.stdout || r.stderr || '');
  console.log(verdict.line);
  process.exitCode = verdict.ok ? 0 : 1;
}
