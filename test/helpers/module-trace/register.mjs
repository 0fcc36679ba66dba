// Preloaded with `node --import <this file>` (see test/cli/lazy-loading.test.ts): registers
// hooks.mjs, which appends every ES module the process resolves to $MODULE_TRACE_FILE, and
// notes each CommonJS `require` here (those do not pass through the hooks on Node 20: a
// package loaded with `require`, as luxon is, would otherwise go unseen).
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import path from 'node:path';
import process from 'node:process';
import { pathToFileURL, URL } from 'node:url';

register(new URL('./hooks.mjs', import.meta.url));

const file = process.env.MODULE_TRACE_FILE;
const Module = createRequire(import.meta.url)('node:module');
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (...args) {
  const resolved = resolveFilename.apply(this, args);
  if (file && path.isAbsolute(resolved)) appendFileSync(file, `${process.pid} ${pathToFileURL(resolved).href}\n`);
  return resolved;
};
// Node's own modules do not pass through _resolveFilename when named `node:...`: noted
// here, as the ES loader names them (`node:http2`).
const load = Module._load;
Module._load = function (request, ...rest) {
  if (file && typeof request === 'string' && Module.isBuiltin(request)) appendFileSync(file, `${process.pid} node:${request.replace(/^node:/, '')}\n`);
  return load.call(this, request, ...rest);
};
