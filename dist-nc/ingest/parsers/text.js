export function stripBom(text) {
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
export function nonBlankLines(text) {
    const out = [];
    stripBom(text)
        .split(/\r\n|\n|\r/)
        .forEach((t, i) => {
        if (t.trim() !== '')
            out.push({ text: t, line: i + 1 });
    });
    return out;
}
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
export function parseDecimal(raw) {
    const s = raw.trim();
    if (!DECIMAL.test(s))
        return undefined;
    const n = Number(s);
    return Number.isFinite(n) ? n : undefined;
}
export function quote(value, max = 80) {
    const v = value.length > max ? `${value.slice(0, max)}...` : value;
    return JSON.stringify(v);
}
export function rowError(ctx, line, where, problem) {
    return { line, message: `${ctx.fileName} line ${line}, ${where}: ${problem}` };
}
export function baseNameAnyOs(p) {
    const parts = p.trim().split(/[\\/]/);
    return parts[parts.length - 1] ?? '';
}
export function checkTimesAndConfidence(ctx, line, v, where, errors) {
    let ok = true;
    if (v.startSec < 0) {
        errors.push(rowError(ctx, line, where.start, `start must not be negative, found ${v.startSec}`));
        ok = false;
    }
    if (v.endSec < v.startSec) {
        errors.push(rowError(ctx, line, where.end, `end ${v.endSec} is before start ${v.startSec}`));
        ok = false;
    }
    if (v.confidence < 0 || v.confidence > 1) {
        errors.push(rowError(ctx, line, where.confidence, `confidence must be in [0, 1], found ${v.confidence}`));
        ok = false;
    }
    return ok;
}
