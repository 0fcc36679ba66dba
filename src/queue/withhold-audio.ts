import type { Queue } from './db.js';
import { hold } from './hold.js';
import { RETIRED, type SpoolFile } from './retention.js';
import { transitionWhere } from './state.js';
import type { ItemState } from './types.js';
import type { RegisteredCode } from '../errors.js';

const AUDIO_WITHHELD_CODE = 'ERR_PRIVACY_AUDIO' satisfies RegisteredCode;

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
         WHERE spool_path IS NOT NULL AND ${RETIRED} AND state = 'dropped' AND last_error_code = '${AUDIO_WITHHELD_CODE}'`,
      )
      .all() as { id: number; spool_path: string; filesize: number | null }[];
    return rows.map((r) => ({ recordingId: r.id, spoolPath: r.spool_path, filesize: r.filesize }));
  });
}

/** The hold of a recording withheld while a request with it was under way: no later claim takes it. */
const PRIVACY_HOLD = 'privacy';

/**
 * What became of a queued recording whose soundscape the privacy policy withholds after it
 * was queued (its result file was rewritten with a person in it):
 * - `dropped`: it was waiting (`pending`, `failed`): dropped with {@link AUDIO_WITHHELD_CODE},
 *   never uploaded; `spoolPath` is its audio, which the caller deletes;
 * - `held`: a request with it is under way (`sending`, `unknown`): it may reach the
 *   service; if it does not, the hold keeps it from every later claim;
 * - `uploaded`: the service has it already; nothing here can take it back;
 * - `gone`: it was dropped before.
 */
export type WithheldRecording =
  | { outcome: 'dropped'; spoolPath: string | null }
  | { outcome: 'held' | 'uploaded' | 'gone'; state: ItemState };

/** Withholds the soundscape of queued recording `id`, saying `why` (one transaction). */
export function withholdRecordingAudio(q: Queue, id: number, why: string, options: { now?: number } = {}): WithheldRecording {
  const now = options.now ?? Date.now();
  return q.write(() => {
    const before = q.stmt('SELECT state, spool_path FROM recordings WHERE id = ?').get(id) as { state: ItemState; spool_path: string | null } | undefined;
    if (!before) return { outcome: 'gone', state: 'dropped' };
    const [moved] = transitionWhere(q, 'recording', 'dropped', {
      from: ['pending', 'failed'],
      ids: '@id',
      params: { id },
      patch: { lastError: `privacy: ${why}; the soundscape is not uploaded and its audio is deleted`, lastErrorCode: AUDIO_WITHHELD_CODE, holdReason: null, spoolPath: null },
      now,
    });
    if (moved) return { outcome: 'dropped', spoolPath: before.spool_path };
    if (before.state === 'sending' || before.state === 'unknown') {
      hold(q, 'recording', [id], PRIVACY_HOLD, { now });
      return { outcome: 'held', state: before.state };
    }
    return { outcome: before.state === 'uploaded' ? 'uploaded' : 'gone', state: before.state };
  });
}
