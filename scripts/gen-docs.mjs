// Writes the generated reference tables into README.md (run after `npm run build`).
import { readFileSync, writeFileSync } from 'node:fs';
import { configTable, metricsTable, replaceSection } from '../dist/docs/reference.js';

let readme = readFileSync('README.md', 'utf8');
readme = replaceSection(readme, 'config-reference', configTable());
readme = replaceSection(readme, 'metrics-reference', metricsTable());
writeFileSync('README.md', readme);
console.log('README.md: reference tables regenerated');
