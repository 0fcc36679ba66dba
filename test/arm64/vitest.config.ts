import { defineConfig } from 'vitest/config';
import base from '../../vitest.config.js';

/**
 * `npm run test:arm64` (scripts/test-arm64.sh): the tests that run the agent as a process,
 * with STATION_AGENT_NODE / STATION_AGENT_CLI pointing at the arm64 node under qemu and the
 * arm64 install. The local service stays in the test process (x86). One worker: emulated
 * arm64 code runs several times slower, on a shared 2-core machine.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/arm64/**/*.test.ts', 'test/reliability/crash.test.ts'],
    exclude: [],
    maxWorkers: 1,
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
