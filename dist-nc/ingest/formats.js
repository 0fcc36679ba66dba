import path from 'node:path';
import { ResultFileError } from './errors.js';
import { parse as parseAnalyzerpiJson } from './parsers/analyzerpi-json.js';
import { createParser as audacityLines, parse as parseAudacity } from './parsers/audacity.js';
import { createParser as csvLines, parse as parseCsv } from './parsers/csv.js';
import { createParser as kaleidoscopeLines, parse as parseKaleidoscope } from './parsers/kaleidoscope.js';
import { createParser as legacyCsvLines, parse as parseLegacyCsv } from './parsers/legacy-csv.js';
import { createParser as ravenLines, parse as parseRaven } from './parsers/raven.js';
import { parse as parseSidecar } from './parsers/sidecar.js';
import { headerKey } from './parsers/table.js';
import { nonBlankLines } from './parsers/text.js';
export const AUDIO_EXTENSIONS = ['wav', 'flac'];
const RESULT_SUFFIXES = [
    ['.BirdNET.results.kaleidoscope.csv', 'kaleidoscope'],
    ['.BirdNET.selection.table.txt', 'raven'],
    ['.BirdNET.results.r.csv', 'csv'],
    ['.BirdNET.results.csv', 'csv'],
    ['.BirdNET.results.txt', 'audacity'],
    ['.detections.json', 'sidecar'],
];
const AUDIO_NAME = /^(.+)\.(wav|flac)$/i;
export function classifyPath(filePath) {
    const name = path.basename(filePath);
    if (name.startsWith('.') || name.endsWith('~'))
        return { kind: 'ignored' };
    const lower = name.toLowerCase();
    for (const [suffix, format] of RESULT_SUFFIXES) {
        if (lower.endsWith(suffix.toLowerCase()) && name.length > suffix.length) {
            return { kind: 'result', format, baseName: name.slice(0, -suffix.length) };
        }
    }
    const audio = AUDIO_NAME.exec(name);
    if (audio)
        return { kind: 'audio', ext: audio[2].toLowerCase(), baseName: audio[1] };
    const onAudio = /^(.+)\.(json|csv)$/i.exec(name);
    const audioOfResult = onAudio ? AUDIO_NAME.exec(onAudio[1]) : null;
    if (onAudio && audioOfResult) {
        const audioFileName = onAudio[1];
        const baseName = audioOfResult[1];
        return onAudio[2].toLowerCase() === 'json'
            ? { kind: 'analyzerpi-json', audioFileName, baseName }
            : { kind: 'result', format: 'legacy-csv', baseName, audioFileName };
    }
    return { kind: 'ignored' };
}
export function sniffFormat(text) {
    const first = nonBlankLines(text.slice(0, 4096))[0]?.text;
    if (first === undefined)
        return undefined;
    const keys = (delimiter) => first.split(delimiter).map(headerKey);
    const comma = keys(',');
    if (comma.includes('indir') && comma.includes('offset'))
        return 'kaleidoscope';
    if ((comma.includes('start (s)') || comma.includes('start')) && comma.includes('confidence'))
        return 'csv';
    const semicolon = keys(';');
    if (semicolon.includes('start (s)') && semicolon.includes('confidence'))
        return 'legacy-csv';
    const tab = keys('\t');
    if (tab.includes('begin time (s)') && tab.includes('confidence'))
        return 'raven';
    return undefined;
}
export function detectFormat(filePath, text, c = classifyPath(filePath)) {
    const bySuffix = c.kind === 'result' ? c.format : c.kind === 'analyzerpi-json' ? 'analyzerpi-json' : undefined;
    const isCsv = filePath.toLowerCase().endsWith('.csv');
    if (isCsv && text !== undefined)
        return sniffFormat(text) ?? bySuffix;
    return bySuffix;
}
export const PARSERS = {
    raven: parseRaven,
    csv: parseCsv,
    audacity: parseAudacity,
    kaleidoscope: parseKaleidoscope,
    'legacy-csv': parseLegacyCsv,
    sidecar: parseSidecar,
    'analyzerpi-json': parseAnalyzerpiJson,
};
export const LINE_PARSERS = {
    raven: ravenLines,
    csv: csvLines,
    audacity: audacityLines,
    kaleidoscope: kaleidoscopeLines,
    'legacy-csv': legacyCsvLines,
};
export function parseResultFile(filePath, text, options = {}) {
    const c = options.what ?? classifyPath(filePath);
    const format = options.format && options.format !== 'auto' ? options.format : detectFormat(filePath, text, c);
    if (!format) {
        throw new ResultFileError(filePath, 'not a recognised result file (unknown name suffix and header)');
    }
    const ctx = options.labels ? { fileName: filePath, labels: options.labels } : { fileName: filePath };
    const parsed = PARSERS[format](text, ctx);
    if (parsed.audioFileName === undefined && 'audioFileName' in c && c.audioFileName !== undefined) {
        parsed.audioFileName = c.audioFileName;
    }
    return parsed;
}
