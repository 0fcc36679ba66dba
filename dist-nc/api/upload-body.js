import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable, Transform, pipeline } from 'node:stream';
export async function openUploadBody(source, size, through) {
    let input;
    let length = size;
    if (typeof source === 'string') {
        const info = await stat(source);
        if (!info.isFile())
            throw new TypeError(`soundscape ${source} is not a regular file`);
        length = info.size;
        input = info.size === 0 ? Readable.from([]) : createReadStream(source, { start: 0, end: info.size - 1 });
    }
    else {
        input = source;
    }
    let sent = 0;
    const counter = new Transform({
        transform(chunk, _encoding, callback) {
            sent += chunk.length;
            callback(null, chunk);
        },
    });
    if (through)
        pipeline(input, through, counter, () => { });
    else
        pipeline(input, counter, () => { });
    return {
        body: counter,
        size: length,
        bytesSent: () => sent,
        dispose() {
            counter.destroy();
            through?.destroy();
            input.destroy();
        },
    };
}
export function memoryBody(data) {
    return { body: data, size: data.length, bytesSent: () => data.length, dispose: () => { } };
}
