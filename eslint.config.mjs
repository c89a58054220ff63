// ESLint: typescript-eslint's strict, type-aware rules over the code and its
// tests, benchmarks and scripts. Formatting is Prettier's (.prettierrc.json).
import eslint from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/', 'node_modules/', 'tools/', 'deploy/', 'docs/', 'coverage/'] },
  eslint.configs.recommended,
  tseslint.configs.strictTypeChecked,
  {
    // No eslint-disable comment takes effect (ESLint warns where one is written): a finding is fixed, not hidden.
    linterOptions: { noInlineConfig: true },
    languageOptions: {
      globals: globals.node,
      parserOptions: {
        projectService: {
          // Scripts outside tsconfig.json's include get a default project.
          allowDefaultProject: ['bench/*.mjs', 'scripts/*.mjs', '*.config.ts', '*.config.mjs'],
          maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: 40,
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // Numbers in messages ("HTTP 404 from …", "within 5000 ms") are what they should say.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // `() => void promise` and `(x) => set.add(x)` callbacks read as intended.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // A parameter a signature needs but the body does not read (express knows an error
      // handler by its four parameters) says so with a leading underscore.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
    },
  },
  {
    // The dashboards are Grafana's classic JSON model, whose builders
    // @grafana/grafana-foundation-sdk marks deprecated in favour of its v2 schema: Grafana before
    // 12 cannot load v2 dashboards and dashboard-linter reads only the classic model.
    files: ['grafana/lib/*.mjs'],
    rules: { '@typescript-eslint/no-deprecated': 'off' },
  },
);
