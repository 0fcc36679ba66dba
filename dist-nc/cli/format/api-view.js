import { renderFields } from './table.js';
import { formatBytes, formatScore } from './units.js';
export function speciesColumns(s) {
    return [
        { header: 'ID', value: (r) => String(r.id), align: 'right' },
        { header: 'COMMON NAME', value: (r) => r.commonName, maxWidth: 32 },
        { header: 'SCIENTIFIC NAME', value: (r) => s.dim(r.scientificName), maxWidth: 32 },
        { header: 'CLASS', value: (r) => r.classification },
        { header: 'TOTAL', value: (r) => String(r.detections.total), align: 'right' },
        { header: 'ALMOST CERTAIN', value: (r) => String(r.detections.almostCertain), align: 'right' },
        { header: 'VERY LIKELY', value: (r) => String(r.detections.veryLikely), align: 'right' },
        { header: 'UNCERTAIN', value: (r) => String(r.detections.uncertain), align: 'right' },
        { header: 'UNLIKELY', value: (r) => String(r.detections.unlikely), align: 'right' },
        { header: 'LATEST', value: (r) => r.latestDetectionAt },
    ];
}
export function detectionColumns(s) {
    return [
        { header: 'ID', value: (d) => String(d.id), align: 'right' },
        { header: 'TIME', value: (d) => d.timestamp },
        { header: 'SPECIES', value: (d) => `${d.species.commonName} ${s.dim(`(${d.species.scientificName})`)}`, maxWidth: 56 },
        { header: 'CONFIDENCE', value: (d) => formatScore(d.confidence), align: 'right' },
        { header: 'CERTAINTY', value: (d) => certainty(d.certainty, s) },
        { header: 'BEHAVIOR', value: behavior },
    ];
}
export function soundscapeColumns() {
    return [
        { header: 'ID', value: (x) => String(x.id), align: 'right' },
        { header: 'TIME', value: (x) => x.timestamp },
        { header: 'DURATION', value: (x) => `${x.duration} s`, align: 'right' },
        { header: 'SIZE', value: (x) => formatBytes(x.filesize), align: 'right' },
        { header: 'RATE', value: (x) => `${x.sampleRate} Hz`, align: 'right' },
        { header: 'MODE', value: (x) => x.mode },
        { header: 'DETECTIONS', value: (x) => (x.detections ? String(x.detections.length) : '-'), align: 'right' },
        { header: 'URL', value: (x) => x.url },
    ];
}
export function detectionFields(d, s) {
    const fields = [
        ['id', String(d.id)],
        ['station', String(d.stationId)],
        ['time', d.timestamp],
        ['species', `${d.species.commonName} (${d.species.scientificName}), id ${d.species.id}, ${d.species.classification}`],
        ['confidence', formatScore(d.confidence, 4)],
        ['probability', formatScore(d.probability, 4)],
        ['score', formatScore(d.score, 2)],
        ['certainty', certainty(d.certainty, s)],
        ['location', `${d.lat}, ${d.lon}`],
        ['algorithm', d.algorithm ?? '-'],
    ];
    if (d.behavior || d.behavior_key)
        fields.push(['behavior', `${behavior(d)}${d.behavior_confidence !== undefined ? ` (${formatScore(d.behavior_confidence)})` : ''}`]);
    fields.push(['soundscape', d.soundscape ? `${d.soundscape.url} ${d.soundscape.startTime} s to ${d.soundscape.endTime} s (${d.soundscape.mode})` : 'none']);
    for (const [i, e] of (d.shortlist ?? []).entries()) {
        fields.push([i === 0 ? 'shortlist' : '', `${e.commonName} (${e.scientificName}), id ${e.speciesId}, weight ${formatScore(e.weight)}`]);
    }
    return renderFields(fields);
}
export function soundscapeFields(x) {
    return renderFields([
        ['id', String(x.id)],
        ['station', String(x.stationId)],
        ['time', x.timestamp],
        ['duration', `${x.duration} s`],
        ['size', `${formatBytes(x.filesize)} (${x.filesize} bytes)`],
        ['sample rate', `${x.sampleRate} Hz`],
        ['mode', x.mode],
        ['url', x.url],
    ]);
}
export function speciesFields(sp) {
    const fields = [];
    const order = [
        'id',
        'commonName',
        'scientificName',
        'classification',
        'color',
        'alpha',
        'alpha6',
        'registryCode',
        'registryUrl',
        'encyclopediaUrl',
        'imageUrl',
        'thumbnailUrl',
        'imageCredit',
        'imageLicense',
        'imageLicenseUrl',
    ];
    for (const key of order)
        if (key in sp)
            fields.push([key, sp[key] === null || sp[key] === undefined ? '-' : String(sp[key])]);
    const lines = renderFields(fields);
    if (sp.encyclopediaSummary)
        lines.push('', ...sp.encyclopediaSummary.split('\n').map((p) => `  ${p}`));
    return lines;
}
function certainty(value, s) {
    if (value === 'almost_certain')
        return s.green(value);
    if (value === 'unlikely')
        return s.red(value);
    return value;
}
function behavior(d) {
    return d.behavior_key ?? d.behavior ?? '';
}
