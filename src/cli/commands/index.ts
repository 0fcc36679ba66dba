import type { RegisterCommand } from '../program.js';

/** A top-level command: its name as typed, and its definition module, loaded when needed. */
export interface CommandEntry {
  name: string;
  load: () => Promise<RegisterCommand>;
}

/**
 * Every command of the CLI, in the order `--help` lists them. Each module registers
 * its options and imports its heavy dependencies lazily inside the action, so that
 * `station-agent status` does not pay for loading the HTTP server or the encoder; and
 * a command's definition module is itself loaded only when needed (`commandsFor`).
 */
export const COMMANDS: readonly CommandEntry[] = [
  { name: 'run', load: async () => (await import('./run.js')).registerRunCommand },
  { name: 'status', load: async () => (await import('./status.js')).registerStatusCommand },
  { name: 'queue', load: async () => (await import('./queue.js')).registerQueueCommand },
  { name: 'config', load: async () => (await import('./config.js')).registerConfigCommand },
  { name: 'demo', load: async () => (await import('./demo.js')).registerDemoCommand },
  { name: 'ingest', load: async () => (await import('./ingest.js')).registerIngestCommand },
  { name: 'api', load: async () => (await import('./api.js')).registerApiCommand },
  { name: 'watch', load: async () => (await import('./watch.js')).registerWatchCommand },
  { name: 'audit', load: async () => (await import('./audit.js')).registerAuditCommand },
  { name: 'doctor', load: async () => (await import('./doctor.js')).registerDoctorCommand },
  { name: 'emulator', load: async () => (await import('./emulator.js')).registerEmulatorCommand },
];

/** The program's version flags: commander prints the version at the first of them and exits. */
const VERSION_FLAGS = new Set(['--version', '-V']);

/**
 * The commands commander needs to parse `argv`: when its first argument names a command
 * (the program has no options of its own that take a value), that command's definition
 * alone, so that the daemon (`run`) does not keep every other command's module graph
 * for months; none when it is the version flag (the version is all commander prints, and
 * every definition module would cost the start some 10 ms here); otherwise all of them
 * (`--help`, `help run`, a mistyped name that commander suggests a fix for). commander still
 * parses everything.
 */
export async function commandsFor(argv: readonly string[]): Promise<RegisterCommand[]> {
  if (VERSION_FLAGS.has(argv[2] ?? '')) return [];
  const named = COMMANDS.find((c) => c.name === argv[2]);
  return Promise.all((named ? [named] : COMMANDS).map((c) => c.load()));
}
