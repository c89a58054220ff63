// Runs `npm run build` when dist/main.js is older than any file under src/ (or missing), for
// tests that start the built exporter or simulator as a process.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function buildIfStale(root: string): void {
  const main = join(root, 'dist', 'main.js');
  const newest = (dir: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce((t, e) => {
      const p = join(dir, e.name);
      return Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
    }, 0);
  if (existsSync(main) && statSync(main).mtimeMs >= newest(join(root, 'src'))) return;
  const r = spawnSync('npm', ['run', 'build'], { cwd: root, encoding: 'utf8', timeout: 180_000 });
  if (r.status !== 0) throw new Error(`npm run build failed:\n${r.stdout}${r.stderr}`);
}
