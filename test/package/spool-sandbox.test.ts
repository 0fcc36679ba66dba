import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NEAR_SPOOL_NAME } from '../../src/ingest/spool.js';
import { cardSpool, closeSandboxStations, doctorAudio, namespaces, sandboxStation, taken } from '../helpers/sandbox-station.js';
import { planBacklog, startDaysAgo, writeBacklog } from '../reliability/support/backlog.js';
import { SEED, seededRandom } from '../reliability/support/soak.js';

/**
 * `npm run test:package`: the installed package's agent (STATION_AGENT_CLI on its own Node.js)
 * under the unit's mounts (test/helpers/sandbox-station.ts: dataDir bind-mounted onto itself,
 * input.dir writable to it, one file system): its spool links every recording's audio, none
 * is copied into dataDir, and its own doctor says so from the daemon's count.
 */
afterEach(closeSandboxStations);

describe.skipIf(!namespaces.ok)('the installed package\'s spool under the unit\'s mounts', () => {
  it('links every WAV beside the analyzer\'s folder: nothing written to dataDir, and doctor agrees', async () => {
    const backlog = planBacklog({ count: 2, startMs: startDaysAgo(1), random: seededRandom(SEED) });
    const s = await sandboxStation('rw', 'results', (dir) => writeBacklog(dir, backlog));
    const audio = await taken(s, backlog.length, 'linked');
    expect(audio).toMatchObject({ linked: backlog.length, copied: 0, copiedBytes: 0, nearDir: path.join(s.inputDir, NEAR_SPOOL_NAME) });
    expect(cardSpool(s.dataDir)).toEqual([]);
    const check = await doctorAudio(s);
    expect(check.status, check.detail).toBe('pass');
    expect(check.data).toMatchObject({ measured: 'daemon', copied: 0 });
  });
});
