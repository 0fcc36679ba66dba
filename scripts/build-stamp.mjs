// The last step of `npm run build`: marks dist/ as built from the sources as they are now.
// The tests' buildCli (test/helpers/cli.ts) skips its own build when this stamp is newer than
// every source file, so `npm test` (which builds first) does not build the project twice.
import { mkdirSync, writeFileSync } from 'node:fs';

mkdirSync('dist', { recursive: true });
writeFileSync('dist/.cli-test-build-stamp', `${new Date().toISOString()}\n`);
