import { createHash } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { AudioFileError, STILL_BEING_WRITTEN } from '../audio/errors.js';
import { readFlacInfoFrom } from '../audio/flac-info.js';
import { readWavInfoFrom } from '../audio/wav.js';
import { errorMessage } from '../errors.js';
import { isDiskLow } from '../system/disk.js';
import { NotRegularFileError, openRegularFileStat } from '../system/regular-file.js';
import { contentKey } from './content-key.js';
export async function openAudio(file, options) {
    let handle;
    try {
        const opened = await openRegularFileStat(file);
        handle = opened.handle;
        const { size, mtime } = opened.stats;
        const fh = opened.handle;
        const common = { path: file, bytes: size, mtime, handle: fh, contentKey: () => contentKey(fh, size), close: () => fh.close() };
        if (/\.flac$/i.test(file)) {
            const info = await readFlacInfoFrom(fh, file, size);
            handle = undefined;
            return { kind: 'flac', durationSec: info.durationSec, sampleRate: info.sampleRate, ...common };
        }
        const info = await readWavInfoFrom(fh, file, size);
        const asItIs = typeof options.asItIs === 'function' ? options.asItIs(mtime) : options.asItIs;
        if (!info.complete && (!asItIs || info.dataBytes === 0))
            return { kind: 'not-ready', reason: `${file}: still being written` };
        handle = undefined;
        return {
            kind: 'wav',
            durationSec: info.durationSec,
            sampleRate: info.sampleRate,
            metadata: { comment: info.comment, guano: info.guano },
            ...(!info.complete && { recovered: describeRecovery(file, info) }),
            ...common,
        };
    }
    catch (err) {
        if (err instanceof AudioFileError) {
            if (STILL_BEING_WRITTEN.has(err.reason) && err.reason !== 'empty')
                return { kind: 'not-ready', reason: err.message };
            return { kind: 'invalid', message: `${err.message}; detections go without a soundscape` };
        }
        if (err instanceof NotRegularFileError)
            return { kind: 'invalid', message: `${err.message}; detections go without a soundscape` };
        const code = err.code;
        if (code === 'ENOENT')
            return { kind: 'missing', message: `${file}: audio deleted before it could be spooled; detections go without a soundscape` };
        return { kind: 'invalid', message: `${file}: ${errorMessage(err)}` };
    }
    finally {
        await handle?.close();
    }
}
function describeRecovery(file, info) {
    const declared = info.declaredDataBytes === 0
        ? 'a data size of 0'
        : info.declaredDataBytes === 0xffffffff
            ? 'a data size of 0xFFFFFFFF'
            : info.declaredDataBytes > info.fileBytes - info.dataOffset
                ? `a data size of ${info.declaredDataBytes} bytes, more than the ${info.fileBytes - info.dataOffset} the file holds`
                : 'a RIFF size of 0';
    return (`${file}: the WAV header was never finalised (${declared}); took the ${info.dataBytes} bytes of whole frames the file holds ` +
        `(${info.durationSec.toFixed(2)} s), as sox and libsndfile read it`);
}
function spoolName(sourceKey, kind) {
    return `${createHash('sha1').update(sourceKey).digest('hex').slice(0, 16)}.${kind}`;
}
export async function leftInSpool(ctx, sourceKey) {
    for (const kind of ['wav', 'flac']) {
        const name = spoolName(sourceKey, kind);
        for (const file of ctx.spool.nearDir ? [ctx.spool.pathFor(name), path.join(ctx.spool.nearDir, name)] : [ctx.spool.pathFor(name)]) {
            const audio = await openAudio(file, { asItIs: true });
            if (audio.kind === 'wav' || audio.kind === 'flac')
                return audio;
        }
    }
    return null;
}
export async function spoolAudio(ctx, audio, alreadySpooled, sourceKey) {
    const name = spoolName(sourceKey, audio.kind);
    if (alreadySpooled && ctx.spool.isNear(audio.path)) {
        const dest = ctx.spool.pathFor(name, audio.path);
        await rename(audio.path, dest);
        return dest;
    }
    let free = Number.POSITIVE_INFINITY;
    try {
        free = ctx.spool.freeBytes();
    }
    catch {
    }
    if (isDiskLow(free, ctx.minFreeMb)) {
        if (alreadySpooled)
            await rm(audio.path, { force: true });
        return null;
    }
    if (alreadySpooled) {
        const dest = ctx.spool.pathFor(name);
        await rename(audio.path, dest);
        return dest;
    }
    return (await ctx.spool.take(audio.path, name, audio.handle)).path;
}
