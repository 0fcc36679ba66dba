import { mkdir, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { AudioFileError, FlacEncoderError } from './errors.js';
import { encodeStreamInfo, STREAMINFO_BYTES, STREAMINFO_OFFSET } from './flac-info.js';
import { flacBitsFor, readPcmChunks } from './pcm.js';
import { readWavInfoFrom } from './wav.js';
import { openRegularFileStat } from '../system/regular-file.js';
export const DEFAULT_COMPRESSION_LEVEL = 5;
const YIELD_EVERY_BYTES = 1024 * 1024;
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
export async function encodeWavToFlac(createEncoder, job, engine, stopped = () => false) {
    const { handle: fh, stats } = await openRegularFileStat(job.src);
    try {
        return await encodeOpened(createEncoder, job, engine, stopped, fh, stats.size);
    }
    finally {
        await fh.close();
    }
}
async function encodeOpened(createEncoder, job, engine, stopped, fh, fileBytes) {
    const info = await readWavInfoFrom(fh, job.src, fileBytes);
    if (!info.complete && !job.allowIncomplete) {
        throw new AudioFileError(job.src, 'incomplete', `incomplete WAV: the data chunk declares ${info.declaredDataBytes} bytes, the file holds ${info.fileBytes - info.dataOffset} after its header`);
    }
    const frames = info.dataBytes / info.blockAlign;
    if (frames === 0)
        throw new AudioFileError(job.src, 'no-samples', 'the data chunk holds no audio samples');
    const bitsPerSample = flacBitsFor(info);
    const level = job.compressionLevel ?? DEFAULT_COMPRESSION_LEVEL;
    const sink = job.dest === undefined ? memorySink(flacSizeEstimate(frames, info.channels, bitsPerSample)) : await fileSink(job.dest);
    let encoder;
    let done = false;
    try {
        let streamInfo;
        encoder = createEncoder({ src: job.src, sampleRate: info.sampleRate, channels: info.channels, bitsPerSample, compressionLevel: level, totalSamples: frames }, sink.take, (meta) => {
            streamInfo = meta;
        });
        let sinceTurn = 0;
        for (const samples of readPcmChunks(fh, job.src, info, { chunkBytes: job.chunkBytes })) {
            if (stopped())
                throw new FlacEncoderError(`the FLAC encoder was closed while encoding ${job.src}`);
            const chunkFrames = samples.length / info.channels;
            if (!encoder.process(samples, chunkFrames))
                throw encoderStateError(encoder, job.src);
            await sink.flush();
            sinceTurn += chunkFrames * info.blockAlign;
            if (sinceTurn >= YIELD_EVERY_BYTES) {
                sinceTurn = 0;
                await nextTurn();
            }
        }
        if (!encoder.finish())
            throw encoderStateError(encoder, job.src);
        await sink.flush();
        if (streamInfo?.totalSamples !== frames) {
            throw new FlacEncoderError(`libFLAC reported ${streamInfo?.totalSamples ?? 'no'} samples for ${job.src}, expected ${frames}`);
        }
        const { bytes, data } = await sink.finish(streamInfo);
        done = true;
        return {
            sampleRate: info.sampleRate,
            channels: info.channels,
            bitsPerSample,
            totalSamples: frames,
            durationSec: frames / info.sampleRate,
            bytes,
            md5: streamInfo.md5,
            engine,
            ...(data ? { data } : {}),
        };
    }
    finally {
        encoder?.release();
        if (!done)
            await sink.abort();
    }
}
async function fileSink(dest) {
    const part = `${dest}.part`;
    await mkdir(path.dirname(dest), { recursive: true });
    const out = await open(part, 'w+');
    let pending = Buffer.allocUnsafeSlow(64 * 1024);
    let used = 0;
    let position = 0;
    let renamed = false;
    return {
        take(bytes) {
            if (used + bytes.byteLength > pending.length) {
                const grown = Buffer.allocUnsafeSlow(Math.max(pending.length * 2, used + bytes.byteLength));
                pending.copy(grown, 0, 0, used);
                pending = grown;
            }
            pending.set(bytes, used);
            used += bytes.byteLength;
        },
        async flush() {
            if (used === 0)
                return;
            const length = used;
            used = 0;
            const { bytesWritten } = await out.write(pending, 0, length, position);
            if (bytesWritten !== length)
                throw new Error(`short write to ${part}: ${bytesWritten} of ${length} bytes`);
            position += length;
        },
        async finish(info) {
            await rewriteStreamInfo(out, info, part);
            await out.sync();
            await out.close();
            await rename(part, dest);
            renamed = true;
            await syncDirectory(path.dirname(dest));
            return { bytes: position };
        },
        async abort() {
            if (renamed)
                return;
            await out.close().catch(() => undefined);
            await unlink(part).catch(() => undefined);
        },
    };
}
let spareStaging;
const MAX_SPARE_STAGING_BYTES = 2 * 1024 * 1024;
function memorySink(estimate) {
    const spare = spareStaging;
    spareStaging = undefined;
    let staging = spare ?? Buffer.allocUnsafeSlow(Math.min(estimate, MAX_SPARE_STAGING_BYTES));
    let used = 0;
    const keep = () => {
        const kept = staging.length <= MAX_SPARE_STAGING_BYTES ? staging : spare;
        if (kept && (spareStaging === undefined || spareStaging.length < kept.length))
            spareStaging = kept;
    };
    return {
        take(bytes) {
            if (used + bytes.byteLength > staging.length) {
                const grown = Buffer.allocUnsafeSlow(Math.max(estimate, staging.length * 2, used + bytes.byteLength));
                staging.copy(grown, 0, 0, used);
                staging = grown;
            }
            staging.set(bytes, used);
            used += bytes.byteLength;
        },
        flush: () => Promise.resolve(),
        finish(info) {
            const data = new Uint8Array(Buffer.allocUnsafeSlow(used).buffer, 0, used);
            data.set(staging.subarray(0, used));
            keep();
            patchStreamInfo(data, info, 'the encoded FLAC');
            return Promise.resolve({ bytes: used, data });
        },
        abort() {
            keep();
            return Promise.resolve();
        },
    };
}
function flacSizeEstimate(frames, channels, bitsPerSample) {
    const FRAME_OVERHEAD = 18;
    const blocks = Math.ceil(frames / 1152);
    return STREAMINFO_OFFSET + STREAMINFO_BYTES + Math.ceil((frames * channels * bitsPerSample) / 8) + blocks * (FRAME_OVERHEAD + 2 * channels);
}
function patchStreamInfo(data, info, what) {
    checkStreamInfoHead(Buffer.from(data.buffer, data.byteOffset, Math.min(data.byteLength, STREAMINFO_OFFSET)), what);
    data.set(encodeStreamInfo(info), STREAMINFO_OFFSET);
}
function checkStreamInfoHead(head, what) {
    if (head.length < STREAMINFO_OFFSET || head.toString('latin1', 0, 4) !== 'fLaC' || (head[4] & 0x7f) !== 0 || head.readUIntBE(5, 3) !== STREAMINFO_BYTES) {
        throw new FlacEncoderError(`${what}: libFLAC's output does not start with a STREAMINFO block`);
    }
}
function encoderStateError(encoder, src) {
    return new FlacEncoderError(`libFLAC failed while encoding ${src} (encoder state ${encoder.state()})`);
}
async function rewriteStreamInfo(out, info, part) {
    const head = Buffer.alloc(STREAMINFO_OFFSET);
    await out.read(head, 0, STREAMINFO_OFFSET, 0);
    checkStreamInfoHead(head, part);
    await out.write(encodeStreamInfo(info), 0, STREAMINFO_BYTES, STREAMINFO_OFFSET);
}
export async function syncDirectory(dir) {
    let fh;
    try {
        fh = await open(dir, 'r');
        await fh.sync();
    }
    catch {
    }
    finally {
        await fh?.close();
    }
}
