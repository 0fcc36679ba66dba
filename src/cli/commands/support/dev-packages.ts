import type { Style } from '../../format/style.js';
import { CommandFailure } from './errors.js';

/**
 * The local service (`@station-agent/emulator`) and the demo (`@station-agent/demo`)
 * are packages of a development checkout (npm workspaces); a station never has them,
 * because `bin/install` lays down the agent alone. The agent never imports them
 * statically (an ESLint rule in eslint.config.js keeps it so): `station-agent emulator`
 * and `station-agent demo` load them by name when they run, and say how to get them
 * where they are missing. The interfaces below are what the commands use of each;
 * test/cli/dev-packages.test.ts checks at compile time that the packages provide it.
 */
export const LOCAL_SERVICE_PACKAGE = '@station-agent/emulator';
export const DEMO_PACKAGE = '@station-agent/demo';

/** What `station-agent emulator` hands the local service: most of its flags as they are (cli/commands/emulator.ts). */
export interface LocalServiceOptions {
  host: string;
  port: number;
  db: string;
  dataDir?: string;
  tokens: string[];
  stationsFile?: string;
  adminToken?: string;
  labels?: string;
  mediaUrl?: string;
  faults?: string;
  seed?: number;
  idOffset?: number;
  logger: {
    info(obj: object, msg?: string): void;
    warn(obj: object, msg?: string): void;
    error(obj: object, msg?: string): void;
    debug?(obj: object, msg?: string): void;
  };
}

/** What `station-agent emulator` uses of the local service package. */
export interface LocalServicePackage {
  startEmulator: (options: LocalServiceOptions) => Promise<{
    url: string;
    store: { stations: { all(): readonly unknown[] }; species: { count(): number } };
    close(): Promise<void>;
  }>;
  /** Validates a `--faults` spec (its errors name the documented key); the result is only handed back to `describeFaults`. */
  normalizeFaults(this: void, spec: string): unknown;
  /** The validated spec in the documented form, for the start-up line (method syntax: the package's own spec type stands in for `unknown`). */
  describeFaults(this: void, faults: unknown): string;
}

/** What `station-agent demo` uses of the demo package. */
export interface DemoPackage<Summary = unknown> {
  runDemo: (options: {
    keep: boolean;
    timeoutMs: number;
    signal: AbortSignal;
    say: (line: string) => void;
  }) => Promise<{ service: Summary }>;
  renderSummary: (summary: Summary, style: Style) => string[];
}

/** The message of a development-only command run where its package is not installed. */
export function notInstalledMessage(command: string, name: string): string {
  return (
    `'station-agent ${command}' needs ${name}, which a station does not install ` +
    `(bin/install lays down the agent alone). Run it from a development checkout of ` +
    `station-agent instead: npm ci && npm run ${command} (or: npm run build && node bin/station-agent ${command}).`
  );
}

/**
 * Loads a development package by name. A missing package becomes a `CommandFailure`
 * saying how to get it; any other failure (a package that is there but broken or not
 * built) is thrown as it is.
 */
export async function importDevPackage<T>(name: string, command: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (err) {
    if (isMissingPackage(err, name)) throw new CommandFailure(notInstalledMessage(command, name));
    throw err;
  }
}

/** Node's "not found" for the package itself: `import()`'s code, or `require`'s, which the bundle makes of it (scripts/bundle.mjs). */
function isMissingPackage(err: unknown, name: string): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return err instanceof Error && (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && err.message.includes(`'${name}'`);
}
