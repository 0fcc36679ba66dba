import { defineConfig } from 'vitest/config';
import base from '../../vitest.config.js';

/**
 * `npm run test:release` (scripts/test-release.sh): its last step, an upgrade through
 * unattended-upgrades of the agent running in the root file system. One worker.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/release/**/*.test.ts'],
    exclude: [],
    maxWorkers: 1,
    testTimeout: 600_000,
    hookTimeout: 120_000,
  },
});
