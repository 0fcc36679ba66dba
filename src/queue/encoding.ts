import { checkLimit } from './claim.js';
import type { Queue } from './db.js';
import { transition, transitionWhere } from './state.js';
import type { RecordingItem } from './types.js';

/**
 * Encoding is a claim like an upload, with no extra column: a recording whose
 * spool file is still WAV (`audio_format = 'wav'`) is claimed for encoding
 * (`pending -> sending`), and {@link markEncoded} puts it back to `pending` with the
 * FLAC file, due at once. Upload claims take only FLAC, so the two never meet.
 * An encoding failure uses the ordinary operations on the `sending` item:
 * `markFailed` (invalid audio: the recording's detections then go without a
 * soundscape) or `markRetry` (the encoder crashed, the disk was full).
 *
 * At start-up `recoverInFlight` returns a WAV recording found in `sending` to
 * `pending`: it was being encoded, never sent, so its outcome is not unknown.
 */
export interface EncodeClaimOptions {
  limit: number;
  /** Epoch ms; default now. */
  now?: number;
}

export function claimForEncoding(q: Queue, options: EncodeClaimOptions): RecordingItem[] {
  checkLimit(options.limit);
  const now = options.now ?? Date.now();
  const claimed = transitionWhere(q, 'recording', 'sending', {
    from: ['pending'],
    // audio_stage 1: WAV in the spool.
    ids:
      `SELECT id FROM recordings WHERE state = 'pending' AND audio_stage = 1 AND next_attempt_at <= @now ` +
      `AND hold_reason IS NULL ORDER BY next_attempt_at, id LIMIT @limit`,
    params: { now, limit: options.limit },
    patch: { reconcile: false },
    now,
  });
  return claimed.sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || a.id - b.id);
}

export interface Encoded {
  /** The FLAC file in the spool (the caller removes the WAV afterwards). */
  spoolPath: string;
  filesize: number;
  durationS: number;
  sampleRate: number;
}

export function markEncoded(q: Queue, id: number, encoded: Encoded, options: { now?: number } = {}): RecordingItem {
  const now = options.now ?? Date.now();
  return transition(
    q,
    'recording',
    id,
    'pending',
    { ...encoded, audioFormat: 'flac', nextAttemptAt: now },
    { from: ['sending'], now, require: { where: `audio_format = 'wav'`, description: 'it was not claimed for encoding (its audio is not WAV)' } },
  );
}
