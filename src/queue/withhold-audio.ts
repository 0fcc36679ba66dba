import type { Queue } from './db.js';
import type { SpoolFile } from './retention.js';
import { transitionWhere } from './state.js';

export const AUDIO_WITHHELD_CODE = 'ERR_PRIVACY_AUDIO';

/**
 * `privacy.audio: never` also for what was queued before the switch: every recording
 * still to be uploaded (`pending`, held or not, or `failed`) is dropped with
 * {@link AUDIO_WITHHELD_CODE}, so its detections go without a soundscape at once (the
 * recording's trigger sets their `recording_wait` to nothing). A recording in `sending` or
 * `unknown` may be at the service already and is left to settle; the uploader claims no
 * recording meanwhile (its `audioWithheld` option), so it is never posted again.
 *
 * Returns the spool files of every recording dropped so (now or by an earlier pass that
 * crashed before deleting them): the caller deletes each file, then `clearSpoolPath`,
 * at once and not after `retention.keepUploadedDays` (docs/CONFIGURATION.md, `privacy`).
 */
export function withholdQueuedAudio(q: Queue, now: number = Date.now()): SpoolFile[] {
  return q.write(() => {
    transitionWhere(q, 'recording', 'dropped', {
      from: ['pending', 'failed'],
      patch: {
        lastError: 'privacy.audio is never: the soundscape is not uploaded and its audio is deleted; its detections go without it',
        lastErrorCode: AUDIO_WITHHELD_CODE,
        holdReason: null,
      },
      now,
    });
    const rows = q
      .stmt(
        `SELECT id, spool_path, filesize FROM recordings INDEXED BY recordings_spool
         WHERE spool_path IS NOT NULL AND state = 'dropped' AND last_error_code = '${AUDIO_WITHHELD_CODE}'`,
      )
      .all() as { id: number; spool_path: string; filesize: number | null }[];
    return rows.map((r) => ({ recordingId: r.id, spoolPath: r.spool_path, filesize: r.filesize }));
  });
}
