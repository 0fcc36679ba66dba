import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TMPFS_MAGIC } from '../../src/system/disk.js';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { buildCli, parseJson, runCli, writeCliConfig } from '../helpers/cli.js';
import { tempDir } from '../helpers/paths.js';

/**
 * Issue 35: a dataDir on tmpfs passed `run` and `doctor` without a word, though the queue
 * must survive reboots. /dev/shm is the tmpfs every Linux has.
 */
const SHM = '/dev/shm';
const onTmpfs = (() => {
  try {
    return statfsSync(SHM).type === TMPFS_MAGIC;
  } catch {
    return false;
  }
})();

describe.skipIf(!onTmpfs)('a dataDir on a RAM file system', () => {
  let tmp: ReturnType<typeof tempDir>;
  let shm: string;
  let world: AgentWorld | undefined;
  beforeAll(async () => {
    await buildCli();
    tmp = tempDir('ram-data-dir-');
    shm = mkdtempSync(path.join(SHM, 'station-agent-test-'));
  }, 180_000);
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });
  afterAll(() => {
    tmp?.cleanup();
    if (shm) rmSync(shm, { recursive: true, force: true });
  });

  const doctorSpool = async (dataDir: string) => {
    const file = writeCliConfig(path.join(tmp.dir, path.basename(dataDir), 'config.json'), {
      baseUrl: 'http://127.0.0.1:9',
      token: 'station-token-0123456789abcdef',
      dataDir,
      inputDir: path.join(tmp.dir, 'input'),
    });
    const report = parseJson<{ checks: { id: string; status: string; detail: string }[] }>(await runCli(['doctor', '--json', '--config', file]));
    return report.checks.find((c) => c.id === 'spool')!;
  };

  it('doctor warns in its spool check, whether the folder exists yet or not; a dataDir on disk passes', async () => {
    for (const dataDir of [shm, path.join(shm, 'not-yet')]) {
      const spool = await doctorSpool(dataDir);
      expect(spool.status, dataDir).toBe('warn');
      expect(spool.detail).toContain(`dataDir ${dataDir} is on a RAM file system (tmpfs)`);
    }
    expect((await doctorSpool(path.join(tmp.dir, 'disk-data'))).status).toBe('pass');
  }, 60_000);

  it('the daemon says so when it starts', async () => {
    world = await createAgentWorld({ config: { dataDir: path.join(shm, 'data') } });
    await world.startAgent();
    expect(world.logLines.filter((l) => l.includes('is on a RAM file system (tmpfs)'))).toHaveLength(1);
  }, 60_000);
});
