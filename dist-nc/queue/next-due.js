import { CLAIM_FROM } from './claim.js';
import { DEFAULT_NO_AUDIO_AFTER_MS } from './claim-detections.js';
export function nextDueAt(q, now = Date.now(), options = {}) {
    const noAudioAfterMs = options.noAudioAfterMs ?? DEFAULT_NO_AUDIO_AFTER_MS;
    const waits = options.audioWithheld || options.audioHeld ? [0, 1, 2] : [0, 2];
    const audioWaits = options.audioWithheld ? [] : options.audioHeld ? [1, 2] : [2];
    const row = q.stmt(nextDueSql(waits, audioWaits)).get({ now, no_audio_before: now - noAudioAfterMs, no_audio_after: noAudioAfterMs });
    return row?.t ?? null;
}
function nextDueSql(waits, audioWaits) {
    const backoffs = [
        ...CLAIM_FROM.flatMap((state) => [1, 2].map((stage) => `FROM recordings WHERE waiting = 1 AND state = '${state}' AND audio_stage = ${stage}`)),
        ...CLAIM_FROM.flatMap((state) => waits.map((wait) => `FROM detections WHERE waiting = 1 AND state = '${state}' AND recording_wait = ${wait}`)),
    ].map((range) => `SELECT MIN(next_attempt_at) AS t ${range} AND next_attempt_at > @now`);
    const noAudio = CLAIM_FROM.flatMap((state) => audioWaits.map((wait) => `SELECT MIN(created_at) + @no_audio_after AS t FROM detections WHERE waiting = 1 AND state = '${state}' AND recording_wait = ${wait} ` +
        `AND next_attempt_at > @no_audio_before AND created_at > @no_audio_before AND hold_reason IS NULL`));
    return `SELECT MIN(t) AS t FROM (${[...backoffs, ...noAudio].join(' UNION ALL ')})`;
}
