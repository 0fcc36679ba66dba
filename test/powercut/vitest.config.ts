import { defineConfig } from 'vitest/config';
import base from '../../vitest.config.js';

/**
 * `npm run test:powercut` (scripts/test-powercut.sh): the power-cut test, with the dataDir
 * on a LazyFS mount (FUSE, root) that the script builds; not part of `npm test`.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/powercut/**/*.test.ts'],
    exclude: [],
    maxWorkers: 1,
    testTimeout: 1_200_000,
    hookTimeout: 300_000,
  },
});
