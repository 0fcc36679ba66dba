import { createRequire, Module } from 'node:module';
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
/*
 * HTTP/2 stays unloaded. undici's client requires its HTTP/2 half (`client-h2.js`) as it
 * loads, and that requires `node:http2`, which brings `node:tls` and `node:crypto`: some
 * 1.5 MB of resident memory and 4 ms of CPU at every start here (more on a Pi), for a
 * protocol undici speaks only when a dispatcher sets `allowH2` and TLS negotiates it. No
 * dispatcher of the agent sets it: the service is spoken to in HTTP/1.1. The module's
 * entry is filled first with a stand-in that refuses, so the client finds it loaded;
 * should anything load undici's HTTP/2 half before this module, that one stays.
 */
const clientH2 = require.resolve('undici/lib/dispatcher/client-h2.js');
if (!require.cache[clientH2]) {
  const standIn = new Module(clientH2);
  standIn.filename = clientH2;
  standIn.loaded = true;
  standIn.exports = function connectH2(): never {
    throw new Error('HTTP/2 is not loaded in station-agent: its dispatchers speak HTTP/1.1 (allowH2 unset)');
  };
  require.cache[clientH2] = standIn;
}

export const Agent = require('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;
