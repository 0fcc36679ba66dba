import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_RELEASE_LINES } from '../../src/system/runtime-support.js';
import { buildCli } from '../helpers/cli.js';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';
import { hasCommand } from './commands.js';
import { exposureLevel, verifyUnit } from './systemd-analyze.js';

/**
 * bin/install run as a process into a temporary root (--root), as an operator would run
 * it on a Pi, minus systemctl. The source tree is this repository; dist/ is built first
 * when missing.
 */

const INSTALL = path.join(REPO_ROOT, 'bin/install');
const UNINSTALL = path.join(REPO_ROOT, 'bin/uninstall');
const EXAMPLE_CONFIG = path.join(REPO_ROOT, 'config.example.json');
/** The LTS lines of at least package.json's `engines` whose end of life is ahead: what bin/install accepts. */
const MIN_MAJOR = Number(/>=(\d+)/.exec((JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node)?.[1]);
const SUPPORTED_LINES = NODE_RELEASE_LINES.filter((l) => l.lts && l.major >= MIN_MAJOR && l.endOfLife >= new Date().toISOString().slice(0, 10)).map((l) => l.major);

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(script: string, args: string[], env: NodeJS.ProcessEnv = process.env): Run {
  const result = spawnSync(script, args, { encoding: 'utf8', env, timeout: 180_000 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function expectSuccess(result: Run): void {
  expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
}

const mode = (file: string): number => statSync(file).mode & 0o777;

function currentGroupName(): string {
  return spawnSync('id', ['-gn'], { encoding: 'utf8' }).stdout.trim();
}

// bin/install copies the build (dist/, the bundle the CLI runs included) as it finds it.
beforeAll(() => buildCli(), 180_000);

describe('bin/install into a temporary root, as the current user', () => {
  const temp = tempDir('station-agent-install-');
  const root = temp.dir;
  const user = userInfo().username;
  const group = currentGroupName();
  const at = (...parts: string[]) => path.join(root, ...parts);
  const code = (...parts: string[]) => at('opt/station-agent', ...parts);
  const config = at('etc/station-agent/config.json');
  const queue = at('var/lib/station-agent/queue.db');
  const unit = at('etc/systemd/system/station-agent.service');
  const template = at('etc/systemd/system/station-agent@.service');
  const symlink = at('usr/local/bin/station-agent');
  const installArgs = ['--root', root, '--no-systemctl', '--copy-node-modules', '--user', user, '--no-build'];

  afterAll(() => temp.cleanup());

  it('installs the code, the production dependencies, the config, the units and the symlink', () => {
    const result = run(INSTALL, installArgs);
    expectSuccess(result);
    // The native FLAC encoder is reported either way; with --root it is never apt-installed.
    const flac = spawnSync('flac', ['--version'], { encoding: 'utf8' });
    expect(result.stdout).toMatch(
      flac.status === 0
        ? /==> FLAC encoder: flac [\d.]+ \(native; upload\.flacEncoder auto uses it where libFLAC in-process is not built\)/
        : /==> FLAC encoder: the flac program is not installed; not installed with --root\. On the target, run:\n {4}apt-get install -y flac/,
    );

    for (const file of ['package.json', 'package-lock.json', 'bin/station-agent', 'dist/bundle/main.js', 'dist/cli/main.js',
      'systemd/station-agent.service', 'systemd/station-agent@.service', 'config.example.json']) {
      expect(existsSync(code(file)), file).toBe(true);
    }
    expect(existsSync(code('node_modules/better-sqlite3/package.json'))).toBe(true);
    // Dev dependencies are pruned.
    expect(existsSync(code('node_modules/typescript'))).toBe(false);
    expect(existsSync(code('node_modules/vitest'))).toBe(false);
    expect(existsSync(`${code()}.new`)).toBe(false);

    // The installed copy runs with its own dependencies.
    const version = spawnSync(process.execPath, [code('bin/station-agent'), '--version'], { encoding: 'utf8' });
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(version.stdout.trim(), version.stderr).toBe(pkg.version);

    expect(readFileSync(config, 'utf8')).toBe(readFileSync(EXAMPLE_CONFIG, 'utf8'));
    expect(mode(config)).toBe(0o600);
    expect(statSync(config).uid).toBe(userInfo().uid);
    expect(mode(at('etc/station-agent'))).toBe(0o750);

    const unitText = readFileSync(unit, 'utf8');
    expect(unitText).toMatch(new RegExp(`^User=${user}$`, 'm'));
    expect(unitText).toMatch(new RegExp(`^Group=${group}$`, 'm'));
    expect(unitText).toMatch(
      /^ExecStart=\/opt\/station-agent\/bin\/station-agent run --config \/etc\/station-agent\/config\.json$/m,
    );
    expect(unitText).not.toMatch(/^ReadWritePaths=/m);
    expect(readFileSync(template, 'utf8')).toMatch(new RegExp(`^User=${user}$`, 'm'));

    expect(lstatSync(symlink).isSymbolicLink()).toBe(true);
    expect(readlinkSync(symlink)).toBe('/opt/station-agent/bin/station-agent');

    expect(result.stdout).toContain('skipped: systemctl enable station-agent.service');
    expect(result.stdout).toContain('systemctl start station-agent');
    expect(result.stdout).toContain('journalctl -u station-agent -f');
  }, 120_000);

  it('upgrades in place: replaces the code, keeps a modified config, the queue and the user', () => {
    const editedConfig = '{ "edited": "by the operator" }\n';
    writeFileSync(config, editedConfig);
    chmodSync(config, 0o600);
    mkdirSync(path.dirname(queue), { recursive: true });
    writeFileSync(queue, 'queued items');
    writeFileSync(code('left-from-the-old-version'), 'x');

    // Without --user: the last installation's choices are reused, not the defaults.
    const result = run(INSTALL, installArgs.filter((arg) => arg !== '--user' && arg !== user));
    expectSuccess(result);

    expect(result.stdout).toContain('Reusing the choices of the last installation');
    expect(readFileSync(unit, 'utf8')).toMatch(new RegExp(`^User=${user}$`, 'm'));
    expect(readFileSync(config, 'utf8')).toBe(editedConfig);
    expect(readFileSync(queue, 'utf8')).toBe('queued items');
    expect(result.stdout).toContain('Keeping the existing config');
    // An upgrade leaves the enablement as the operator set it.
    expect(result.stdout).not.toContain('systemctl enable');
    expect(existsSync(code('left-from-the-old-version'))).toBe(false);
    expect(existsSync(code('dist/bundle/main.js'))).toBe(true);
    expect(existsSync(code('node_modules/better-sqlite3/package.json'))).toBe(true);
    expect(existsSync(`${code()}.old`)).toBe(false);
  }, 120_000);

  it('--uninstall removes the code, the units and the symlink; keeps the config and the queue', () => {
    expectSuccess(run(UNINSTALL, ['--root', root]));

    expect(existsSync(code())).toBe(false);
    expect(existsSync(unit)).toBe(false);
    expect(existsSync(template)).toBe(false);
    expect(existsSync(symlink)).toBe(false);
    expect(existsSync(config)).toBe(true);
    expect(readFileSync(queue, 'utf8')).toBe('queued items');
  }, 60_000);

  it('--uninstall --purge removes the config and the queue too', () => {
    expectSuccess(run(INSTALL, ['--root', root, '--uninstall', '--purge']));

    expect(existsSync(at('etc/station-agent'))).toBe(false);
    expect(existsSync(at('var/lib/station-agent'))).toBe(false);
  });
});

describe('bin/install with the dedicated user, writable input and template stations', () => {
  const temp = tempDir('station-agent-install-');
  const root = temp.dir;
  const at = (...parts: string[]) => path.join(root, ...parts);
  const dedicatedUserExists = spawnSync('id', ['-u', 'station-agent']).status === 0;
  let result: Run;

  beforeAll(() => {
    result = run(INSTALL, [
      '--root', root, '--skip-deps', '--no-build',
      '--input-writable', '/home/pi/BirdSongs', '--input-writable', '/home/pi/uploaded',
      '--station', 'garden', '--station', 'pond', '--prefix', '/opt/sa',
    ]);
    expectSuccess(result);
  });
  afterAll(() => temp.cleanup());

  it.skipIf(dedicatedUserExists)('does not create the missing user under --root, and says how', () => {
    expect(result.stdout).toContain('useradd --system');
    expect(spawnSync('id', ['-u', 'station-agent']).status).not.toBe(0);
  });

  it('writes User=station-agent, RemoveIPC=yes, the prefix and ReadWritePaths into both units', () => {
    for (const name of ['station-agent.service', 'station-agent@.service']) {
      const text = readFileSync(at('etc/systemd/system', name), 'utf8');
      expect(text).toMatch(/^User=station-agent$/m);
      expect(text).toMatch(/^Group=station-agent$/m);
      expect(text).toMatch(/^RemoveIPC=yes$/m);
      expect(text).toMatch(/^ExecStart=\/opt\/sa\/bin\/station-agent run /m);
      expect(text).not.toContain('/opt/station-agent');
      expect(text).toMatch(/^ReadWritePaths=-\/home\/pi\/BirdSongs\nReadWritePaths=-\/home\/pi\/uploaded$/m);
    }
    expect(readlinkSync(at('usr/local/bin/station-agent'))).toBe('/opt/sa/bin/station-agent');
  });

  it('creates one config per station and no config.json', () => {
    for (const station of ['garden', 'pond']) {
      const file = at('etc/station-agent', `${station}.json`);
      // The example, with this station's own queue (its StateDirectory) and token file:
      // the service and the CLI both read them from this one file.
      const config = JSON.parse(readFileSync(file, 'utf8'));
      const example = JSON.parse(readFileSync(EXAMPLE_CONFIG, 'utf8'));
      expect(config).toEqual({
        ...example,
        dataDir: `/var/lib/station-agent/${station}`,
        service: { ...example.service, tokenFile: `/etc/station-agent/${station}.token` },
      });
      const unit = readFileSync(at('etc/systemd/system', 'station-agent@.service'), 'utf8');
      expect(unit).toMatch(/^StateDirectory=station-agent\/%i$/m);
      expect(unit).not.toContain('STATION_AGENT_DATA_DIR');
      expect(mode(file)).toBe(0o600);
    }
    expect(existsSync(at('etc/station-agent/config.json'))).toBe(false);
    expect(result.stdout).toContain('systemctl start station-agent@garden');
  });

  it('a re-run without choices keeps the prefix, the input folders and the stations', () => {
    const rerun = run(INSTALL, ['--root', root, '--skip-deps', '--no-build']);
    expectSuccess(rerun);
    const text = readFileSync(at('etc/systemd/system/station-agent.service'), 'utf8');
    expect(text).toMatch(/^ExecStart=\/opt\/sa\/bin\/station-agent run /m);
    expect(text).toMatch(/^ReadWritePaths=-\/home\/pi\/BirdSongs\nReadWritePaths=-\/home\/pi\/uploaded$/m);
    expect(existsSync(at('opt/station-agent'))).toBe(false);
    expect(existsSync(at('etc/station-agent/config.json'))).toBe(false);
    expect(rerun.stdout).toContain('Upgraded');
  });

  it('--skip-deps installs no dependencies and prints the command that would', () => {
    expect(existsSync(at('opt/sa/node_modules'))).toBe(false);
    expect(result.stdout).toContain('npm ci --omit=dev');
  });

  it.skipIf(!hasCommand('systemd-analyze'))(
    'the installed units keep an exposure level of 2.0 or lower and pass verify (needs systemd-analyze)',
    () => {
      for (const name of ['station-agent.service', 'station-agent@.service']) {
        const installed = at('etc/systemd/system', name);
        expect(exposureLevel(installed), name).toBeLessThanOrEqual(2.0);
        // verify checks ExecStart=: point it into the temporary root.
        const copy = at(name.replace('@.', '@check.'));
        writeFileSync(copy, readFileSync(installed, 'utf8').replaceAll('/opt/sa/', `${at('opt/sa')}/`));
        const verified = verifyUnit(copy);
        expect(verified.output, name).toBe('');
        expect(verified.status, name).toBe(0);
      }
    },
  );
});

describe('bin/install refuses what it cannot do, with a message', () => {
  const temp = tempDir('station-agent-install-');
  afterAll(() => temp.cleanup());

  it.each([
    [['--prefix', 'opt/station-agent'], '--prefix must be an absolute path'],
    [['--prefix', '/opt'], '--prefix must be a directory of its own'],
    [['--input-writable', '/home/pi/My Files'], '--input-writable may contain only'],
    [['--input-writable', '/home/pi/%i'], '--input-writable may contain only'],
    [['--input-writable', '/'], 'would open a system folder'],
    [['--input-writable', '/etc'], 'would open a system folder'],
    [['--input-writable', '/home/pi/../../etc'], 'must be a normalised path'],
    [['--station', '../x'], '--station must be letters'],
    [['--purge'], '--purge goes with --uninstall'],
    [['--frobnicate'], "unknown option '--frobnicate'"],
    [['--user'], '--user needs a value'],
  ])('%j', (args, message) => {
    const result = run(INSTALL, ['--root', temp.dir, ...args]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(message);
  });

  it.each([
    ['20.20.2', 'past its end of life'],
    ['18.19.0', 'past its end of life'],
    ['25.9.0', 'not an LTS line'],
    ['22.22.0', 'older than the lines station-agent supports'],
  ])('refuses Node.js %s, saying why and how to get a supported line on a Pi', (version, why) => {
    const fakeBin = path.join(temp.dir, `fake-bin-${version}`);
    mkdirSync(fakeBin);
    writeFileSync(path.join(fakeBin, 'node'), `#!/bin/sh\necho ${version}\n`);
    chmodSync(path.join(fakeBin, 'node'), 0o755);
    const env = { ...process.env, PATH: `${fakeBin}:${process.env.PATH ?? ''}` };
    const result = run(INSTALL, ['--root', path.join(temp.dir, 'root'), '--skip-deps'], env);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`Node.js ${version}`);
    expect(result.stderr).toContain('is not supported');
    expect(result.stderr).toContain(why);
    // The lines and their dates are the runtime-support table's, which bin/install reads with sed.
    expect(result.stderr).toContain(`Node.js ${SUPPORTED_LINES.slice(0, -1).join(', ')} or ${SUPPORTED_LINES.at(-1)}`);
    expect(result.stderr).toContain(`deb.nodesource.com/setup_${SUPPORTED_LINES.at(-1)}.x`);
    expect(existsSync(path.join(temp.dir, 'root'))).toBe(false);
  });

  it('names a supported Node.js line and its end of life', () => {
    const fakeBin = path.join(temp.dir, 'fake-bin-24');
    mkdirSync(fakeBin);
    writeFileSync(path.join(fakeBin, 'node'), '#!/bin/sh\necho 24.1.0\n');
    chmodSync(path.join(fakeBin, 'node'), 0o755);
    const env = { ...process.env, PATH: `${fakeBin}:${process.env.PATH ?? ''}` };
    const result = run(INSTALL, ['--root', path.join(temp.dir, 'root-24'), '--skip-deps', '--no-build'], env);
    expectSuccess(result);
    expect(result.stdout).toContain(`Node.js 24.1.0 (${path.join(fakeBin, 'node')}), supported until ${NODE_RELEASE_LINES.find((l) => l.major === 24)?.endOfLife}`);
  });

  it('writes the folder of a node outside systemd\'s PATH (nvm) into the units', () => {
    const nodeDir = path.join(temp.dir, 'nvm-node-bin');
    mkdirSync(nodeDir);
    writeFileSync(path.join(nodeDir, 'node'), '#!/bin/sh\necho 26.12.1\n');
    chmodSync(path.join(nodeDir, 'node'), 0o755);
    const env = { ...process.env, PATH: `${nodeDir}:${process.env.PATH ?? ''}` };
    const root = path.join(temp.dir, 'nvm-root');
    expectSuccess(run(INSTALL, ['--root', root, '--skip-deps', '--no-build'], env));
    const text = readFileSync(path.join(root, 'etc/systemd/system/station-agent.service'), 'utf8');
    expect(text).toMatch(new RegExp(`^Environment=PATH=${nodeDir}:/usr/local/sbin:/usr/local/bin:`, 'm'));
  });

  it('--help lists every option', () => {
    const result = run(INSTALL, ['--help']);
    expectSuccess(result);
    for (const option of ['--user', '--group', '--input-writable', '--station', '--prefix', '--root',
      '--no-systemctl', '--copy-node-modules', '--skip-deps', '--no-build', '--uninstall', '--purge']) {
      expect(result.stdout).toContain(option);
    }
  });
});
