#!/usr/bin/env node
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

// A promise chain, not a top-level await: the bundle's chunks are CommonJS, which has none
// (scripts/bundle.mjs).
commandsFor(process.argv)
  .then((commands) => runProgram(buildProgram(commands), process.argv))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      // What bin/station-agent prints for a module that did not load.
      console.error(err instanceof Error ? err.message : err);
      process.exitCode = 1;
    },
  );
