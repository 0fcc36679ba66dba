import { createHash } from 'node:crypto';
const CONTENT_KEY_BYTES = 64 * 1024;
export async function contentKey(fh, size) {
    const buf = Buffer.alloc(Math.min(size, CONTENT_KEY_BYTES));
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return `${size}:${createHash('sha1').update(buf.subarray(0, bytesRead)).digest('hex').slice(0, 16)}`;
}
