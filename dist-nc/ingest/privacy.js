import { rm } from 'node:fs/promises';
import { withholdRecordingAudio } from '../queue/index.js';
export async function privacyVerdict(ctx, opened) {
    if (!ctx.policy.keepsAudio)
        return { reason: 'audio-never' };
    let found = ctx.policy.decide(opened.first.detections).withheld;
    if (opened.first.last)
        return found;
    for await (const batch of opened.reread()) {
        const w = ctx.policy.decide(batch.detections).withheld;
        if (w?.reason === 'human' && (found?.reason !== 'human' || w.confidence > found.confidence))
            found = w;
    }
    return found;
}
export async function withholdQueued(ctx, existing, w, resultPath) {
    const why = `${resultPath} line ${w.line}: ${w.className} at ${w.confidence}`;
    const result = withholdRecordingAudio(ctx.queue, existing.id, why);
    if (result.outcome === 'dropped') {
        if (result.spoolPath) {
            await rm(result.spoolPath, { force: true });
            if (result.spoolPath.endsWith('.flac'))
                await rm(`${result.spoolPath.slice(0, -'.flac'.length)}.wav`, { force: true });
        }
        return 'dropped';
    }
    if (result.outcome === 'held')
        return 'in-flight';
    if (result.outcome === 'uploaded')
        return 'uploaded';
    return 'not-taken';
}
const FATE = {
    'not-taken': 'the soundscape is not uploaded',
    deleted: 'the soundscape is not uploaded and its spooled audio was deleted',
    dropped: 'the soundscape, queued from an earlier read of the file, is dropped (never uploaded) and its spooled audio was deleted',
    'in-flight': 'the soundscape, queued from an earlier read of the file, is being sent right now and may reach the service; it is held from any later try',
    uploaded: 'the soundscape was uploaded from an earlier read of the file, before the person was heard; it stays at the service (delete it there)',
};
export function logWithheld(log, resultPath, w, fate) {
    if (w.reason !== 'human')
        return;
    const line = `privacy: ${resultPath} line ${w.line}: ${w.className} at ${w.confidence}; ${FATE[fate]}, its other detections go without it`;
    const fields = { file: resultPath, class: w.className, confidence: w.confidence, line: w.line, policy: 'privacy', audio: fate };
    if (fate === 'in-flight' || fate === 'uploaded')
        log.error(fields, line);
    else
        log.warn(fields, line);
}
