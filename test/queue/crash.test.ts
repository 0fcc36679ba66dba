import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';
import { openQueue, type Queue } from '../../src/queue/db.js';
import { queueCounts } from '../../src/queue/counts.js';
import { recoverInFlight } from '../../src/queue/recover.js';
import { countTable, recountStates } from '../../src/queue/state-counts.js';

/**
 * Crash safety: a child process runs the queue's real code (transpiled from src/
 * into a temp folder) in a loop of ingest, claims and uploads, and is killed with
 * SIGKILL in the middle. The file must reopen intact, every acknowledged commit
 * must be there, and no transaction may be half there.
 */
const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()!();
});

const DETECTIONS_PER_RECORDING = 5;

const CHILD = `
import { openQueue, enqueueMany, claimRecordings, claimDetections, markUploaded, markRetry, recoverInFlight } from './src/queue/index.js';
const q = openQueue(process.argv[2]);
recoverInFlight(q);
const T = Date.parse('2024-05-01T04:00:00Z');
let n = 0;
for (;;) {
  const inputs = [];
  for (let i = 0; i < 10; i++, n++) {
    const key = 'rec-' + n;
    const timestamp = new Date(T + n * 15000).toISOString();
    inputs.push({
      recording: { sourceKey: key, sourcePath: '/a/' + key + '.wav', spoolPath: '/s/' + key + '.flac', audioFormat: 'flac',
        timestamp, timeSource: 'filename', durationS: 15, sampleRate: 48000, filesize: 1000 },
      detections: Array.from({ length: ${DETECTIONS_PER_RECORDING} }, (_, j) => ({ dedupeKey: key + '|' + j, timestamp, startS: j * 3, endS: j * 3 + 3,
        scientificName: 'Turdus merula', commonName: 'Eurasian Blackbird', confidence: 0.9, lat: null, lon: null })),
    });
  }
  enqueueMany(q, inputs);
  for (const r of claimRecordings(q, { limit: 4, order: n % 20 ? 'newest' : 'oldest' })) {
    if (r.id % 3) markUploaded(q, 'recording', r.id, 1000000 + r.id);
    else markRetry(q, 'recording', r.id, { error: 'HTTP 503', code: 'ERR_HTTP_STATUS', nextAttemptAt: 0 });
  }
  for (const d of claimDetections(q, { limit: 8, order: 'oldest' })) markUploaded(q, 'detection', d.id, 5000000 + d.id);
  // Acknowledged: everything up to here is committed.
  process.stdout.write('committed ' + n + '\\n');
}
`;

/** src/queue and what it imports (errors.ts, system/sqlite.ts and package-dir.ts), transpiled to ESM JavaScript in `dir`. */
function transpileQueue(dir: string): void {
  const files = [
    'src/errors.ts',
    'src/system/sqlite.ts',
    'src/system/package-dir.ts',
    ...readdirSync(path.join(REPO_ROOT, 'src/queue'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => `src/queue/${f}`),
  ];
  for (const file of files) {
    const source = readFileSync(path.join(REPO_ROOT, file), 'utf8');
    const out = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
      fileName: file,
    });
    const target = path.join(dir, file.replace(/\.ts$/, '.js'));
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, out.outputText);
  }
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  writeFileSync(path.join(dir, 'child.js'), CHILD);
}

/** Runs the child until it has acknowledged `commits` loops (or more), then SIGKILLs it. Returns the last acknowledged count. */
function runAndKill(dir: string, dbPath: string, commits: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(dir, 'child.js'), dbPath], { stdio: ['ignore', 'pipe', 'pipe'] });
    let acknowledged = 0;
    let seen = 0;
    let stderr = '';
    let buffer = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) {
        acknowledged = Number(line.split(' ')[1]);
        seen += 1;
      }
      // Kill at a moment that varies with the run, mid-loop.
      if (seen >= commits && !child.killed) child.kill('SIGKILL');
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve(acknowledged);
      else reject(new Error(`child exited with ${code}: ${stderr}`));
    });
  });
}

function checkConsistent(q: Queue, acknowledgedRecordings: number): void {
  expect(q.integrityCheck()).toEqual({ ok: true, problems: [] });
  const recordings = q.db.prepare('SELECT COUNT(*) FROM recordings').pluck().get() as number;
  // Every acknowledged commit survived (the loop adds 10 recordings per commit).
  expect(recordings).toBeGreaterThanOrEqual(acknowledgedRecordings);
  expect(recordings % 10).toBe(0);
  // No partial recording: a recording present implies all its detections present.
  const partial = q.db
    .prepare(`SELECT r.id, COUNT(d.id) AS n FROM recordings r LEFT JOIN detections d ON d.recording_id = r.id GROUP BY r.id HAVING n != ?`)
    .all(DETECTIONS_PER_RECORDING);
  expect(partial).toEqual([]);
  expect(q.db.prepare('SELECT COUNT(*) FROM detections WHERE recording_id IS NULL').pluck().get()).toBe(0);
  // Uploaded items carry their service id; the kept counts match the tables.
  expect(q.db.prepare(`SELECT COUNT(*) FROM detections WHERE state = 'uploaded' AND remote_id IS NULL`).pluck().get()).toBe(0);
  expect(queueCounts(q).recordings).toEqual(countTable(q, 'recording'));
  expect(queueCounts(q).detections).toEqual(countTable(q, 'detection'));
  expect(recountStates(q)).toBe(false);
}

describe('crash safety', () => {
  it('survives SIGKILL in the middle of ingest and uploads, repeatedly', async () => {
    const { dir, cleanup } = tempDir('station-agent-crash-');
    cleanups.push(cleanup);
    transpileQueue(dir);
    const dbPath = path.join(dir, 'state', 'queue.db');

    for (const commits of [5, 23, 61]) {
      const acknowledged = await runAndKill(dir, dbPath, commits);
      expect(acknowledged).toBeGreaterThan(0);
      const q = openQueue(dbPath);
      try {
        checkConsistent(q, acknowledged);
        // What was in flight at the kill becomes unknown, consistently.
        const inFlight = queueCounts(q);
        const recovered = recoverInFlight(q);
        expect(recovered.recordings).toBe(inFlight.recordings.sending);
        expect(recovered.detections).toBe(inFlight.detections.sending);
        checkConsistent(q, acknowledged);
      } finally {
        q.close();
      }
    }
  }, 60_000);
});
