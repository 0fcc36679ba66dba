import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '@station-agent/emulator';
import { buildCli, parseJson, runCli, writeCliConfig } from '../helpers/cli.js';
import { realFixture, tempDir } from '../helpers/paths.js';

const TOKEN = 'doctor-test-token-6a1e09';
const LABELS = realFixture('birdnet-analyzer_labels_V2.4', 'BirdNET_GLOBAL_6K_V2.4_Labels.txt');

interface Check {
  id: string;
  status: string;
  detail: string;
  hint: string | null;
  data?: Record<string, unknown>;
}

describe('station-agent doctor', () => {
  let service: RunningEmulator;
  let tmp: ReturnType<typeof tempDir>;
  let input: string;
  let config: string;

  const configWith = (name: string, extra: Record<string, unknown> = {}, inputDir = input) =>
    writeCliConfig(path.join(tmp.dir, `${name}.json`), {
      baseUrl: service.url,
      token: TOKEN,
      dataDir: path.join(tmp.dir, `data-${name}`),
      inputDir,
      // requireSync never: the verdict on the test machine's clock is a warning at worst.
      extra: { clock: { requireSync: 'never' }, disk: { minFreeMb: 1 }, ...extra },
    });

  const checksOf = (stdout: string): Map<string, Check> => new Map(parseJson({ code: 0, stdout, stderr: '' }).checks.map((c: Check) => [c.id, c]));

  beforeAll(async () => {
    await buildCli();
    service = await startEmulator({ tokens: [TOKEN] });
    tmp = tempDir('cli-doctor-');
    input = path.join(tmp.dir, 'input');
    mkdirSync(path.join(input, '2025', '05'), { recursive: true });
    const example = 'birdnet-analyzer_ea464544_2022-03-02';
    for (const name of ['soundscape.wav', 'soundscape.BirdNET.results.csv', 'soundscape.BirdNET.selection.table.txt']) {
      copyFileSync(realFixture(example, name), path.join(input, '2025', '05', name));
    }
    writeFileSync(path.join(input, 'notes.txt'), 'not analyzer output\n');
    config = configWith('healthy', { input: { dir: input, labels: LABELS } });
  }, 180_000);

  afterAll(async () => {
    await service?.close();
    tmp?.cleanup();
  });

  it('passes on a healthy station and says what it found', async () => {
    const result = await runCli(['doctor', '--json', '--config', config]);
    expect(result.code).toBe(0);
    const json = parseJson(result);
    expect(json.ok).toBe(true);
    const checks = checksOf(result.stdout);
    expect([...checks.keys()]).toEqual(['config', 'service', 'token', 'clock', 'input', 'labels', 'spool', 'audio-copy', 'queue', 'disk', 'flac', 'inotify', 'mqtt', 'alert', 'runtime', 'update']);
    for (const id of ['config', 'service', 'token', 'input', 'labels', 'spool', 'audio-copy', 'queue', 'disk', 'flac']) {
      expect(checks.get(id)?.status, `${id}: ${checks.get(id)?.detail}`).toBe('pass');
    }
    expect(['pass', 'warn']).toContain(checks.get('clock')!.status);
    expect(checks.get('input')!.data).toMatchObject({ folders: 3, audio: { wav: 1 }, results: { csv: 1, raven: 1 }, analyzerpiJson: 0, other: 1 });
    expect(checks.get('labels')!.detail).toContain('6522 species');
    expect(checks.get('flac')!.detail).toMatch(/encoded and verified a test tone with .* \(upload\.flacEncoder auto\)/);
    expect(checks.get('flac')!.data).toMatchObject({ flacEncoder: 'auto', engine: expect.any(String) });
    expect(['pass', 'skip']).toContain(checks.get('inotify')!.status);
    expect(checks.get('audio-copy')!.detail).toMatch(/one mount: the spool hard-links/);
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
  });

  const shm = '/dev/shm';
  const otherFs = existsSync(shm) && statSync(shm).dev !== statSync(process.env.TMPDIR ?? '/tmp').dev;
  it.skipIf(!otherFs)('says what an analyzer folder on a RAM disk costs the card, and the owner\'s input.ramDiskAudio choice', async () => {
    const ram = mkdtempSync(path.join(shm, 'cli-doctor-'));
    try {
      const cases = [
        ['copy', 'warn', /on a RAM disk .*input\.ramDiskAudio is copy: each recording's audio is copied onto the card before its upload, about \d+\.\d GB a day/],
        ['keep', 'pass', /on a RAM disk .*input\.ramDiskAudio is keep: each recording's audio waits for its upload there .*nothing written to the card/],
      ] as const;
      for (const [choice, status, detail] of cases) {
        const result = await runCli(['doctor', '--json', '--config', configWith(`ram-${choice}`, { input: { dir: ram, labels: LABELS, ramDiskAudio: choice } }, ram)]);
        const check = checksOf(result.stdout).get('audio-copy')!;
        expect(check.status, check.detail).toBe(status);
        expect(check.detail).toMatch(detail);
        expect(check.data).toMatchObject({ copies: true, ramDiskAudio: choice });
        if (choice === 'copy') expect(check.hint).toMatch(/set input\.ramDiskAudio to keep/);
      }
    } finally {
      rmSync(ram, { recursive: true, force: true });
    }
  });

  it('prints PASS/FAIL lines with hints, and exits 1 when the token is refused', async () => {
    const result = await runCli(['doctor', '--config', config], { env: { STATION_AGENT_TOKEN: 'doctor-wrong-token' } });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^PASS\s+service reachable\s+http:\/\/127\.0\.0\.1:\d+ answered in \d+ ms$/m);
    expect(result.stdout).toMatch(/^FAIL\s+token accepted\s+the service refused the token \(HTTP 403\)$/m);
    expect(result.stdout).toMatch(/^\s+hint: copy the station token again/m);
    expect(result.stdout).toMatch(/1 check failed/);
    expect(result.stdout + result.stderr).not.toContain('doctor-wrong-token');
  });

  it('fails the service check when nothing answers', async () => {
    const dead = await startEmulator({ tokens: [TOKEN] });
    const url = dead.url;
    await dead.close();
    const result = await runCli(['doctor', '--json', '--timeout', '1000', '--config', config], { env: { STATION_AGENT_BASE_URL: url } });
    expect(result.code).toBe(1);
    const checks = checksOf(result.stdout);
    expect(checks.get('service')).toMatchObject({ status: 'fail' });
    expect(checks.get('service')!.hint).toContain('service.baseUrl');
    expect(checks.get('token')!.status).toBe('skip');
  });

  it('fails the labels check for analyzerpi output without input.labels', async () => {
    const pi = path.join(tmp.dir, 'pi-input');
    mkdirSync(pi);
    copyFileSync(realFixture('birdnet-pi_88985a3a', 'Pica pica_30s.wav'), path.join(pi, '2024-02-24-birdnet-16:19:37.wav'));
    writeFileSync(path.join(pi, '2024-02-24-birdnet-16:19:37.wav.json'), '[]');
    const result = await runCli(['doctor', '--json', '--offline', '--config', configWith('pi', { input: { dir: pi } }, pi)]);
    expect(result.code).toBe(1);
    const checks = checksOf(result.stdout);
    expect(checks.get('input')!.data).toMatchObject({ analyzerpiJson: 1, audio: { wav: 1 } });
    expect(checks.get('labels')).toMatchObject({ status: 'fail' });
    expect(checks.get('labels')!.hint).toContain('input.labels');
    expect(checks.get('service')!.status).toBe('skip');
  });

  it('fails the FLAC check with upload.flacEncoder program when the flac program is not on PATH, saying how to install it', async () => {
    const emptyPath = path.join(tmp.dir, 'empty-bin');
    mkdirSync(emptyPath, { recursive: true });
    const file = configWith('program', { input: { dir: input, labels: LABELS }, upload: { flacEncoder: 'program' } });
    const result = await runCli(['doctor', '--json', '--offline', '--config', file], { env: { PATH: emptyPath } });
    expect(result.code).toBe(1);
    const flac = checksOf(result.stdout).get('flac')!;
    expect(flac).toMatchObject({ status: 'fail', data: { flacEncoder: 'program' } });
    expect(flac.detail).toMatch(/upload\.flacEncoder program, the flac program: .*not found on PATH/);
    expect(flac.hint).toContain('sudo apt-get install flac');
  });

  it('fails the input check when the folder does not exist', async () => {
    const missing = path.join(tmp.dir, 'no-input');
    const config = configWith('missing', {}, missing);
    rmSync(missing, { recursive: true, force: true }); // writeCliConfig creates the input folder
    const result = await runCli(['doctor', '--json', '--offline', '--config', config]);
    expect(result.code).toBe(1);
    const checks = checksOf(result.stdout);
    expect(checks.get('input')).toMatchObject({ status: 'fail', detail: `${missing}: does not exist` });
    expect(checks.get('inotify')!.status).toBe('skip');
  });

  it('runs every check when the token file cannot be read, failing the token check by its key (never its path or content)', async () => {
    // As root a mode of 000 reads anyway: a FIFO in the token file's place cannot be read by anyone.
    const fifo = path.join(tmp.dir, `${TOKEN}-fifo`);
    execFileSync('mkfifo', [fifo]);
    const cfg = writeCliConfig(path.join(tmp.dir, 'token-fifo.json'), {
      baseUrl: service.url,
      dataDir: path.join(tmp.dir, 'data-token-fifo'),
      inputDir: input,
      extra: { clock: { requireSync: 'never' }, disk: { minFreeMb: 1 }, input: { dir: input, labels: LABELS }, service: { baseUrl: service.url, tokenFile: fifo } },
    });
    for (const offline of [[], ['--offline']]) {
      const result = await runCli(['doctor', '--json', ...offline, '--config', cfg]);
      expect(result.code, result.stderr).toBe(1);
      const checks = checksOf(result.stdout);
      expect(checks.get('config')!.status).not.toBe('fail');
      expect(checks.get('token')).toMatchObject({ status: 'fail', detail: 'service.tokenFile: the file is a FIFO (named pipe), not a regular file' });
      expect(checks.get('queue')!.status).not.toBe('fail');
      expect(checks.get('input')!.status).toBe('pass');
      expect(result.stdout + result.stderr).not.toContain(TOKEN);
    }
  });

  it('exits 3 when the config itself is invalid, checking nothing else', async () => {
    const bad = configWith('bad', { upload: { concurrency: 0 } });
    const result = await runCli(['doctor', '--json', '--config', bad]);
    expect(result.code).toBe(3);
    const json = parseJson(result);
    expect(json.configInvalid).toBe(true);
    expect(json.checks).toHaveLength(1);
    expect(json.checks[0]).toMatchObject({ id: 'config', status: 'fail' });
    expect(json.checks[0].detail).toContain('upload.concurrency');
  });

  it('explains itself in --help', async () => {
    const result = await runCli(['doctor', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Examples:');
  });
});
