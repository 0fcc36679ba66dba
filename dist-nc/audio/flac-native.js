import { FlacEncoderError } from './errors.js';
export const FLAC_ADDON_MODULE = 'flac-bindings/api';
const WRITE_OK = 0;
export async function loadNativeFlac(module = FLAC_ADDON_MODULE) {
    let api;
    try {
        api = (await import(module));
        if (typeof api.EncoderBuilder !== 'function')
            throw new Error('it has no EncoderBuilder');
    }
    catch (err) {
        throw new FlacEncoderError(`libFLAC's addon (${module}) could not be loaded: ${err.message.split('\n')[0]}`, {
            cause: err,
        });
    }
    return { createEncoder: addonEncoder(api), version: api.format.VERSION_STRING };
}
function addonEncoder(api) {
    return (params, onWrite, onStreamInfo) => {
        const { src, sampleRate, channels, bitsPerSample, compressionLevel, totalSamples } = params;
        let encoder;
        try {
            encoder = new api.EncoderBuilder()
                .setChannels(channels)
                .setBitsPerSample(bitsPerSample)
                .setSampleRate(sampleRate)
                .setCompressionLevel(compressionLevel)
                .setTotalSamplesEstimate(totalSamples)
                .buildWithStream((buffer) => {
                onWrite(buffer);
                return WRITE_OK;
            }, null, null, (meta) => {
                if (meta.type !== 0)
                    return;
                onStreamInfo({
                    sampleRate: meta.sampleRate,
                    channels: meta.channels,
                    bitsPerSample: meta.bitsPerSample,
                    totalSamples: Number(meta.totalSamples),
                    minBlockSize: meta.minBlocksize,
                    maxBlockSize: meta.maxBlocksize,
                    minFrameSize: meta.minFramesize,
                    maxFrameSize: meta.maxFramesize,
                    md5: meta.md5sum.toString('hex'),
                });
            });
        }
        catch (err) {
            throw new FlacEncoderError(`libFLAC refused to start encoding ${src}: ${err.message}`, { cause: err });
        }
        let finished = false;
        return {
            process: (samples, frames) => {
                return encoder.processInterleaved(Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength), frames);
            },
            finish: () => {
                finished = encoder.finish() !== null;
                return finished;
            },
            state: () => (finished ? 'finished' : encoder.getResolvedStateString()),
            release: () => {
                if (finished)
                    return;
                finished = true;
                try {
                    encoder.finish();
                }
                catch {
                }
            },
        };
    };
}
