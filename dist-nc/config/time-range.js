const RANGE = /^(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})$/;
export function parseTimeRange(text) {
    const m = RANGE.exec(text.trim());
    if (!m)
        return `must be a local time range HH:MM-HH:MM such as 22:00-06:00`;
    const [h1, m1, h2, m2] = m.slice(1).map(Number);
    const start = minutesOf(h1, m1, false);
    const end = minutesOf(h2, m2, true);
    if (start === null || end === null)
        return `must use times from 00:00 to 23:59 (24:00 as an end)`;
    if (start === end)
        return `must not start and end at the same time; 00:00-24:00 is the whole day`;
    return { start, end, text: text.trim() };
}
function minutesOf(h, m, isEnd) {
    if (m > 59)
        return null;
    if (h === 24 && m === 0 && isEnd)
        return 1440;
    if (h > 23)
        return null;
    return h * 60 + m;
}
