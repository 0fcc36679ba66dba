import { AudioFileError } from './errors.js';
import { WAVE_FORMAT_IEEE_FLOAT } from './wav-format.js';
export const DEFAULT_CHUNK_BYTES = 256 * 1024;
export function flacBitsFor(format) {
    if (format.formatTag === WAVE_FORMAT_IEEE_FLOAT)
        return 24;
    if (format.bitsPerSample === 8)
        return 8;
    if (format.bitsPerSample === 16)
        return 16;
    return 24;
}
const FULL_SCALE_24 = 8_388_608;
const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
function floatTo24(x) {
    if (Number.isNaN(x))
        return 0;
    const v = Math.round(x * FULL_SCALE_24);
    return v > FULL_SCALE_24 - 1 ? FULL_SCALE_24 - 1 : v < -FULL_SCALE_24 ? -FULL_SCALE_24 : v;
}
export function decodeSamples(bytes, format, into) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const width = format.bitsPerSample / 8;
    const count = Math.floor(bytes.byteLength / width);
    const out = into ? into.subarray(0, count) : new Int32Array(count);
    if (format.formatTag === WAVE_FORMAT_IEEE_FLOAT) {
        if (width === 4)
            for (let i = 0; i < count; i++)
                out[i] = floatTo24(view.getFloat32(i * 4, true));
        else
            for (let i = 0; i < count; i++)
                out[i] = floatTo24(view.getFloat64(i * 8, true));
        return out;
    }
    switch (width) {
        case 1:
            for (let i = 0; i < count; i++)
                out[i] = bytes[i] - 128;
            break;
        case 2:
            if (LITTLE_ENDIAN_HOST && bytes.byteOffset % 2 === 0)
                out.set(new Int16Array(bytes.buffer, bytes.byteOffset, count));
            else
                for (let i = 0; i < count; i++)
                    out[i] = view.getInt16(i * 2, true);
            break;
        case 3:
            for (let i = 0, o = 0; i < count; i++, o += 3) {
                out[i] = bytes[o] | (bytes[o + 1] << 8) | ((bytes[o + 2] << 24) >> 8);
            }
            break;
        case 4:
            for (let i = 0; i < count; i++)
                out[i] = view.getInt32(i * 4, true) >> 8;
            break;
        default:
            throw new Error(`unsupported sample width ${width}`);
    }
    return out;
}
let spareBytes;
let spareSamples;
export function* readPcmChunks(fh, file, info, options = {}) {
    const wanted = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
    const chunkBytes = Math.max(info.blockAlign, wanted - (wanted % info.blockAlign));
    const sampleCount = Math.floor(chunkBytes / (info.bitsPerSample / 8));
    const buffer = spareBytes && spareBytes.length >= chunkBytes ? spareBytes : Buffer.allocUnsafeSlow(chunkBytes);
    const samples = spareSamples && spareSamples.length >= sampleCount ? spareSamples : new Int32Array(sampleCount);
    if (buffer === spareBytes)
        spareBytes = undefined;
    if (samples === spareSamples)
        spareSamples = undefined;
    try {
        for (let done = 0; done < info.dataBytes;) {
            const length = Math.min(chunkBytes, info.dataBytes - done);
            const bytesRead = fh.readSync(buffer, 0, length, info.dataOffset + done);
            if (bytesRead < length) {
                throw new AudioFileError(file, 'truncated', `the file shrank while being read: expected ${info.dataBytes} bytes of audio, got ${done + bytesRead}`);
            }
            done += length;
            yield decodeSamples(buffer.subarray(0, length), info, samples);
        }
    }
    finally {
        if (buffer.length <= DEFAULT_CHUNK_BYTES && (spareBytes === undefined || spareBytes.length < buffer.length))
            spareBytes = buffer;
        if (samples.length <= DEFAULT_CHUNK_BYTES && (spareSamples === undefined || spareSamples.length < samples.length))
            spareSamples = samples;
    }
}
