import { createHash } from 'node:crypto';
import type { ReadableFile } from '../system/regular-file.js';

/** How much of a file its content key reads: enough to tell recordings apart, little enough for a Pi. */
const CONTENT_KEY_BYTES = 64 * 1024;

/**
 * What a file is known by where its name and times give no identity (a copy of an SD card,
 * a renamed result file): its size and its first 64 KiB, hashed. Read from an open
 * descriptor, so it describes the very file that is read.
 *
 * @example `1411244:3f2a9c0d1b7e4a55`
 */
export async function contentKey(fh: ReadableFile, size: number): Promise<string> {
  const buf = Buffer.alloc(Math.min(size, CONTENT_KEY_BYTES));
  const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
  return `${size}:${createHash('sha1').update(buf.subarray(0, bytesRead)).digest('hex').slice(0, 16)}`;
}
