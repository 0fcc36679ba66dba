import { isObject } from '../wire/json-object.js';
export function toId(value) {
    if (typeof value === 'number')
        return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
    if (typeof value === 'string' && /^\s*\d+\s*$/.test(value)) {
        const n = Number(value);
        return Number.isSafeInteger(n) ? n : undefined;
    }
    return undefined;
}
export function toNumber(value) {
    if (typeof value === 'number')
        return Number.isFinite(value) ? value : undefined;
    if (typeof value === 'string' && value.trim() !== '') {
        const n = Number(value);
        return Number.isFinite(n) ? n : undefined;
    }
    return undefined;
}
function withNumbers(o, ids, numbers = []) {
    const out = { ...o };
    for (const k of ids)
        if (k in out)
            out[k] = toId(out[k]) ?? out[k];
    for (const k of numbers)
        if (k in out)
            out[k] = toNumber(out[k]) ?? out[k];
    return out;
}
export function normalizeSpecies(raw) {
    if (!isObject(raw))
        return raw;
    return withNumbers(raw, ['id']);
}
export function normalizeFullSpecies(raw) {
    return normalizeSpecies(raw);
}
export function normalizeSpeciesSummary(raw) {
    if (!isObject(raw))
        return raw;
    const out = withNumbers(raw, ['id']);
    if (isObject(out.detections)) {
        out.detections = withNumbers(out.detections, [], ['total', 'almostCertain', 'veryLikely', 'uncertain', 'unlikely']);
    }
    return out;
}
export function normalizeDetection(raw) {
    if (!isObject(raw))
        return raw;
    const out = withNumbers(raw, ['id', 'stationId'], ['lat', 'lon', 'confidence', 'probability', 'score', 'behavior_confidence']);
    if (isObject(out.species))
        out.species = normalizeSpecies(out.species);
    if (isObject(out.soundscape))
        out.soundscape = withNumbers(out.soundscape, ['id'], ['startTime', 'endTime']);
    if (Array.isArray(out.shortlist)) {
        out.shortlist = out.shortlist.map((e) => isObject(e) ? withNumbers(e, ['speciesId'], ['weight']) : e);
    }
    return out;
}
export function normalizeSoundscape(raw) {
    if (!isObject(raw))
        return raw;
    const out = withNumbers(raw, ['id', 'stationId'], ['duration', 'filesize', 'sampleRate']);
    if (Array.isArray(out.detections))
        out.detections = out.detections.map(normalizeDetection);
    return out;
}
export function normalizeStationConfig(raw) {
    if (!isObject(raw))
        return raw;
    return withNumbers(raw, ['id'], ['minConfidence', 'minProbability', 'minScore', 'minHumanConfidence']);
}
