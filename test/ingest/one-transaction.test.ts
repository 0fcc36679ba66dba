import { copyFileSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { createIngestContext } from '../../src/ingest/context.js';
import { classifyPath, type ResultClass } from '../../src/ingest/formats.js';
import { Pairing } from '../../src/ingest/pairing.js';
import { openQueue, queueCounts, type Queue } from '../../src/queue/index.js';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { realFixture } from '../helpers/paths.js';
import { writeResultsCsv } from '../policy/support.js';

const MAGPIE_WAV = realFixture('birdnet-pi_88985a3a', 'Pica pica_30s.wav');

/**
 * Commits in the queue's write-ahead log: frames whose header carries the database size
 * (non-zero only on a transaction's last frame), of the log's current generation (its salts).
 * Each is one fsync of the database with `synchronous=FULL`.
 */
function walCommits(dbPath: string): number {
  let wal: Buffer;
  try {
    wal = readFileSync(`${dbPath}-wal`);
  } catch {
    return 0;
  }
  if (wal.length < 32) return 0;
  const pageSize = wal.readUInt32BE(8);
  const salt = [wal.readUInt32BE(16), wal.readUInt32BE(20)];
  let commits = 0;
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    if (wal.readUInt32BE(at + 8) !== salt[0] || wal.readUInt32BE(at + 12) !== salt[1]) break;
    if (wal.readUInt32BE(at + 4) !== 0) commits++;
  }
  return commits;
}

let world: AgentWorld | undefined;
let queue: Queue | undefined;
afterEach(async () => {
  queue?.close();
  await world?.close();
  world = queue = undefined;
});

describe('the daemon ingests a recording in one transaction (issue 22 point 3)', () => {
  it('commits each recording, its detections, its policy counts and its file mark together: one commit per recording', async () => {
    world = await createAgentWorld();
    const files: string[] = [];
    for (let i = 0; i < 5; i++) {
      const base = `2024022${i}_160000`;
      copyFileSync(MAGPIE_WAV, path.join(world.inputDir, `${base}.wav`));
      const table = path.join(world.inputDir, `${base}.BirdNET.results.csv`);
      // Birds, and a dog the filters count (the policy counts go into the same commit).
      writeResultsCsv(table, `${base}.wav`, [
        [0, 'Pica pica', 'Eurasian Magpie', 0.9],
        [3, 'Pica pica', 'Eurasian Magpie', 0.8],
        [6, 'Dog', 'Dog', 0.7],
      ]);
      files.push(table);
    }
    const { config } = await loadConfig({ path: world.configPath, env: {} });
    const dbPath = path.join(world.dataDir, 'queue.db');
    queue = openQueue(dbPath);
    // The daemon's path: the pairing, without a write batch.
    const pairing = new Pairing({ ctx: await createIngestContext(config, queue, pino({ level: 'silent' })), mode: 'results', jsonTimeoutMs: 60_000, recheck: () => {} });
    const before = walCommits(dbPath);
    for (const file of files) await pairing.scheduleIngest(file, statSync(file), classifyPath(file) as ResultClass);
    expect(walCommits(dbPath) - before).toBe(files.length);
    expect(queueCounts(queue)).toMatchObject({ recordings: { pending: 5 }, detections: { pending: 10 } });
    expect(queue.stmt(`SELECT COUNT(*) FROM ingested_files WHERE outcome = 'queued'`).pluck().get()).toBe(5);
  }, 60_000);
});
