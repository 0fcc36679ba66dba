import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';

/**
 * Small real HTTP servers for the client's tests: they record exactly what came
 * over the wire and answer (or misbehave) as each test says.
 */

export interface Recorded {
  method: string;
  /** Path and query exactly as sent. */
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** Number of 'data' chunks the body arrived in. */
  chunks: number;
}

export type Handler = (req: Recorded, res: ServerResponse, raw: IncomingMessage) => unknown;

export interface TestServer {
  url: string;
  port: number;
  requests: Recorded[];
  /** Replaces the handler for the following requests. */
  handle(handler: Handler): void;
  close(): Promise<void>;
}

/** A server that reads each request's whole body, records it, then calls the handler. */
export async function startServer(handler: Handler = json(200, { success: true })): Promise<TestServer> {
  let current = handler;
  const requests: Recorded[] = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const rec: Recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(parts), chunks: parts.length };
      requests.push(rec);
      void current(rec, res, req);
    });
  });
  return listen(server, requests, (h) => (current = h));
}

/** A server whose handler sees the request as soon as its headers arrive (body not read). */
export async function startRawServer(onRequest: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestServer> {
  const requests: Recorded[] = [];
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.alloc(0), chunks: 0 });
    onRequest(req, res);
  });
  return listen(server, requests, () => {
    throw new Error('startRawServer has a fixed handler');
  });
}

async function listen(server: http.Server, requests: Recorded[], setHandler: (h: Handler) => void): Promise<TestServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    handle: setHandler,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A handler answering with a JSON body. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}

/** A handler answering with an HTML page (what gateways send). */
export function html(status: number, page: string, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/html', ...headers });
    res.end(page);
  };
}

/** A port on which nothing listens (bound, then released). */
export async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** A TCP server that accepts connections and never says a word (a TLS handshake never completes). */
export async function startSilentTcp(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const s = net.createServer((sock) => {
    sockets.add(sock);
    sock.on('error', () => {});
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const sock of sockets) sock.destroy();
        s.close(() => resolve());
      }),
  };
}

/** The secret appears nowhere a user, a log or `--json` could see it. */
export function expectNoSecret(err: unknown, ...secrets: string[]): void {
  expect(err).toBeInstanceOf(Error);
  const e = err as Error & { request?: string };
  for (const secret of secrets) {
    expect(e.message).not.toContain(secret);
    expect(JSON.stringify(err)).not.toContain(secret);
    expect(String(e.request)).not.toContain(secret);
    expect(String(err)).not.toContain(secret);
  }
}
