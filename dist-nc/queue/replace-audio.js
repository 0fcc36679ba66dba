import { addToStateCounts } from './state-counts.js';
export function replaceWithFlac(q, id, wavPath, flac, options = {}) {
    const which = `id = @id AND spool_path = @wav AND state IN ('pending', 'unknown')`;
    return q.write(() => {
        const wav = q.stmt(`SELECT filesize FROM recordings WHERE ${which}`).get({ id, wav: wavPath });
        if (!wav)
            return false;
        q.stmt(`UPDATE recordings SET spool_path = @spool_path, audio_format = 'flac', filesize = @filesize, duration_s = @duration_s, ` +
            `sample_rate = @sample_rate, updated_at = @now WHERE ${which}`).run({
            id,
            wav: wavPath,
            spool_path: flac.spoolPath,
            filesize: flac.filesize,
            duration_s: flac.durationS,
            sample_rate: flac.sampleRate,
            now: options.now ?? Date.now(),
        });
        addToStateCounts(q, 'recording', {}, { files: 0, bytes: flac.filesize - (wav.filesize ?? 0) });
        return true;
    });
}
