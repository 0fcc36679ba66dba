import { ResultFileError } from '../errors.js';
import { resolveSpecies } from '../labels.js';
import { parseLines } from './line-parser.js';
import { checkTimesAndConfidence, parseDecimal, quote, rowError } from './text.js';
const WHERE = {
    start: 'field 1 (start)',
    end: 'field 2 (end)',
    label: 'field 3 (label)',
    confidence: 'field 4 (confidence)',
    joinedConfidence: 'field 3 (label), confidence after the last ", "',
};
export function parse(text, ctx) {
    const parser = createParser(ctx);
    parseLines(parser, text);
    return { format: 'audacity', detections: parser.detections, errors: parser.errors };
}
export function createParser(ctx) {
    const detections = [];
    const errors = [];
    let rows = 0;
    return {
        detections,
        errors,
        audioFileName: undefined,
        get rows() {
            return rows;
        },
        push(lineText, line) {
            if (lineText.trim() === '' || lineText.startsWith('\\'))
                return;
            const first = rows === 0;
            rows++;
            const fields = lineText.split('\t');
            if (fields.length < 3 || fields.length > 4) {
                if (first) {
                    throw new ResultFileError(ctx.fileName, `expected tab-separated Audacity labels (start<TAB>end<TAB>label<TAB>confidence), found ${quote(lineText, 160)} on line ${line}`);
                }
                errors.push(rowError(ctx, line, 'row', `expected 3 or 4 tab-separated fields, found ${fields.length}`));
                return;
            }
            const detection = detectionFromFields(fields, line, ctx, errors);
            if (detection)
                detections.push(detection);
        },
        finish() {
        },
    };
}
function detectionFromFields(fields, line, ctx, errors) {
    const before = errors.length;
    const number = (raw, where) => {
        const n = parseDecimal(raw);
        if (n === undefined)
            errors.push(rowError(ctx, line, where, `expected a number, found ${quote(raw.trim())}`));
        return n;
    };
    const startSec = number(fields[0], WHERE.start);
    const endSec = number(fields[1], WHERE.end);
    let label = fields[2];
    let confidence;
    let confidenceWhere = WHERE.confidence;
    if (fields.length === 4) {
        confidence = number(fields[3], WHERE.confidence);
    }
    else {
        confidenceWhere = WHERE.joinedConfidence;
        const cut = label.lastIndexOf(', ');
        if (cut < 0) {
            errors.push(rowError(ctx, line, WHERE.label, `expected "Scientific name, Common name, confidence", found ${quote(label.trim())}`));
        }
        else {
            confidence = number(label.slice(cut + 2), confidenceWhere);
            label = label.slice(0, cut);
        }
    }
    if (errors.length > before || startSec === undefined || endSec === undefined || confidence === undefined)
        return undefined;
    const where = { start: WHERE.start, end: WHERE.end, confidence: confidenceWhere };
    if (!checkTimesAndConfidence(ctx, line, { startSec, endSec, confidence }, where, errors))
        return undefined;
    const cut = label.indexOf(', ');
    const names = cut < 0
        ? { scientificName: label.trim(), commonName: label.trim() }
        : { scientificName: label.slice(0, cut).trim(), commonName: label.slice(cut + 2).trim() };
    const resolved = resolveSpecies(names, ctx.labels);
    if (!resolved.ok) {
        errors.push(rowError(ctx, line, WHERE.label, resolved.problem));
        return undefined;
    }
    return { startSec, endSec, confidence, line, ...resolved.species };
}
