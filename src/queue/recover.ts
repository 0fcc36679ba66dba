import type { Queue } from './db.js';
import { transitionWhere } from './state.js';

export interface RecoveredCounts {
  /** Recordings whose upload was interrupted: now `unknown`. */
  recordings: number;
  /** Detections whose upload was interrupted: now `unknown`. */
  detections: number;
  /** WAV recordings whose encoding was interrupted: back to `pending` (never sent). */
  encoding: number;
}

export const INTERRUPTED_ERROR = 'the agent stopped while sending; the outcome is unknown';
export const INTERRUPTED_CODE = 'ERR_OUTCOME_UNKNOWN';

/**
 * Run once at start-up, before the uploader claims anything: an item still in
 * `sending` was in flight when the agent stopped (crash, power loss, kill). Its
 * request may or may not have reached the service, so it becomes `unknown`, and its
 * next claim reconciles before posting again. One transaction.
 */
export function recoverInFlight(q: Queue, options: { now?: number } = {}): RecoveredCounts {
  const now = options.now ?? Date.now();
  const patch = { lastError: INTERRUPTED_ERROR, lastErrorCode: INTERRUPTED_CODE };
  return q.write(() => {
    const encoding = transitionWhere(q, 'recording', 'pending', { from: ['sending'], where: `audio_format = 'wav'`, now }).length;
    const recordings = transitionWhere(q, 'recording', 'unknown', { from: ['sending'], patch, now }).length;
    const detections = transitionWhere(q, 'detection', 'unknown', { from: ['sending'], patch, now }).length;
    return { recordings, detections, encoding };
  });
}
