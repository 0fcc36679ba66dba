import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP relay between the agent and the local service. Armed, it forwards each POST
 * to the service (which stores it) and holds the answer: the agent's request is in flight
 * and the service already holds what it sent, the moment a power cut costs most.
 */
export interface HoldRelay {
  url: string;
  /** Holds every POST's answer from now on; resolves when a soundscape's answer is held (or `timeoutMs` passes: false). */
  holdNextSoundscape(timeoutMs: number): Promise<boolean>;
  /** Answers held: dropped (their agent is gone), and answers flow again. */
  release(): void;
  /** POST answers held since the last release. */
  readonly held: number;
  close(): Promise<void>;
}

export async function startHoldRelay(target: string): Promise<HoldRelay> {
  const to = new URL(target);
  let armed = false;
  let held: ServerResponse[] = [];
  let onSoundscape: (() => void) | null = null;
  const server = http.createServer((req: IncomingMessage, res: ServerResponse) => {
    const upstream = http.request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          if (armed && req.method === 'POST') {
            // Stored at the service; the agent never hears.
            held.push(res);
            if (req.url?.includes('/soundscapes')) onSoundscape?.();
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(Buffer.concat(chunks));
        });
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const release = () => {
    armed = false;
    onSoundscape = null;
    for (const res of held) res.destroy();
    held = [];
  };
  return {
    url: `http://127.0.0.1:${port}`,
    holdNextSoundscape(timeoutMs) {
      armed = true;
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          onSoundscape = null;
          resolve(false);
        }, timeoutMs);
        onSoundscape = () => {
          clearTimeout(timer);
          onSoundscape = null;
          resolve(true);
        };
      });
    },
    release,
    get held() {
      return held.length;
    },
    async close() {
      release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
