import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { audioCopyCost, RECORDINGS_PER_DAY, TYPICAL_WAV_BYTES } from '../../src/system/audio-copy-cost.js';
import { tempDir } from '../helpers/paths.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const MOUNTINFO = [
  '22 1 8:2 / / rw,relatime - ext4 /dev/mmcblk0p2 rw',
  '30 22 0:40 / /run/analyzer rw,nosuid - tmpfs tmpfs rw,size=65536k',
  '31 22 8:2 /home /home ro,relatime - ext4 /dev/mmcblk0p2 rw',
].join('\n');

describe('what the spool costs when it cannot hard-link the audio', () => {
  it('a RAM-disk analyzer folder: every recording copied, per day at one every 15 s', async () => {
    const cost = await audioCopyCost('/run/analyzer/StreamData', '/var/lib/station-agent', null, { mountinfo: MOUNTINFO });
    expect(cost).toMatchObject({ copies: true, bytesPerRecording: TYPICAL_WAV_BYTES, estimated: true, bytesPerDay: TYPICAL_WAV_BYTES * RECORDINGS_PER_DAY });
    expect(cost.why).toMatch(/on a RAM disk \(\/run\/analyzer, tmpfs\)/);
    expect(cost.bytesPerDay).toBe(8_294_653_440);
  });

  it('the installed unit\'s state directory (a mount of its own in the unit): copied unless the unit may write input.dir, with the measured size', async () => {
    for (const input of ['/home/pi/BirdSongs/StreamData', '/srv/analyzer/output']) {
      const cost = await audioCopyCost(input, '/var/lib/station-agent', 2_000_000, { mountinfo: MOUNTINFO });
      expect(cost).toMatchObject({ copies: true, bytesPerRecording: 2_000_000, estimated: false, bytesPerDay: 2_000_000 * 5_760 });
      expect(cost.why).toMatch(
        input.startsWith('/home') ? /on another mount \(\/home, ext4\)/ : /StateDirectory= under ProtectSystem=strict.*linked in .*\.station-agent-spool only where the unit may write input\.dir \(ReadWritePaths=\)/,
      );
    }
  });

  it('the installed unit with the package\'s generated drop-in: linked in the near spool; a drop-in for another folder is said to be stale', async () => {
    const granted = await audioCopyCost('/srv/analyzer/output', '/var/lib/station-agent', null, { mountinfo: MOUNTINFO, grant: (unit) => {
      expect(unit).toBe('station-agent.service');
      return { folders: ['/srv/analyzer/output'], why: null };
    } });
    expect(granted).toMatchObject({ copies: false, why: null, bytesPerDay: 0 });
    expect(granted.how).toMatch(/generated drop-in lets station-agent\.service write input\.dir, so the audio is linked in \/srv\/analyzer\/output\/\.station-agent-spool/);
    const stale = await audioCopyCost('/srv/analyzer/output', '/var/lib/station-agent/garden', null, { mountinfo: MOUNTINFO, grant: (unit) => {
      expect(unit).toBe('station-agent@garden.service');
      return { folders: ['/srv/old'], why: null };
    } });
    expect(stale.copies).toBe(true);
    expect(stale.why).toMatch(/lets station-agent@garden\.service write \/srv\/old, not input\.dir \(the config changed since the last systemctl daemon-reload\)/);
  });

  it('results mode on one file system, where no link can be made: held by reference, nothing written; not on a RAM disk', async () => {
    for (const input of ['/home/pi/results', '/srv/analyzer/output']) {
      const cost = await audioCopyCost(input, '/var/lib/station-agent', null, { mountinfo: MOUNTINFO, analyzerKeepsAudio: true, grant: () => ({ folders: [], why: 'none generated' }) });
      expect(cost, input).toMatchObject({ copies: false, why: null, bytesPerDay: 0 });
      expect(cost.how).toMatch(/in results mode the spool holds a reference to the analyzer's own file instead \(checked by inode, size and modification time before it is encoded\)$/);
    }
    const ram = await audioCopyCost('/run/analyzer/StreamData', '/var/lib/station-agent', null, { mountinfo: MOUNTINFO, analyzerKeepsAudio: true });
    expect(ram.copies).toBe(true);
  });

  it('one mount: linked, nothing written', async () => {
    const cost = await audioCopyCost('/srv/analyzer/out', '/srv/station-agent', null, { mountinfo: MOUNTINFO });
    expect(cost).toMatchObject({ copies: false, why: null, bytesPerDay: 0 });
  });

  it.skipIf(!existsSync('/dev/shm') || !existsSync('/proc/self/mountinfo'))('reads this machine: a folder in /dev/shm and a dataDir on the disk', async () => {
    const ram = mkdtempSync(path.join('/dev/shm', 'station-agent-test-'));
    cleanups.push(() => rmSync(ram, { recursive: true, force: true }));
    const data = tempDir('station-agent-copy-cost-');
    cleanups.push(data.cleanup);
    const cost = await audioCopyCost(ram, path.join(data.dir, 'not-created-yet'), null);
    expect(cost.copies).toBe(true);
    expect(cost.why).toMatch(/RAM disk/);
    expect((await audioCopyCost(path.join(data.dir, 'a'), path.join(data.dir, 'b'), null)).copies).toBe(false);
  });
});
