import { copyFileSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { createIngestContext } from '../../src/ingest/context.js';
import { classifyPath, type ResultClass } from '../../src/ingest/formats.js';
import { Pairing } from '../../src/ingest/pairing.js';
import { isFileDone } from '../../src/queue/ingested-files.js';
import { openQueue, queueCounts, type Queue } from '../../src/queue/index.js';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { realFixture } from '../helpers/paths.js';
import { writeResultsCsv } from '../policy/support.js';

const MAGPIE_WAV = realFixture('birdnet-pi_88985a3a', 'Pica pica_30s.wav');

/**
 * Ingest and the uploader share one rule of what may pass by itself (src/errors.ts,
 * `isTransient`). A result file whose recording the queue refused with a passing failure
 * (here SQLite's disk I/O error, the driver's own SqliteError thrown by the statement that
 * inserts the recording) is looked at again later, not recorded as done: once the database
 * takes writes again, its detections are queued. Ingest's own list knew only SQLITE_BUSY and
 * SQLITE_FULL, and recorded such a file as an error for good.
 */
let world: AgentWorld | undefined;
let queue: Queue | undefined;
afterEach(async () => {
  queue?.close();
  await world?.close();
  world = queue = undefined;
});

/** Makes the first insert of a recording throw the driver's error with `code`. */
function refuseFirstRecordingInsert(q: Queue, code: string): () => number {
  let refused = 0;
  const original = q.stmt.bind(q);
  q.stmt = (sql: string) => {
    const statement = original(sql);
    if (!/^\s*INSERT INTO recordings /.test(sql)) return statement;
    return new Proxy(statement, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (prop === 'run' && refused === 0) {
          return () => {
            refused++;
            throw new Database.SqliteError('disk I/O error', code);
          };
        }
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  };
  return () => refused;
}

describe('ingest after a failure that passes by itself', () => {
  it('looks at the result file again instead of recording it as done, and queues it then', async () => {
    world = await createAgentWorld();
    const base = '20240221_160000';
    copyFileSync(MAGPIE_WAV, path.join(world.inputDir, `${base}.wav`));
    const table = path.join(world.inputDir, `${base}.BirdNET.results.csv`);
    writeResultsCsv(table, `${base}.wav`, [
      [0, 'Pica pica', 'Eurasian Magpie', 0.9],
      [3, 'Pica pica', 'Eurasian Magpie', 0.8],
    ]);
    const { config } = await loadConfig({ path: world.configPath, env: {} });
    queue = openQueue(path.join(world.dataDir, 'queue.db'));
    const refused = refuseFirstRecordingInsert(queue, 'SQLITE_IOERR_WRITE');
    const rechecks: { file: string; delayMs?: number }[] = [];
    const pairing = new Pairing({
      ctx: await createIngestContext(config, queue, pino({ level: 'silent' })),
      mode: 'results',
      jsonTimeoutMs: 60_000,
      recheck: (file, delayMs) => void rechecks.push({ file, delayMs }),
    });

    const st = statSync(table);
    await pairing.scheduleIngest(table, st, classifyPath(table) as ResultClass);
    expect(refused()).toBe(1);
    expect(rechecks).toEqual([{ file: table, delayMs: 60_000 }]);
    expect(isFileDone(queue, table, st.size, st.mtimeMs)).toBe(false);
    expect(queueCounts(queue).detections.pending ?? 0).toBe(0);

    // The watcher's look again, once the database takes writes.
    await pairing.scheduleIngest(table, statSync(table), classifyPath(table) as ResultClass);
    expect(queueCounts(queue)).toMatchObject({ recordings: { pending: 1 }, detections: { pending: 2 } });
    expect(isFileDone(queue, table, st.size, st.mtimeMs)).toBe(true);
  }, 60_000);
});
