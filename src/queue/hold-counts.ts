import type { Queue } from './db.js';
import { TABLE } from './rows.js';
import { HELD } from './hold.js';
import type { ItemKind } from './types.js';

/** Held items per reason and kind, for `status`. Generic over reasons: whatever ingest holds for shows up. */
export function holdCounts(q: Queue): Record<ItemKind, Record<string, number>> {
  const out: Record<ItemKind, Record<string, number>> = { recording: {}, detection: {} };
  for (const kind of ['recording', 'detection'] as const) {
    const rows = q.stmt(`SELECT hold_reason AS reason, count(*) AS n FROM ${TABLE[kind]} WHERE ${HELD} GROUP BY hold_reason`).all() as {
      reason: string;
      n: number;
    }[];
    for (const row of rows) out[kind][row.reason] = row.n;
  }
  return out;
}

/**
 * Why the items of one analysed file are held back (distinct reasons, sorted): its recording
 * (by `source_key`) and its detections, whose dedupe keys are `<sourceKey>|<start>|<species>`
 * (a range of the dedupe index). For `ingest` to say why a file queues nothing new.
 */
export function sourceHoldReasons(q: Queue, sourceKey: string): string[] {
  const rows = q
    .stmt(
      `SELECT hold_reason AS reason FROM recordings WHERE source_key = @key AND ${HELD} ` +
        `UNION SELECT hold_reason FROM detections WHERE dedupe_key > @key || '|' AND dedupe_key < @key || '}' AND ${HELD} ORDER BY 1`,
    )
    .all({ key: sourceKey }) as { reason: string }[];
  return rows.map((r) => r.reason);
}
