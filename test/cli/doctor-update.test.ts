import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, parseJson, runCli, writeCliConfig } from '../helpers/cli.js';
import { tempDir } from '../helpers/paths.js';

/**
 * doctor's `update` and `runtime` checks against the real apt: a private apt state
 * (APT_CONFIG) whose dpkg status says which station-agent is installed, and an HTTP
 * repository on this machine that `apt-get update` fetches from. doctor answers from apt's
 * cache: the repository sees no request of its own.
 */

const ARCH = execFileSync('dpkg', ['--print-architecture']).toString().trim();

interface Check {
  id: string;
  status: string;
  detail: string;
  hint: string | null;
  data?: Record<string, unknown>;
}

describe('station-agent doctor: the runtime and the newest version in apt\'s cache', () => {
  let tmp: ReturnType<typeof tempDir>;
  let server: Server;
  let requests: string[] = [];
  let repoUrl: string;
  let config: string;

  const aptDir = () => path.join(tmp.dir, 'apt');
  const env = () => ({ APT_CONFIG: path.join(aptDir(), 'apt.conf') });

  /** A private apt: station-agent `installed` (or not) with dpkg status `status`, `offered` in the repository. */
  async function aptWorld(o: { installed: string | null; status?: string; offered: string | null; sources?: boolean }): Promise<void> {
    const dir = aptDir();
    rmSync(dir, { recursive: true, force: true });
    for (const d of ['etc/sources.list.d', 'etc/preferences.d', 'etc/apt.conf.d', 'state/lists/partial', 'cache/archives/partial', 'repo']) mkdirSync(path.join(dir, d), { recursive: true });
    writeFileSync(
      path.join(dir, 'apt.conf'),
      [`Dir::Etc "${dir}/etc/";`, `Dir::State "${dir}/state/";`, `Dir::State::status "${dir}/state/status";`, `Dir::Cache "${dir}/cache/";`, 'APT::Sandbox::User "root";', 'Debug::NoLocking "true";', ''].join('\n'),
    );
    writeFileSync(path.join(dir, 'etc/sources.list'), o.sources === false ? '' : `deb [trusted=yes] ${repoUrl} ./\n`);
    const stanza = (version: string, extra: string[]) =>
      ['Package: station-agent', `Version: ${version}`, `Architecture: ${ARCH}`, 'Maintainer: station-agent maintainers <m@example.org>', 'Installed-Size: 1', ...extra, 'Description: test package', ''].join('\n');
    writeFileSync(path.join(dir, 'state/status'), o.installed ? stanza(o.installed, [`Status: ${o.status ?? 'install ok installed'}`]) : '');
    writeFileSync(
      path.join(dir, 'repo/Packages'),
      o.offered ? stanza(o.offered, [`Filename: ./station-agent_${o.offered}_${ARCH}.deb`, 'Size: 1', `SHA256: ${'0'.repeat(64)}`]) : '',
    );
    // Not execFileSync: apt-get fetches from this process's own HTTP server.
    await new Promise<void>((resolve, reject) =>
      execFile('apt-get', ['-q', 'update'], { env: { ...process.env, ...env(), LC_ALL: 'C' } }, (err, _out, stderr) => (err ? reject(new Error(`apt-get update: ${stderr}`)) : resolve())),
    );
  }

  async function doctor(): Promise<Map<string, Check>> {
    requests = [];
    const result = await runCli(['doctor', '--json', '--offline', '--config', config], { env: env(), timeoutMs: 60_000 });
    const checks = new Map(parseJson(result).checks.map((c: Check) => [c.id, c]));
    // doctor read apt's cache: no request reached the repository.
    expect(requests).toEqual([]);
    return checks as Map<string, Check>;
  }

  beforeAll(async () => {
    await buildCli();
    tmp = tempDir('cli-doctor-update-');
    server = createServer((req, res) => {
      requests.push(req.url ?? '');
      const file = path.join(aptDir(), 'repo', path.basename(req.url ?? ''));
      if (existsSync(file)) res.writeHead(200, { 'content-type': 'text/plain' }).end(readFileSync(file));
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    repoUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    config = writeCliConfig(path.join(tmp.dir, 'config.json'), {
      baseUrl: 'http://127.0.0.1:9',
      token: 'doctor-update-token',
      dataDir: path.join(tmp.dir, 'data'),
      inputDir: path.join(tmp.dir, 'input'),
      extra: { clock: { requireSync: 'never' }, disk: { minFreeMb: 1 } },
    });
  }, 180_000);

  afterAll(async () => {
    server?.closeAllConnections();
    if (server) await new Promise((resolve) => server.close(resolve));
    tmp?.cleanup();
  });

  it('warns when the apt source offers a newer version, naming both and the source; passes once it is installed', async () => {
    await aptWorld({ installed: '0.1.0', offered: '0.2.0' });
    expect(requests.some((r) => r.endsWith('Packages'))).toBe(true);
    let update = (await doctor()).get('update')!;
    expect(update.status, update.detail).toBe('warn');
    expect(update.detail).toMatch(/^0\.1\.0 installed, 0\.2\.0 offered by http:\/\/127\.0\.0\.1:\d+ \.\/ Packages /);
    expect(update.detail).toMatch(/\(apt's cache of \d{4}-\d\d-\d\d\)$/);
    expect(update.hint).toContain('apt upgrade station-agent');
    expect(update.data).toMatchObject({ installed: '0.1.0', candidate: '0.2.0', held: false });

    await aptWorld({ installed: '0.2.0', offered: '0.2.0' });
    update = (await doctor()).get('update')!;
    expect(update.status, update.detail).toBe('pass');
    expect(update.detail).toMatch(/^0\.2\.0 installed, the newest in apt's cache of /);
  });

  it('says a held version is held, and an install no apt source offers gets no updates', async () => {
    await aptWorld({ installed: '0.1.0', status: 'hold ok installed', offered: '0.2.0' });
    const held = (await doctor()).get('update')!;
    expect(held.status).toBe('warn');
    expect(held.detail).toMatch(/0\.2\.0 offered by .*; held by apt-mark hold$/);
    expect(held.hint).toContain('apt-mark unhold station-agent');

    await aptWorld({ installed: '0.1.0', offered: null, sources: false });
    const alone = (await doctor()).get('update')!;
    expect(alone.status).toBe('warn');
    expect(alone.detail).toMatch(/^0\.1\.0 installed; no apt source offers station-agent/);
    expect(alone.hint).toContain('docs/INSTALL.md');
  });

  it('warns when apt\'s cache is too old to say, and skips where the agent is not a package', async () => {
    await aptWorld({ installed: '0.2.0', offered: '0.2.0' });
    const old = (Date.now() - 30 * 86_400_000) / 1000;
    const lists = path.join(aptDir(), 'state/lists');
    for (const f of readdirSync(lists)) utimesSync(path.join(lists, f), old, old);
    const stale = (await doctor()).get('update')!;
    expect(stale.status).toBe('warn');
    expect(stale.detail).toMatch(/, (30|29) days old$/);

    await aptWorld({ installed: null, offered: '0.2.0' });
    const checks = await doctor();
    expect(checks.get('update')).toMatchObject({ status: 'skip', detail: expect.stringContaining('not installed from a Debian package') });
    // The runtime check, beside it: the line of the Node.js running the CLI, with its end of life.
    const runtime = checks.get('runtime')!;
    expect(runtime.detail).toContain(`Node.js ${process.versions.node} (LTS line ${process.versions.node.split('.')[0]}, end of life `);
    expect(runtime.data).toMatchObject({ node: process.versions.node, endOfLife: expect.stringMatching(/^\d{4}-\d\d-\d\d$/) });
  });
});
