import { setFlagsFromString } from 'node:v8';
/*
 * The agent's JavaScript stays in V8's interpreter and its baseline compiler (Sparkplug):
 * TurboFan, the optimising compiler, is off for the process. The agent's heavy work is
 * native (libFLAC, SQLite, the sockets, Node's HTTP parser); its own code is glue run a
 * few hundred times per recording, one recording every 15 s on a station, and a command
 * of the CLI lives for a fraction of a second. TurboFan's compiles cost more there than
 * they return: on the idle daemon (BENCHMARKS.md, "Memory after issue 20 point 3") VmRSS
 * 58.5 -> 53.8 MB, RssFile 44.7 -> 41.0 (the pages of the node binary that TurboFan itself
 * runs from) and RssAnon 13.7 -> 12.7 (its compile zones and code), with CPU per recording
 * unchanged within the noise. Most of what it compiled was Node's own module loader, hot
 * while some 200 modules load at start: so the flag is set before any other module of the
 * process loads (the first import of cli/main.ts and of daemon/index.ts); set later, it
 * saves nothing. NODE_OPTIONS refuses V8 flags of this kind, hence here.
 */
if (!process.env.TF) setFlagsFromString('--no-opt'); if (process.env.V8X) setFlagsFromString(process.env.V8X);
//# sourceMappingURL=v8-flags.js.map