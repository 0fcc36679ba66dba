import { statfsSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import path from 'node:path';
const MIB = 1024 * 1024;
export async function diskFree(dir) {
    const s = await statfs(dir);
    return { freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize };
}
export function diskFreeSync(dir) {
    const s = statfsSync(dir);
    return { freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize };
}
export async function freeBytesNear(dir) {
    let current = path.resolve(dir);
    for (;;) {
        try {
            return (await diskFree(current)).freeBytes;
        }
        catch (err) {
            const parent = path.dirname(current);
            if (err.code !== 'ENOENT' || parent === current)
                return null;
            current = parent;
        }
    }
}
export function minFreeBytes(minFreeMb) {
    return minFreeMb * MIB;
}
export function isDiskGettingLow(freeBytes, minFreeMb) {
    return freeBytes < 2 * minFreeBytes(minFreeMb);
}
export function isDiskLow(freeBytes, minFreeMb) {
    return freeBytes < minFreeBytes(minFreeMb);
}
