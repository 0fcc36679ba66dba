import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';

/*
 * The daemon's JavaScript stays in V8's interpreter and its baseline compiler (Sparkplug):
 * TurboFan, the optimising compiler, is off for the daemon's process. The agent's heavy work
 * is native (libFLAC, SQLite, the sockets, Node's HTTP parser); its own code is glue run a
 * few hundred times per recording, one recording every 15 s on a station. TurboFan's compiles
 * cost more there than they return: the bench's idle section runs the daemon with TurboFan on
 * beside the one that ships, and on Node 26 it took more memory and more CPU per recording
 * through the steady state (BENCHMARKS.md, "Node.js 26"). It starts compiling while the
 * daemon's modules load, so the flag is set before.
 *
 * And Node's own modules are loaded before the flag: any V8 flag that is not its default (this
 * one, the heap sizes `--max-old-space-size`/`--max-semi-space-size` alike) changes the hash V8
 * checks a code cache against, and Node's modules (node:http, node:crypto, ...) come with a
 * code cache built under the default flags. Loaded after a flag, each is compiled from its
 * source at every start. Hence the list below, the ones the daemon loads (its
 * modules' imports, and what Node loads on their first use: `cluster` at a socket's listen,
 * `perf_hooks` at `performance.now()`); test/cli/lazy-loading.test.ts checks that the daemon
 * loads none after it, through a recording. One exception: a station in another zone than its
 * system's loads luxon (system/luxon.ts), whose `exports` map brings in Node's ES resolver,
 * four internal modules compiled once from source. The CLI's commands set no flag: they live
 * for a fraction of a second, which TurboFan hardly reaches.
 */
const DAEMON_BUILTINS = [
  'assert',
  'child_process',
  'cluster',
  'crypto',
  'diagnostics_channel',
  'dgram',
  'fs/promises',
  'http',
  'module',
  'net',
  'os',
  'perf_hooks',
  'stream',
  'stream/promises',
  'string_decoder',
  'timers/promises',
  'url',
  'util',
  'worker_threads',
] as const;

let off = false;

/** Loads the Node modules the daemon uses, then turns TurboFan off for the rest of the process. Idempotent. */
export function optimizingCompilerOff(): void {
  if (off) return;
  off = true;
  const require = createRequire(import.meta.url);
  for (const name of DAEMON_BUILTINS) require(`node:${name}`);
  setFlagsFromString('--no-opt');
}
