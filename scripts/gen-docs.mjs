// Writes the generated parts of the repository (run after `npm run build`; `npm run docs` does both):
// the README's metric-families and alerts tables, the full references docs/metrics.md and
// docs/configuration.md, the list of public names docs/public-names.txt (names only join it: one that
// leaves the catalog or the schema needs a [CHANGE] line in CHANGELOG.md, test/unit/docs.test.ts),
// and the Helm chart's copies of the rule files. The chart holds copies, not symbolic links: `npm pack`
// drops symbolic links, and the packed chart would render without its rules (test/deploy/package.test.ts).
//
// `npm run docs -- --check` writes nothing: it lists the files that are out of date and exits 1.
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';
import { alertsTable, configTable, mergePublicNames, metricFamiliesTable, metricsTable, replaceSection } from '../dist/docs/reference.js';

const check = process.argv.includes('--check');
const ruleFiles = readdirSync('deploy/prometheus')
  .filter((n) => /\.ya?ml$/.test(n))
  .sort();
/** @type {unknown[]} */
const rules = ruleFiles.map((f) => /** @type {unknown} */ (parse(readFileSync(`deploy/prometheus/${f}`, 'utf8'))));

/** @type {Map<string, string>} each generated file's path and the text it should have */
const want = new Map();
/** @param {string} path @returns {string} */
const read = (path) => want.get(path) ?? (existsSync(path) ? readFileSync(path, 'utf8') : '');
want.set('README.md', replaceSection(replaceSection(read('README.md'), 'metric-families', metricFamiliesTable()), 'alerts', alertsTable(rules)));
want.set('docs/metrics.md', replaceSection(read('docs/metrics.md'), 'metrics-reference', metricsTable()));
want.set('docs/configuration.md', replaceSection(read('docs/configuration.md'), 'config-reference', configTable()));
want.set('docs/public-names.txt', mergePublicNames(read('docs/public-names.txt')));
for (const f of ruleFiles) want.set(`deploy/helm/avalanchego-exporter/files/${f}`, readFileSync(`deploy/prometheus/${f}`, 'utf8'));

const stale = [...want].filter(([path, text]) => !existsSync(path) || readFileSync(path, 'utf8') !== text).map(([path]) => path);
if (check) {
  if (stale.length > 0) {
    console.error(`out of date (run npm run docs): ${stale.join(', ')}`);
    process.exit(1);
  }
  console.log('generated documentation up to date');
} else {
  for (const path of stale) {
    if (path.startsWith('deploy/helm/')) copyFileSync(`deploy/prometheus/${path.split('/').pop()}`, path);
    else writeFileSync(path, want.get(path) ?? '');
  }
  console.log(stale.length > 0 ? `regenerated: ${stale.join(', ')}` : 'generated documentation up to date');
}
