import { createServer, type Socket } from 'node:net';
import { onTestFinished } from 'vitest';

/**
 * A real HTTP peer that never finishes its answer: once a request's headers have
 * arrived it sends a response head, then one byte every `intervalMs` for ever. Idle
 * timeouts (a client's headers and body timeouts, a socket's `timeout`) restart at each
 * byte, so only a total deadline ends such a request.
 *
 * - `body`: the whole head (`200`, a JSON content type, a `content-length` of 4000),
 *   then the body one byte at a time (a webhook receiver or a service behind a
 *   congested proxy);
 * - `headers`: the status line, then the headers one byte at a time.
 *
 * Written on a raw socket: node:http could not send half a head.
 */
export interface TrickleServer {
  url: string;
  port: number;
  /** Request heads received (`POST /path HTTP/1.1` lines), in order. */
  requests: string[];
  /** Request bodies received so far (bytes after the head), per request. */
  bodies: Buffer[];
  close(): Promise<void>;
}

export async function startTrickleServer(options: { mode: 'body' | 'headers'; intervalMs?: number; status?: number }): Promise<TrickleServer> {
  const intervalMs = options.intervalMs ?? 2_000;
  const status = options.status ?? 200;
  const requests: string[] = [];
  const bodies: Buffer[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    let head = Buffer.alloc(0);
    let index = -1;
    socket.on('data', (chunk: Buffer) => {
      if (index >= 0) {
        bodies[index] = Buffer.concat([bodies[index], chunk]);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      requests.push(head.subarray(0, head.indexOf('\r\n')).toString('latin1'));
      index = bodies.push(head.subarray(end + 4)) - 1;
      const [first, rest] =
        options.mode === 'body'
          ? [`HTTP/1.1 ${status} OK\r\ncontent-type: application/json\r\ncontent-length: 4000\r\n\r\n`, '{"success":true,"padding":"'.padEnd(4_000, 'x')]
          : [`HTTP/1.1 ${status} OK\r\n`, `x-slow: ${'y'.repeat(4_000)}`];
      socket.write(first);
      let at = 0;
      const timer = setInterval(() => {
        if (socket.destroyed || at >= rest.length) return clearInterval(timer);
        socket.write(rest[at++]);
      }, intervalMs);
      timers.add(timer);
      socket.on('close', () => {
        clearInterval(timer);
        timers.delete(timer);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearInterval(t);
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Inside a test: a trickle server (one byte every 100 ms) closed when the test finishes. */
export async function trickleForTest(mode: 'body' | 'headers'): Promise<TrickleServer> {
  const s = await startTrickleServer({ mode, intervalMs: 100 });
  onTestFinished(() => s.close());
  return s;
}
