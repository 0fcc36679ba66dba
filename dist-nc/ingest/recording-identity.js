import path from 'node:path';
import { recordingStartFromName, resolveRecordingStart } from './recording-time.js';
import { IMPLAUSIBLE_TIME_HOLD } from './time-holds.js';
export async function identifyRecording(ctx, input) {
    const { opened, audio } = input;
    const names = [input.audioPath, opened.audioFileName, `${input.what.baseName}.wav`].filter((n) => Boolean(n));
    const start = resolveRecordingStart({
        zone: ctx.zone,
        fileName: names,
        sidecarStart: opened.recordingStart,
        metadata: audio?.metadata,
        mtime: audio?.mtime,
        durationSec: audio?.durationSec,
        now: input.now,
    });
    if (!start)
        return undefined;
    const named = start.source === 'filename' || names.some((n) => recordingStartFromName(n, ctx.zone) !== undefined);
    const baseName = path.basename(input.audioPath ?? opened.audioFileName ?? input.what.baseName);
    let sourceKey = `${baseName}|${start.start.toISOString()}`;
    if (!named) {
        const content = audio ? `audio:${await audio.contentKey()}` : `result:${await opened.contentKey()}`;
        sourceKey = start.source === 'mtime' ? content : `${content}|${start.start.toISOString()}`;
    }
    if (!start.implausible)
        return { start, sourceKey, holdReason: null };
    return {
        start,
        sourceKey,
        holdReason: IMPLAUSIBLE_TIME_HOLD,
        problem: `${input.audioPath ?? input.resultPath}: ${start.implausibleReason} (from ${start.source}); held until the clock makes it plausible, or an operator releases it (queue release)`,
    };
}
