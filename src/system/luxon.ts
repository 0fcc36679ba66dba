import { createRequire } from 'node:module';
import type * as Luxon from 'luxon';

/**
 * luxon, loaded at its first use: the one way the agent reaches it. Parsing its 260 kB
 * costs a process about 1.4 MB of resident memory and a Pi some 30 ms of start-up, and an
 * idle daemon with no upload window, no data budget and nothing to ingest has no use for
 * it. The modules that need a zone's rules (ingest/recording-time.ts, upload/windows.ts,
 * upload/data-budget.ts, the config schema) call this where they do, so a module that
 * imports them pays nothing until a time is really read or written in a zone.
 *
 * Synchronous (`require` of the package's CommonJS build) because those callers are:
 * an `await import()` would turn every time function into a promise. One copy of luxon
 * per process: nothing in the agent imports it any other way.
 */
const require = createRequire(import.meta.url);

let loaded: typeof Luxon | undefined;

export function luxon(): typeof Luxon {
  return (loaded ??= require('luxon') as typeof Luxon);
}
