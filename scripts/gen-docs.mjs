// Writes the generated parts of the repository (run after `npm run build`): the reference
// tables of README.md, and the Helm chart's copies of the rule files. The chart holds copies,
// not symbolic links: `npm pack` drops symbolic links, and the packed chart would render
// without its rules (test/deploy/package.test.ts).
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { configTable, metricsTable, replaceSection } from '../dist/docs/reference.js';

let readme = readFileSync('README.md', 'utf8');
readme = replaceSection(readme, 'config-reference', configTable());
readme = replaceSection(readme, 'metrics-reference', metricsTable());
writeFileSync('README.md', readme);
console.log('README.md: reference tables regenerated');

for (const f of readdirSync('deploy/prometheus').filter((n) => /\.ya?ml$/.test(n))) {
  copyFileSync(`deploy/prometheus/${f}`, `deploy/helm/avalanchego-exporter/files/${f}`);
}
console.log('deploy/helm/avalanchego-exporter/files: rule files copied from deploy/prometheus');
