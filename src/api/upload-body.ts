import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable, Transform, pipeline } from 'node:stream';

/**
 * The body of a soundscape upload: a file streamed from disk (never read whole
 * into memory: a Pi Zero has 512 MB and a backlog may hold thousands of files), a
 * caller's stream, or audio already in memory. The byte count feeds the `onResponse` hook.
 */
export interface UploadBody {
  body: Readable | Buffer;
  /** Content-Length, when known (always for a file). */
  size: number | undefined;
  bytesSent: () => number;
  /** Releases the file descriptor whatever happened to the request. */
  dispose: () => void;
}

/**
 * Opens the upload body. For a path the file is stat'ed first, so a missing spool
 * file fails here with the fs error (ENOENT naming the path), before any request,
 * and exactly `size` bytes are streamed. A `through` stream (the bandwidth cap) must
 * pass every byte on unchanged.
 */
export async function openUploadBody(source: string | Readable, size?: number, through?: Transform): Promise<UploadBody> {
  let input: Readable;
  let length = size;
  if (typeof source === 'string') {
    const info = await stat(source);
    if (!info.isFile()) throw new TypeError(`soundscape ${source} is not a regular file`);
    length = info.size;
    input = info.size === 0 ? Readable.from([]) : createReadStream(source, { start: 0, end: info.size - 1 });
  } else {
    input = source;
  }
  let sent = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      sent += chunk.length;
      callback(null, chunk);
    },
  });
  // Errors travel both ways: a read error fails the request body, a failed request destroys the file stream.
  // `through` (a pacing stream) sits before the counter, so bytesSent counts what left it.
  if (through) pipeline(input, through, counter, () => {});
  else pipeline(input, counter, () => {});
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

/**
 * Audio already in memory (the encode step's FLAC) goes to node:http as it is: it writes the
 * request head and the buffer to the socket in one corked write, with no stream between
 * them (a 64 KiB piece at a time through a Readable and a counting Transform cost more CPU
 * per recording than the rest of the request), and no copy. Once the request can have been written,
 * the whole buffer counts as sent (the hook reports 0 for a request that never left).
 */
export function memoryBody(data: Buffer): UploadBody {
  return { body: data, size: data.length, bytesSent: () => data.length, dispose: () => {} };
}
