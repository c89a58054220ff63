// `npm run test:fast`: the lane to run while changing the exporter's code, about a minute.
// Unit tables, the simulator, the architecture and state checks, and the end-to-end tests
// that build the exporter in-process (test/helpers/exporter.ts) against loopback fake nodes.
// Left out: the tests that run dist/main.js or other programs as child processes (CLI,
// Prometheus, helm, compose, the browser), the hostile suites, lint and tsc: `npm test` runs
// everything. CONTRIBUTING.md says which of those to run for which change.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/** In test/e2e/, but they run the built exporter (dist/main.js) as a child process. */
export const CHILD_PROCESS_E2E = [
  'test/e2e/cli.test.ts',
  'test/e2e/web-cli.test.ts',
  'test/e2e/demo.test.ts',
  'test/e2e/sharding.test.ts',
  'test/e2e/release.test.ts',
];

export default defineConfig({
  test: {
    // The base config's timeouts and workers; its include and exclude replaced (a merge would add them up).
    ...base.test,
    include: [
      'test/unit/**/*.test.ts',
      'test/simulator/**/*.test.ts',
      'test/static/architecture.test.ts',
      'test/static/state.test.ts',
      'test/e2e/**/*.test.ts',
    ],
    exclude: [...(base.test?.exclude ?? []), ...CHILD_PROCESS_E2E],
    // Tests that would fetch or build something (the v1.15 source of the faithfulness test) read
    // their cache only in this lane, and are skipped with the reason without it.
    env: { ...base.test?.env, AVALANCHEGO_FAST_LANE: '1' },
  },
});
