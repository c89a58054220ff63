// The static gate of `npm test`: typescript-eslint (strict, type-aware) over
// src/, test/, bench/, grafana/ and scripts/ (`npm run lint`), and tsc over the
// code and its tests. No finding is recorded or hidden: there is no bulk
// suppressions file, and eslint.config.mjs turns inline disable comments off.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

function run(command: string, args: string[]): { status: number | null; output: string } {
  const r = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, FORCE_COLOR: '0' } });
  if (r.error) throw r.error;
  return { status: r.status, output: `${r.stdout}${r.stderr}`.trim() };
}

describe('static checks', () => {
  // About 1.5 minutes alone on 2 cores; 8 when the machine is shared with other suites.
  it('npm run lint finds nothing', () => {
    const { status, output } = run('npm', ['run', '--silent', 'lint']);
    expect(status, `npm run lint:\n${output}`).toBe(0);
  }, 1_200_000);

  it('has no finding recorded in a suppressions file, and inline eslint-disable comments are off', () => {
    expect(existsSync('eslint-suppressions.json'), 'fix the findings instead of recording them').toBe(false);
    expect(readFileSync('eslint.config.mjs', 'utf8')).toMatch(/linterOptions:\s*\{\s*noInlineConfig:\s*true/);
  });

  it('tsc type-checks src/, test/ and bench/ (tsconfig.json)', () => {
    const { status, output } = run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json', '--noEmit']);
    expect(status, output).toBe(0);
  }, 300_000);
});
