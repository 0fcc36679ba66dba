import { createServer, request, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/**
 * An HTTP proxy on a free port of 127.0.0.1 in front of `target` (the local service) that
 * holds the first request `pick` chooses until {@link HoldingProxy.release}: one slow
 * answer among quick ones. Every other request goes straight through.
 */
export interface HoldingProxy {
  url: string;
  /** Resolves once the picked request has arrived (and is being held). */
  holding: Promise<void>;
  release(): void;
  close(): Promise<void>;
}

export async function holdingProxy(target: string, pick: (req: IncomingMessage) => boolean): Promise<HoldingProxy> {
  let picked = false;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let arrived!: () => void;
  const holding = new Promise<void>((resolve) => (arrived = resolve));
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const forward = () => {
      const upstream = request(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    };
    if (!picked && pick(req)) {
      picked = true;
      arrived();
      void released.then(forward);
    } else {
      forward();
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    holding,
    release,
    async close() {
      release();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
