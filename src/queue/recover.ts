import type { Queue } from './db.js';
import { transitionWhere } from './state.js';
import type { RegisteredCode } from '../errors.js';

export interface RecoveredCounts {
  /** Recordings whose upload was interrupted: now `unknown`. */
  recordings: number;
  /** Detections whose upload was interrupted: now `unknown`. */
  detections: number;
}

const INTERRUPTED_ERROR = 'the agent stopped while sending; the outcome is unknown';
export const INTERRUPTED_CODE = 'ERR_OUTCOME_UNKNOWN' satisfies RegisteredCode;

/**
 * Run once at start-up, before the uploader claims anything: an item still in
 * `sending` was in flight when the agent stopped (crash, power loss, kill). Its
 * request may or may not have reached the service, so it becomes `unknown`, and its
 * next claim reconciles before posting again. One transaction. (Encoding is not a state:
 * a WAV is encoded while its recording is `pending`, so every `sending` item, WAV or
 * FLAC, may have been sent. A WAV an older agent left `sending` while it encoded it
 * costs one lookup at the service.)
 */
export function recoverInFlight(q: Queue, options: { now?: number } = {}): RecoveredCounts {
  const now = options.now ?? Date.now();
  const patch = { lastError: INTERRUPTED_ERROR, lastErrorCode: INTERRUPTED_CODE };
  return q.write(() => {
    const recordings = transitionWhere(q, 'recording', 'unknown', { from: ['sending'], patch, now }).length;
    const detections = transitionWhere(q, 'detection', 'unknown', { from: ['sending'], patch, now }).length;
    return { recordings, detections };
  });
}
