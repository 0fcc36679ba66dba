import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimDetections } from '../../src/queue/claim-detections.js';
import { claimRecordings } from '../../src/queue/claim-recordings.js';
import type { Queue } from '../../src/queue/db.js';
import { dropItems } from '../../src/queue/drop-items.js';
import { compactionCandidates, wavRecordingsDue } from '../../src/queue/encoding.js';
import { enqueueRecording } from '../../src/queue/enqueue.js';
import { queueCounts } from '../../src/queue/counts.js';
import { markUploaded } from '../../src/queue/mark-uploaded.js';
import { nextDueAt } from '../../src/queue/next-due.js';
import { spoolFilesToDelete, spoolUsage } from '../../src/queue/retention.js';
import { retryItems } from '../../src/queue/retry-items.js';
import { detection, recording, tempQueue } from './helpers.js';

/**
 * The queue's speed on a backlog rests on its statements reading index ranges, not
 * whole tables. These tests read SQLite's query plan of every statement an
 * operation runs and refuse a full scan of an item table (timing belongs to the
 * benchmark; the plan does not depend on the machine).
 */
let q: Queue;
let cleanup: () => void;
let statements: string[];
beforeEach(() => {
  ({ q, cleanup } = tempQueue());
  statements = [];
  const stmt = q.stmt.bind(q);
  q.stmt = (sql: string) => {
    statements.push(sql);
    return stmt(sql);
  };
});
afterEach(() => cleanup());

/** Any values will do for a plan: 1 for every parameter (`[]` for id lists). */
function explain(sql: string): string[] {
  const named = Object.fromEntries([...sql.matchAll(/@(\w+)/g)].map(([, name]) => [name, name === 'ids' ? '[]' : 1]));
  const positional = (sql.match(/\?/g) ?? []).map(() => 1);
  const args: unknown[] = Object.keys(named).length > 0 ? [...positional, named] : positional;
  return (q.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail);
}

function plansOf(run: () => unknown): string[][] {
  statements = [];
  run();
  return [...new Set(statements)]
    .filter((sql) => /^\s*(SELECT|UPDATE)/.test(sql))
    .map((sql) => {
      const plan = explain(sql);
      // A whole state range of a `*_due` index is a backlog, not the history, when the
      // statement names only states an item leaves (never uploaded or dropped).
      const lists = [...sql.matchAll(/state (?:IN \(([^)]*)\)|= ('\w+'))/g)].map(([, list, one]) => list ?? one);
      const ends = lists.length > 0 && lists.every((list) => !/'(uploaded|dropped)'/.test(list));
      return ends ? plan.map((line) => line.replace(/ \(state=\?\)$/, ' (state=?, waiting states only)')) : plan;
    });
}

function expectNoTableScan(run: () => unknown): void {
  const plans = plansOf(run);
  expect(plans.length).toBeGreaterThan(0);
  for (const plan of plans) {
    // A partial index holds only the few rows it is about (files in the spool, waiting items; the claim
    // indexes hold waiting items only since migration 10): reading it whole is fine.
    const scans = plan.filter((line) => /^SCAN (recordings|detections)\b/.test(line) && !/INDEX \w+_(spool|waiting|due)$/.test(line));
    const stateRanges = plan.filter((line) => /^SEARCH \w+ USING (COVERING )?INDEX \w+_due \(state=\?\)$/.test(line));
    expect([...scans, ...stateRanges]).toEqual([]);
  }
}

/**
 * Each claim branch reads its range of a `*_due` index in claim order (due time, then id) and
 * stops after `limit` entries. A sort inside a branch ("LAST TERM OF ORDER BY": the index
 * holds another column between the due time and the rowid) reads and sorts every item
 * sharing the earliest due time instead: a result table's thousand rows queued at one
 * time, at each claim. The small union of the branches may be sorted.
 */
function expectNoBranchSort(plans: string[][]): void {
  for (const plan of plans) expect(plan.filter((line) => /TEMP B-TREE FOR (LAST TERM|RIGHT PART) OF ORDER BY/.test(line))).toEqual([]);
}

describe('query plans', () => {
  beforeEach(() => {
    const rec = recording(1);
    enqueueRecording(q, { recording: rec, detections: [detection(rec.sourceKey, 0)] });
  });

  it('claims read index ranges and move rows by id', () => {
    for (const run of [
      () => claimRecordings(q, { limit: 5, order: 'newest' }),
      () => claimRecordings(q, { limit: 5, order: 'oldest' }),
      () => claimDetections(q, { limit: 5, order: 'newest' }),
    ]) {
      const plans = plansOf(run);
      expect(plans[0][0]).toMatch(/^SEARCH (recordings|detections) USING INTEGER PRIMARY KEY \(rowid=\?\)$/);
      expectNoTableScan(run);
      expectNoBranchSort(plans);
    }
  });

  it('the spool compaction reads its WAVs in index order', () => {
    expectNoBranchSort(plansOf(() => wavRecordingsDue(q, { limit: 5, order: 'newest', maxBytes: 1e7, exclude: [] })));
  });

  it('single transitions, operator ops, counts, next due time and retention do not scan', () => {
    const [r] = claimRecordings(q, { limit: 1, order: 'oldest' });
    expectNoTableScan(() => markUploaded(q, 'recording', r.id, 5));
    expectNoTableScan(() => retryItems(q, [{ kind: 'detection', id: 1 }]));
    expectNoTableScan(() => dropItems(q, [{ kind: 'detection', id: 1 }]));
    expectNoTableScan(() => queueCounts(q));
    expectNoTableScan(() => nextDueAt(q, 0));
    expectNoTableScan(() => spoolFilesToDelete(q, { retentionMs: 0, limit: 5 }));
    expectNoTableScan(() => spoolUsage(q));
    expectNoTableScan(() => wavRecordingsDue(q, { limit: 5, order: 'newest', maxBytes: 1e7, exclude: [1, 2] }));
    expectNoTableScan(() => compactionCandidates(q, { limit: 5, afterId: 0, maxInMemoryBytes: 1e7, queuedBefore: 0 }));
  });
});
