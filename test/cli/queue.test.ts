import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { getItem, markUnknown, transition } from '../../src/queue/index.js';
import { CLI_MAIN, buildCli, parseJson, runCli, writeCliConfig } from '../helpers/cli.js';
import { tempDir } from '../helpers/paths.js';
import { fail, openTestQueue, seed, upload } from './seed.js';

const TOKEN = 'queue-test-token-81d2e7';

describe('station-agent queue', () => {
  let tmp: ReturnType<typeof tempDir>;
  let dataDir: string;
  let config: string;
  let ids: { recordingIds: number[]; detectionIds: number[] };
  let counter = 0;

  beforeAll(async () => {
    await buildCli();
    tmp = tempDir('cli-queue-');
  }, 180_000);

  afterAll(() => tmp?.cleanup());

  // Every test gets its own queue: 3 soundscapes with 2 detections each; r1 uploaded, r2 failed, d1 uploaded, d2 and d3 failed.
  beforeEach(() => {
    dataDir = path.join(tmp.dir, `data-${++counter}`);
    config = writeCliConfig(path.join(tmp.dir, `config-${counter}.json`), { baseUrl: 'http://127.0.0.1:9', token: TOKEN, dataDir, inputDir: path.join(tmp.dir, 'input') });
    const q = openTestQueue(dataDir);
    ids = seed(q, 3, 2);
    upload(q, 'recording', ids.recordingIds[0], 3_100_000_001);
    fail(q, 'recording', ids.recordingIds[1], 'invalid audio: truncated data chunk', 'ERR_AUDIO_INVALID');
    upload(q, 'detection', ids.detectionIds[0], 3_200_000_001);
    fail(q, 'detection', ids.detectionIds[1]);
    fail(q, 'detection', ids.detectionIds[2]);
    q.close();
  });

  const stateOf = (kind: 'recording' | 'detection', id: number) => {
    const q = openTestQueue(dataDir);
    try {
      return getItem(q, kind, id)?.state;
    } finally {
      q.close();
    }
  };

  describe('list', () => {
    it('lists items as a table, soundscapes first', async () => {
      const result = await runCli(['queue', 'list', '--config', config]);
      expect(result.code).toBe(0);
      const lines = result.stdout.trim().split('\n');
      expect(lines[0]).toMatch(/^ID\s+STATE\s+TRIES\s+TIME\s+ITEM\s+LAST ERROR$/);
      expect(lines).toHaveLength(1 + 3 + 6);
      expect(lines[1]).toMatch(/^r1\s+uploaded\s+0\s+2025-05-01T06:01:00.000\+02:00\s+2025-05-01-birdnet-06:01:00.wav/);
      expect(lines[2]).toMatch(/^r2\s+failed\s+1\s.*invalid audio: truncated data chunk$/);
      expect(lines[4]).toMatch(/^d1\s+uploaded/);
      expect(lines[5]).toContain('Eurasian Magpie (Pica pica) 0.90');
    });

    it('filters by state and kind, pages with --after, and prints JSON', async () => {
      const result = await runCli(['queue', 'list', '--state', 'failed', '--kind', 'detection', '--limit', '1', '--json', '--config', config]);
      expect(result.code).toBe(0);
      const first = parseJson(result);
      expect(first.items).toHaveLength(1);
      expect(first.items[0]).toMatchObject({ id: 'd2', kind: 'detection', state: 'failed', attempts: 1, scientificName: 'Pica pica', recording: 'r1' });
      expect(first.next).toBe('d2');
      const second = parseJson(await runCli(['queue', 'list', '--state', 'failed', '--kind', 'detection', '--after', first.next, '--json', '--config', config]));
      expect(second.items.map((i: { id: string }) => i.id)).toEqual(['d3']);
      expect(second.next).toBeNull();
    });

    it('rejects an unknown state with a usage error (exit 2)', async () => {
      const result = await runCli(['queue', 'list', '--state', 'stuck', '--config', config]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/--state.*stuck.*pending/s);
    });

    it('lists nothing before the first start (no queue database yet), as status shows zero counts', async () => {
      const env = { STATION_AGENT_DATA_DIR: path.join(tmp.dir, 'nowhere') };
      const result = await runCli(['queue', 'list', '--config', config], { env });
      expect(result.code).toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`the queue ${path.join(tmp.dir, 'nowhere', 'queue.db')} does not exist yet`);
      // Changing items needs the database: exit 5 naming the file.
      const retry = await runCli(['queue', 'retry', 'r1', '--config', config], { env });
      expect(retry.code).toBe(5);
      expect(retry.stderr).toContain(path.join(tmp.dir, 'nowhere', 'queue.db'));
    });
  });

  describe('show', () => {
    it('shows every field of a soundscape, its error and its files', async () => {
      const spooled = path.join(tmp.dir, 'spooled.flac');
      writeFileSync(spooled, Buffer.alloc(1234));
      const result = await runCli(['queue', 'show', 'r2', '--config', config]);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^id:\s+r2 \(soundscape 2\)$/m);
      expect(result.stdout).toMatch(/^state:\s+failed$/m);
      expect(result.stdout).toMatch(/^attempts:\s+1$/m);
      expect(result.stdout).toMatch(/^last error:\s+invalid audio: truncated data chunk \[ERR_AUDIO_INVALID\]$/m);
      expect(result.stdout).toMatch(/^source file:\s+\/input\/2025-05-01-birdnet-06:02:00.wav \(missing\)$/m);
    });

    it('shows a detection with its soundscape, as JSON', async () => {
      const result = await runCli(['queue', 'show', '3', '--kind', 'detection', '--json', '--config', config]);
      expect(result.code).toBe(0);
      const json = parseJson(result);
      expect(json.item).toMatchObject({ id: 'd3', state: 'failed', lastError: 'HTTP 422: species must exist', lastErrorCode: 'ERR_HTTP_STATUS', recording: 'r2' });
      expect(json.recording).toMatchObject({ id: 'r2', state: 'failed' });
      expect(json.files).toEqual([
        { role: 'source', path: '/input/2025-05-01-birdnet-06:02:00.wav', exists: false, bytes: null },
        { role: 'spool', path: '/spool/rec-2.flac', exists: false, bytes: null },
      ]);
    });

    it('exits 1 for an id that is not in the queue, 2 for an ambiguous one', async () => {
      const missing = await runCli(['queue', 'show', 'd999', '--config', config]);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('no detection d999 in the queue');
      const ambiguous = await runCli(['queue', 'show', '12', '--config', config]);
      expect(ambiguous.code).toBe(2);
      expect(ambiguous.stderr).toContain('ambiguous');
    });
  });

  describe('retry', () => {
    it('moves listed failed items back to pending', async () => {
      const result = await runCli(['queue', 'retry', 'd2', 'r2', '--config', config]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('retried 2: r2 d2');
      expect(stateOf('detection', 2)).toBe('pending');
      expect(stateOf('recording', 2)).toBe('pending');
      expect(stateOf('detection', 3)).toBe('failed');
    });

    it('retries every failed item of a kind with --failed', async () => {
      const result = parseJson(await runCli(['queue', 'retry', '--failed', '--kind', 'detection', '--json', '--config', config]));
      expect(result).toEqual({ retried: ['d2', 'd3'], refused: [] });
      expect(stateOf('recording', 2)).toBe('failed');
    });

    it('refuses items that are not failed and exits 1', async () => {
      const result = await runCli(['queue', 'retry', 'd1', 'd2', 'd999', '--json', '--config', config]);
      expect(result.code).toBe(1);
      const json = parseJson(result);
      expect(json.retried).toEqual(['d2']);
      expect(json.refused).toEqual([
        { id: 'd1', kind: 'detection', state: 'uploaded', reason: 'it is uploaded; only failed items are retried' },
        { id: 'd999', kind: 'detection', state: null, reason: 'no such item' },
      ]);
    });

    it('needs ids or --failed, not both (exit 2)', async () => {
      expect((await runCli(['queue', 'retry', '--config', config])).code).toBe(2);
      expect((await runCli(['queue', 'retry', 'd2', '--failed', '--config', config])).code).toBe(2);
    });
  });

  describe('drop', () => {
    it('drops with --yes and logs each dropped item as a JSON line on stderr', async () => {
      const result = await runCli(['queue', 'drop', 'd2', 'r2', 'd1', '--yes', '--config', config]);
      expect(result.code).toBe(1);
      expect(result.stdout).toContain('dropped 2: r2 d2');
      expect(result.stdout).toMatch(/refused d1: it is uploaded/);
      const logs = result.stderr
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(logs).toEqual([
        expect.objectContaining({ level: 'warn', event: 'queue-drop', item: 'r2', kind: 'soundscape', from: 'failed', file: '/input/2025-05-01-birdnet-06:02:00.wav' }),
        expect.objectContaining({ level: 'warn', event: 'queue-drop', item: 'd2', kind: 'detection', from: 'failed', species: 'Pica pica' }),
      ]);
      expect(stateOf('detection', 2)).toBe('dropped');
      expect(stateOf('recording', 2)).toBe('dropped');
      expect(stateOf('detection', 1)).toBe('uploaded');
    });

    it('refuses without --yes when stdin is not a terminal, dropping nothing (exit 2)', async () => {
      const result = await runCli(['queue', 'drop', 'd2', '--config', config], { input: 'y\n' });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('--yes');
      expect(stateOf('detection', 2)).toBe('failed');
    });

    it('asks on a terminal and drops only after "y"', async () => {
      const onTerminal = (answer: string) =>
        new Promise<string>((resolve, reject) => {
          // script(1) gives the CLI a pseudo-terminal as stdin; our answer is typed into it.
          const child = execFile(
            'script',
            ['-qec', `'${process.execPath}' '${CLI_MAIN}' queue drop d3 --config '${config}'`, '/dev/null'],
            { env: { PATH: process.env.PATH, TZ: 'UTC' }, timeout: 20_000 },
            (err, stdout) => (err && err.killed ? reject(new Error(`script timed out: ${err.message}`)) : resolve(stdout)),
          );
          child.stdin!.end(answer);
        });
      const declined = await onTerminal('n\n');
      expect(declined).toContain('Drop item d3?');
      expect(declined).toContain('nothing dropped');
      expect(stateOf('detection', 3)).toBe('failed');
      const accepted = await onTerminal('y\n');
      expect(accepted).toContain('dropped 1: d3');
      expect(stateOf('detection', 3)).toBe('dropped');
    });

    it('refuses sending and unknown items, which may be at the service, naming each and why (exit 1)', async () => {
      const q = openTestQueue(dataDir);
      // r3 was sent and the response lost: it may be at the service. d5 is being sent now.
      transition(q, 'recording', ids.recordingIds[2], 'sending', {}, { from: ['pending'] });
      markUnknown(q, 'recording', ids.recordingIds[2], { error: 'the agent stopped while sending; the outcome is unknown', code: 'ERR_OUTCOME_UNKNOWN' });
      transition(q, 'detection', ids.detectionIds[4], 'sending', {}, { from: ['pending'] });
      q.close();
      const result = await runCli(['queue', 'drop', 'r3', 'd5', 'd4', '--yes', '--config', config]);
      expect(result.code).toBe(1);
      expect(result.stdout).toContain('dropped 1: d4');
      expect(result.stdout).toMatch(/refused r3: it is unknown: it was sent and may already be at the service/);
      expect(result.stdout).toMatch(/refused d5: it is sending: a request with it may be at the service/);
      expect(result.stdout).not.toMatch(/r3.*never be uploaded|d5.*never be uploaded/);
      expect(stateOf('recording', 3)).toBe('unknown');
      expect(stateOf('detection', 5)).toBe('sending');
      expect(stateOf('detection', 4)).toBe('dropped');
    });

    it('drops every failed detection with --failed --kind detection --yes', async () => {
      const json = parseJson(await runCli(['queue', 'drop', '--failed', '--kind', 'detection', '--yes', '--json', '--config', config]));
      expect(json.dropped.map((d: { id: string }) => d.id)).toEqual(['d2', 'd3']);
      expect(stateOf('recording', 2)).toBe('failed');
    });
  });

  it('has --help with examples for every subcommand', async () => {
    for (const sub of ['list', 'show', 'retry', 'release', 'drop']) {
      const result = await runCli(['queue', sub, '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Examples:');
      expect(result.stdout).toContain('--config');
    }
  });
});
