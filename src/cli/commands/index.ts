import type { RegisterCommand } from '../program.js';
import { registerApiCommand } from './api.js';
import { registerConfigCommand } from './config.js';
import { registerDemoCommand } from './demo.js';
import { registerDoctorCommand } from './doctor.js';
import { registerEmulatorCommand } from './emulator.js';
import { registerIngestCommand } from './ingest.js';
import { registerQueueCommand } from './queue.js';
import { registerRunCommand } from './run.js';
import { registerStatusCommand } from './status.js';
import { registerWatchCommand } from './watch.js';

/**
 * Every command of the CLI, in the order `--help` lists them. Each module registers
 * its options and imports its heavy dependencies lazily inside the action, so that
 * `station-agent status` does not pay for loading the HTTP server or the encoder.
 */
export const COMMANDS: RegisterCommand[] = [
  registerRunCommand,
  registerStatusCommand,
  registerQueueCommand,
  registerConfigCommand,
  registerDemoCommand,
  registerIngestCommand,
  registerApiCommand,
  registerWatchCommand,
  registerDoctorCommand,
  registerEmulatorCommand,
];
