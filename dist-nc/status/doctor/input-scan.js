import { opendir } from 'node:fs/promises';
import path from 'node:path';
import { classifyPath } from '../../ingest/formats.js';
export async function scanInput(dir) {
    const scan = { dir, folders: 0, audio: {}, results: {}, analyzerpiJson: 0, other: 0, unreadable: [] };
    await walk(dir, scan);
    return scan;
}
async function walk(dir, scan) {
    let handle;
    try {
        handle = await opendir(dir);
    }
    catch (err) {
        if (dir === scan.dir)
            throw err;
        if (scan.unreadable.length < 20)
            scan.unreadable.push(dir);
        return;
    }
    scan.folders++;
    for await (const entry of handle) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) {
            if (!entry.name.startsWith('.'))
                await walk(full, scan);
            continue;
        }
        if (!entry.isFile())
            continue;
        const c = classifyPath(full);
        if (c.kind === 'audio')
            scan.audio[c.ext] = (scan.audio[c.ext] ?? 0) + 1;
        else if (c.kind === 'result')
            scan.results[c.format] = (scan.results[c.format] ?? 0) + 1;
        else if (c.kind === 'analyzerpi-json')
            scan.analyzerpiJson++;
        else
            scan.other++;
    }
}
export function total(counts) {
    return Object.values(counts).reduce((a, b) => a + b, 0);
}
