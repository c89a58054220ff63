// Targets that poll one node: four targets on one URL serve four identical node_ids, and a sum over the fleet counts
// that node four times. Valid (a test rig may want it), so a warning, with the line of each repeat.
import { readRegularFile } from '../util/files.js';
import { parseYaml } from './document.js';
import { MAX_CONFIG_BYTES } from './load.js';
import type { Config } from './schema.js';

/** One warning per URL polled by more than one target, `file:line: …` at each repeat when the file is given. */
export function duplicateUrlWarnings(config: Pick<Config, 'targets' | 'origin'>, file?: string): string[] {
  const byUrl = new Map<string, number[]>();
  config.targets.forEach((t, i) => {
    const list = byUrl.get(t.url);
    if (list) list.push(i);
    else byUrl.set(t.url, [i]);
  });
  let locate: ((i: number) => number | undefined) | undefined;
  if (file !== undefined) {
    try {
      const parsed = parseYaml(readRegularFile(file, MAX_CONFIG_BYTES));
      if ('locate' in parsed) locate = (i) => parsed.locate(['targets', i, 'url']).line;
    } catch {
      // The file was read a moment ago; without it, the warning names the targets only.
    }
  }
  const warnings: string[] = [];
  for (const [url, indexes] of byUrl) {
    if (indexes.length < 2) continue;
    const names = indexes.map((i) => JSON.stringify(config.targets[i]?.name ?? ''));
    for (const i of indexes.slice(1)) {
      const line = locate?.(i);
      const where = line !== undefined ? `${file ?? config.origin}:${line}` : config.origin;
      warnings.push(
        `${where}: target ${JSON.stringify(config.targets[i]?.name ?? '')} polls ${url}, as ${names[0] ?? ''} does (${indexes.length} targets: ${names.join(', ')}): each serves the same node_id, and sums over the fleet count that node ${indexes.length} times; keep one target per node (the shipped fleet rules count each node_id once)`,
      );
    }
  }
  return warnings;
}
