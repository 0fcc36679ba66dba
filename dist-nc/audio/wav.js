import { withRegularFile } from '../system/regular-file.js';
import { AudioFileError, STILL_BEING_WRITTEN } from './errors.js';
import { parseBext, parseGuano, parseListInfo } from './riff-metadata.js';
import { parseFmtChunk } from './wav-format.js';
const RIFF_HEADER_BYTES = 12;
const CHUNK_HEADER_BYTES = 8;
const MAX_METADATA_BYTES = 64 * 1024;
const MAX_FMT_BYTES = 64;
const MAX_CHUNKS = 4096;
const PLACEHOLDER_SIZES = new Set([0, 0xffffffff]);
async function readAt(fh, position, length) {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await fh.read(buffer, 0, length, position);
    return buffer.subarray(0, bytesRead);
}
function isChunkId(bytes) {
    if (bytes.length < 4)
        return false;
    for (let i = 0; i < 4; i++) {
        const b = bytes[i];
        if (b < 0x20 || b > 0x7e)
            return false;
    }
    return true;
}
export async function readWavInfo(file) {
    return withRegularFile(file, (fh) => readWavInfoFrom(fh, file));
}
export async function readWavInfoFrom(fh, file, knownBytes) {
    const fileBytes = knownBytes ?? (await fh.stat()).size;
    if (fileBytes === 0)
        throw new AudioFileError(file, 'empty', 'file is empty (0 bytes)');
    const head = await readAt(fh, 0, RIFF_HEADER_BYTES);
    const magic = head.subarray(0, 4);
    if (magic.length === 4 && magic.toString('latin1') !== 'RIFF') {
        const what = magic.toString('latin1');
        if (what === 'RF64' || what === 'BW64') {
            throw new AudioFileError(file, 'unsupported-format', `${what} (64-bit WAV) is not supported, only RIFF WAV`);
        }
        if (what === 'RIFX') {
            throw new AudioFileError(file, 'unsupported-format', 'big-endian RIFX WAV is not supported');
        }
        throw new AudioFileError(file, 'not-riff', 'not a WAV file: it does not start with a RIFF header');
    }
    if (head.length < RIFF_HEADER_BYTES) {
        throw new AudioFileError(file, 'truncated', `truncated header: ${fileBytes} bytes, a RIFF header needs ${RIFF_HEADER_BYTES}`);
    }
    if (head.toString('latin1', 8, 12) !== 'WAVE') {
        throw new AudioFileError(file, 'not-wave', 'not a WAV file: a RIFF file of another form than WAVE');
    }
    const riffBytes = head.readUInt32LE(4);
    let fmtBody;
    let data;
    let info;
    let guano;
    let bext;
    let stop = 'end';
    let chunks = 0;
    let pos = RIFF_HEADER_BYTES;
    for (; chunks < MAX_CHUNKS && pos < fileBytes; chunks++) {
        if (pos + CHUNK_HEADER_BYTES > fileBytes) {
            stop = 'cut';
            break;
        }
        const header = await readAt(fh, pos, CHUNK_HEADER_BYTES);
        if (!isChunkId(header)) {
            stop = 'junk';
            break;
        }
        const id = header.toString('latin1', 0, 4);
        const size = header.readUInt32LE(4);
        const body = pos + CHUNK_HEADER_BYTES;
        const fits = body + size <= fileBytes;
        if (id === 'data' && data === undefined) {
            const available = fileBytes - body;
            if (PLACEHOLDER_SIZES.has(size) || !fits) {
                data = { offset: body, declared: size, present: available, complete: false };
                break;
            }
            data = { offset: body, declared: size, present: size, complete: true };
        }
        else if (!fits) {
            stop = 'cut';
            break;
        }
        else if (id === 'fmt ' && fmtBody === undefined) {
            fmtBody = await readAt(fh, body, Math.min(size, MAX_FMT_BYTES));
        }
        else if (id === 'LIST') {
            const tags = parseListInfo(await readAt(fh, body, Math.min(size, MAX_METADATA_BYTES)));
            if (tags)
                info = { ...tags, ...info };
        }
        else if (id === 'guan') {
            guano = parseGuano(await readAt(fh, body, Math.min(size, MAX_METADATA_BYTES)));
        }
        else if (id === 'bext') {
            bext = parseBext(await readAt(fh, body, Math.min(size, 338)));
        }
        pos = await nextChunkPosition(fh, body, size, fileBytes);
    }
    if (fmtBody === undefined) {
        if (data === undefined && (stop === 'cut' || chunks === 0)) {
            throw new AudioFileError(file, 'truncated', `truncated header: the file ends at byte ${fileBytes}, before the fmt chunk`);
        }
        throw new AudioFileError(file, 'no-fmt', 'no fmt chunk: the file does not say how its samples are stored');
    }
    const format = parseFmtChunk(fmtBody, file);
    if (data === undefined) {
        if (stop === 'cut') {
            throw new AudioFileError(file, 'truncated', `truncated header: the file ends at byte ${fileBytes}, before the data chunk`);
        }
        throw new AudioFileError(file, 'no-data', 'no data chunk (the file has no audio, or is still being written)');
    }
    const dataBytes = data.present - (data.present % format.blockAlign);
    const frames = dataBytes / format.blockAlign;
    return {
        ...format,
        dataOffset: data.offset,
        dataBytes,
        declaredDataBytes: data.declared,
        durationSec: frames / format.sampleRate,
        complete: data.complete && riffBytes !== 0,
        fileBytes,
        ...(info?.ICMT !== undefined && { comment: info.ICMT }),
        ...(info?.IART !== undefined && { artist: info.IART }),
        ...(info && { info }),
        ...(guano && { guano }),
        ...(bext && { bext }),
    };
}
async function nextChunkPosition(fh, body, size, fileBytes) {
    const unpadded = body + size;
    if ((size & 1) === 0)
        return unpadded;
    const padded = unpadded + 1;
    if (padded + CHUNK_HEADER_BYTES > fileBytes)
        return padded;
    const peek = await readAt(fh, unpadded, 5);
    if (!isChunkId(peek.subarray(1)) && isChunkId(peek))
        return unpadded;
    return padded;
}
export async function isWavComplete(file) {
    try {
        return (await readWavInfo(file)).complete;
    }
    catch (err) {
        if (err instanceof AudioFileError && STILL_BEING_WRITTEN.has(err.reason))
            return false;
        throw err;
    }
}
