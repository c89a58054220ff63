#!/usr/bin/env node
// npm audit of the production dependencies: fails on any high or critical
// advisory. Run by .ci/run. When the registry's advisory endpoint cannot be
// reached (a mirror or proxy that does not serve it), says so on one line and
// exits 0: that is not a finding, and CI must not pass or fail on the network.
import { spawnSync } from 'node:child_process';

/**
 * Whether a parsed JSON value is an object (or array), whose fields can be read.
 * @param {unknown} v
 * @returns {v is Record<string, unknown>}
 */
const isObject = (v) => typeof v === 'object' && v !== null;

/**
 * The field `key` of a parsed JSON value; undefined when it is not an object.
 * @param {unknown} v
 * @param {string} key
 * @returns {unknown}
 */
const field = (v, key) => (isObject(v) ? v[key] : undefined);

/**
 * A parsed JSON value as text: a string as it is, anything else as JSON.
 * @param {unknown} v
 * @returns {string}
 */
const asText = (v) => (typeof v === 'string' ? v : JSON.stringify(v));

/**
 * The verdict for `npm audit --json` output.
 * @param {string} text
 * @returns {{ ok: boolean, unchecked?: true, line: string }}
 */
export function judge(text) {
  /** @type {unknown} */
  let report;
  try {
    report = JSON.parse(text);
  } catch {
    return { ok: false, line: `npm audit: unreadable output: ${text.slice(0, 200)}` };
  }
  const counts = field(field(report, 'metadata'), 'vulnerabilities');
  if (!counts) {
    const why = field(field(report, 'error'), 'summary') || field(report, 'message') || 'no vulnerability counts in the answer';
    return { ok: true, unchecked: true, line: `npm audit: NOT CHECKED: the advisory endpoint did not answer (${asText(why).slice(0, 200)})` };
  }
  const vulnerabilities = field(report, 'vulnerabilities');
  const bad = Object.entries(isObject(vulnerabilities) ? vulnerabilities : {}).flatMap(([name, v]) => {
    const severity = field(v, 'severity');
    return severity === 'high' || severity === 'critical' ? [`${name} (${severity})`] : [];
  });
  /** @param {string} severity */
  const count = (severity) => asText(field(counts, severity) ?? 0);
  const line = `npm audit (production dependencies): ${count('critical')} critical, ${count('high')} high, ${count('moderate')} moderate, ${count('low')} low`;
  return bad.length > 0 ? { ok: false, line: `${line}: ${bad.join(', ')}; run npm audit --omit=dev for the fixes` } : { ok: true, line };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = spawnSync('npm', ['audit', '--omit=dev', '--json'], { encoding: 'utf8' });
  const verdict = judge(r.stdout || r.stderr || '');
  console.log(verdict.line);
  process.exitCode = verdict.ok ? 0 : 1;
}
