export function buildQuery(params) {
    const parts = [];
    for (const [key, value] of Object.entries(params)) {
        if (value === undefined || value === null)
            continue;
        const encoded = Array.isArray(value)
            ? value.map((v) => encodeScalar(key, v)).join(',')
            : encodeScalar(key, value);
        if (Array.isArray(value) && value.length === 0)
            continue;
        parts.push(`${encodeURIComponent(key)}=${encoded}`);
    }
    return parts.length ? `?${parts.join('&')}` : '';
}
function encodeScalar(key, value) {
    if (typeof value === 'number' && !Number.isFinite(value)) {
        throw new TypeError(`query parameter "${key}" must be a finite number, got ${String(value)}`);
    }
    return encodeURIComponent(String(value));
}
export const STATS_PARAMS = ['period', 'since', 'mode', 'classification'];
export const SPECIES_LIST_PARAMS = [
    'period',
    'from',
    'to',
    'since',
    'limit',
    'page',
    'sort',
    'order',
    'speciesId',
    'query',
    'mode',
    'locale',
    'classification',
];
export const DETECTION_LIST_PARAMS = ['limit', 'cursor', 'from', 'to', 'speciesId', 'query', 'mode', 'locale', 'classification', 'behavior', 'shortlist'];
export const SOUNDSCAPE_LIST_PARAMS = ['limit', 'cursor', 'from', 'to', 'speciesId', 'detections'];
export function pickParams(o, keys) {
    return Object.fromEntries(keys.map((k) => [k, o[k]]));
}
function queryOf(q, keys) {
    return buildQuery(Object.fromEntries(keys.map((k) => [k, q[k]])));
}
export function statsQuery(q) {
    return queryOf(q, STATS_PARAMS);
}
export function speciesListQuery(q) {
    return queryOf(q, SPECIES_LIST_PARAMS);
}
export function detectionListQuery(q) {
    return queryOf(q, DETECTION_LIST_PARAMS);
}
export function soundscapeListQuery(q) {
    return queryOf(q, SOUNDSCAPE_LIST_PARAMS);
}
