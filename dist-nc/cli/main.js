#!/usr/bin/env node
import '../system/v8-flags.js';
import { buildProgram, runProgram } from './program.js';
import { commandsFor } from './commands/index.js';
for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err) => {
        if (err.code === 'EPIPE')
            process.exit(process.exitCode ?? 0);
        throw err;
    });
}
const code = await runProgram(buildProgram(await commandsFor(process.argv)), process.argv);
process.exitCode = code;
