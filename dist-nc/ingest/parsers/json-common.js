import { ResultFileError } from '../errors.js';
import { arrayElementLines } from './json-lines.js';
import { stripBom } from './text.js';
export function readJson(text, ctx, what) {
    try {
        return JSON.parse(stripBom(text));
    }
    catch (err) {
        throw new ResultFileError(ctx.fileName, `expected ${what} (JSON), but it is not valid JSON: ${err.message}`, {
            cause: err,
        });
    }
}
export function detectionEntries(text, ctx, check, entries, what) {
    if (!entries || check.problems.length > 0) {
        const problems = check.problems.map((i) => `${i.path}: ${i.message}`);
        throw new ResultFileError(ctx.fileName, `not a valid ${what}: ${problems.join('; ')}`);
    }
    const lines = arrayElementLines(text, 'detections');
    return entries.map((entry, i) => ({ entry, line: lines[i] ?? 1 }));
}
