import { createRequire } from 'node:module';
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
export const Agent = require('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;
