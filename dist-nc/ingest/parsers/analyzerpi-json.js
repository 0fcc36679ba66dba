import { resolveSpecies } from '../labels.js';
import { detectionEntries, readJson } from './json-common.js';
import { ShapeCheck } from './json-shape.js';
import { baseNameAnyOs, rowError } from './text.js';
export const ANALYZERPI_SEGMENT_SEC = 3;
export function parse(text, ctx) {
    const check = new ShapeCheck();
    const doc = check.object(readJson(text, ctx, 'an analyzerpi result'));
    const timestamp = doc && check.dateTimeWithOffset(doc, 'timestamp');
    const fileName = doc && check.text(doc, 'file_name');
    if (doc)
        check.number(doc, 'delay', { optional: true });
    const entries = doc && check.array(doc, 'detections');
    const detections = [];
    const errors = [];
    detectionEntries(text, ctx, check, entries, 'analyzerpi result').forEach(({ entry, line }, i) => {
        const row = new ShapeCheck(['detections', i]);
        const d = row.object(entry);
        const start = d && row.number(d, 'start', { min: 0 });
        const commonName = d && row.name(d, 'common_name');
        const confidence = d && row.number(d, 'confidence', { min: 0, max: 1 });
        if (start === undefined || commonName === undefined || confidence === undefined) {
            for (const issue of row.problems)
                errors.push(rowError(ctx, line, issue.path, issue.message));
            return;
        }
        const resolved = resolveSpecies({ commonName }, ctx.labels);
        if (!resolved.ok) {
            errors.push(rowError(ctx, line, `detections[${i}].common_name`, resolved.problem));
            return;
        }
        detections.push({ startSec: start, endSec: start + ANALYZERPI_SEGMENT_SEC, confidence, line, ...resolved.species });
    });
    const result = { format: 'analyzerpi-json', detections, errors };
    if (timestamp !== undefined)
        result.recordingStart = timestamp;
    const named = fileName ? baseNameAnyOs(fileName) : '';
    if (named !== '')
        result.audioFileName = named.replace(/\.json$/i, '');
    return result;
}
