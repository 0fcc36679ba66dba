import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { FlacEncoderError } from './errors.js';
const require = createRequire(import.meta.url);
const READY_TIMEOUT_MS = 30_000;
let loading;
export function loadLibFlac() {
    loading ??= load().catch((err) => {
        loading = undefined;
        throw err;
    });
    return loading;
}
async function load() {
    setFlagsFromString('--liftoff-only');
    const factory = require('libflacjs');
    if (wasmUsable()) {
        try {
            return { flac: await whenReady(withoutFetch(() => factory('wasm'))), variant: 'release.wasm' };
        }
        catch {
        }
    }
    return { flac: await whenReady(factory('')), variant: 'release.asmjs' };
}
function wasmUsable() {
    const wasm = globalThis.WebAssembly;
    if (wasm === undefined)
        return false;
    try {
        const wasmFile = require.resolve('libflacjs/dist/libflac.wasm.wasm');
        return existsSync(wasmFile) && wasm.validate(readFileSync(wasmFile));
    }
    catch {
        return false;
    }
}
function withoutFetch(load) {
    const g = globalThis;
    const saved = g.fetch;
    g.fetch = undefined;
    try {
        return load();
    }
    finally {
        g.fetch = saved;
    }
}
function whenReady(flac) {
    if (flac.isReady())
        return Promise.resolve(flac);
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
            reject(new FlacEncoderError(`libflacjs did not become ready within ${READY_TIMEOUT_MS / 1000} s`));
        }, READY_TIMEOUT_MS);
        timer.unref();
        flac.on('ready', () => {
            clearTimeout(timer);
            resolve(flac);
        });
    });
}
export function libFlacJsEncoder(flac) {
    return (params, onWrite, onStreamInfo) => {
        const { src, sampleRate, channels, bitsPerSample, compressionLevel, totalSamples } = params;
        const encoder = flac.create_libflac_encoder(sampleRate, channels, bitsPerSample, compressionLevel, totalSamples, false, 0);
        if (encoder === 0)
            throw new FlacEncoderError(`libFLAC could not create an encoder for ${src}`);
        const status = flac.init_encoder_stream(encoder, onWrite, (meta) => {
            if (!meta)
                return;
            onStreamInfo({
                sampleRate: meta.sampleRate,
                channels: meta.channels,
                bitsPerSample: meta.bitsPerSample,
                totalSamples: meta.total_samples,
                minBlockSize: meta.min_blocksize,
                maxBlockSize: meta.max_blocksize,
                minFrameSize: meta.min_framesize,
                maxFrameSize: meta.max_framesize,
                md5: meta.md5sum,
            });
        });
        if (status !== 0) {
            flac.FLAC__stream_encoder_delete(encoder);
            throw new FlacEncoderError(`libFLAC refused to start encoding ${src} (init status ${status})`);
        }
        return {
            process: (samples, frames) => flac.FLAC__stream_encoder_process_interleaved(encoder, samples, frames),
            finish: () => flac.FLAC__stream_encoder_finish(encoder),
            state: () => String(flac.FLAC__stream_encoder_get_state(encoder)),
            release: () => flac.FLAC__stream_encoder_delete(encoder),
        };
    };
}
