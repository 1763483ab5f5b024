import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds the fixture app once (esbuild, terser, index map, debug ids) for the symbolication tests.
    globalSetup: ['test/support/app-builds.setup.ts'],
    // In every test worker: no host-name lookups beyond localhost (see the file).
    setupFiles: ['test/support/loopback-only.setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Test files start real servers and DuckDB files: one worker per core.
    maxWorkers: 2,
  },
});
