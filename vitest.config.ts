import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Test files start real servers and DuckDB files: one worker per core.
    maxWorkers: 2,
  },
});
