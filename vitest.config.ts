import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Emulator-backed suites start their own dynalite/fauxqs on free ports, so files can run in parallel;
    // the machine has 2 cores, more workers only add contention.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
