import { luxon } from '../system/luxon.js';
import { timeImplausibility } from '../system/plausible-time.js';
const DAY_MS = 86_400_000;
const SERVICE_FORMAT = "yyyy-MM-dd'T'HH:mm:ss.SSSZZ";
function zoneOf(zone) {
    const z = luxon().Info.normalizeZone(zone);
    if (!z.isValid)
        throw new RangeError(`unknown time zone "${zone}" (expected an IANA name such as "Europe/Berlin")`);
    return z;
}
export function localTimeInZone(fields, zone) {
    const z = zoneOf(zone);
    const wall = wallMillis(fields);
    if (wall === undefined)
        return undefined;
    const before = z.offset(wall - DAY_MS);
    const after = z.offset(wall + DAY_MS);
    const candidates = [wall - before * 60_000, wall - after * 60_000].filter((instant, i) => z.offset(instant) === (i === 0 ? before : after));
    const instant = candidates.length > 0 ? Math.min(...candidates) : wall - before * 60_000;
    return new Date(instant);
}
function offsetMinutes(text) {
    if (text === 'Z' || text === 'z')
        return 0;
    const m = /^([+-])(\d{2})(?:[:-]?(\d{2}))?$/.exec(text);
    if (!m)
        return undefined;
    const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
    if (minutes > 18 * 60)
        return undefined;
    return m[1] === '-' ? -minutes : minutes;
}
function atOffset(fields, offset) {
    const wall = wallMillis(fields);
    return wall === undefined ? undefined : new Date(wall - offset * 60_000);
}
function wallMillis(f) {
    const ms = f.millisecond ?? 0;
    const all = [f.year, f.month, f.day, f.hour, f.minute, f.second, ms];
    if (!all.every(Number.isInteger))
        return undefined;
    if (f.month < 1 || f.month > 12 || f.day < 1 || f.day > daysInMonth(f.year, f.month))
        return undefined;
    const nextMidnight = f.hour === 24 && f.minute === 0 && f.second === 0 && ms === 0;
    if ((f.hour < 0 || f.hour > 23) && !nextMidnight)
        return undefined;
    if (f.minute < 0 || f.minute > 59 || f.second < 0 || f.second > 59 || ms < 0 || ms > 999)
        return undefined;
    const d = new Date(0);
    d.setUTCFullYear(f.year, f.month - 1, f.day);
    d.setUTCHours(f.hour, f.minute, f.second, ms);
    return d.getTime();
}
function daysInMonth(year, month) {
    const d = new Date(0);
    d.setUTCFullYear(year, month, 0);
    return d.getUTCDate();
}
const n = (s) => Number(s);
function fieldsOf(m, from) {
    return { year: n(m[from]), month: n(m[from + 1]), day: n(m[from + 2]), hour: n(m[from + 3]), minute: n(m[from + 4]), second: n(m[from + 5]) };
}
function fraction(digits) {
    return digits ? Math.floor(Number(`0.${digits}`) * 1000) : 0;
}
const ANALYZERPI = /^(\d{4})-(\d{2})-(\d{2})-birdnet-(?:RTSP_\d+-)?(\d{2}):(\d{2}):(\d{2})$/;
const DATE_UNDERSCORE_TIME = /^(?:(.+)_)?(\d{4})(\d{2})(\d{2})_(\d{2})(\d{2})(\d{2})$/;
const AUDIOMOTH_SERIAL = /^[0-9A-F]{16}$/i;
const ISO_LIKE = /(?<!\d)(\d{4})-?(\d{2})-?(\d{2})T(\d{2})[-:]?(\d{2})[-:]?(\d{2})(?:[.,](\d{1,9}))?(Z|[+-]\d{2}(?:[:-]?\d{2})?(?!\d))?(?!\d)/i;
export function recordingStartFromName(fileName, zone, options = {}) {
    zoneOf(zone);
    const base = fileName.split(/[\\/]/).pop().replace(/\.[^.]+$/, '');
    const pi = ANALYZERPI.exec(base);
    if (pi)
        return localTimeInZone(fieldsOf(pi, 1), zone);
    const du = DATE_UNDERSCORE_TIME.exec(base);
    if (du) {
        const fields = fieldsOf(du, 2);
        const prefix = du[1];
        if (prefix === undefined || AUDIOMOTH_SERIAL.test(prefix)) {
            return localTimeInZone(fields, options.audioMothZone ?? 'UTC');
        }
        return localTimeInZone(fields, zone);
    }
    const iso = ISO_LIKE.exec(base);
    if (iso) {
        const fields = { ...fieldsOf(iso, 1), millisecond: fraction(iso[7]) };
        if (iso[8] === undefined)
            return localTimeInZone(fields, zone);
        const offset = offsetMinutes(iso[8]);
        return offset === undefined ? undefined : atOffset(fields, offset);
    }
    return undefined;
}
const AUDIOMOTH_COMMENT = /Recorded at (\d{2}):(\d{2}):(\d{2}) (\d{2})\/(\d{2})\/(\d{4}) \(UTC(?:([+-])(\d{1,2})(?::(\d{2}))?)?\)/;
export function recordingStartFromMetadata(metadata, zone) {
    zoneOf(zone);
    const am = metadata.comment ? AUDIOMOTH_COMMENT.exec(metadata.comment) : null;
    if (am) {
        const fields = { year: n(am[6]), month: n(am[5]), day: n(am[4]), hour: n(am[1]), minute: n(am[2]), second: n(am[3]) };
        const minutes = n(am[8] ?? '0') * 60 + n(am[9] ?? '0');
        const found = atOffset(fields, am[7] === '-' ? -minutes : minutes);
        if (found)
            return found;
    }
    const timestamp = guanoField(metadata.guano, 'Timestamp');
    return timestamp === undefined ? undefined : parseGuanoTimestamp(timestamp, zone);
}
function guanoField(guano, key) {
    if (guano === undefined)
        return undefined;
    if (typeof guano !== 'string')
        return guano[key]?.trim();
    for (const line of guano.split(/\r\n|\n|\r/)) {
        const cut = line.indexOf(':');
        if (cut > 0 && line.slice(0, cut).trim() === key)
            return line.slice(cut + 1).trim();
    }
    return undefined;
}
const GUANO_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
function parseGuanoTimestamp(value, zone) {
    const m = GUANO_TIMESTAMP.exec(value);
    if (!m)
        return undefined;
    const fields = { ...fieldsOf(m, 1), millisecond: fraction(m[7]) };
    if (m[8] === undefined)
        return localTimeInZone(fields, zone);
    const offset = offsetMinutes(m[8]);
    return offset === undefined ? undefined : atOffset(fields, offset);
}
export function implausibility(start, now = new Date(), zone = 'UTC') {
    const why = timeImplausibility(start, now);
    if (why === undefined)
        return undefined;
    if (why === 'invalid')
        return 'recording start is not a valid time';
    const shown = formatServiceTimestamp(start, zone);
    if (why === 'before-earliest')
        return `recording start ${shown} is before 2020-01-01 (device clock not set?)`;
    return `recording start ${shown} is more than a day in the future`;
}
export function resolveRecordingStart(input) {
    const { zone } = input;
    zoneOf(zone);
    const found = (() => {
        if (input.sidecarStart) {
            const start = luxon().DateTime.fromISO(input.sidecarStart, { setZone: true });
            if (start.isValid)
                return { start: start.toJSDate(), source: 'sidecar' };
        }
        const names = typeof input.fileName === 'string' ? [input.fileName] : input.fileName;
        const nameOptions = input.audioMothZone ? { audioMothZone: input.audioMothZone } : {};
        for (const name of names) {
            const byName = recordingStartFromName(name, zone, nameOptions);
            if (byName)
                return { start: byName, source: 'filename' };
        }
        const byMetadata = input.metadata ? recordingStartFromMetadata(input.metadata, zone) : undefined;
        if (byMetadata)
            return { start: byMetadata, source: 'metadata' };
        if (!input.mtime)
            return undefined;
        const durationMs = Math.round((input.durationSec ?? 0) * 1000);
        return { start: new Date(input.mtime.getTime() - durationMs), source: 'mtime' };
    })();
    if (!found)
        return undefined;
    const reason = implausibility(found.start, input.now, zone);
    return reason === undefined ? { ...found, implausible: false } : { ...found, implausible: true, implausibleReason: reason };
}
export function formatServiceTimestamp(date, zone) {
    const ms = date instanceof Date ? date.getTime() : date.toMillis();
    const year = new Date(ms).getUTCFullYear();
    if (!Number.isFinite(ms) || year < 100 || year > 9998) {
        const dt = date instanceof Date ? luxon().DateTime.fromJSDate(date) : date;
        return dt.setZone(zoneOf(zone)).toFormat(SERVICE_FORMAT);
    }
    const offset = offsetAt(zone, ms);
    const local = new Date(ms + offset * 60_000).toISOString().slice(0, 23);
    const abs = Math.abs(offset);
    return `${local}${offset < 0 ? '-' : '+'}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`;
}
const pad2 = (n) => String(n).padStart(2, '0');
const HOUR_MS = 3_600_000;
const offsetsByHour = new Map();
function offsetAt(zone, ms) {
    let hours = offsetsByHour.get(zone);
    if (!hours)
        offsetsByHour.set(zone, (hours = new Map()));
    const hour = Math.floor(ms / HOUR_MS);
    let cached = hours.get(hour);
    if (cached === undefined) {
        const z = zoneOf(zone);
        const first = z.offset(hour * HOUR_MS);
        cached = first === z.offset((hour + 1) * HOUR_MS - 1) ? first : Number.NaN;
        if (hours.size >= 50_000)
            hours.clear();
        hours.set(hour, cached);
    }
    return Number.isNaN(cached) ? zoneOf(zone).offset(ms) : cached;
}
export function detectionTimestamp(recordingStart, startSec, zone) {
    const start = recordingStart instanceof Date ? recordingStart.getTime() : recordingStart.toMillis();
    return formatServiceTimestamp(new Date(start + Math.round(startSec * 1000)), zone);
}
