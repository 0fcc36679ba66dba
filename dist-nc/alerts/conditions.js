export const ALERT_EVENTS = ['no-uploads', 'uploads-paused', 'disk-low'];
export function activeConditions(x) {
    const out = [];
    if (x.waiting > 0 && x.linkOpen && x.now - x.quietSince >= x.noUploadMs) {
        const hours = Math.round(((x.now - x.quietSince) / 3_600_000) * 10) / 10;
        out.push({ key: 'no-uploads', event: 'no-uploads', reason: null, message: `nothing uploaded for ${hours} h while ${x.waiting} items wait` });
    }
    for (const p of x.paused) {
        out.push({ key: `uploads-paused:${p.reason}`, event: 'uploads-paused', reason: p.reason, message: `uploads paused (${p.reason}): ${p.message}` });
    }
    if (x.disk.low) {
        const free = x.disk.freeBytes === null ? 'unknown' : `${Math.round(x.disk.freeBytes / 1024 / 1024)} MiB`;
        out.push({ key: 'disk-low', event: 'disk-low', reason: null, message: `free disk space ${free}, below disk.minFreeMb (${x.disk.minFreeMb} MiB): new audio is not spooled` });
    }
    return out;
}
