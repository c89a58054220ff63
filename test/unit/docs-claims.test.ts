// What the documentation claims, held to the code and the tests. Three kinds of claim went stale unnoticed:
//   1. a check on a real node that no test makes (eth_blockNumber and getCurrentEpoch "on the L1 chain");
//   2. a rule of the code that a later change qualified (a node's timeout "never" includes waiting, false for a
//      node alone on its origin since it counts the wait for its own connections);
//   3. a series said to be absent where the code serves 0 ("no auto_renew series" on older releases).
// Each kind has its check below. A claim of a check names its test with a marker the test resolves:
// `<!-- test: test/real-node/file.test.ts "the test's title" -->`.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOG, GLOBAL_CATALOG } from '../../src/metrics/catalog.js';

/** The operator's documents: the README and docs/, less the pages that describe the real-node suite itself. */
const DOCS = [
  'README.md',
  ...readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const SUITE_PAGES = new Set(['docs/real-node.md', 'docs/detection.md']);

/** Paragraphs and table rows, each with where it starts: the unit a claim and its marker share. */
function blocks(file: string): Array<{ where: string; text: string }> {
  const out: Array<{ where: string; text: string }> = [];
  let current: string[] = [];
  let start = 0;
  const flush = () => {
    if (current.length > 0) out.push({ where: `${file}:${start + 1}`, text: current.join('\n') });
    current = [];
  };
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '' || line.startsWith('|') || line.startsWith('#')) {
        flush();
        if (line.startsWith('|')) out.push({ where: `${file}:${i + 1}`, text: line });
        return;
      }
      if (current.length === 0) start = i;
      current.push(line);
    });
  flush();
  return out;
}

const MARKER = /<!-- test: (\S+) "([^"]+)" -->/g;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether `file` declares a test titled `title` (it/test, with .each/.for/.skipIf…, or a table's second call). */
function declaresTest(source: string, title: string): boolean {
  const quoted = `(['"\`])${escape(title)}\\1`;
  return new RegExp(`(?:\\b(?:it|test)(?:\\.\\w+)*(?:\\([^)]*\\))?\\(|\\]\\)\\(|\\)\\()\\s*${quoted}`).test(source);
}

const markers = DOCS.flatMap((file) =>
  blocks(file).flatMap((b) => [...b.text.matchAll(MARKER)].map((m) => ({ where: b.where, path: m[1] ?? '', title: m[2] ?? '' }))),
);

/** A claim that something was checked on a real node or network. */
const REAL_NODE_CLAIM =
  /\b(real (?:AvalancheGo )?nodes?|local network)\b[\s\S]*\b(checked|verified|tested|run as|runs? against)\b|\b(checked|verified|tested|run as)\b[\s\S]*\b(real (?:AvalancheGo )?nodes?|local network)\b/i;
/** A JSON-RPC method named in a code span: `eth_blockNumber`, `proposervm.getCurrentEpoch`. */
const METHOD = /`((?:eth|net|web3)_\w+|(?:health|index|info|platform|proposervm|admin)\.\w+)`/g;

describe('claims of a check name the test that makes it', () => {
  it('the documents have markers', () => {
    expect(markers.length).toBeGreaterThan(3);
  });

  it.each(markers.map((m) => [`${m.where} → ${m.path} "${m.title}"`, m] as const))('%s is a test that exists', (_name, m) => {
    expect(existsSync(m.path) && statSync(m.path).isFile(), `${m.where}: no file ${m.path}`).toBe(true);
    expect(declaresTest(readFileSync(m.path, 'utf8'), m.title), `${m.where}: ${m.path} has no test "${m.title}"`).toBe(true);
  });

  it('every claim of a real-node check names a test of test/real-node/, which asks each method the claim names', () => {
    const bad: string[] = [];
    for (const file of DOCS.filter((f) => !SUITE_PAGES.has(f))) {
      for (const b of blocks(file)) {
        if (!REAL_NODE_CLAIM.test(b.text)) continue;
        const named = [...b.text.matchAll(MARKER)].map((m) => m[1] ?? '').filter((p) => p.startsWith('test/real-node/'));
        if (named.length === 0) {
          bad.push(`${b.where}: claims a real-node check but names no test of test/real-node/ (<!-- test: path "title" -->)`);
          continue;
        }
        const sources = named.filter((p) => existsSync(p)).map((p) => readFileSync(p, 'utf8'));
        for (const [, method] of b.text.matchAll(METHOD)) {
          if (!sources.some((s) => s.includes(method ?? ''))) bad.push(`${b.where}: claims ${method} was checked; ${named.join(', ')} never asks it`);
        }
      }
    }
    expect(bad).toEqual([]);
  });

  it('the claim check catches a claim without its test, and a method the test does not ask', () => {
    expect(REAL_NODE_CLAIM.test('| v1.14.2 | the five-node local network: `eth_blockNumber` on the L1 chain, checked against the exporter |')).toBe(
      true,
    );
    expect(REAL_NODE_CLAIM.test('Next to a real node (API at the default address), run the binary.')).toBe(false);
    expect(declaresTest("  it('reports it up', async () => {", 'reports it up')).toBe(true);
    expect(declaresTest("  it.for([1])('rows %s', ([n]) => {", 'rows %s')).toBe(true);
    expect(declaresTest("  // 'reports it up' in a comment", 'reports it up')).toBe(false);
  });
});

/** Text files that state what the code does: the documents, the catalog, the rules and their tests, the sources. */
function statements(): Array<{ file: string; text: string }> {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
  const files = [
    ...DOCS,
    ...walk('src').filter((f) => f.endsWith('.ts')),
    ...walk('deploy/prometheus').filter((f) => /\.ya?ml$/.test(f)),
    ...walk('deploy/alertmanager').filter((f) => /\.ya?ml$/.test(f)),
  ];
  return files.map((file) => ({ file, text: readFileSync(file, 'utf8') }));
}

describe('statements of what the code does stay true', () => {
  it("a node's timeout said to exclude every wait mentions the node alone on its origin, whose own wait counts (since cf850ad)", () => {
    // The claims as they were written: the timeout counts only the wire, never any wait; a socket's wait is the exporter's.
    const NEVER =
      /counts only the time (?:it is )?on the wire|timeout`? never includes (?:the |any )?wait|(?:socket|connection)s? to the (?:node's )?origin (?:is|are) the exporter's/i;
    const bad: string[] = [];
    for (const { file, text } of statements()) {
      // A sentence or a string: the unit such a claim and its qualification share.
      for (const unit of text.split(/\n\s*\n|(?<=[.;])\s+(?=[A-Z])/)) {
        if (NEVER.test(unit) && !/alone on its origin/.test(unit)) bad.push(`${file}: ${unit.trim().slice(0, 160)}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('no text says a series is absent where the catalog serves 0 (avalanchego_validator_auto_renew on releases before v1.15)', () => {
    const servedZero = [...CATALOG, ...GLOBAL_CATALOG].filter((m) => /\b0 on releases before\b/.test(m.derivation)).map((m) => m.name);
    expect(servedZero).toContain('avalanchego_validator_auto_renew');
    const bad: string[] = [];
    for (const name of servedZero) {
      // The name as texts shorten it: validator_auto_renew, auto_renew (its last words, two at least).
      const words = name.replace(/^avalanchego_/, '').split('_');
      const shorts = words.slice(0, -1).map((_w, i) => words.slice(i).join('_'));
      const absent = new RegExp(
        `\\bno (?:avalanchego_)?(?:${shorts.map(escape).join('|')}) series\\b[^.]*\\b(?:releases?|versions?|older|before)\\b`,
        'i',
      );
      for (const { file, text } of statements())
        if (absent.test(text.replace(/\s*\n\s*#?\s*/g, ' '))) bad.push(`${file}: says there is no ${name} series`);
    }
    expect(bad).toEqual([]);
  });
});
