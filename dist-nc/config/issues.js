import { describeRejected } from '../wire/redact.js';
import { configKeys } from './schema-keys.js';
import { editDistance } from './edit-distance.js';
const OWN_MESSAGE = /^(must|is|cannot) /;
export function formatIssues(issues, context = {}) {
    const lines = [];
    for (const issue of issues) {
        const path = [...(context.prefix ?? []), ...issue.path.map(String)];
        if (issue.code === 'unrecognized_keys') {
            for (const key of issue.keys)
                lines.push(unknownKey([...path, key]));
            continue;
        }
        const id = path.join('.');
        let line = `${id || '(top level)'} ${describeIssue(issue)}`;
        const source = context.sourceOf?.(id);
        if (source)
            line += ` (from ${source})`;
        lines.push(line);
    }
    return lines;
}
function describeIssue(issue) {
    const got = showsInput(issue) ? ` (got ${describeRejected(offendingValue(issue))})` : '';
    switch (issue.code) {
        case 'invalid_type':
            if (issue.input === undefined)
                return 'is required';
            return `must be ${typeWords(issue.expected)}${got}`;
        case 'invalid_value':
            return `must be one of ${issue.values.map((v) => String(v)).join(', ')}${got}`;
        case 'too_small':
            return (OWN_MESSAGE.test(issue.message) ? issue.message : `must be at least ${String(issue.minimum)}`) + got;
        case 'too_big':
            return (OWN_MESSAGE.test(issue.message) ? issue.message : `must be at most ${String(issue.maximum)}`) + got;
        case 'invalid_format':
            return (OWN_MESSAGE.test(issue.message) ? issue.message : `must be a valid ${issue.format}`) + got;
        default:
            return (OWN_MESSAGE.test(issue.message) ? issue.message : `is invalid: ${issue.message}`) + got;
    }
}
function showsInput(issue) {
    if (isSecretPath(issue.path.map(String)))
        return false;
    const value = offendingValue(issue);
    if (value === undefined)
        return false;
    return issue.code === 'custom' ? value !== null : true;
}
function offendingValue(issue) {
    const input = issue.input;
    if (issue.code === 'custom' && input !== null && typeof input === 'object' && !Array.isArray(input)) {
        const key = issue.path[issue.path.length - 1];
        const value = key === undefined ? undefined : input[key];
        return value !== null && typeof value === 'object' ? undefined : value;
    }
    return input !== null && typeof input === 'object' ? undefined : input;
}
function isSecretPath(path) {
    const last = path[path.length - 1];
    if (last === undefined)
        return false;
    if (/token$/i.test(last))
        return true;
    return configKeys().some((k) => k.meta.secret === true && k.path[k.path.length - 1] === last);
}
function typeWords(expected) {
    switch (expected) {
        case 'boolean':
            return 'true or false';
        case 'object':
            return 'an object';
        case 'int':
            return 'a whole number';
        case 'array':
            return 'a list';
        default:
            return `a ${expected}`;
    }
}
function unknownKey(path) {
    const name = path[path.length - 1] ?? '';
    if (!KEY_NAME.test(name))
        return `unknown key ${[...path.slice(0, -1), `<a name of ${name.length} characters>`].join('.')}`;
    const id = path.join('.');
    const hint = suggestKey(path);
    return hint ? `unknown key ${id} (did you mean ${hint}?)` : `unknown key ${id}`;
}
const KEY_NAME = /^[A-Za-z][A-Za-z_-]{0,31}[0-9]{0,2}$/;
function suggestKey(path) {
    const name = path[path.length - 1].toLowerCase();
    const parent = path.slice(0, -1).join('.');
    const known = knownIds();
    const siblings = known.filter((id) => parentOf(id) === parent);
    const closeSibling = siblings
        .map((id) => ({ id, d: editDistance(lastOf(id).toLowerCase(), name) }))
        .filter((c) => c.d <= Math.max(1, Math.floor(name.length / 4)))
        .sort((a, b) => a.d - b.d)[0];
    if (closeSibling)
        return closeSibling.id;
    return known.find((id) => lastOf(id).toLowerCase() === name);
}
function knownIds() {
    const ids = new Set();
    for (const key of configKeys()) {
        for (let i = 1; i <= key.path.length; i++)
            ids.add(key.path.slice(0, i).join('.'));
    }
    return [...ids];
}
function parentOf(id) {
    const i = id.lastIndexOf('.');
    return i < 0 ? '' : id.slice(0, i);
}
function lastOf(id) {
    return id.slice(id.lastIndexOf('.') + 1);
}
