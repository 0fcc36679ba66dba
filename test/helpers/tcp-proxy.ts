import { createServer, connect, type Socket } from 'node:net';

/**
 * A TCP proxy on a free port of 127.0.0.1 in front of `targetPort`, recording when each
 * connection came in: a client that opens a fresh connection per attempt (the MQTT
 * publisher) has its attempts counted here, whatever the server behind says to them.
 */
export interface CountingProxy {
  port: number;
  /** performance.now() of each accepted connection, in order. */
  connects: number[];
  close(): Promise<void>;
}

export async function countingProxy(targetPort: number): Promise<CountingProxy> {
  const connects: number[] = [];
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
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as { port: number }).port,
    connects,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
