import { CLAIM_FROM } from './claim.js';
import { DEFAULT_NO_AUDIO_AFTER_MS, type DetectionWaitOptions } from './claim-detections.js';
import type { Queue } from './db.js';

/**
 * The earliest time after `now` at which an item a claim could take becomes due, so the
 * uploader can sleep until then instead of polling:
 *
 * - a backoff ends (`next_attempt_at`), for recordings with audio (a FLAC to claim, or a
 *   WAV the uploader encodes into memory first) and for detections a claim may take;
 * - a detection that waits for its recording's audio (none was spooled, or, with
 *   `audioHeld`, the link holds audio back) reaches `noAudioAfterMs` since it was queued,
 *   and goes without a soundscape (claim-detections.ts). Without this, such detections
 *   went only at the uploader's next idle wake (`upload.probeIntervalSec`).
 *
 * Items waiting for something else (a detection for its recording's upload) are not
 * counted: the uploader is woken when that happens. Each range is one index seek of the
 * `*_due` indexes, however long the backlog: the no-audio wait reads a range from the
 * cutoff on by `next_attempt_at`, which is never before `created_at` (an item is due
 * when queued, later after a backoff or a hold), so it holds every detection queued
 * since the cutoff (a wall clock set back is the exception: then the uploader's idle
 * wake sends them).
 */
export function nextDueAt(q: Queue, now: number = Date.now(), options: DetectionWaitOptions = {}): number | null {
  const noAudioAfterMs = options.noAudioAfterMs ?? DEFAULT_NO_AUDIO_AFTER_MS;
  const waits = options.audioWithheld || options.audioHeld ? [0, 1, 2] : [0, 2];
  const audioWaits = options.audioWithheld ? [] : options.audioHeld ? [1, 2] : [2];
  const row = q.stmt(nextDueSql(waits, audioWaits)).get({ now, no_audio_before: now - noAudioAfterMs, no_audio_after: noAudioAfterMs }) as
    | { t: number | null }
    | undefined;
  return row?.t ?? null;
}

function nextDueSql(waits: readonly number[], audioWaits: readonly number[]): string {
  const backoffs = [
    ...CLAIM_FROM.flatMap((state) => [1, 2].map((stage) => `FROM recordings WHERE waiting = 1 AND state = '${state}' AND audio_stage = ${stage}`)),
    ...CLAIM_FROM.flatMap((state) => waits.map((wait) => `FROM detections WHERE waiting = 1 AND state = '${state}' AND recording_wait = ${wait}`)),
  ].map((range) => `SELECT MIN(next_attempt_at) AS t ${range} AND next_attempt_at > @now`);
  const noAudio = CLAIM_FROM.flatMap((state) =>
    audioWaits.map(
      (wait) =>
        `SELECT MIN(created_at) + @no_audio_after AS t FROM detections WHERE waiting = 1 AND state = '${state}' AND recording_wait = ${wait} ` +
        `AND next_attempt_at > @no_audio_before AND created_at > @no_audio_before AND hold_reason IS NULL`,
    ),
  );
  return `SELECT MIN(t) AS t FROM (${[...backoffs, ...noAudio].join(' UNION ALL ')})`;
}
