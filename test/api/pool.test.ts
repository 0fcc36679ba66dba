import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { Socket } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient } from '../../src/api/client.js';
import { NetworkError } from '../../src/api/errors.js';
import { send } from '../../src/api/http.js';
import { connectionPool } from '../../src/api/pool.js';
import { buildCli } from '../helpers/cli.js';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';
import { until } from '../helpers/until.js';

/**
 * The client's keep-alive pool (src/api/pool.ts, Node's own http client): requests reuse
 * a connection, at most `connections` of them are open, HTTP/1.1 only, and `node:https`
 * (with `node:tls`) is loaded only for an https origin. Against real servers.
 */
const run = promisify(execFile);
const TOKEN = 'pool-T0KEN-secret';
const DETECTION = { timestamp: '2025-06-01T06:00:00+00:00', commonName: 'Eurasian Blackbird', scientificName: 'Turdus merula', confidence: 0.9 };

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

interface Receiver {
  url: string;
  /** Distinct connections the server accepted. */
  connections: Set<Socket>;
  /** Most requests the server held at once. */
  peak: number;
  held: Array<() => void>;
}

/** A real receiver that answers each detection with a created id; with `hold`, only when released. */
async function receiver(hold = false, make: (h: (req: IncomingMessage, res: ServerResponse) => void) => Server = (h) => createServer(h)): Promise<Receiver> {
  const r: Receiver = { url: '', connections: new Set(), peak: 0, held: [] };
  let active = 0;
  let id = 3_000_000_000;
  const server = make((req, res) => {
    r.connections.add(req.socket);
    active++;
    r.peak = Math.max(r.peak, active);
    req.resume();
    req.on('end', () => {
      const answer = () => {
        active--;
        res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ success: true, detection: { id: ++id } }));
      };
      if (hold) r.held.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const scheme = 'cert' in server ? 'https' : 'http';
  r.url = `${scheme}://127.0.0.1:${(server.address() as { port: number }).port}`;
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return r;
}

function client(baseUrl: string, connections?: number) {
  const c = createServiceClient({ baseUrl, token: TOKEN, timeoutMs: 10_000, ...(connections ? { connections } : {}) });
  cleanups.push(() => c.close());
  return c;
}

describe('the keep-alive pool', () => {
  it('sends one request after another over one connection', async () => {
    const r = await receiver();
    const c = client(r.url);
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await c.postDetection(DETECTION)).id);
    expect(ids).toEqual([3_000_000_001, 3_000_000_002, 3_000_000_003, 3_000_000_004, 3_000_000_005]);
    expect(r.connections.size).toBe(1);
  });

  it('opens at most `connections` connections; the requests beyond wait for one', async () => {
    const r = await receiver(true);
    const c = client(r.url, 2);
    const calls = Array.from({ length: 6 }, () => c.postDetection(DETECTION));
    for (let answered = 0; answered < 6; ) {
      await until('a held request at the server', () => r.held.length > 0, 5_000);
      r.held.shift()!();
      answered++;
    }
    const ids = (await Promise.all(calls)).map((d) => d.id);
    expect(new Set(ids).size).toBe(6);
    expect(r.connections.size).toBe(2);
    expect(r.peak).toBe(2);
  });

  it('close() lets a call in flight finish, then refuses new ones as never sent', async () => {
    const r = await receiver(true);
    const c = createServiceClient({ baseUrl: r.url, token: TOKEN, timeoutMs: 10_000 });
    const call = c.postDetection(DETECTION);
    await until('the request at the server', () => r.held.length === 1, 5_000);
    const closed = c.close();
    r.held.shift()!();
    await expect(call).resolves.toMatchObject({ id: 3_000_000_001 });
    await closed;
    const err = await c.postDetection(DETECTION).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ cause_code: 'ERR_POOL_CLOSED' });
  });
});

describe('the pool, its timers', () => {
  const get = (pool: ReturnType<typeof connectionPool>) =>
    send(pool, { method: 'GET', path: '/api/v1/stats', display: 'GET /api/v1/stats', headers: {}, timeoutMs: 5_000 });

  it('an idle connection in the pool is closed after idleMs', async () => {
    const r = await receiver();
    const pool = connectionPool(new URL(r.url), { connections: 1, connectTimeoutMs: 5_000, idleMs: 100 });
    cleanups.push(() => pool.close());
    await get(pool);
    const [socket] = [...r.connections];
    await until('the idle connection closed', () => socket.destroyed || socket.readyState === 'closed', 5_000);
  });
});

function haveOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A self-signed certificate for 127.0.0.1, made by openssl in a temp folder. */
function selfSigned(): { key: string; cert: string; certFile: string } {
  const tmp = tempDir('pool-tls-');
  cleanups.push(tmp.cleanup);
  const key = path.join(tmp.dir, 'key.pem');
  const certFile = path.join(tmp.dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', certFile], {
    stdio: 'ignore',
  });
  return { key: readFileSync(key, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}

describe('what the pool loads (the compiled client in a process of its own)', () => {
  beforeAll(() => buildCli(), 180_000);

  const script = (url: string) => `
    const { createServiceClient } = await import(${JSON.stringify(path.join(REPO_ROOT, 'dist/api/client.js'))});
    const c = createServiceClient({ baseUrl: ${JSON.stringify(url)}, token: ${JSON.stringify(TOKEN)} });
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await c.postDetection(${JSON.stringify(DETECTION)})).id);
    await c.close();
    const modules = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13));
    const packages = Object.keys((await import('node:module')).createRequire(import.meta.url).cache);
    console.log(JSON.stringify({ ids, modules, undici: packages.some((p) => p.includes('/undici/')) }));
  `;
  type Out = { ids: number[]; modules: string[]; undici: boolean };
  /**
   * What Node itself loads for an ES module's import of one of its modules: on Node 26 the ES
   * wrapper of node:http brings node:tls and node:http2 in (`require('node:http')` does not), so
   * what the client must not load is counted beyond what Node loads for the modules it imports.
   */
  const nodeOwn = async (...builtins: string[]): Promise<string[]> => {
    const probe = `${builtins.map((b) => `await import('${b}');`).join(' ')} console.log(JSON.stringify(process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13))));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', probe], { env: { PATH: process.env.PATH } });
    return JSON.parse(stdout) as string[];
  };

  it('an http origin: HTTP/1.1 over node:http, without node:https, node:tls, node:http2 or undici', async () => {
    const r = await receiver();
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script(r.url)], { env: { PATH: process.env.PATH } });
    const out = JSON.parse(stdout) as Out;
    expect(out.ids).toEqual([3_000_000_001, 3_000_000_002, 3_000_000_003]);
    expect(out.modules).toContain('http');
    const own = await nodeOwn('node:http');
    for (const m of ['https', 'tls', 'http2'].filter((m) => !own.includes(m))) expect(out.modules).not.toContain(m);
    expect(own).not.toContain('https');
    expect(out.undici).toBe(false);
    expect(r.connections.size).toBe(1);
  });

  it.skipIf(!haveOpenssl())('an https origin: node:https, one kept-alive TLS connection; an untrusted certificate is never sent to', async () => {
    const tls = selfSigned();
    const r = await receiver(false, (h) => createTlsServer({ key: tls.key, cert: tls.cert }, h));
    // Trusted through NODE_EXTRA_CA_CERTS (read at start-up, so in a process of its own).
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script(r.url)], { env: { PATH: process.env.PATH, NODE_EXTRA_CA_CERTS: tls.certFile } });
    const out = JSON.parse(stdout) as Out;
    expect(out.ids).toEqual([3_000_000_001, 3_000_000_002, 3_000_000_003]);
    expect(out.modules).toEqual(expect.arrayContaining(['https', 'tls']));
    if (!(await nodeOwn('node:http', 'node:https')).includes('http2')) expect(out.modules).not.toContain('http2');
    expect(r.connections.size).toBe(1);

    // Here the certificate is not trusted: the handshake fails before any byte of the request.
    const err = await client(r.url).postDetection(DETECTION).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ code: 'ERR_NETWORK_BEFORE_SEND' });
    expect(['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN']).toContain((err as NetworkError).cause_code);
    expect(r.connections.size).toBe(1);
  });
});
