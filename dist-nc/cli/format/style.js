export function colorEnabled(stream, env = process.env) {
    if (env.NO_COLOR !== undefined && env.NO_COLOR !== '')
        return false;
    if (env.TERM === 'dumb')
        return false;
    return stream.isTTY === true;
}
function sgr(open, close, enabled) {
    return enabled ? (text) => `\u001b[${open}m${text}\u001b[${close}m` : (text) => text;
}
export function createStyle(enabled) {
    return {
        enabled,
        bold: sgr(1, 22, enabled),
        dim: sgr(2, 22, enabled),
        red: sgr(31, 39, enabled),
        green: sgr(32, 39, enabled),
        yellow: sgr(33, 39, enabled),
        cyan: sgr(36, 39, enabled),
    };
}
export function styleFor(stream, env = process.env) {
    return createStyle(colorEnabled(stream, env));
}
const ANSI = /\u001b\[[0-9;]*m/g;
export function visibleLength(text) {
    return [...text.replace(ANSI, '')].length;
}
