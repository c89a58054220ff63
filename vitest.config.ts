import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/real-node/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Loopback servers and child processes: keep the load within a 2-core machine.
    maxWorkers: 2,
  },
});
