import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import type { Agent as UndiciAgent } from 'undici';

/**
 * undici's connection pool, loaded alone. The package's index loads every API it has
 * (fetch, WebSocket, EventSource, caches, mocks, the interceptors) to attach them to its
 * exports, about 8 MB of resident memory a Pi Zero 2 W does not have to spare; the client
 * only dispatches requests through an Agent with its own handler (see http.ts), and
 * `lib/dispatcher/agent.js` loads just the pool, the client and the parser. undici has no
 * `exports` map, so the file is reachable by its path; the types stay the index's.
 */
const require = createRequire(import.meta.url);

/*
 * undici parses HTTP with llhttp, a WebAssembly module it compiles at the first
 * connection. V8's optimising compiler (TurboFan) took some 35 MB of memory for a second
 * compiling llhttp's state machine (longer under a CPU quota): the daemon's peak VmHWM
 * jumped by 39 MB at its first request, the largest single part of a 150-recording
 * backlog's peak. Liftoff, V8's baseline WebAssembly compiler, compiles it in about 1 MB
 * (+6 MB VmHWM), and parsing an answer stays a small part of a request. The flag is the
 * process's (NODE_OPTIONS refuses it, so it is set here, before any module is compiled):
 * libflacjs, the FLAC encoder of last resort (no libFLAC addon, no flac program), then
 * also runs in Liftoff, at about half speed (616 against 1,102 x real time here).
 */
setFlagsFromString('--liftoff-only');
export const Agent = require('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;
