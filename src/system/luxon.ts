import { createRequire } from 'node:module';
import type * as Luxon from 'luxon';

/**
 * luxon, loaded at its first use: the one way the agent reaches it. Parsing its 260 kB
 * costs a process about 1.4 MB of resident memory and a Pi some 30 ms of start-up, and a
 * daemon whose zone is UTC or the system's own has no use for it. The modules that need a
 * zone's rules reach them through system/zone.ts (recording times, upload windows, the
 * data budget, MQTT's daily tally), which calls this only for another zone; the config
 * schema calls it to check a zone's name. A module that imports them pays nothing until a
 * time is really read or written in such a zone.
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
