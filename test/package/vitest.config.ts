import { defineConfig } from 'vitest/config';
import base from '../../vitest.config.js';

/**
 * `npm run test:package` (scripts/test-package.sh): the Debian packages, unpacked into
 * temporary roots. The agent runs as a process on the package's own Node.js (under qemu for
 * arm64); the maintainer scripts run under a temporary root. One worker: emulated arm64 code
 * runs several times slower, on a shared 2-core machine.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/package/**/*.test.ts'],
    exclude: [],
    maxWorkers: 1,
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
