import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '@station-agent/emulator';
import { CLI_MAIN, buildCli, runCli, writeCliConfig, type CliResult } from '../helpers/cli.js';
import { realFixture, tempDir } from '../helpers/paths.js';
import { fail, openTestQueue, seed } from './seed.js';

/**
 * What every command promises: the station token (and the admin token) never
 * appear in any output, colours only on a terminal and never with NO_COLOR, and
 * `--help` explains options with examples and exit codes.
 */

const TOKEN = 'Conv3ntions-Secr3t_token.9f7e';
const WRONG = 'Wr0ng-Secr3t_token.11aa';
const ADMIN = 'Adm1n-Secr3t_token.52cd';

describe('CLI conventions', () => {
  let service: RunningEmulator;
  let tmp: ReturnType<typeof tempDir>;
  let config: string;
  let input: string;
  let stationId: number;
  let tokenFile: string;
  let detectionId: number;
  let speciesId: number;

  beforeAll(async () => {
    await buildCli();
    service = await startEmulator({ tokens: [TOKEN], adminToken: ADMIN });
    stationId = service.store.stations.byToken(TOKEN)!.id;
    tmp = tempDir('cli-conventions-');
    input = path.join(tmp.dir, 'input');
    mkdirSync(input);
    for (const name of ['soundscape.wav', 'soundscape.BirdNET.results.csv']) {
      copyFileSync(realFixture('birdnet-analyzer_ea464544_2022-03-02', name), path.join(input, name));
    }
    const dataDir = path.join(tmp.dir, 'data');
    config = writeCliConfig(path.join(tmp.dir, 'config.json'), {
      baseUrl: service.url,
      token: TOKEN,
      dataDir,
      inputDir: input,
      extra: {
        station: { latitude: 52.5, longitude: 13.4, settings: { minConfidence: 0.75 } },
        input: { dir: input, minConfidence: 0.1 },
        clock: { requireSync: 'never' },
      },
    });
    tokenFile = path.join(tmp.dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    const q = openTestQueue(dataDir);
    seed(q, 2, 2);
    fail(q, 'detection', 1);
    fail(q, 'detection', 2);
    q.close();
    const posted = await fetch(`${service.url}/api/v1/stations/${TOKEN}/detections`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ timestamp: '2025-05-01T06:00:00+02:00', scientificName: 'Pica pica', commonName: 'Eurasian Magpie', confidence: 0.9 }),
    });
    expect(posted.status).toBe(201);
    const { detection } = (await posted.json()) as { detection: { id: number; species: { id: number } } };
    detectionId = detection.id;
    speciesId = detection.species.id;
  }, 180_000);

  afterAll(async () => {
    await service?.close();
    tmp?.cleanup();
  });

  it('never prints the station token or the admin token, whatever the command and outcome', async () => {
    const c = ['--config', config];
    const runs: [string[], Record<string, string>?][] = [
      [['status', ...c]],
      [['status', '--json', ...c]],
      [['status', '--json', ...c], { STATION_AGENT_TOKEN: WRONG }],
      [['queue', 'list', ...c]],
      [['queue', 'list', '--json', ...c]],
      [['queue', 'show', 'd1', '--json', ...c]],
      [['queue', 'retry', 'd1', ...c]],
      [['queue', 'drop', 'd2', '--yes', ...c]],
      [['ingest', input, '--dry-run', ...c]],
      [['ingest', input, '--json', ...c]],
      [['config', 'validate', ...c]],
      [['config', 'validate', '--json', ...c]],
      [['config', 'show', ...c]],
      [['config', 'show', '--json', '--live', ...c]],
      [['config', 'show', '--json', ...c], { STATION_AGENT_SERVICE_TOKEN_FILE: tokenFile }],
      [['config', 'push', ...c]],
      [['config', 'push', ...c], { STATION_AGENT_TOKEN: WRONG }],
      [['api', 'stats', ...c]],
      [['api', 'stats', '--json', ...c], { STATION_AGENT_TOKEN: WRONG }],
      [['api', 'species', '--period', 'all', ...c]],
      [['api', 'detections', '--all', '--json', ...c]],
      [['api', 'detections', ...c]],
      [['api', 'soundscapes', ...c]],
      [['api', 'detection', String(detectionId), ...c]],
      [['api', 'species-info', String(speciesId), ...c]],
      [['api', 'species-lookup', 'Pica pica_Eurasian Magpie', ...c]],
      [['api', 'stats', '--station-id', String(stationId), ...c], { STATION_AGENT_ADMIN_TOKEN: ADMIN }],
      [['api', 'detections', '--station-id', String(stationId), '--json', ...c], { STATION_AGENT_ADMIN_TOKEN: ADMIN }],
      [['api', 'stats', '--station-id', '999', ...c], { STATION_AGENT_ADMIN_TOKEN: WRONG }],
      [['doctor', ...c]],
      [['doctor', '--json', ...c], { STATION_AGENT_TOKEN: WRONG }],
    ];
    const seen = new Set<string>();
    const codes: number[] = [];
    for (const [args, env] of runs) {
      const result: CliResult = await runCli(args, { env });
      seen.add(args.slice(0, 2).join(' '));
      codes.push(result.code);
      const all = result.stdout + result.stderr;
      for (const secret of [TOKEN, WRONG, ADMIN]) {
        expect(all.includes(secret), `${args.join(' ')} printed a secret (exit ${result.code}):\n${all}`).toBe(false);
        expect(all.includes(encodeURIComponent(secret))).toBe(false);
      }
    }
    // Every command of this suite ran, and the runs did what they were meant to (not all failing early).
    expect(seen.size).toBeGreaterThanOrEqual(15);
    expect(codes).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 1]);
  }, 120_000);

  it('colours output on a terminal only, and never with NO_COLOR', async () => {
    const onTerminal = (env: Record<string, string>) =>
      new Promise<string>((resolve, reject) => {
        execFile(
          'script',
          ['-qec', `'${process.execPath}' '${CLI_MAIN}' status --offline --config '${config}'`, '/dev/null'],
          { env: { PATH: process.env.PATH, TZ: 'UTC', TERM: 'xterm', ...env }, timeout: 20_000 },
          (err, stdout) => (err && err.killed ? reject(new Error(`script timed out: ${err.message}`)) : resolve(stdout)),
        ).stdin!.end();
      });
    expect(await onTerminal({})).toContain('\u001b[');
    const plain = await onTerminal({ NO_COLOR: '1' });
    expect(plain).toContain('Daemon:');
    expect(plain).not.toContain('\u001b[');
    const piped = await runCli(['status', '--offline', '--config', config], { env: { FORCE_COLOR: '1' } });
    expect(piped.stdout).not.toContain('\u001b[');
  });

  it('keeps stdout pure JSON with --json even when there are warnings', async () => {
    const loose = path.join(tmp.dir, 'loose.json');
    copyFileSync(config, loose);
    const { chmodSync } = await import('node:fs');
    chmodSync(loose, 0o644);
    const result = await runCli(['config', 'show', '--json', '--config', loose]);
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.warnings.join(' ')).toContain('chmod 600');
  });

  it('documents every command with examples and exit codes in --help', async () => {
    const commands = [
      ['status'],
      ['queue'],
      ['queue', 'list'],
      ['queue', 'show'],
      ['queue', 'retry'],
      ['queue', 'drop'],
      ['ingest'],
      ['config'],
      ['config', 'validate'],
      ['config', 'show'],
      ['config', 'push'],
      ['api'],
      ['api', 'stats'],
      ['api', 'species'],
      ['api', 'detections'],
      ['api', 'detection'],
      ['api', 'soundscapes'],
      ['api', 'soundscape'],
      ['api', 'species-info'],
      ['api', 'species-lookup'],
      ['doctor'],
    ];
    for (const cmd of commands) {
      const result = await runCli([...cmd, '--help']);
      expect(result.code, cmd.join(' ')).toBe(0);
      expect(result.stdout, cmd.join(' ')).toMatch(/Examples:\n {2}station-agent /);
      expect(result.stdout, cmd.join(' ')).toContain('Exit codes:');
      expect(result.stdout, cmd.join(' ')).toContain('3  configuration invalid');
    }
    const top = await runCli(['--help']);
    for (const name of ['status', 'queue', 'ingest', 'config', 'api', 'doctor']) expect(top.stdout).toMatch(new RegExp(`^\\s+${name}\\b`, 'm'));
  });
});
