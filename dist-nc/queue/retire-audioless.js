import { transitionWhere } from './state.js';
export const AUDIOLESS_CODE = 'ERR_NO_AUDIO';
export function retireAudiolessRecordings(q, before, now = Date.now()) {
    return transitionWhere(q, 'recording', 'dropped', {
        from: ['pending'],
        where: 'spool_path IS NULL AND created_at <= @before',
        params: { before },
        patch: {
            lastError: 'no audio was spooled (free disk space was below disk.minFreeMb); its detections went without a soundscape',
            lastErrorCode: AUDIOLESS_CODE,
        },
        now,
    }).length;
}
