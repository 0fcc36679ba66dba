import { resolveSpecies } from '../labels.js';
import { ResultFileError } from '../errors.js';
import { splitCsvRecords } from './csv-rows.js';
import { parseLines } from './line-parser.js';
import { baseNameAnyOs, checkTimesAndConfidence, parseDecimal, quote, rowError } from './text.js';
export function headerKey(name) {
    return name.trim().replace(/^;+/, '').trim().replace(/\s+/g, ' ').toLowerCase();
}
export function layoutFromHeader(headerFields, headerLine, spec, ctx) {
    const keys = headerFields.map(headerKey);
    const index = {};
    for (const [role, names] of Object.entries(spec.aliases)) {
        const wanted = names.map(headerKey);
        const at = keys.findIndex((k) => wanted.includes(k));
        if (at >= 0)
            index[role] = at;
    }
    const groups = [...spec.required.map((r) => [r]), ...(spec.requiredOneOf ?? [])];
    if (groups.some((group) => group.every((r) => index[r] === undefined))) {
        const expected = groups.map((group) => group.map((r) => `"${spec.aliases[r]?.[0] ?? r}"`).join(' or ')).join(', ');
        const otherDelimiter = headerFields.length <= 1 ? sniffDelimiter(headerLine, spec.delimiter) : undefined;
        const hint = otherDelimiter ? ` (the header looks ${otherDelimiter}-separated)` : '';
        throw new ResultFileError(ctx.fileName, `expected ${spec.delimiterName}-separated ${spec.what} header with columns ${expected}, found ${quote(headerLine, 160)}${hint}`);
    }
    return { names: headerFields, index };
}
function sniffDelimiter(line, expected) {
    const candidates = [
        ['\t', 'tab'],
        [',', 'comma'],
        [';', 'semicolon'],
    ];
    return candidates.find(([d]) => d !== expected && line.includes(d))?.[1];
}
export function detectionFromRow(fields, line, layout, ctx, errors, options = {}) {
    if (fields.length !== layout.names.length) {
        const hint = fields.length > layout.names.length ? ' (an unquoted delimiter inside a name?)' : '';
        errors.push(rowError(ctx, line, 'row', `expected ${layout.names.length} fields as in the header, found ${fields.length}${hint}`));
        return { kind: 'error' };
    }
    const col = (role) => {
        const at = layout.index[role];
        return at === undefined ? undefined : { value: fields[at].trim(), where: `column "${layout.names[at].trim()}"` };
    };
    const commonName = col('commonName');
    const speciesCode = col('speciesCode');
    if (options.skipNocall && commonName?.value === 'nocall' && (!speciesCode || speciesCode.value === 'nocall')) {
        return { kind: 'skipped' };
    }
    const before = errors.length;
    const num = (role) => {
        const c = col(role);
        if (!c)
            return undefined;
        const n = parseDecimal(c.value);
        if (n === undefined)
            errors.push(rowError(ctx, line, c.where, `expected a number, found ${quote(c.value)}`));
        return n;
    };
    const begin = num('start');
    const endRaw = num('end');
    const duration = num('duration');
    const offset = num('fileOffset');
    const confidence = num('confidence');
    if (errors.length > before || begin === undefined || confidence === undefined)
        return { kind: 'error' };
    let startSec = begin;
    let endSec = endRaw ?? begin + (duration ?? 0);
    if (offset !== undefined && offset !== begin) {
        endSec = offset + (endSec - begin);
        startSec = offset;
    }
    const ok = checkTimesAndConfidence(ctx, line, { startSec, endSec, confidence }, {
        start: col('fileOffset')?.where ?? col('start').where,
        end: col('end')?.where ?? col('duration')?.where ?? 'end',
        confidence: col('confidence').where,
    }, errors);
    if (!ok)
        return { kind: 'error' };
    const scientificName = col('scientificName');
    const resolved = resolveSpecies({ scientificName: scientificName?.value, commonName: commonName?.value }, ctx.labels);
    if (!resolved.ok) {
        errors.push(rowError(ctx, line, (scientificName ?? commonName)?.where ?? 'species', resolved.problem));
        return { kind: 'error' };
    }
    return { kind: 'detection', detection: { startSec, endSec, confidence, line, ...resolved.species } };
}
const MAX_RECORD_CHARS = 64 * 1024;
export class TableParser {
    ctx;
    spec;
    options;
    detections = [];
    errors = [];
    audioFileName;
    rows = 0;
    layout;
    pending = '';
    pendingLine = 0;
    constructor(ctx, spec, options = {}) {
        this.ctx = ctx;
        this.spec = spec;
        this.options = options;
    }
    push(text, line) {
        if (this.spec.delimiter === '\t') {
            if (text.trim() !== '')
                this.record({ fields: text.split('\t'), line }, text);
            return;
        }
        if (this.pending === '')
            this.pendingLine = line;
        this.pending = this.pending === '' ? text : `${this.pending}\n${text}`;
        if (hasOpenQuote(this.pending) && this.pending.length < MAX_RECORD_CHARS)
            return;
        this.flush();
    }
    finish() {
        if (this.pending !== '')
            this.flush();
        if (!this.layout) {
            throw new ResultFileError(this.ctx.fileName, `empty file: expected a ${this.spec.delimiterName}-separated ${this.spec.what} header`);
        }
    }
    flush() {
        const text = this.pending;
        this.pending = '';
        for (const r of splitCsvRecords(text, this.spec.delimiter, this.pendingLine))
            this.record(r, r.fields.join(this.spec.delimiter));
    }
    record(row, raw) {
        if (!this.layout) {
            this.layout = layoutFromHeader(row.fields, raw, this.spec, this.ctx);
            return;
        }
        this.rows++;
        if (row.error !== undefined) {
            this.errors.push(rowError(this.ctx, row.line, 'row', row.error));
            return;
        }
        const fileAt = this.layout.index.file;
        if (this.audioFileName === undefined && fileAt !== undefined) {
            const value = row.fields[fileAt]?.trim();
            if (value)
                this.audioFileName = baseNameAnyOs(value) || undefined;
        }
        const outcome = detectionFromRow(row.fields, row.line, this.layout, this.ctx, this.errors, this.options);
        if (outcome.kind === 'detection')
            this.detections.push(outcome.detection);
    }
}
function hasOpenQuote(text) {
    let n = 0;
    for (let i = text.indexOf('"'); i >= 0; i = text.indexOf('"', i + 1))
        n++;
    return n % 2 === 1;
}
export function parseTable(text, ctx, spec, options = {}) {
    const parser = new TableParser(ctx, spec, options);
    parseLines(parser, text);
    const { detections, errors, audioFileName } = parser;
    return audioFileName === undefined ? { detections, errors } : { detections, errors, audioFileName };
}
export function tableFormat(format, spec, options = {}) {
    return {
        parse: (text, ctx) => ({ format, ...parseTable(text, ctx, spec, options) }),
        createParser: (ctx) => new TableParser(ctx, spec, options),
    };
}
