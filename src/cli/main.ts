#!/usr/bin/env node
// First, before any other module loads: the process's V8 flags (system/v8-flags.ts says why).
import '../system/v8-flags.js';
import { buildProgram, runProgram } from './program.js';
import { commandsFor } from './commands/index.js';

// `station-agent ... | head` closes the pipe early: the reader saying "enough", not an
// error worth a stack trace (this also covers --help, which commander writes itself).
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

const code = await runProgram(buildProgram(await commandsFor(process.argv)), process.argv);
process.exitCode = code;
