import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimRecordings } from '../../src/queue/claim-recordings.js';
import type { Queue } from '../../src/queue/db.js';
import { dropItems } from '../../src/queue/drop-items.js';
import { enqueueRecording } from '../../src/queue/enqueue.js';
import { QueueError } from '../../src/queue/errors.js';
import { getItem } from '../../src/queue/get-item.js';
import { formatItemId, parseItemId } from '../../src/queue/item-id.js';
import { listItems } from '../../src/queue/list-items.js';
import { markFailed } from '../../src/queue/mark-failed.js';
import { markUnknown } from '../../src/queue/mark-unknown.js';
import { markUploaded } from '../../src/queue/mark-uploaded.js';
import { retryItems } from '../../src/queue/retry-items.js';
import { detection, recording, tempQueue } from './helpers.js';

let q: Queue;
let cleanup: () => void;
beforeEach(() => ({ q, cleanup } = tempQueue()));
afterEach(() => cleanup());

const T = 1_714_536_000_000;

/** Recordings 1..n with one detection each; returns recording ids in order. */
function seed(n: number): number[] {
  return Array.from({ length: n }, (_, i) => {
    const rec = recording(i + 1);
    return enqueueRecording(q, { recording: rec, detections: [detection(rec.sourceKey, 0)] }, { now: T }).recordingId!;
  });
}

/** Claims and fails (or uploads) the given recordings. */
function finish(ids: number[], outcome: 'failed' | 'uploaded'): void {
  const claimed = claimRecordings(q, { now: T, limit: 1000, order: 'oldest' });
  for (const r of claimed) {
    if (!ids.includes(r.id)) continue;
    if (outcome === 'failed') markFailed(q, 'recording', r.id, { error: 'HTTP 422', code: 'ERR_HTTP_STATUS' });
    else markUploaded(q, 'recording', r.id, 1000 + r.id);
  }
}

describe('operator item ids', () => {
  it('prefixes the kind and parses prefixed ids or a number with a kind', () => {
    expect(formatItemId('recording', 12)).toBe('r12');
    expect(formatItemId('detection', 345)).toBe('d345');
    expect(parseItemId('r12')).toEqual({ kind: 'recording', id: 12 });
    expect(parseItemId('D345')).toEqual({ kind: 'detection', id: 345 });
    expect(parseItemId('345', 'detection')).toEqual({ kind: 'detection', id: 345 });
    expect(parseItemId('r12', 'recording')).toEqual({ kind: 'recording', id: 12 });
  });

  it('refuses ambiguous, contradictory or malformed ids', () => {
    expect(() => parseItemId('12')).toThrow(/ambiguous: write r12 .* or d12/);
    expect(() => parseItemId('r12', 'detection')).toThrow(/names a recording, but the kind given is detection/);
    expect(() => parseItemId('x12')).toThrow(QueueError);
    expect(() => parseItemId('r0')).toThrow(/start at 1/);
  });
});

describe('listItems and getItem', () => {
  it('pages through recordings then detections with a next cursor', () => {
    seed(3);
    const first = listItems(q, { limit: 2 });
    expect(first.items.map((i) => formatItemId(i.kind, i.id))).toEqual(['r1', 'r2']);
    expect(first.next).toBe('r2');
    const second = listItems(q, { limit: 2, afterId: first.next! });
    expect(second.items.map((i) => formatItemId(i.kind, i.id))).toEqual(['r3', 'd1']);
    const third = listItems(q, { limit: 2, afterId: second.next! });
    expect(third.items.map((i) => formatItemId(i.kind, i.id))).toEqual(['d2', 'd3']);
    expect(third.next).toBeNull();
  });

  it('reports a next page when recordings exactly fill the page and detections follow', () => {
    seed(2);
    const page = listItems(q, { limit: 2 });
    expect(page.next).toBe('r2');
    expect(listItems(q, { limit: 10, afterId: 'r2' }).items).toHaveLength(2);
  });

  it('filters by state and kind', () => {
    const ids = seed(4);
    finish([ids[1], ids[3]], 'failed');
    const failed = listItems(q, { state: 'failed', limit: 10 });
    expect(failed.items.map((i) => i.id)).toEqual([ids[1], ids[3]]);
    expect(listItems(q, { state: 'failed', kind: 'detection', limit: 10 }).items).toEqual([]);
    expect(listItems(q, { kind: 'detection', limit: 10, afterId: '2' }).items.map((i) => i.id)).toEqual([3, 4]);
    expect(() => listItems(q, { state: 'lost' as never, limit: 10 })).toThrow(/unknown state "lost"/);
  });

  it('returns every field of an item', () => {
    const [id] = seed(1);
    const item = getItem(q, 'recording', id)!;
    expect(Object.keys(item).sort()).toEqual(
      [
        'kind', 'id', 'sourceKey', 'sourcePath', 'spoolPath', 'audioFormat', 'timestamp', 'timeSource', 'durationS', 'sampleRate', 'filesize', 'audioMtimeMs',
        'state', 'previousState', 'attempts', 'nextAttemptAt', 'lastError', 'lastErrorCode', 'remoteId', 'holdReason', 'reconcile', 'createdAt', 'updatedAt',
      ].sort(),
    );
    expect(getItem(q, 'detection', 999)).toBeUndefined();
  });
});

describe('retryItems', () => {
  it('moves failed items back to pending with attempts reset, due now; refuses others', () => {
    const ids = seed(3);
    finish([ids[0]], 'failed');
    expect(getItem(q, 'recording', ids[0])!.attempts).toBe(1);
    const result = retryItems(
      q,
      [
        { kind: 'recording', id: ids[0] },
        { kind: 'recording', id: ids[1] },
        { kind: 'detection', id: 77 },
      ],
      { now: T + 5 },
    );
    expect(result.retried).toEqual([{ kind: 'recording', id: ids[0] }]);
    expect(result.refused).toEqual([
      { item: `r${ids[1]}`, kind: 'recording', id: ids[1], state: 'sending', reason: 'it is sending; only failed items are retried' },
      { item: 'd77', kind: 'detection', id: 77, state: null, reason: 'no such item' },
    ]);
    expect(getItem(q, 'recording', ids[0])).toMatchObject({ state: 'pending', attempts: 0, nextAttemptAt: T + 5, lastError: 'HTTP 422' });
  });

  it('retries every failed item with { failed: true }', () => {
    const ids = seed(4);
    finish([ids[0], ids[2]], 'failed');
    expect(retryItems(q, { failed: true }).retried.map((r) => r.id).sort()).toEqual([ids[0], ids[2]]);
    expect(retryItems(q, { failed: true, kind: 'recording' }).retried).toEqual([]);
  });
});

describe('dropItems', () => {
  it('drops pending and failed items, refusing uploaded, sending and unknown ones with why', () => {
    const ids = seed(4);
    finish([ids[0]], 'uploaded');
    markUnknown(q, 'recording', ids[2], { error: 'timeout after send', code: 'ERR_OUTCOME_UNKNOWN' });
    const result = dropItems(q, [
      { kind: 'recording', id: ids[0] },
      { kind: 'recording', id: ids[1] },
      { kind: 'recording', id: ids[2] },
      { kind: 'recording', id: ids[3] },
      { kind: 'detection', id: 3 },
    ]);
    expect(result.dropped.map((d) => [d.item, d.from, d.value.state])).toEqual([['d3', 'pending', 'dropped']]);
    expect(result.refused).toEqual([
      expect.objectContaining({ item: `r${ids[0]}`, state: 'uploaded', reason: expect.stringContaining('the service has it') }),
      expect.objectContaining({ item: `r${ids[1]}`, state: 'sending', reason: expect.stringContaining('may be at the service') }),
      expect.objectContaining({ item: `r${ids[2]}`, state: 'unknown', reason: expect.stringContaining('may already be at the service') }),
      expect.objectContaining({ item: `r${ids[3]}`, state: 'sending' }),
    ]);
    expect(getItem(q, 'recording', ids[2])!.state).toBe('unknown');
    // Dropping twice is refused, not repeated.
    expect(dropItems(q, [{ kind: 'detection', id: 3 }]).refused[0]).toMatchObject({ state: 'dropped' });
  });

  it('drops every failed item with { failed: true }', () => {
    const ids = seed(2);
    finish([ids[1]], 'failed');
    const result = dropItems(q, { failed: true });
    expect(result.dropped.map((d) => [d.item, d.from])).toEqual([[`r${ids[1]}`, 'failed']]);
    expect(result.refused).toEqual([]);
  });
});
