import { chownSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, runCli, writeCliConfig } from '../helpers/cli.js';
import { realFixture, tempDir } from '../helpers/paths.js';

const asRoot = process.geteuid?.() === 0;

describe.skipIf(!asRoot)('write commands run as root in a data folder the service user owns', () => {
  const temp = tempDir('root-guard-');
  afterAll(() => temp.cleanup());
  beforeAll(async () => {
    await buildCli();
  }, 180_000);

  it('refuse before creating anything, and say which user to run as', async () => {
    const dataDir = path.join(temp.dir, 'data');
    mkdirSync(dataDir);
    chownSync(dataDir, 65534, 65534);
    const config = writeCliConfig(path.join(temp.dir, 'config.json'), {
      baseUrl: 'http://127.0.0.1:9',
      token: 'x',
      dataDir,
      inputDir: path.join(temp.dir, 'input'),
    });
    const res = await runCli(['ingest', realFixture('birdnetTools'), '--config', config]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('refusing to open the queue');
    expect(res.stderr).toMatch(/sudo -u \S+ station-agent/);
    expect(existsSync(path.join(dataDir, 'queue.db'))).toBe(false);
  });
});
