import { defineConfig } from 'vitest/config';

/**
 * Unit files that replace modules with vi.mock: they keep a module registry of their own, so their mocks
 * cannot reach another file that shares a worker.
 */
const MOCKING = [
  'test/unit/lambdas/adapters/json-telemetry-emf.test.ts',
  'test/unit/local/instance-lock-takeover.test.ts',
  'test/unit/local/private-files.test.ts',
];

export default defineConfig({
  test: {
    // Emulator-backed suites start their own dynalite/fauxqs on free ports, so files can run in parallel;
    // the machine has 2 cores, more workers only add contention.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The AWS SDK is pinned (package.json), so its notice that later versions will need Node 22 says
    // nothing a test run can act on, and each worker that builds a client printed it again. This is the
    // SDK's own switch for that one notice; every other warning still prints.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    projects: [
      {
        // Pure units and the template's tests share each worker's modules: importing aws-cdk-lib or the
        // SDK once per worker, not once per file, takes a third off their time. They start no emulator
        // and keep no state between files.
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/infra/**/*.test.ts'],
          exclude: MOCKING,
          isolate: false,
        },
      },
      {
        // Emulators, servers, child processes and module mocks: each file in a fresh module registry.
        extends: true,
        test: {
          name: 'pipeline',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts', ...MOCKING],
        },
      },
    ],
  },
});
