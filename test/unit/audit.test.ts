// scripts/audit.mjs, the CI gate on production dependencies: its verdict on npm audit's JSON.
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import * as auditScript from '../../scripts/audit.mjs';

/** What judge() of scripts/audit.mjs returns, the fields the test reads (the script has no types). */
interface Verdict {
  ok: boolean;
  unchecked?: boolean;
  line: string;
}
const { judge } = auditScript as { judge: (text: string) => Verdict };

const report = (vulnerabilities: Record<string, { severity: string }>, counts: Record<string, number>) =>
  JSON.stringify({ vulnerabilities, metadata: { vulnerabilities: { info: 0, low: 0, moderate: 0, high: 0, critical: 0, ...counts } } });

describe('npm audit gate', () => {
  it.each([
    ['no advisory', report({}, {}), true, /0 critical, 0 high, 0 moderate, 0 low$/],
    ['a moderate one only', report({ a: { severity: 'moderate' } }, { moderate: 1 }), true, /1 moderate/],
    ['a high one', report({ express: { severity: 'high' } }, { high: 1 }), false, /1 high.*express \(high\)/],
    ['a critical one', report({ x: { severity: 'critical' } }, { critical: 1 }), false, /x \(critical\)/],
    [
      'the endpoint refused',
      JSON.stringify({ message: '405 Method Not Allowed', statusCode: 405 }),
      true,
      /NOT CHECKED: the advisory endpoint did not answer \(405/,
    ],
    ['not JSON', 'npm ERR! boom', false, /unreadable output/],
  ])('%s', (_name, text, ok, line) => {
    const verdict = judge(text);
    expect(verdict.ok).toBe(ok);
    expect(verdict.line).toMatch(line);
  });
});
