// Prometheus text exposition of the per-node catalog. A node's sample lines are
// built once, when its poll ends (NodeLines); a scrape only concatenates them
// under each family's HELP and TYPE, so its cost is proportional to its output.
import { CATALOG, type MetricName, type MetricSpec } from './catalog.js';

const FAMILY_INDEX = new Map<string, number>(CATALOG.map((m, i) => [m.name, i]));
const HEADERS: Buffer[] = CATALOG.map((m: MetricSpec) => Buffer.from(`# HELP ${m.name} ${escapeHelp(m.help)}\n# TYPE ${m.name} ${m.type}\n`));

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * One node's sample lines, one Buffer per catalog family (undefined when it has
 * none). Built once per poll as flat bytes, so a scrape only copies them.
 */
export type NodeLines = ReadonlyArray<Buffer | undefined>;

function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** Collects one node's samples by family. `node` is always the first label. */
export class LinesBuilder {
  private readonly families: string[] = new Array<string>(CATALOG.length).fill('');
  private readonly nodeLabel: string;

  constructor(node: string) {
    this.nodeLabel = `node="${escapeLabelValue(node)}"`;
  }

  add(metric: MetricName, value: number | undefined, labels?: Record<string, string>): void {
    if (value === undefined) return;
    const i = FAMILY_INDEX.get(metric)!;
    let labelText = this.nodeLabel;
    if (labels) for (const key in labels) labelText += `,${key}="${escapeLabelValue(labels[key]!)}"`;
    this.families[i] += `${metric}{${labelText}} ${formatValue(value)}\n`;
  }

  build(): NodeLines {
    return this.families.map((text) => (text ? Buffer.from(text) : undefined));
  }
}

/**
 * One node's lines from its sources' lines (each built when that source's poll
 * ended), family by family in the order given. Done when a poll ends, not per scrape.
 */
export function mergeLines(parts: ReadonlyArray<NodeLines>): NodeLines {
  if (parts.length === 1) return parts[0]!;
  const merged = new Array<Buffer | undefined>(CATALOG.length);
  const chunks: Buffer[] = [];
  for (let i = 0; i < CATALOG.length; i++) {
    chunks.length = 0;
    for (const lines of parts) {
      const chunk = lines[i];
      if (chunk) chunks.push(chunk);
    }
    merged[i] = chunks.length === 0 ? undefined : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  }
  return merged;
}

/** Renders the catalog families for the given nodes, skipping families without samples. */
export function renderNodes(list: ReadonlyArray<NodeLines>): Buffer {
  const parts: Buffer[] = [];
  let size = 0;
  for (let i = 0; i < CATALOG.length; i++) {
    let any = false;
    for (const lines of list) {
      const chunk = lines[i];
      if (!chunk) continue;
      if (!any) {
        parts.push(HEADERS[i]!);
        size += HEADERS[i]!.length;
        any = true;
      }
      parts.push(chunk);
      size += chunk.length;
    }
  }
  return Buffer.concat(parts, size);
}
