import { defineConfig } from 'vitest/config';

// The suite against a real AvalancheGo node (needs Go; see README). Not part of `npm test`.
export default defineConfig({
  test: {
    include: ['test/real-node/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 1_800_000,
    maxWorkers: 1,
    fileParallelism: false,
  },
});
