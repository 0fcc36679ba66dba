import { accessSync, constants, lstatSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NEAR_SPOOL_NAME } from '../../src/ingest/spool.js';
import { SLOW_MS } from '../helpers/installed-agent.js';
import { tempDir } from '../helpers/paths.js';
import { cardSpool, closeSandboxStations, doctorAudio, namespaces, sandboxStation, taken } from '../helpers/sandbox-station.js';
import { planBacklog, startDaysAgo, writeBacklog } from '../reliability/support/backlog.js';
import { SEED, seededRandom } from '../reliability/support/soak.js';

/**
 * `npm run test:package`: the installed package's agent (STATION_AGENT_CLI on its own Node.js)
 * under the unit's mounts as the package sets them: dataDir bind-mounted onto itself
 * (`StateDirectory=` under `ProtectSystem=strict`), and the input folder writable only where
 * the package's generator (its own code, from the package) wrote `ReadWritePaths=` for it
 * (test/helpers/sandbox-station.ts, one file system). With the generated drop-in, every
 * recording's audio is linked, none is copied into dataDir, and the package's doctor says so
 * from the daemon's count; with the drop-in masked (as an operator may), no link is possible
 * and results mode holds a reference to each analyzer's file instead: nothing copied either.
 */
const ROOT = process.env.STATION_AGENT_PACKAGE_ROOT;
const OPT = ROOT ? path.join(ROOT, 'opt/station-agent') : '';
const GENERATOR = ROOT ? path.join(ROOT, 'lib/systemd/system-generators/station-agent-generator') : '';

interface UnitAccess {
  INPUT_DROP_IN: string;
  generateDropIns(configDir: string, outDir: string): string[];
  generatedGrant(unit: string, dirs: { generator: string; etc: string }): { folders: string[]; why: string | null };
}

const cleanups: (() => void)[] = [];
afterEach(async () => {
  await closeSandboxStations();
  for (const c of cleanups.splice(0)) c();
});

/** The package's generator run on the station's config (its module, as the generator script imports it); the input folder's mount as its drop-in says. */
async function unitAsPackaged(masked: boolean): Promise<{ mount: (s: { inputDir: string; configPath: string }) => 'rw' | 'ro'; dropIn: () => string }> {
  const access = (await import(path.join(OPT, 'dist/system/unit-access.js'))) as UnitAccess;
  const t = tempDir('station-agent-generated-');
  cleanups.push(t.cleanup);
  const dirs = { generator: path.join(t.dir, 'generator'), etc: path.join(t.dir, 'etc') };
  mkdirSync(dirs.generator);
  if (masked) {
    mkdirSync(path.join(dirs.etc, 'station-agent.service.d'), { recursive: true });
    writeFileSync(path.join(dirs.etc, 'station-agent.service.d', access.INPUT_DROP_IN), '');
  }
  return {
    mount: ({ inputDir, configPath }) => {
      expect(access.generateDropIns(path.dirname(configPath), dirs.generator)).toEqual([]);
      return access.generatedGrant('station-agent.service', dirs).folders.includes(inputDir) ? 'rw' : 'ro';
    },
    dropIn: () => readFileSync(path.join(dirs.generator, 'station-agent.service.d', access.INPUT_DROP_IN), 'utf8'),
  };
}

describe.skipIf(!ROOT)('the package\'s generator', () => {
  it('is an executable that imports the module this test runs, from the package', () => {
    accessSync(GENERATOR, constants.X_OK);
    const text = readFileSync(GENERATOR, 'utf8');
    expect(text).toContain('/opt/station-agent/node/bin/node');
    const imported = /import\("\/opt\/station-agent\/(dist\/system\/unit-access\.js)"\)/.exec(text)?.[1];
    expect(imported).toBe('dist/system/unit-access.js');
    expect(statSync(path.join(OPT, imported!)).isFile()).toBe(true);
  });
});

describe.skipIf(!namespaces.ok || !ROOT)('the installed package\'s spool under the unit\'s mounts', () => {
  it('with the generated drop-in: links every WAV beside the analyzer\'s folder, nothing written to dataDir, and doctor agrees', async () => {
    const backlog = planBacklog({ count: 2, startMs: startDaysAgo(1), random: seededRandom(SEED) });
    const unit = await unitAsPackaged(false);
    const s = await sandboxStation(unit.mount, 'results', (dir) => writeBacklog(dir, backlog), SLOW_MS);
    expect(unit.dropIn()).toContain(`ReadWritePaths="-${s.inputDir}"`);
    const audio = await taken(s, backlog.length, 'linked', SLOW_MS);
    expect(audio).toMatchObject({ linked: backlog.length, copied: 0, copiedBytes: 0, nearDir: path.join(s.inputDir, NEAR_SPOOL_NAME) });
    expect(cardSpool(s.dataDir)).toEqual([]);
    const check = await doctorAudio(s);
    expect(check.status, check.detail).toBe('pass');
    expect(check.data).toMatchObject({ measured: 'daemon', copied: 0 });
  }, 3 * SLOW_MS);

  it('with the drop-in masked: no link possible, each WAV held by reference to the analyzer\'s file (results mode), nothing copied; doctor agrees', async () => {
    const backlog = planBacklog({ count: 2, startMs: startDaysAgo(1), random: seededRandom(SEED) });
    const unit = await unitAsPackaged(true);
    const s = await sandboxStation(unit.mount, 'results', (dir) => writeBacklog(dir, backlog), SLOW_MS);
    const audio = await taken(s, backlog.length, 'referenced', SLOW_MS);
    expect(audio).toMatchObject({ linked: 0, referenced: backlog.length, copied: 0, copiedBytes: 0 });
    // Symbolic links only: not an audio byte in dataDir.
    for (const f of cardSpool(s.dataDir)) expect(lstatSync(path.join(s.dataDir, 'spool', f)).isSymbolicLink(), f).toBe(true);
    const check = await doctorAudio(s);
    expect(check.status, check.detail).toBe('pass');
    expect(check.data).toMatchObject({ measured: 'daemon', referenced: backlog.length, copied: 0 });
  }, 3 * SLOW_MS);
});
