import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { EmulatorHttpError } from '../http-errors.js';

/** Bytes kept from the start of an upload to sniff its format and read STREAMINFO (room for an ID3 tag). */
const HEAD_BYTES = 64 * 1024;

export interface ReceivedUpload {
  /** The decompressed body, in a temporary file the caller moves or removes. */
  file: string;
  bytes: number;
  head: Buffer;
}

/** Bytes that tell whether a body can be FLAC at all. */
const SNIFF_BYTES = 12;

/** True when the start of a body rules FLAC out (neither the fLaC marker nor an ID3 tag in front of it). */
function cannotBeFlac(head: Buffer): boolean {
  return head.toString('latin1', 0, 4) !== 'fLaC' && head.toString('latin1', 0, 3) !== 'ID3';
}

/**
 * Counts bytes, keeps the first HEAD_BYTES and stops the stream past the limit.
 * A body that cannot be FLAC is still read to its end (so the client gets its
 * 415 rather than a reset connection) but no longer written or limited.
 */
class HeadAndLimit extends Transform {
  bytes = 0;
  discarding = false;
  private sniffed = false;
  private readonly chunks: Buffer[] = [];
  private kept = 0;

  constructor(private readonly limitBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.discarding) {
      done();
      return;
    }
    if (this.bytes > this.limitBytes) {
      done(
        new EmulatorHttpError(413, {
          success: false,
          message: `soundscape larger than the upload limit of ${this.limitBytes} bytes`,
        }),
      );
      return;
    }
    if (this.kept < HEAD_BYTES) {
      const part = chunk.subarray(0, HEAD_BYTES - this.kept);
      this.chunks.push(part);
      this.kept += part.length;
      if (!this.sniffed && this.kept >= SNIFF_BYTES) {
        this.sniffed = true;
        if (cannotBeFlac(this.head())) {
          this.discarding = true;
          done(null, part);
          return;
        }
      }
    }
    done(null, chunk);
  }

  head(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/**
 * Streams a request body to a temporary file under `dir`, never holding more than
 * the head in memory. `Content-Encoding: gzip` (the analyzerpi uploader's choice) is
 * decompressed on the way; the limit applies to the decompressed size.
 */
export async function receiveUpload(
  body: Readable,
  options: { dir: string; contentEncoding: string | undefined; limitBytes: number },
): Promise<ReceivedUpload> {
  const encoding = (options.contentEncoding ?? 'identity').trim().toLowerCase();
  if (!['identity', '', 'gzip', 'x-gzip'].includes(encoding)) {
    throw new EmulatorHttpError(415, {
      success: false,
      message: `unsupported Content-Encoding ${JSON.stringify(encoding)}: send the FLAC file as is or gzip-compressed`,
    });
  }
  await mkdir(options.dir, { recursive: true });
  const file = path.join(options.dir, `upload-${randomUUID()}.part`);
  const counter = new HeadAndLimit(options.limitBytes);
  const stages: NodeJS.ReadWriteStream[] = encoding.includes('gzip') ? [createGunzip()] : [];
  try {
    await pipeline([body, ...stages, counter, createWriteStream(file)]);
  } catch (err) {
    await rm(file, { force: true });
    if (err instanceof EmulatorHttpError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? '';
    if (code.startsWith('Z_')) {
      throw new EmulatorHttpError(422, { success: false, message: 'body is not valid gzip data (Content-Encoding: gzip)' });
    }
    throw err;
  }
  return { file, bytes: counter.bytes, head: counter.head() };
}
