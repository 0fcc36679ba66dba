import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

/** A workspace package's entry as source: tests run the TypeScript, not a build that may be stale. */
const source = (file: string) => fileURLToPath(new URL(file, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@station-agent\/emulator$/, replacement: source('./emulator/src/index.ts') },
      { find: /^@station-agent\/demo$/, replacement: source('./demo/src/index.ts') },
    ],
  },
  test: {
    // The agent's tests, then each package's own (emulator, demo) and the benchmark's.
    include: ['test/**/*.test.ts', 'emulator/test/**/*.test.ts', 'demo/test/**/*.test.ts', 'bench/test/**/*.test.ts'],
    // The arm64 run needs the emulated environment scripts/test-arm64.sh builds (npm run test:arm64),
    // the package run the packages scripts/test-package.sh builds (npm run test:package), the
    // power cuts a LazyFS mount scripts/test-powercut.sh builds (npm run test:powercut), the
    // release's upgrade the root file system scripts/test-release.sh builds (npm run test:release).
    exclude: [...configDefaults.exclude, 'test/arm64/**', 'test/package/**', 'test/powercut/**', 'test/release/**'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests start real servers and child processes; two cores on CI.
    maxWorkers: 2,
  },
});
