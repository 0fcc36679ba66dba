import { readFile } from 'node:fs/promises';
import { realPathOfExisting } from './real-path.js';
export const RECORDINGS_PER_DAY = 5_760;
export const TYPICAL_WAV_BYTES = 15 * 48_000 * 2 + 44;
export async function audioCopyCost(inputDir, dataDir, measuredBytes, mountinfo) {
    const bytesPerRecording = measuredBytes && measuredBytes > 0 ? Math.round(measuredBytes) : TYPICAL_WAV_BYTES;
    const why = await whyCopied(inputDir, dataDir, mountinfo);
    return {
        copies: why !== null,
        why,
        bytesPerRecording,
        estimated: !(measuredBytes && measuredBytes > 0),
        bytesPerDay: why === null ? 0 : bytesPerRecording * RECORDINGS_PER_DAY,
    };
}
async function whyCopied(inputDir, dataDir, given) {
    const [input, data] = await Promise.all([realPathOfExisting(inputDir), realPathOfExisting(dataDir)]);
    let table;
    try {
        table = given ?? (await readFile('/proc/self/mountinfo', 'utf8'));
    }
    catch {
        return null;
    }
    const mounts = parseMountinfo(table);
    const a = mountOf(mounts, input);
    const b = mountOf(mounts, data);
    if (a && b && a.id !== b.id) {
        const ram = a.fsType === 'tmpfs' || a.fsType === 'ramfs';
        return `input.dir ${inputDir} is on ${ram ? 'a RAM disk' : 'another mount'} (${a.point}, ${a.fsType}) than dataDir ${dataDir} (${b.point})`;
    }
    if (isUnder(input, '/home') && !isUnder(data, '/home') && data.startsWith('/var/lib/')) {
        return `input.dir ${inputDir} is under /home, which the service's sandbox (ProtectHome=read-only) mounts apart from dataDir ${dataDir}`;
    }
    return null;
}
function parseMountinfo(table) {
    const mounts = [];
    for (const line of table.split('\n')) {
        const fields = line.split(' ');
        const dash = fields.indexOf('-');
        if (fields.length < 5 || dash < 0)
            continue;
        const point = fields[4].replace(/\\([0-7]{3})/g, (_, o) => String.fromCharCode(parseInt(o, 8)));
        mounts.push({ id: fields[0], point, fsType: fields[dash + 1] ?? '' });
    }
    return mounts;
}
function mountOf(mounts, file) {
    let best;
    for (const m of mounts) {
        if (isUnder(file, m.point) && (!best || m.point.length >= best.point.length))
            best = m;
    }
    return best;
}
function isUnder(file, dir) {
    return dir === '/' || file === dir || file.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}
