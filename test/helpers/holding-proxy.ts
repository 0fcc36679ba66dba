import { createServer, request, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/**
 * An HTTP proxy on a free port of 127.0.0.1 in front of `target` (the local service) that
 * holds the first request `pick` chooses until {@link HoldingProxy.release}: one slow
 * answer among quick ones; or rewrites its answer (an odd answer among right ones).
 * Every other request goes straight through.
 */
export interface HoldingProxy {
  url: string;
  /** Resolves once the picked request has arrived (and is being held). */
  holding: Promise<void>;
  release(): void;
  close(): Promise<void>;
}

export interface HoldingOptions {
  /** Hold the picked request until `release` (default true); false forwards it at once. */
  hold?: boolean;
  /** Rewrites the picked request's answer body (its length follows). */
  rewrite?: (body: string) => string;
}

export async function holdingProxy(target: string, pick: (req: IncomingMessage) => boolean, options: HoldingOptions = {}): Promise<HoldingProxy> {
  let picked = false;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let arrived!: () => void;
  const holding = new Promise<void>((resolve) => (arrived = resolve));
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const forward = (rewrite?: (body: string) => string) => {
      const upstream = request(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (answer) => {
        if (!rewrite) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          const body = Buffer.from(rewrite(Buffer.concat(chunks).toString('utf8')));
          const headers = { ...answer.headers, 'content-length': String(body.length) };
          delete headers['transfer-encoding'];
          res.writeHead(answer.statusCode ?? 502, headers);
          res.end(body);
        });
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    };
    if (!picked && pick(req)) {
      picked = true;
      arrived();
      if (options.hold === false) forward(options.rewrite);
      else void released.then(() => forward(options.rewrite));
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
