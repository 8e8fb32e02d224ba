import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Real servers and child processes: keep parallelism modest on a 2-core machine.
    pool: 'forks',
    maxWorkers: 2,
  },
});
