import { hold } from './hold.js';
import { RETIRED } from './retention.js';
import { transitionWhere } from './state.js';
export const AUDIO_WITHHELD_CODE = 'ERR_PRIVACY_AUDIO';
export function withholdQueuedAudio(q, now = Date.now()) {
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
            .stmt(`SELECT id, spool_path, filesize FROM recordings INDEXED BY recordings_spool
         WHERE spool_path IS NOT NULL AND ${RETIRED} AND state = 'dropped' AND last_error_code = '${AUDIO_WITHHELD_CODE}'`)
            .all();
        return rows.map((r) => ({ recordingId: r.id, spoolPath: r.spool_path, filesize: r.filesize }));
    });
}
export const PRIVACY_HOLD = 'privacy';
export function withholdRecordingAudio(q, id, why, options = {}) {
    const now = options.now ?? Date.now();
    return q.write(() => {
        const before = q.stmt('SELECT state, spool_path FROM recordings WHERE id = ?').get(id);
        if (!before)
            return { outcome: 'gone', state: 'dropped' };
        const [moved] = transitionWhere(q, 'recording', 'dropped', {
            from: ['pending', 'failed'],
            ids: '@id',
            params: { id },
            patch: { lastError: `privacy: ${why}; the soundscape is not uploaded and its audio is deleted`, lastErrorCode: AUDIO_WITHHELD_CODE, holdReason: null, spoolPath: null },
            now,
        });
        if (moved)
            return { outcome: 'dropped', spoolPath: before.spool_path };
        if (before.state === 'sending' || before.state === 'unknown') {
            hold(q, 'recording', [id], PRIVACY_HOLD, { now });
            return { outcome: 'held', state: before.state };
        }
        return { outcome: before.state === 'uploaded' ? 'uploaded' : 'gone', state: before.state };
    });
}
