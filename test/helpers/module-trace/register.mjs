// Preloaded with `node --import <this file>` (see test/cli/lazy-loading.test.ts): registers
// hooks.mjs, which appends every module the process resolves to $MODULE_TRACE_FILE.
import { register } from 'node:module';
import { URL } from 'node:url';

register(new URL('./hooks.mjs', import.meta.url));
