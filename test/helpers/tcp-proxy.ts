import { createServer, connect, type Socket } from 'node:net';

/**
 * A TCP proxy on a free port of 127.0.0.1 in front of `targetPort`, recording when each
 * connection came in: a client that opens a fresh connection per attempt (the MQTT
 * publisher) has its attempts counted here, whatever the server behind says to them. It
 * also counts the bytes each way (the bench's cost of the delivery audit on the wire).
 */
export interface CountingProxy {
  port: number;
  /** performance.now() of each accepted connection, in order. */
  connects: number[];
  /** Bytes the clients sent, and the bytes the server sent back, headers and all. */
  bytes: { sent: number; received: number };
  close(): Promise<void>;
}

export async function countingProxy(targetPort: number): Promise<CountingProxy> {
  const connects: number[] = [];
  const bytes = { sent: 0, received: 0 };
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    connects.push(performance.now());
    const upstream = connect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => (bytes.sent += chunk.length));
    upstream.on('data', (chunk: Buffer) => (bytes.received += chunk.length));
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as { port: number }).port,
    connects,
    bytes,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
