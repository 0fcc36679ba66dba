import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generateDropIns, generatedGrant, INPUT_DROP_IN, unitOfStateDir } from '../../src/system/unit-access.js';
import { hasCommand } from '../install/commands.js';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';

/**
 * The package's systemd generator (src/system/unit-access.ts): a drop-in per station
 * config that lets the unit write input.dir, read back by doctor, and parsed by systemd
 * itself (`systemd-analyze security --offline`: no warning, the exposure unchanged).
 */
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function world(configs: Record<string, unknown>): { configDir: string; outDir: string; root: string } {
  const t = tempDir('station-agent-generator-');
  cleanups.push(t.cleanup);
  const configDir = path.join(t.dir, 'etc');
  const outDir = path.join(t.dir, 'generator');
  mkdirSync(configDir);
  mkdirSync(outDir);
  for (const [name, body] of Object.entries(configs)) writeFileSync(path.join(configDir, name), typeof body === 'string' ? body : JSON.stringify(body));
  return { configDir, outDir, root: t.dir };
}

const dropIn = (outDir: string, unit: string) => path.join(outDir, `${unit}.d`, INPUT_DROP_IN);

describe('the generator: write access to each station\'s input folders', () => {
  it('config.json and NAME.json: a drop-in for their units with input.dir (and moveTo with move); nothing for what cannot be one', () => {
    const w = world({
      'config.json': { input: { dir: '/srv/analyzer/output' } },
      'garden.json': { input: { dir: '/home/pi/BirdSongs/StreamData/', afterUpload: 'move', moveTo: '/home/pi/uploaded' } },
      'back-garden.json': { input: { dir: '/srv/x', moveTo: '/srv/y' } },
      'not a station.json': { input: { dir: '/srv/z' } },
      'broken.json': '{ "input": ',
      'system.json': { input: { dir: '/etc' } },
      'relative.json': { input: { dir: 'output' } },
      'notes.txt': 'not a config',
    });
    const said = generateDropIns(w.configDir, w.outDir);
    expect(readFileSync(dropIn(w.outDir, 'station-agent.service'), 'utf8')).toMatch(/^\[Service\]\nReadWritePaths="-\/srv\/analyzer\/output"\n$/m);
    const garden = readFileSync(dropIn(w.outDir, 'station-agent@garden.service'), 'utf8');
    expect(garden.split('\n').filter((l) => l.startsWith('ReadWritePaths'))).toEqual([
      'ReadWritePaths="-/home/pi/BirdSongs/StreamData"',
      'ReadWritePaths="-/home/pi/uploaded"',
    ]);
    // An instance named as bin/install names them (a '-' included); moveTo only with afterUpload move.
    expect(readFileSync(dropIn(w.outDir, 'station-agent@back-garden.service'), 'utf8')).toMatch(/\nReadWritePaths="-\/srv\/x"\n$/);
    // A file name no unit's %i.json can be (a space would need escaping in the unit's name): left alone.
    expect(readdirSync(w.outDir).filter((d) => d.includes('not'))).toEqual([]);
    for (const name of ['broken', 'system', 'relative']) expect(existsSync(path.join(w.outDir, `station-agent@${name}.service.d`)), name).toBe(false);
    expect(said.join('\n')).toMatch(/broken\.json: not read/);
    expect(said.join('\n')).toMatch(/system\.json: \/etc is a system folder/);
    expect(said.join('\n')).toMatch(/relative\.json: "output" is not an absolute path/);
  });

  it('doctor reads the grant back, quoting and all; an operator\'s file of the same name masks it', () => {
    const odd = '/srv/a b/"q"/100%\\x';
    const w = world({ 'config.json': { input: { dir: odd } } });
    generateDropIns(w.configDir, w.outDir);
    const etc = path.join(w.root, 'etc-systemd');
    const dirs = { generator: w.outDir, etc };
    expect(generatedGrant('station-agent.service', dirs)).toEqual({ folders: [odd], why: null });
    expect(generatedGrant('station-agent@garden.service', dirs).why).toMatch(/no .*station-agent@garden\.service\.d.*daemon-reload/);
    mkdirSync(path.join(etc, 'station-agent.service.d'), { recursive: true });
    writeFileSync(path.join(etc, 'station-agent.service.d', INPUT_DROP_IN), '');
    expect(generatedGrant('station-agent.service', dirs)).toMatchObject({ folders: [], why: expect.stringMatching(/masks the package's generated drop-in/) });
  });

  it('the state directory names its unit', () => {
    expect(unitOfStateDir('/var/lib/station-agent')).toBe('station-agent.service');
    expect(unitOfStateDir('/var/lib/station-agent/garden')).toBe('station-agent@garden.service');
    expect(unitOfStateDir('/var/lib/station-agent/back-garden')).toBe('station-agent@back-garden.service');
    expect(unitOfStateDir('/srv/station-agent')).toBeNull();
  });

  it.skipIf(!hasCommand('systemd-analyze'))('systemd reads the drop-in without a warning, and the exposure stays 1.2', () => {
    const w = world({ 'config.json': { input: { dir: '/srv/a b/"q"/100%\\x' } } });
    generateDropIns(w.configDir, w.outDir);
    const units = path.join(w.root, 'units');
    mkdirSync(path.join(units, 'station-agent.service.d'), { recursive: true });
    copyFileSync(path.join(REPO_ROOT, 'systemd/station-agent.service'), path.join(units, 'station-agent.service'));
    const analyze = () => {
      const r = spawnSync('systemd-analyze', ['security', '--offline=yes', '--no-pager', path.join(units, 'station-agent.service')], {
        encoding: 'utf8',
        env: { ...process.env, SYSTEMD_UNIT_PATH: `${units}:` },
      });
      return `${r.stdout}${r.stderr}`;
    };
    const without = analyze();
    copyFileSync(dropIn(w.outDir, 'station-agent.service'), path.join(units, 'station-agent.service.d', INPUT_DROP_IN));
    const withDropIn = analyze();
    expect(withDropIn).not.toMatch(/50-station-agent-input\.conf:\d+:/);
    const level = (out: string) => /Overall exposure level for \S+: (\d+\.\d+)/.exec(out)?.[1];
    expect(level(withDropIn)).toBe(level(without));
    expect(Number(level(withDropIn))).toBeLessThanOrEqual(1.2);
    // The same check sees a drop-in systemd cannot read (the test can fail).
    writeFileSync(path.join(units, 'station-agent.service.d', INPUT_DROP_IN), '[Service]\nReadWritePaths=-/srv/%x\n');
    expect(analyze()).toMatch(/50-station-agent-input\.conf:2:/);
  });
});
