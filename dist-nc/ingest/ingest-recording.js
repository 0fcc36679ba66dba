import path from 'node:path';
import { errorMessage } from '../errors.js';
import { findRecordingBySourceKey, markFileDone } from '../queue/index.js';
import { addPolicyCounts, emptyCounts, mergeCounts } from '../policy/counts.js';
import { enqueueWithPolicy } from '../policy/enqueue.js';
import { NotRegularFileError } from '../system/regular-file.js';
import { ResultFileError } from './errors.js';
import { logWithheld, privacyVerdict, withholdQueued } from './privacy.js';
import { Problems } from './problems.js';
import { openAudio } from './recording-audio.js';
import { identifyRecording } from './recording-identity.js';
import { detectionTimestamp, formatServiceTimestamp } from './recording-time.js';
import { openResultFile, SETTLE_MS } from './result-stream.js';
import { giveBackAudio, takeAudio } from './take-audio.js';
export async function ingestRecording(ctx, input) {
    const nowMs = (ctx.now ?? Date.now)();
    let opened;
    try {
        opened = await openResultFile(input.resultPath, input.what, {
            labels: ctx.labels,
            format: ctx.format,
            maxBytes: ctx.maxResultFileBytes,
            now: nowMs,
            settleMs: ctx.settleMs,
        });
    }
    catch (err) {
        return errorOutcome(input.resultPath, err);
    }
    if (opened.kind === 'not-ready')
        return { status: 'not-ready', reason: opened.reason, waitingFor: 'result' };
    try {
        return await ingestOpened(ctx, input, opened, nowMs);
    }
    catch (err) {
        if (err instanceof ResultFileError || err instanceof NotRegularFileError)
            return errorOutcome(input.resultPath, err);
        throw err;
    }
    finally {
        await opened.close();
    }
}
function errorOutcome(resultPath, err) {
    if (err instanceof ResultFileError || err instanceof NotRegularFileError)
        return { status: 'error', message: err.message, code: err.code };
    const code = err.code ?? 'ERR_READ';
    return { status: 'error', message: `${resultPath}: ${errorMessage(err)}`, code };
}
async function ingestOpened(ctx, given, opened, nowMs) {
    const problems = new Problems(given.resultPath);
    const withheld = await privacyVerdict(ctx, opened);
    const { input, fate } = await prepareAudio(ctx, given, opened, withheld);
    const audio = await inspectAudio(ctx, input, nowMs);
    try {
        if (audio?.kind === 'not-ready' && !withheld) {
            if (!input.audioAsItIs)
                return { status: 'not-ready', reason: audio.reason, waitingFor: 'audio' };
            problems.add(`${audio.reason}; still incomplete after waiting for it, detections go without a soundscape`);
        }
        if ((audio?.kind === 'invalid' || audio?.kind === 'missing') && !withheld)
            problems.add(audio.message);
        const valid = audio?.kind === 'wav' || audio?.kind === 'flac' ? audio : null;
        const identity = await identifyRecording(ctx, { resultPath: input.resultPath, what: input.what, audioPath: input.audioPath, audio: valid, opened, now: new Date(nowMs) });
        if (identity?.problem)
            problems.add(identity.problem);
        const existing = identity && !ctx.dryRun ? findRecordingBySourceKey(ctx.queue, identity.sourceKey) : undefined;
        if (withheld?.reason === 'human' && !ctx.dryRun) {
            logWithheld(ctx.log, input.resultPath, withheld, existing ? await withholdQueued(ctx, existing, withheld, input.resultPath) : fate);
        }
        return await queueRows(ctx, { input, opened, withheld, audio, identity, existing, problems, nowMs });
    }
    finally {
        if (audio?.kind === 'wav' || audio?.kind === 'flac')
            await audio.close();
    }
}
async function prepareAudio(ctx, input, opened, withheld) {
    if (withheld) {
        if (!input.spooledAudio)
            return { input, fate: 'not-taken' };
        if (!ctx.dryRun)
            await ctx.spool.remove(input.spooledAudio);
        return { input: { ...input, spooledAudio: undefined }, fate: 'deleted' };
    }
    const held = input.heldAudio;
    if (!held || input.spooledAudio || ctx.dryRun)
        return { input, fate: 'not-taken' };
    if (ctx.policy.decide(opened.first.detections).post.length === 0)
        return { input, fate: 'not-taken' };
    try {
        await ctx.spool.copyFromHandle(held.handle, held.to, input.audioPath ?? held.to);
        return { input: { ...input, spooledAudio: held.to }, fate: 'not-taken' };
    }
    catch (err) {
        ctx.log.warn(`could not copy ${input.audioPath ?? held.to} into the spool: ${errorMessage(err)}`);
        return { input, fate: 'not-taken' };
    }
}
async function inspectAudio(ctx, input, nowMs) {
    const audioPath = input.spooledAudio ?? input.audioPath;
    if (!audioPath)
        return null;
    const settleMs = ctx.settleMs ?? SETTLE_MS;
    return openAudio(audioPath, { asItIs: input.audioAsItIs ?? ((mtime) => nowMs - mtime.getTime() >= settleMs) });
}
async function queueRows(ctx, r) {
    const { input, identity, existing, problems } = r;
    const valid = r.audio?.kind === 'wav' || r.audio?.kind === 'flac' ? r.audio : null;
    const durationSec = valid?.durationSec ?? r.existing?.durationS ?? undefined;
    let taken;
    let recording = null;
    let kept = 0;
    let below = 0;
    let inserted = 0;
    let recordingId = null;
    const counts = emptyCounts();
    if (r.withheld?.reason === 'human')
        counts.humanSoundscapesWithheld++;
    try {
        for await (const batch of allBatches(r.opened)) {
            for (const e of batch.errors)
                problems.add(e.message);
            const decision = ctx.policy.decide(batch.detections);
            below += decision.below;
            mergeCounts(counts, { ...decision.counts, humanSoundscapesWithheld: 0 });
            const rows = decision.post.filter((d) => {
                if (durationSec === undefined || d.startSec < durationSec)
                    return true;
                problems.add(`${input.resultPath} line ${d.line}: ${d.scientificName} at ${d.startSec}-${d.endSec} s starts after the end of the ${durationSec} s audio ${path.basename(valid?.path ?? existing?.sourcePath ?? '')}; row skipped`);
                return false;
            });
            if (rows.length > 0 && !identity)
                return noStart(input.resultPath);
            kept += rows.length;
            if (ctx.dryRun || (rows.length === 0 && !batch.last))
                continue;
            const first = rows.length > 0 && taken === undefined;
            if (first && identity) {
                taken = r.withheld
                    ? { spoolPath: null, audio: null, state: existing ? 'existing' : 'none' }
                    : await takeAudio(ctx, { existing, inspected: r.audio, spooledAudio: input.spooledAudio, sourceKey: identity.sourceKey, problems });
                recording = r.withheld ? null : newRecording(ctx, input, identity, taken, existing);
            }
            const detections = identity ? rows.map((d) => newDetection(ctx, identity, d)) : [];
            let result;
            try {
                result = ctx.queue.write(() => {
                    const queuedAt = ctx.queueNow ? ctx.queueNow() : r.nowMs;
                    const queued = rows.length > 0 ? enqueueWithPolicy(ctx.queue, ctx.policy, { recording, detections }, queuedAt) : null;
                    if (batch.last) {
                        addPolicyCounts(ctx.queue, counts, { now: queuedAt });
                        if (input.found)
                            markFileDone(ctx.queue, input.resultPath, input.found.size, input.found.mtimeMs, kept > 0 ? 'queued' : 'no-detections', null, queuedAt);
                    }
                    return queued;
                });
            }
            catch (err) {
                if (first && taken?.spoolPath && taken.state === 'spooled')
                    await giveBackAudio(taken.spoolPath, input.spooledAudio);
                throw err;
            }
            ctx.writes?.commitIfFull();
            if (result) {
                recordingId = result.recordingId;
                inserted += result.detectionsInserted;
                for (const c of result.changed)
                    problems.add(describeChange(input.resultPath, rows, c));
            }
        }
    }
    finally {
        if (taken?.audio && taken.audio !== r.audio)
            await taken.audio.close();
    }
    if (kept === 0) {
        if (input.spooledAudio && !ctx.dryRun)
            await ctx.spool.remove(input.spooledAudio);
        return { status: 'no-detections', below, problems: problems.list() };
    }
    const sourceKey = identity?.sourceKey ?? null;
    if (ctx.dryRun)
        return { status: 'queued', recordingId: null, sourceKey, detections: kept, newDetections: kept, audio: valid ? 'spooled' : 'none', problems: problems.list() };
    return { status: 'queued', recordingId, sourceKey, detections: kept, newDetections: inserted, audio: taken?.state ?? 'none', problems: problems.list() };
}
async function* allBatches(opened) {
    yield opened.first;
    yield* opened.rest();
}
function newRecording(ctx, input, identity, taken, existing) {
    const audio = taken.audio;
    if (!audio && !existing)
        return null;
    return {
        sourceKey: identity.sourceKey,
        sourcePath: input.spooledAudio ?? input.audioPath ?? input.resultPath,
        spoolPath: taken.spoolPath,
        audioFormat: taken.spoolPath ? (audio?.kind ?? null) : null,
        timestamp: formatServiceTimestamp(identity.start.start, ctx.zone),
        timeSource: identity.start.source,
        durationS: audio?.durationSec ?? null,
        sampleRate: audio?.sampleRate ?? null,
        filesize: taken.spoolPath && audio ? audio.bytes : null,
        holdReason: identity.holdReason,
    };
}
function newDetection(ctx, identity, d) {
    return {
        dedupeKey: `${identity.sourceKey}|${d.startSec}|${d.scientificName}`,
        timestamp: detectionTimestamp(identity.start.start, d.startSec, ctx.zone),
        startS: d.startSec,
        endS: d.endSec,
        scientificName: d.scientificName,
        commonName: d.commonName,
        confidence: d.confidence,
        lat: ctx.lat,
        lon: ctx.lon,
        holdReason: identity.holdReason,
    };
}
function noStart(resultPath) {
    return {
        status: 'error',
        code: 'ERR_NO_RECORDING_START',
        message: `${resultPath}: no recording start: neither the file nor its name (nor an audio file's name or metadata) gives the date and time, ` +
            `and no audio is beside it; not queued (a detection is never stamped with the time of ingest). ` +
            `Put the audio beside it, name it like <prefix>_YYYYMMDD_HHMMSS, or write a sidecar (docs/SIDECAR.md), then run station-agent ingest --force on it`,
    };
}
function describeChange(resultPath, rows, c) {
    const row = rows.find((d) => c.dedupeKey.endsWith(`|${d.startSec}|${d.scientificName}`));
    const diff = ['confidence', 'endS', 'commonName']
        .filter((k) => c.before[k] !== c.after[k])
        .map((k) => `${k} ${JSON.stringify(c.before[k])} -> ${JSON.stringify(c.after[k])}`)
        .join(', ');
    const what = c.updated ? 'the queued item (never sent) now has the new values' : `it was already ${c.state} with the old values, which stand at the service`;
    return `${resultPath}${row ? ` line ${row.line}` : ''}: detection d${c.id} changed after it was queued (${diff}); ${what}`;
}
