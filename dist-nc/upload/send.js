import { Readable } from 'node:stream';
import { findDetection, findSoundscape } from './reconcile.js';
import { AudioFileError } from '../audio/errors.js';
import { NetworkError } from '../api/errors.js';
const BODY_PIECE = 64 * 1024;
export async function sendRecording(ctx, item, body = {}) {
    if (item.reconcile) {
        const found = await findSoundscape(ctx.api, { timestamp: item.timestamp, durationS: item.durationS, filesize: body.flac?.length ?? (item.audioFormat === 'flac' ? item.filesize : null) }, (id) => ctx.isRemoteIdTaken('recording', id), ctx.signal);
        if (found != null) {
            return { remoteId: found, reconciled: true };
        }
    }
    if (body.fault)
        throw body.fault;
    if (!item.spoolPath)
        throw new AudioFileError(`recording ${item.id}`, 'no-data', 'no audio in the spool');
    const flac = body.flac;
    if (flac && !ctx.link?.pacesAudio)
        return sendFromMemory(ctx, item, flac);
    const source = flac ? { body: Readable.from(pieces(flac, BODY_PIECE), { objectMode: false }), size: flac.length } : { file: item.spoolPath };
    const soundscape = await ctx.api.uploadSoundscape({ timestamp: item.timestamp, ...source, signal: ctx.signal, through: ctx.link?.audioBody() });
    return { remoteId: soundscape.id, reconciled: false, bytes: soundscape.filesize ?? undefined };
}
async function sendFromMemory(ctx, item, flac) {
    let soundscape;
    try {
        soundscape = await ctx.api.uploadSoundscape({ timestamp: item.timestamp, data: flac, signal: ctx.signal });
    }
    catch (err) {
        if (!(err instanceof NetworkError))
            ctx.link?.audioSent(flac.length);
        throw err;
    }
    ctx.link?.audioSent(flac.length);
    return { remoteId: soundscape.id, reconciled: false, bytes: soundscape.filesize ?? undefined };
}
function* pieces(data, size) {
    for (let at = 0; at < data.length; at += size)
        yield data.subarray(at, at + size);
}
export async function sendDetection(ctx, item) {
    if (item.reconcile) {
        const found = await findDetection(ctx.api, item, ctx.species, (id) => ctx.isRemoteIdTaken('detection', id), ctx.signal);
        if (found != null) {
            return { remoteId: found, reconciled: true };
        }
    }
    const detection = await ctx.api.postDetection(detectionBody(item), ctx.signal);
    return { remoteId: detection.id, reconciled: false };
}
export function detectionBody(item) {
    const body = {
        timestamp: item.timestamp,
        commonName: item.commonName,
        scientificName: item.scientificName,
        confidence: item.confidence,
    };
    if (item.lat != null)
        body.lat = item.lat;
    if (item.lon != null)
        body.lon = item.lon;
    if (item.soundscapeRemoteId != null) {
        body.soundscapeId = item.soundscapeRemoteId;
        body.soundscapeStartTime = item.startS;
        body.soundscapeEndTime = item.endS;
    }
    return body;
}
