// A vitest reporter for CI logs that are read from their tail: one `FAILED <file> > <where>: <message>`
// line per failure, hooks and load errors included (vitest's JSON report names a failed
// test's message but not a failed beforeAll's: its file is "failed" with an empty message).
// The lines go to the file named by $VITEST_FAILURE_LINES (.ci/run prints them last); without it,
// the reporter does nothing.
import { appendFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

interface Err {
  message?: string;
  name?: string;
  stack?: string;
}

function first(e: Err): string {
  const message = (e.message ?? e.name ?? 'no message').split('\n')[0] ?? '';
  // Where in a test file it was thrown: the first frame under test/ (a hook's error names no test).
  const frame = (e.stack ?? '').split('\n').find((l) => /\/test\/.*\.ts:\d+/.test(l) && !l.includes('/test/helpers/failure-lines'));
  const at = frame?.match(/(test\/[^\s():]+\.ts:\d+)/)?.[1];
  return `${message.slice(0, 300)}${at === undefined ? '' : ` (at ${at})`}`;
}

export default class FailureLines implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<Err>): void {
    const out = process.env.VITEST_FAILURE_LINES;
    if (out === undefined || out === '') return;
    const lines: string[] = [];
    for (const m of modules) {
      const file = m.relativeModuleId;
      for (const e of m.errors()) lines.push(`FAILED ${file}: ${first(e)}`);
      for (const s of m.children.allSuites()) for (const e of s.errors()) lines.push(`FAILED ${file} > ${s.fullName} (a hook): ${first(e)}`);
      for (const t of m.children.allTests('failed')) {
        const errors = t.result().errors ?? [];
        lines.push(`FAILED ${file} > ${t.fullName}: ${errors[0] === undefined ? 'failed with no error' : first(errors[0])}`);
      }
    }
    for (const e of unhandled) lines.push(`FAILED (an unhandled error, outside any test): ${first(e)}`);
    if (lines.length > 0) appendFileSync(out, `${lines.join('\n')}\n`);
  }
}
