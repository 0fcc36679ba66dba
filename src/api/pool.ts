import { Agent, request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import type * as Https from 'node:https';
import type { Socket } from 'node:net';

/**
 * The keep-alive connections to one origin, through Node's own HTTP client.
 *
 * Why node:http and not undici: undici parses HTTP with llhttp compiled to WebAssembly at
 * the first connection, and the wasm engine and its compiler touch many pages of the node
 * binary: a process that loaded undici's pool and made 5 POSTs grew by 11-12 MB VmRSS
 * (RssAnon +5.5, RssFile +6.4), the same 5 POSTs through `node:http` with a keep-alive
 * Agent by 2.5 MB. Node's client parses with the same llhttp compiled to native code.
 *
 * `node:https` (and with it `node:tls` and `node:crypto`) is loaded only for an https
 * origin, when the pool is made (synchronously: a client is made in a constructor).
 */

/** What http.ts needs of a pool to send one request. */
export interface ConnectionPool {
  readonly origin: URL;
  readonly secure: boolean;
  readonly agent: Agent;
  readonly request: typeof httpRequest;
  /** Time limit of a new connection, TCP and TLS, before anything is written. */
  readonly connectTimeoutMs: number;
  /** False once `close()` was called: the pool refuses new requests. */
  readonly open: boolean;
  /** Counts a request in flight until `done` settles, so `close()` waits for it. */
  track(done: Promise<unknown>): void;
  /** Refuses new requests, waits for those in flight, then closes every connection. */
  close(): Promise<void>;
}

export interface PoolOptions {
  /** Connections to the origin at most (requests beyond wait for one). */
  connections: number;
  connectTimeoutMs: number;
  /**
   * An idle connection is closed after this long, before a server's own idle timeout
   * (Node's http server: 5 s) closes it under a request. Default 4 000 ms, undici's default.
   */
  idleMs?: number;
  /** False: every connection closes after its request (a pool for one request: http.ts `sendOnce`). Default true. */
  keepAlive?: boolean;
}

const require = createRequire(import.meta.url);

export function connectionPool(origin: URL, options: PoolOptions): ConnectionPool {
  const secure = origin.protocol === 'https:';
  // No `timeout` here: the Agent would set it on a new socket at once, and its idle
  // timer would then end an unanswered connect at idleMs instead of `connectTimeoutMs`.
  const agentOptions = {
    keepAlive: options.keepAlive ?? true,
    maxSockets: options.connections,
    maxFreeSockets: options.connections,
    scheduling: 'lifo' as const,
  };
  let agent: Agent;
  let request: typeof httpRequest;
  if (secure) {
    const https = require('node:https') as typeof Https;
    agent = new https.Agent(agentOptions);
    request = https.request;
  } else {
    agent = new Agent(agentOptions);
    request = httpRequest;
  }
  // An idle connection in the pool closes after idleMs (the Agent destroys a free socket
  // whose timer fires; a request taking it sets its own). Runs after the Agent's own
  // 'free' listener, which resets the socket's timeout.
  const idleMs = options.idleMs ?? 4_000;
  agent.on('free', (socket: Socket) => socket.setTimeout(idleMs));
  const inFlight = new Set<Promise<unknown>>();
  let open = true;
  return {
    origin,
    secure,
    agent,
    request,
    connectTimeoutMs: options.connectTimeoutMs,
    get open() {
      return open;
    },
    track(done) {
      const settled = done.then(
        () => undefined,
        () => undefined,
      );
      inFlight.add(settled);
      void settled.then(() => inFlight.delete(settled));
    },
    async close() {
      open = false;
      await Promise.all([...inFlight]);
      agent.destroy();
    },
  };
}
