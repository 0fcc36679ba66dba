import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, parseJson, runCli, writeCliConfig } from '../helpers/cli.js';
import { realFixture, tempDir } from '../helpers/paths.js';

/**
 * Issue 35: `ingest` said "no such file or folder" for a result file that is there, when its
 * name (or its folder's) is not valid UTF-8: Node shows such a name with U+FFFD, and no path
 * leads to it. The CLI run as a process, on real files whose names hold a 0xFF byte.
 */
describe('station-agent ingest: names that are not valid UTF-8', () => {
  let tmp: ReturnType<typeof tempDir>;
  let input: string;
  let config: string;

  beforeAll(async () => {
    await buildCli();
    tmp = tempDir('cli-ingest-utf8-');
    input = path.join(tmp.dir, 'input');
    mkdirSync(input, { recursive: true });
    const csv = realFixture('birdnet-analyzer_ea464544_2022-03-02', 'soundscape.BirdNET.results.csv');
    // "garden\xff_20220302_060000.BirdNET.results.csv", as an analyzer in a Latin-1 locale might name it.
    copyFileSync(csv, Buffer.concat([Buffer.from(`${input}/garden`), Buffer.from([0xff]), Buffer.from('_20220302_060000.BirdNET.results.csv')]));
    const folder = Buffer.concat([Buffer.from(`${input}/caf`), Buffer.from([0xe9])]);
    mkdirSync(folder);
    copyFileSync(csv, Buffer.concat([folder, Buffer.from('/later_20220302_070000.BirdNET.results.csv')]));
    config = writeCliConfig(path.join(tmp.dir, 'config.json'), {
      baseUrl: 'http://127.0.0.1:9',
      dataDir: path.join(tmp.dir, 'data'),
      inputDir: input,
      extra: { input: { dir: input, minConfidence: 0.1, labels: realFixture('birdnet-analyzer_labels_V2.4', 'BirdNET_GLOBAL_6K_V2.4_Labels.txt') } },
    });
  }, 180_000);

  afterAll(() => tmp?.cleanup());

  it('names the file or folder and says why, never "no such file"', async () => {
    const result = await runCli(['ingest', input, '--json', '--config', config]);
    const json = parseJson<{ errors: { file: string; message: string }[] }>(result);
    const messages = json.errors.map((e) => e.message);
    expect(messages).toHaveLength(2);
    expect(messages.join('\n')).not.toContain('no such file');
    expect(messages).toContain(`cannot read ${path.join(input, 'garden\uFFFD_20220302_060000.BirdNET.results.csv')}: its name is not valid UTF-8 (shown with \uFFFD); rename the file to take it in`);
    expect(messages).toContain(`cannot read ${path.join(input, 'caf\uFFFD')}: its name is not valid UTF-8 (shown with \uFFFD); rename the folder to take in what it holds`);
  }, 60_000);
});
