import { resolveSpecies } from '../labels.js';
import { detectionEntries, readJson } from './json-common.js';
import { ShapeCheck } from './json-shape.js';
import { rowError } from './text.js';
function checkDetection(entry, i) {
    const row = new ShapeCheck(['detections', i]);
    const d = row.object(entry);
    if (!d)
        return { problems: row.problems };
    const start = row.number(d, 'start', { min: 0 });
    const end = row.number(d, 'end', { min: 0 });
    const scientificName = row.name(d, 'scientificName', true);
    const commonName = row.name(d, 'commonName', true);
    const confidence = row.number(d, 'confidence', { min: 0, max: 1 });
    if (start !== undefined && end !== undefined && end < start)
        row.fail(['end'], 'end must not be before start');
    if (scientificName === undefined && commonName === undefined && d.scientificName === undefined && d.commonName === undefined) {
        row.fail(['scientificName'], 'needs scientificName or commonName');
    }
    if (row.problems.length > 0 || start === undefined || end === undefined || confidence === undefined)
        return { problems: row.problems };
    return { problems: [], detection: { start, end, confidence, scientificName, commonName } };
}
export function parse(text, ctx) {
    const check = new ShapeCheck();
    const doc = check.object(readJson(text, ctx, 'a detections sidecar'));
    const recordingStart = doc && check.dateTimeWithOffset(doc, 'recordingStart');
    const audioFile = doc && check.name(doc, 'audioFile', true);
    const entries = doc && check.array(doc, 'detections');
    const detections = [];
    const errors = [];
    detectionEntries(text, ctx, check, entries, 'detections sidecar').forEach(({ entry, line }, i) => {
        const checked = checkDetection(entry, i);
        if (!checked.detection) {
            for (const issue of checked.problems)
                errors.push(rowError(ctx, line, issue.path, issue.message));
            return;
        }
        const d = checked.detection;
        const resolved = resolveSpecies(d, ctx.labels);
        if (!resolved.ok) {
            const field = d.scientificName !== undefined ? 'scientificName' : 'commonName';
            errors.push(rowError(ctx, line, `detections[${i}].${field}`, resolved.problem));
            return;
        }
        detections.push({ startSec: d.start, endSec: d.end, confidence: d.confidence, line, ...resolved.species });
    });
    const result = { format: 'sidecar', detections, errors };
    if (recordingStart !== undefined)
        result.recordingStart = recordingStart;
    if (audioFile !== undefined)
        result.audioFileName = audioFile;
    return result;
}
