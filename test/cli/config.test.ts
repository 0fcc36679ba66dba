import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '@station-agent/emulator';
import { getMeta } from '../../src/queue/index.js';
import { buildCli, parseJson, runCli, writeCliConfig } from '../helpers/cli.js';
import { tempDir } from '../helpers/paths.js';
import { openTestQueue, seed } from './seed.js';

const TOKEN = 'config-test-token-3c8b1d';

describe('station-agent config', () => {
  let service: RunningEmulator;
  let tmp: ReturnType<typeof tempDir>;
  let dataDir: string;
  let config: string;

  beforeAll(async () => {
    await buildCli();
    service = await startEmulator({ tokens: [TOKEN] });
    tmp = tempDir('cli-config-');
    dataDir = path.join(tmp.dir, 'data');
    config = writeCliConfig(path.join(tmp.dir, 'config.json'), {
      baseUrl: service.url,
      token: TOKEN,
      dataDir,
      inputDir: path.join(tmp.dir, 'input'),
      extra: { station: { latitude: 52.52, longitude: 13.4, settings: { name: 'Garden', minConfidence: 0.8 } } },
    });
    const q = openTestQueue(dataDir);
    seed(q, 1, 1);
    q.close();
  }, 180_000);

  afterAll(async () => {
    await service?.close();
    tmp?.cleanup();
  });

  describe('validate', () => {
    it('accepts a valid config', async () => {
      const result = await runCli(['config', 'validate', '--config', config]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`valid: ${config}`);
      const json = parseJson(await runCli(['config', 'validate', '--json', '--config', config]));
      expect(json).toMatchObject({ valid: true, file: config, problems: [], tokenSource: 'file' });
    });

    it('lists every problem as `key message` and exits 3', async () => {
      const bad = writeCliConfig(path.join(tmp.dir, 'bad.json'), {
        baseUrl: service.url,
        dataDir,
        inputDir: path.join(tmp.dir, 'input'),
        extra: { upload: { concurrency: 20 }, station: { latitude: 95, longitude: 13.4 } },
      });
      const result = await runCli(['config', 'validate', '--config', bad]);
      expect(result.code).toBe(3);
      expect(result.stderr).toContain(`invalid configuration (${bad})`);
      expect(result.stderr).toMatch(/^ {2}upload\.concurrency must be between 1 and 16/m);
      expect(result.stderr).toMatch(/^ {2}station\.latitude must be between -90 and 90/m);
      const json = await runCli(['config', 'validate', '--json', '--config', bad]);
      expect(json.code).toBe(3);
      expect(parseJson(json).problems).toHaveLength(2);
    });

    it('names the variable of an environment override that is invalid', async () => {
      const result = await runCli(['config', 'validate', '--config', config], { env: { STATION_AGENT_UPLOAD_CONCURRENCY: 'many' } });
      expect(result.code).toBe(3);
      expect(result.stderr).toContain('STATION_AGENT_UPLOAD_CONCURRENCY');
    });

    it('exits 3 for a config file that does not exist', async () => {
      const result = await runCli(['config', 'validate', '--config', path.join(tmp.dir, 'missing.json')]);
      expect(result.code).toBe(3);
      expect(result.stderr).toContain('does not exist');
    });
  });

  describe('show', () => {
    it('prints the effective config with the token redacted and environment overrides applied', async () => {
      const result = await runCli(['config', 'show', '--json', '--config', config], { env: { STATION_AGENT_UPLOAD_CONCURRENCY: '2' } });
      expect(result.code).toBe(0);
      const json = parseJson(result);
      expect(json.config.service.token).toBe('<redacted>');
      expect(json.config.upload.concurrency).toBe(2);
      expect(json.config.dataDir).toBe(dataDir);
      expect(json.station).toBeNull();
      expect(result.stdout + result.stderr).not.toContain(TOKEN);
    });

    it('asks the service for the station record with --live', async () => {
      const result = await runCli(['config', 'show', '--live', '--config', config]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('"token": "<redacted>"');
      expect(result.stdout).toContain('# station record (live from the service)');
      expect(result.stdout).toMatch(/^minHumanConfidence:\s+0\.04$/m);
      expect(result.stdout + result.stderr).not.toContain(TOKEN);
    });
  });

  describe('push', () => {
    it('sends station.settings, prints the record and stores it for status', async () => {
      const result = await runCli(['config', 'push', '--json', '--config', config]);
      expect(result.code).toBe(0);
      const json = parseJson(result);
      expect(json).toMatchObject({ pushed: true, settings: { name: 'Garden', minConfidence: 0.8 }, storedInQueue: true });
      expect(json.station.record).toMatchObject({ name: 'Garden', minConfidence: 0.8 });
      expect(service.store.stations.byToken(TOKEN)).toMatchObject({ name: 'Garden', minConfidence: 0.8 });

      const q = openTestQueue(dataDir);
      expect(getMeta(q, 'station')?.record).toMatchObject({ name: 'Garden', minConfidence: 0.8 });
      q.close();

      const shown = parseJson(await runCli(['config', 'show', '--json', '--config', config]));
      expect(shown.station).toMatchObject({ source: 'queue', record: { name: 'Garden' } });
      expect(result.stdout + result.stderr).not.toContain(TOKEN);
    });

    it('refuses out-of-range settings before sending anything (exit 3)', async () => {
      const before = service.store.stations.byToken(TOKEN)!.minScore;
      const result = await runCli(['config', 'push', '--config', config], {
        env: { STATION_AGENT_STATION_SETTINGS_MIN_SCORE: '12' },
      });
      expect(result.code).toBe(3);
      expect(result.stderr).toContain('station.settings.minScore must be between 0 and 10');
      expect(service.store.stations.byToken(TOKEN)!.minScore).toBe(before);
    });

    it('exits 4 when the service refuses the token, without printing it', async () => {
      const result = await runCli(['config', 'push', '--config', config], { env: { STATION_AGENT_TOKEN: 'wrong-token-77aa' } });
      expect(result.code).toBe(4);
      expect(result.stderr).toContain('HTTP 403');
      expect(result.stdout + result.stderr).not.toContain('wrong-token-77aa');
    });

    it('exits 3 without a token', async () => {
      const noToken = writeCliConfig(path.join(tmp.dir, 'no-token.json'), {
        baseUrl: service.url,
        dataDir,
        inputDir: path.join(tmp.dir, 'input'),
        extra: { station: { latitude: 1, longitude: 2, settings: { minScore: 1 } } },
      });
      const result = await runCli(['config', 'push', '--config', noToken]);
      expect(result.code).toBe(3);
      expect(result.stderr).toContain('service.token is required');
    });
  });

  it('has --help with examples for every subcommand', async () => {
    for (const sub of ['validate', 'show', 'push']) {
      const result = await runCli(['config', sub, '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Examples:');
    }
  });
});
