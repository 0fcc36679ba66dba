import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openQueue, type Queue } from '../../src/queue/index.js';
import { createAgentWorld, type AgentWorld } from '../helpers/agent-world.js';
import { planBacklog, startDaysAgo, writeBacklog } from './support/backlog.js';
import { EXACTLY_ONCE, exactlyOnce, expectedCounts, serviceHoldings, withQueue } from './support/exactly-once.js';
import { SEED, seededRandom } from './support/soak.js';
import { until } from '../helpers/until.js';

/**
 * The other half of commit-then-drop: the service stored the item and answered, but
 * the agent's own queue refused to record it (SQLITE_BUSY when `station-agent queue
 * ...` holds the write lock past the busy timeout; SQLITE_FULL on a full disk; see
 * disk-full.test.ts for the real thing). The item was uploaded: it must be reconciled
 * and adopted, never marked `failed` (which would send its detections without their
 * soundscape, and post it again on `queue retry`).
 *
 * The failure is injected at the database driver, the outermost edge: the statement
 * that stores the service's id throws the driver's own SqliteError, once per kind.
 */
let world: AgentWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** A property of a native statement, its methods bound to it (a proxy as `this` is refused). */
function passThrough(target: object, prop: string | symbol, receiver: unknown): unknown {
  const value = Reflect.get(target, prop, receiver) as unknown;
  return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
}

/** Makes the first `times` writes of a service id (markUploaded) per table throw SQLITE_BUSY. */
function refuseRemoteIdWrites(q: Queue, times: number): { refused: () => Record<string, number> } {
  const refused: Record<string, number> = { recordings: 0, detections: 0 };
  const original = q.stmt.bind(q);
  q.stmt = (sql: string) => {
    const statement = original(sql);
    const table = /^UPDATE (recordings|detections) SET .*remote_id = @p_remote_id/s.exec(sql)?.[1];
    if (!table || refused[table] >= times) return statement;
    return new Proxy(statement, {
      get(target, prop, receiver) {
        if (prop !== 'all' || refused[table] >= times) return passThrough(target, prop, receiver);
        return () => {
          refused[table]++;
          throw new Database.SqliteError('database is locked', 'SQLITE_BUSY');
        };
      },
    });
  };
  return { refused: () => refused };
}

describe('the queue refuses to record an upload the service already stored', () => {
  it('reconciles the item and adopts its id: uploaded exactly once, nothing failed, detections keep their soundscape', async () => {
    // A short request timeout: an unknown outcome is reconciled after twice that.
    world = await createAgentWorld({ config: { service: { timeoutMs: 1_000 }, upload: { concurrency: 1 } } });
    const expected = planBacklog({ count: 3, startMs: startDaysAgo(1), random: seededRandom(SEED) });
    writeBacklog(world.inputDir, expected);
    const daemon = await world.startAgent();
    const injected = refuseRemoteIdWrites(daemon.queue, 2);

    const want = expectedCounts(expected);
    const counts = await until(
      'all uploaded',
      () => {
        const c = world!.counts();
        if (c.recordings.failed + c.detections.failed > 0) return c;
        return c.recordings.uploaded === want.recordings && c.detections.uploaded === want.detections ? c : undefined;
      },
      30_000,
      () => `${JSON.stringify(world!.counts())}\n${world!.logLines.slice(-20).join('\n')}`,
    );
    await world.stopAgent();

    expect(injected.refused()).toEqual({ recordings: 2, detections: 2 });
    const q = openQueue(path.join(world.dataDir, 'queue.db'));
    try {
      const failed = q.db.prepare(`SELECT 'r' || id, last_error FROM recordings WHERE state = 'failed' UNION ALL SELECT 'd' || id, last_error FROM detections WHERE state = 'failed'`).all();
      expect(failed).toEqual([]);
      expect(q.integrityCheck()).toEqual({ ok: true, problems: [] });
    } finally {
      q.close();
    }
    expect(counts.recordings.uploaded).toBe(want.recordings);
    expect(counts.detections.uploaded).toBe(want.detections);
    expect(exactlyOnce(expected, await serviceHoldings(world.client))).toEqual(EXACTLY_ONCE);
    const lines = world.logLines.map((l) => JSON.parse(l) as { msg: string; code?: string; kind?: string });
    expect(lines.filter((l) => l.code === 'SQLITE_BUSY' && /outcome unknown/.test(l.msg))).toHaveLength(4);
    // A refused write may also be the adoption itself (the same statement): then the next reconciliation adopts.
    for (const kind of ['recording', 'detection']) expect(lines.some((l) => l.kind === kind && /id adopted/.test(l.msg))).toBe(true);
  });

  it('the failure cannot be recorded either (the database refuses two writes in a row): the item is not left in sending until a restart', async () => {
    world = await createAgentWorld({ config: { service: { timeoutMs: 1_000 }, upload: { concurrency: 1 } } });
    const expected = planBacklog({ count: 2, startMs: startDaysAgo(1), random: seededRandom(SEED) });
    writeBacklog(world.inputDir, expected);
    const daemon = await world.startAgent();
    const injected = refuseTwoWritesInARow(daemon.queue);

    const want = expectedCounts(expected);
    const counts = await until(
      'all uploaded without a restart',
      () => {
        const c = world!.counts();
        return c.recordings.uploaded === want.recordings && c.detections.uploaded === want.detections ? c : undefined;
      },
      15_000,
      () => `${JSON.stringify(world!.counts())}\n${world!.logLines.filter((l) => !l.includes('"level":20')).slice(-20).join('\n')}`,
    );
    await world.stopAgent();
    expect(injected.refused()).toEqual({ recordings: 2, detections: 2 });
    expect(counts.recordings.failed + counts.detections.failed).toBe(0);
    expect(withQueue(world.dataDir, (q) => q.integrityCheck())).toEqual({ ok: true, problems: [] });
    expect(exactlyOnce(expected, await serviceHoldings(world.client))).toEqual(EXACTLY_ONCE);
  });
});

/**
 * The first write of a service id per table throws SQLITE_FULL, and so does the next
 * write to that table (the uploader's record of the failure): a disk that is full for
 * a moment.
 */
function refuseTwoWritesInARow(q: Queue): { refused: () => Record<string, number> } {
  const refused: Record<string, number> = { recordings: 0, detections: 0 };
  const original = q.stmt.bind(q);
  q.stmt = (sql: string) => {
    const statement = original(sql);
    const table = /^UPDATE (recordings|detections) SET /.exec(sql)?.[1];
    if (!table) return statement;
    const storesId = /remote_id = @p_remote_id/.test(sql);
    return new Proxy(statement, {
      get(target, prop, receiver) {
        const n = refused[table];
        const refuse = prop === 'all' && ((n === 0 && storesId) || n === 1);
        if (!refuse) return passThrough(target, prop, receiver);
        return () => {
          refused[table]++;
          throw new Database.SqliteError('database or disk is full', 'SQLITE_FULL');
        };
      },
    });
  };
  return { refused: () => refused };
}

