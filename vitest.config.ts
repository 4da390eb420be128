import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Emulator-backed suites start their own dynalite/fauxqs on free ports, so files can run in parallel;
    // the machine has 2 cores, more workers only add contention.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The AWS SDK is pinned (package.json), so its notice that later versions will need Node 22 says
    // nothing a test run can act on, and each worker that builds a client printed it again. This is the
    // SDK's own switch for that one notice; every other warning still prints.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
