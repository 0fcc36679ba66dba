import { withRegularFile } from '../system/regular-file.js';
import { AudioFileError } from './errors.js';
export const STREAMINFO_BYTES = 34;
export const STREAMINFO_OFFSET = 8;
const HEAD_BYTES = STREAMINFO_OFFSET + STREAMINFO_BYTES;
const TWO_POW_32 = 2 ** 32;
export function parseStreamInfo(body) {
    const b = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    const sampleRate = (b[10] << 12) | (b[11] << 4) | (b[12] >> 4);
    const channels = ((b[12] >> 1) & 0x07) + 1;
    const bitsPerSample = (((b[12] & 0x01) << 4) | (b[13] >> 4)) + 1;
    const totalSamples = (b[13] & 0x0f) * TWO_POW_32 + b.readUInt32BE(14);
    return {
        sampleRate,
        channels,
        bitsPerSample,
        totalSamples,
        minBlockSize: b.readUInt16BE(0),
        maxBlockSize: b.readUInt16BE(2),
        minFrameSize: b.readUIntBE(4, 3),
        maxFrameSize: b.readUIntBE(7, 3),
        md5: b.subarray(18, 34).toString('hex'),
    };
}
export function encodeStreamInfo(info) {
    const b = Buffer.alloc(STREAMINFO_BYTES);
    b.writeUInt16BE(info.minBlockSize, 0);
    b.writeUInt16BE(info.maxBlockSize, 2);
    b.writeUIntBE(info.minFrameSize, 4, 3);
    b.writeUIntBE(info.maxFrameSize, 7, 3);
    const bps = info.bitsPerSample - 1;
    b[10] = (info.sampleRate >> 12) & 0xff;
    b[11] = (info.sampleRate >> 4) & 0xff;
    b[12] = ((info.sampleRate & 0x0f) << 4) | ((info.channels - 1) << 1) | (bps >> 4);
    b[13] = ((bps & 0x0f) << 4) | (Math.floor(info.totalSamples / TWO_POW_32) & 0x0f);
    b.writeUInt32BE(info.totalSamples % TWO_POW_32, 14);
    Buffer.from(info.md5.padStart(32, '0'), 'hex').copy(b, 18);
    return b;
}
export async function readFlacInfo(file) {
    return withRegularFile(file, (fh) => readFlacInfoFrom(fh, file));
}
export async function readFlacInfoFrom(fh, file, knownBytes) {
    const bytes = knownBytes ?? (await fh.stat()).size;
    if (bytes === 0)
        throw new AudioFileError(file, 'empty', 'file is empty (0 bytes)');
    const head = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await fh.read(head, 0, HEAD_BYTES, 0);
    if (head.toString('latin1', 0, 4) !== 'fLaC') {
        throw new AudioFileError(file, 'not-flac', 'not a FLAC file: it does not start with "fLaC"');
    }
    if (bytesRead < HEAD_BYTES) {
        throw new AudioFileError(file, 'truncated', `truncated FLAC header: ${bytes} bytes, STREAMINFO needs ${HEAD_BYTES}`);
    }
    const blockType = head[4] & 0x7f;
    const blockLength = head.readUIntBE(5, 3);
    if (blockType !== 0 || blockLength !== STREAMINFO_BYTES) {
        throw new AudioFileError(file, 'not-flac', `the first metadata block is type ${blockType} of ${blockLength} bytes, expected STREAMINFO (type 0, 34 bytes)`);
    }
    const info = parseStreamInfo(head.subarray(STREAMINFO_OFFSET, HEAD_BYTES));
    return { ...info, durationSec: info.sampleRate > 0 ? info.totalSamples / info.sampleRate : 0, bytes };
}
