import { StringDecoder } from 'node:string_decoder';
import { setImmediate } from 'node:timers/promises';
import { openRegularFileStat } from '../system/regular-file.js';
import { contentKey } from './content-key.js';
import { ResultFileError } from './errors.js';
import { detectFormat, LINE_PARSERS, parseResultFile } from './formats.js';
export const MAX_JSON_BYTES = 16 * 1024 * 1024;
export const SETTLE_MS = 10 * 60_000;
export const BATCH_SIZE = 1_000;
const READ_CHUNK = 64 * 1024;
export async function openResultFile(file, what, options) {
    const { handle: fh, stats } = await openRegularFileStat(file);
    let handedOver = false;
    try {
        const opened = await openFrom(fh, stats, file, what, options);
        handedOver = opened.kind === 'open';
        return opened;
    }
    finally {
        if (!handedOver)
            await fh.close();
    }
}
async function openFrom(fh, st, file, what, options) {
    const settled = options.now - st.mtimeMs >= (options.settleMs ?? SETTLE_MS);
    const format = options.format !== 'auto' ? options.format : detectFormat(file, await readSlice(fh, 0, Math.min(st.size, 4096)), what);
    if (!format)
        throw new ResultFileError(file, 'not a recognised result file (unknown name suffix and header)');
    const lineParser = LINE_PARSERS[format];
    const limit = lineParser ? options.maxBytes : Math.min(options.maxBytes, MAX_JSON_BYTES);
    if (st.size > limit) {
        const setting = lineParser || options.maxBytes < MAX_JSON_BYTES ? 'input.maxResultFileMb' : 'the JSON result limit';
        throw new ResultFileError(file, `${mb(st.size)} MB is larger than ${setting} (${mb(limit)} MB): not an analyzer result file, not read`);
    }
    let closed = false;
    const base = {
        kind: 'open',
        format,
        stats: st,
        contentKey: () => contentKey(fh, st.size),
    };
    if (!lineParser) {
        const text = await readSlice(fh, 0, st.size);
        let parsed;
        try {
            parsed = parseResultFile(file, text, { labels: options.labels, format, what });
        }
        catch (err) {
            if (!settled && err instanceof ResultFileError && err.cause instanceof SyntaxError) {
                return { kind: 'not-ready', reason: `${file}: not complete JSON yet (still being written?)` };
            }
            throw err;
        }
        const first = { detections: parsed.detections, errors: parsed.errors, last: true };
        return {
            ...base,
            recordingStart: parsed.recordingStart,
            audioFileName: parsed.audioFileName,
            first,
            rest: async function* () { },
            reread: async function* () {
                yield await Promise.resolve(first);
            },
            close: async () => {
                if (closed)
                    return;
                closed = true;
                await fh.close();
            },
        };
    }
    if (st.size > 0 && !settled && !isLineEnd(await readSlice(fh, st.size - 1, st.size))) {
        return { kind: 'not-ready', reason: `${file}: its last line has no line end yet (still being written?)` };
    }
    const ctx = options.labels ? { fileName: file, labels: options.labels } : { fileName: file };
    const batchSize = options.batchSize ?? BATCH_SIZE;
    const readers = [];
    const close = async () => {
        if (closed)
            return;
        closed = true;
        for (const r of readers)
            await r.stop();
        await fh.close();
    };
    const reader = () => {
        const r = new RowReader(lineParser(ctx), readLines(fh, st.size), batchSize);
        readers.push(r);
        return r;
    };
    const main = reader();
    let first;
    try {
        first = await main.next();
    }
    catch (err) {
        await close();
        throw err;
    }
    return {
        ...base,
        recordingStart: undefined,
        audioFileName: main.parser.audioFileName ?? ('audioFileName' in what ? what.audioFileName : undefined),
        first,
        rest: async function* () {
            if (first.last)
                return;
            for (;;) {
                const batch = await main.next();
                yield batch;
                if (batch.last)
                    return;
            }
        },
        reread: async function* () {
            const again = reader();
            for (;;) {
                const batch = await again.next();
                yield batch;
                if (batch.last)
                    return;
            }
        },
        close,
    };
}
class RowReader {
    parser;
    lines;
    batchSize;
    ended = false;
    constructor(parser, lines, batchSize) {
        this.parser = parser;
        this.lines = lines;
        this.batchSize = batchSize;
    }
    async next() {
        while (!this.ended && this.parser.detections.length < this.batchSize && this.parser.errors.length < this.batchSize) {
            const next = await this.lines.next();
            if (next.done) {
                this.ended = true;
                this.parser.finish();
            }
            else {
                this.parser.push(next.value.text, next.value.line);
            }
        }
        return { detections: this.parser.detections.splice(0), errors: this.parser.errors.splice(0), last: this.ended };
    }
    async stop() {
        await this.lines.return(undefined);
    }
}
async function* readLines(fh, size) {
    const buf = Buffer.allocUnsafe(Math.min(READ_CHUNK, Math.max(size, 1)));
    const decoder = new StringDecoder('utf8');
    let carry = '';
    let line = 0;
    for (let pos = 0; pos < size;) {
        const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, size - pos), pos);
        if (bytesRead === 0)
            break;
        pos += bytesRead;
        let text = carry + decoder.write(buf.subarray(0, bytesRead));
        if (line === 0 && text.charCodeAt(0) === 0xfeff)
            text = text.slice(1);
        let from = 0;
        for (let i = 0; i < text.length; i++) {
            const c = text.charCodeAt(i);
            if (c !== 10 && c !== 13)
                continue;
            if (c === 13 && i === text.length - 1 && pos < size)
                break;
            yield { text: text.slice(from, i), line: ++line };
            if (c === 13 && text.charCodeAt(i + 1) === 10)
                i++;
            from = i + 1;
        }
        carry = text.slice(from);
        if (pos < size)
            await setImmediate();
    }
    const rest = carry + decoder.end();
    if (rest.length > 0)
        yield { text: line === 0 && rest.charCodeAt(0) === 0xfeff ? rest.slice(1) : rest, line: ++line };
}
async function readSlice(fh, from, to) {
    const buf = Buffer.alloc(Math.max(0, to - from));
    const { bytesRead } = await fh.read(buf, 0, buf.length, from);
    return buf.subarray(0, bytesRead).toString('utf8');
}
function isLineEnd(lastChar) {
    return lastChar === '\n' || lastChar === '\r';
}
function mb(bytes) {
    return (bytes / 1024 / 1024).toFixed(1).replace(/\.0$/, '');
}
