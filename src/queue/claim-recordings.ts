import { CLAIM_FROM, claimIds, direction, limitSql, sortClaimed, type ClaimOptions } from './claim.js';
import type { Queue } from './db.js';
import { SqlExpr, transitionWhere } from './state.js';
import type { RecordingItem } from './types.js';

/**
 * Claims due recordings for upload: `pending` or `unknown`, `next_attempt_at <= now`,
 * not held, with FLAC audio in the spool (a WAV is encoded first and claimed with
 * {@link claimEncoded}, see encoding.ts; a recording without audio is never uploaded). They move to `sending`
 * in one UPDATE; those that came from `unknown` have `reconcile: true` (look them
 * up at the service before posting again).
 */
export function claimRecordings(q: Queue, options: ClaimOptions): RecordingItem[] {
  const now = options.now ?? Date.now();
  const ids = claimSql(options);
  const claimed = transitionWhere(q, 'recording', 'sending', {
    ids,
    params: { now },
    patch: { reconcile: new SqlExpr(`state = 'unknown'`) },
    now,
  });
  return sortClaimed(claimed, options.order);
}

/** The ids query of a claim, per order and limit: built once (several claims per recording, few shapes). */
const claimSqls = new Map<string, string>();

function claimSql(options: ClaimOptions): string {
  const key = `${options.order}|${options.limit}`;
  let sql = claimSqls.get(key);
  if (sql === undefined) {
    const limit = limitSql(options.limit);
    const dir = direction(options.order);
    // audio_stage 2: FLAC in the spool (see the schema).
    sql = claimIds(
      CLAIM_FROM.map(
        (state) =>
          `SELECT id, state, next_attempt_at FROM recordings WHERE waiting = 1 AND state = '${state}' AND audio_stage = 2 ` +
          `AND next_attempt_at <= @now AND hold_reason IS NULL ORDER BY next_attempt_at ${dir}, id ${dir} ${limit}`,
      ),
      dir,
      options.limit,
    );
    claimSqls.set(key, sql);
  }
  return sql;
}

/**
 * Claims recordings whose WAV the uploader has just encoded into memory, by id and
 * spool file: each moves to `sending` only if it is still due and not held, and its
 * spool file is still the one encoded (an operator's drop, a hold, or the spool
 * compaction in between leaves it alone; the caller discards that FLAC). Returns the
 * claimed ones.
 */
export function claimEncoded(q: Queue, options: { now?: number; items: readonly { id: number; spoolPath: string }[] }): RecordingItem[] {
  if (options.items.length === 0) return [];
  const now = options.now ?? Date.now();
  return transitionWhere(q, 'recording', 'sending', {
    ids: `SELECT json_extract(value, '$[0]') FROM json_each(@pairs)`,
    where: `next_attempt_at <= @now AND hold_reason IS NULL AND (id, spool_path) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(@pairs))`,
    params: { now, pairs: JSON.stringify(options.items.map((i) => [i.id, i.spoolPath])) },
    patch: { reconcile: new SqlExpr(`state = 'unknown'`) },
    now,
  });
}
