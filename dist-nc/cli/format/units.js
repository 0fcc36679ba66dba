const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
export function formatBytes(bytes) {
    if (bytes === null || bytes === undefined || !Number.isFinite(bytes))
        return '-';
    let value = bytes;
    let unit = 0;
    while (Math.abs(value) >= 1024 && unit < BYTE_UNITS.length - 1) {
        value /= 1024;
        unit++;
    }
    return unit === 0 ? `${value} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${BYTE_UNITS[unit]}`;
}
export function formatDuration(ms) {
    if (ms === null || ms === undefined || !Number.isFinite(ms))
        return '-';
    const negative = ms < 0;
    let s = Math.floor(Math.abs(ms) / 1000);
    const d = Math.floor(s / 86_400);
    s -= d * 86_400;
    const h = Math.floor(s / 3_600);
    s -= h * 3_600;
    const m = Math.floor(s / 60);
    s -= m * 60;
    const parts = [
        [d, 'd'],
        [h, 'h'],
        [m, 'm'],
        [s, 's'],
    ];
    const first = parts.findIndex(([n]) => n > 0);
    const shown = first < 0 ? '0s' : parts
        .slice(first, first + 2)
        .filter(([n], i) => i === 0 || n > 0)
        .map(([n, u]) => `${n}${u}`)
        .join(' ');
    return negative ? `-${shown}` : shown;
}
export function isoOrNull(ms) {
    return ms === null || ms === undefined || !Number.isFinite(ms) ? null : new Date(ms).toISOString();
}
export function formatScore(value, digits = 3) {
    return value === null || value === undefined || !Number.isFinite(value) ? '-' : value.toFixed(digits);
}
