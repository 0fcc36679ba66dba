import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/queue/migrations.js';
import { queueDbPath } from '../../src/status/queue-file.js';
import { tempDir } from '../helpers/paths.js';
import { TOKEN } from '../helpers/agent-world.js';

/**
 * The package's own maintainer scripts (extracted from the .deb with dpkg-deb -e), run the
 * way dpkg runs them into another root: DPKG_ROOT, DPKG_MAINTSCRIPT_PACKAGE/NAME, the
 * arguments of install, upgrade, remove and purge. The amd64 package (STATION_AGENT_DEB_AMD64)
 * is used, so that the agent's own config check and migrations run natively on this machine.
 * Real: systemd-sysusers and deb-systemd-helper under the root, the agent as the service
 * user (setpriv), a real queue file. Not real: systemd itself, which does not run here; a
 * `systemctl` and a `deb-systemd-invoke` on PATH record what the scripts ask of it, and
 * the root has /run/systemd/system so that the scripts do ask.
 */
const DEB = process.env.STATION_AGENT_DEB_AMD64;
if (!DEB) throw new Error('test/package runs through npm run test:package (scripts/test-package.sh), which sets STATION_AGENT_DEB_AMD64');

const temp = tempDir('maintscripts-');
const root = path.join(temp.dir, 'root');
const control = path.join(temp.dir, 'control');
const fakeBin = path.join(temp.dir, 'bin');
const calls = path.join(temp.dir, 'systemd-calls.log');
const inRoot = (...parts: string[]) => path.join(root, ...parts);
const configFile = inRoot('etc/station-agent/config.json');
const stateDir = inRoot('var/lib/station-agent');
const enabledLink = inRoot('etc/systemd/system/multi-user.target.wants/station-agent.service');

/** Runs one maintainer script as dpkg does; returns its output (it must exit 0 unless said). */
function maintscript(name: string, args: string[], options: { status?: number; env?: Record<string, string> } = {}): string {
  const result = spawnSync('sh', [path.join(control, name), ...args], {
    encoding: 'utf8',
    env: {
      PATH: `${fakeBin}:/usr/sbin:/usr/bin:/sbin:/bin`,
      DPKG_ROOT: root,
      DPKG_MAINTSCRIPT_PACKAGE: 'station-agent',
      DPKG_MAINTSCRIPT_NAME: name,
      DPKG_MAINTSCRIPT_ARCH: 'amd64',
      ...options.env,
    },
  });
  const output = `${result.stdout}${result.stderr}`;
  expect(result.status, `${name} ${args.join(' ')}:\n${output}`).toBe(options.status ?? 0);
  return output;
}

/** What dpkg does to the files between the scripts: unpack the package, or remove its files. */
function unpack(): void {
  execFileSync('dpkg-deb', ['-x', DEB!, root]);
}
function removeFiles(): void {
  const entries = execFileSync('sh', ['-c', 'dpkg-deb --fsys-tarfile "$1" | tar -t', 'sh', DEB!], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\n')
    .filter((e) => e && !e.endsWith('/'));
  for (const entry of entries) rmSync(inRoot(entry), { force: true });
  rmSync(inRoot('opt/station-agent'), { recursive: true, force: true });
}

const systemdCalls = () => (existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n') : []);
const ids = () => {
  const line = readFileSync(inRoot('etc/passwd'), 'utf8').split('\n').find((l) => l.startsWith('station-agent:'));
  expect(line, 'station-agent in the root /etc/passwd').toBeDefined();
  const [, , uid, gid] = line!.split(':');
  return { uid: Number(uid), gid: Number(gid) };
};
const mode = (file: string) => statSync(file).mode & 0o777;

/** The operator's edit: a token file and the folders, all inside the temporary root. */
function configure(): void {
  const { uid, gid } = ids();
  const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, Record<string, unknown>>;
  config.service = { ...config.service, baseUrl: 'http://127.0.0.1:9', tokenFile: inRoot('etc/station-agent/token') };
  config.dataDir = stateDir as unknown as Record<string, unknown>;
  config.input = { ...config.input, dir: inRoot('srv/analyzer'), labels: null };
  mkdirSync(inRoot('srv/analyzer'), { recursive: true });
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  writeFileSync(inRoot('etc/station-agent/token'), `${TOKEN}\n`, { mode: 0o600 });
  chownSync(inRoot('etc/station-agent/token'), uid, gid);
}

/** A queue as an earlier version left it: every migration but the last, and one stored value. */
function olderQueue(): string {
  const { uid, gid } = ids();
  const file = queueDbPath(stateDir);
  const db = new Database(file);
  for (const m of MIGRATIONS.slice(0, -1)) m.up(db);
  db.pragma(`user_version = ${MIGRATIONS.length - 1}`);
  db.prepare('INSERT INTO meta (key, value, updated_at) VALUES (?, ?, ?)').run('package-test', '"kept"', Date.now());
  db.close();
  chownSync(file, uid, gid);
  return file;
}

beforeAll(() => {
  // The service user must reach the package's files, as on a station.
  chmodSync(temp.dir, 0o755);
  mkdirSync(inRoot('run/systemd/system'), { recursive: true });
  mkdirSync(control, { recursive: true });
  execFileSync('dpkg-deb', ['-e', DEB, control]);
  mkdirSync(fakeBin, { recursive: true });
  for (const tool of ['systemctl', 'deb-systemd-invoke']) {
    writeFileSync(path.join(fakeBin, tool), `#!/bin/sh\necho "${tool} $*" >>'${calls}'\n`, { mode: 0o755 });
  }
});
afterAll(() => temp.cleanup());

describe('the maintainer scripts under a temporary root', () => {
  it('install: creates the user, the config (0600, from the example) and the queue folder, enables the unit, and does not start it without a token', () => {
    maintscript('preinst', ['install']);
    unpack();
    // A token in dpkg's environment is not the config's: it must not make the unit start.
    const out = maintscript('postinst', ['configure', ''], { env: { STATION_AGENT_TOKEN: TOKEN } });

    const { uid, gid } = ids();
    expect(uid).toBeGreaterThan(0);
    expect(readFileSync(configFile, 'utf8')).toBe(readFileSync(inRoot('opt/station-agent/config.example.json'), 'utf8'));
    expect(mode(configFile)).toBe(0o600);
    expect(statSync(configFile).uid).toBe(uid);
    expect(mode(inRoot('etc/station-agent'))).toBe(0o750);
    expect(statSync(inRoot('etc/station-agent'))).toMatchObject({ uid: 0, gid });
    expect(mode(stateDir)).toBe(0o700);
    expect(statSync(stateDir).uid).toBe(uid);
    expect(lstatSync(enabledLink).isSymbolicLink()).toBe(true);
    expect(readlinkSync(enabledLink)).toBe('/lib/systemd/system/station-agent.service');

    expect(out).toContain('not starting station-agent.service');
    expect(out).toContain('service.tokenFile');
    expect(out).not.toContain(TOKEN);
    expect(systemdCalls().filter((c) => c.includes(' start '))).toEqual([]);
  });

  it('configure again with a token: the config is kept, the unit started', () => {
    configure();
    const before = readFileSync(configFile, 'utf8');
    const out = maintscript('postinst', ['configure', '']);
    expect(readFileSync(configFile, 'utf8')).toBe(before);
    expect(out).toContain('starting station-agent.service');
    expect(out).not.toContain(TOKEN);
    expect(systemdCalls()).toContain('deb-systemd-invoke start station-agent.service');
  });

  it('upgrade: stops the agent, keeps the config and the queue, runs the queue migrations, then starts it', () => {
    const queueFile = olderQueue();
    const config = readFileSync(configFile, 'utf8');
    const token = readFileSync(inRoot('etc/station-agent/token'), 'utf8');
    rmSync(calls, { force: true });

    maintscript('prerm', ['upgrade', '0.1.0']);
    maintscript('preinst', ['upgrade', '0.0.9']);
    unpack();
    maintscript('postinst', ['configure', '0.0.9']);

    expect(readFileSync(configFile, 'utf8')).toBe(config);
    expect(readFileSync(inRoot('etc/station-agent/token'), 'utf8')).toBe(token);
    const db = new Database(queueFile, { readonly: true });
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
      expect(db.prepare("SELECT value FROM meta WHERE key = 'package-test'").get()).toEqual({ value: '"kept"' });
    } finally {
      db.close();
    }
    const order = systemdCalls().filter((c) => c.startsWith('deb-systemd-invoke'));
    expect(order).toEqual(['deb-systemd-invoke stop station-agent.service', 'deb-systemd-invoke start station-agent.service']);
    expect(lstatSync(enabledLink).isSymbolicLink()).toBe(true);
  });

  it('upgrade keeps an operator’s `systemctl disable`', () => {
    maintscript('prerm', ['upgrade', '0.1.0']);
    // What `systemctl disable` leaves: the link gone (deb-systemd-helper remembers the state).
    rmSync(enabledLink);
    unpack();
    maintscript('postinst', ['configure', '0.1.0']);
    expect(existsSync(enabledLink)).toBe(false);
  });

  it('remove: stops the agent, removes the code, keeps the config and the queue', () => {
    rmSync(calls, { force: true });
    maintscript('prerm', ['remove']);
    removeFiles();
    const out = maintscript('postrm', ['remove']);
    expect(systemdCalls()).toContain('deb-systemd-invoke stop station-agent.service');
    expect(existsSync(inRoot('opt/station-agent'))).toBe(false);
    expect(existsSync(inRoot('lib/systemd/system/station-agent.service'))).toBe(false);
    expect(existsSync(configFile)).toBe(true);
    expect(existsSync(queueDbPath(stateDir))).toBe(true);
    expect(out).toContain('kept the config');
  });

  it('purge: removes the config, the queue and the unit state; keeps the user', () => {
    maintscript('postrm', ['purge']);
    expect(existsSync(inRoot('etc/station-agent'))).toBe(false);
    expect(existsSync(stateDir)).toBe(false);
    expect(existsSync(enabledLink)).toBe(false);
    expect(existsSync(inRoot('var/lib/systemd/deb-systemd-helper-enabled/station-agent.service.dsh-also'))).toBe(false);
    expect(ids().uid).toBeGreaterThan(0);
  });

  it('install after a purge starts afresh: a new config from the example, enabled again', () => {
    unpack();
    maintscript('postinst', ['configure', '']);
    expect(readFileSync(configFile, 'utf8')).toBe(readFileSync(inRoot('opt/station-agent/config.example.json'), 'utf8'));
    expect(lstatSync(enabledLink).isSymbolicLink()).toBe(true);
  });

  it('preinst refuses to install over a tree bin/install put in /opt/station-agent, naming the way out', () => {
    writeFileSync(inRoot('opt/station-agent/bin/install'), '#!/bin/sh\n');
    const out = maintscript('preinst', ['install'], { status: 1 });
    expect(out).toContain('installed by bin/install');
    expect(out).toContain('/opt/station-agent/bin/uninstall');
  });
});
