#!/usr/bin/env node
import { buildProgram, runProgram } from './program.js';
import { COMMANDS } from './commands/index.js';

const code = await runProgram(buildProgram(COMMANDS), process.argv);
process.exitCode = code;
