import { addToStateCounts } from './state-counts.js';
export function attachAudio(q, recordingId, audio, options = {}) {
    return q.write(() => {
        const attached = q
            .stmt(`UPDATE recordings SET spool_path = @spool_path, audio_format = @audio_format, filesize = @filesize, ` +
            `duration_s = COALESCE(@duration_s, duration_s), sample_rate = COALESCE(@sample_rate, sample_rate), updated_at = @now ` +
            `WHERE id = @id AND state = 'pending' AND spool_path IS NULL`)
            .run({
            id: recordingId,
            spool_path: audio.spoolPath,
            audio_format: audio.audioFormat,
            filesize: audio.filesize,
            duration_s: audio.durationS ?? null,
            sample_rate: audio.sampleRate ?? null,
            now: options.now ?? Date.now(),
        }).changes === 1;
        if (attached)
            addToStateCounts(q, 'recording', {}, { files: 1, bytes: audio.filesize });
        return attached;
    });
}
