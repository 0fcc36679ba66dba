import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/paths.js';

/**
 * The pool loads without undici's HTTP/2 half (and so without node:http2 and node:tls):
 * the compiled client, in a process of its own, posts to a real HTTP/1.1 receiver, then
 * says which of Node's modules it loaded.
 */
const run = promisify(execFile);

describe("undici's pool, loaded alone", () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    await buildCli();
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ success: true, detection: { id: 3_000_000_001 } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  }, 180_000);
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('posts over HTTP/1.1 without loading node:http2 or node:tls', async () => {
    const client = path.join(REPO_ROOT, 'dist/api/client.js');
    const script = `
      const { createServiceClient } = await import(${JSON.stringify(client)});
      const c = createServiceClient({ baseUrl: ${JSON.stringify(url)}, token: 'undici-agent-T0KEN' });
      const d = await c.postDetection({ timestamp: '2025-06-01T06:00:00+00:00', commonName: 'Eurasian Blackbird', scientificName: 'Turdus merula', confidence: 0.9 });
      await c.close();
      console.log(JSON.stringify({ id: d.id, modules: process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13)) }));
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { env: { PATH: process.env.PATH } });
    const out = JSON.parse(stdout) as { id: number; modules: string[] };
    expect(out.id).toBe(3_000_000_001);
    expect(out.modules).not.toContain('http2');
    expect(out.modules).not.toContain('tls');
  });
});
