// The exporter's version, read once from package.json; the git revision from
// the environment (set by the Docker build), else "unknown".
import { readFileSync } from 'node:fs';

function readVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export const VERSION = readVersion();
export const REVISION = process.env.AVALANCHEGO_EXPORTER_REVISION || 'unknown';
