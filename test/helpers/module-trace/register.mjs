// Preloaded with `node --import <this file>` (see test/cli/lazy-loading.test.ts): appends
// every module the process resolves to $MODULE_TRACE_FILE, one line per resolution,
// `<pid> <url>`: ES modules, CommonJS `require`s (a package loaded with `require`, as luxon
// is) and Node's own modules (`node:http2`). The hooks run in this thread (module.registerHooks),
// synchronously, so nothing is lost when the process exits right after. The pid tells the
// process from the children it starts (they inherit NODE_OPTIONS).
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import process from 'node:process';

const file = process.env.MODULE_TRACE_FILE;

registerHooks({
  resolve(specifier, context, nextResolve) {
    const result = nextResolve(specifier, context);
    if (file) appendFileSync(file, `${process.pid} ${result.url}\n`);
    return result;
  },
});
