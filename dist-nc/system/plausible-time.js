export const EARLIEST_PLAUSIBLE_TIME = new Date('2020-01-01T00:00:00Z');
export const MAX_AHEAD_MS = 24 * 60 * 60 * 1000;
export function timeImplausibility(date, now = new Date()) {
    const t = date.getTime();
    if (Number.isNaN(t))
        return 'invalid';
    if (t < EARLIEST_PLAUSIBLE_TIME.getTime())
        return 'before-earliest';
    if (t > now.getTime() + MAX_AHEAD_MS)
        return 'too-far-ahead';
    return undefined;
}
export function isPlausibleTimestamp(date, now = new Date()) {
    return timeImplausibility(date, now) === undefined;
}
