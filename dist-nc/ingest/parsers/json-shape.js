import { isObject } from '../../wire/json-object.js';
export class ShapeCheck {
    prefix;
    problems = [];
    constructor(prefix = []) {
        this.prefix = prefix;
    }
    object(value) {
        if (isObject(value))
            return value;
        this.fail([], `must be an object (got ${kindOf(value)})`);
        return undefined;
    }
    array(obj, key) {
        const value = obj[key];
        if (Array.isArray(value))
            return value;
        this.fail([key], `must be an array (got ${kindOf(value)})`);
        return undefined;
    }
    number(obj, key, range = {}) {
        const value = obj[key];
        if (value === undefined && range.optional)
            return undefined;
        if (typeof value !== 'number' || !Number.isFinite(value)) {
            this.fail([key], `must be a number (got ${kindOf(value)})`);
            return undefined;
        }
        if (range.min !== undefined && value < range.min)
            return this.fail([key], `must be at least ${range.min}`);
        if (range.max !== undefined && value > range.max)
            return this.fail([key], `must be at most ${range.max}`);
        return value;
    }
    name(obj, key, optional = false) {
        const value = obj[key];
        if (value === undefined && optional)
            return undefined;
        if (typeof value !== 'string')
            return this.fail([key], `must be a string (got ${kindOf(value)})`);
        const trimmed = value.trim();
        return trimmed === '' ? this.fail([key], 'must not be empty') : trimmed;
    }
    text(obj, key) {
        const value = obj[key];
        if (value === undefined || typeof value === 'string')
            return value;
        return this.fail([key], `must be a string (got ${kindOf(value)})`);
    }
    dateTimeWithOffset(obj, key) {
        const value = obj[key];
        if (value === undefined)
            return undefined;
        if (typeof value === 'string' && ISO_WITH_OFFSET.test(value) && !Number.isNaN(Date.parse(normalizeOffset(value))))
            return value;
        return this.fail([key], 'must be an ISO 8601 date-time with an offset');
    }
    fail(path, message) {
        this.problems.push({ path: jsonPath([...this.prefix, ...path]), message });
        return undefined;
    }
}
export function jsonPath(path) {
    let out = '';
    for (const part of path)
        out += typeof part === 'number' ? `[${part}]` : `${out === '' ? '' : '.'}${part}`;
    return out === '' ? '(root)' : out;
}
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)$/;
function normalizeOffset(value) {
    return value.replace(/([+-]\d{2})(\d{2})?$/, (_, h, m) => `${h}:${m ?? '00'}`);
}
function kindOf(value) {
    if (value === null)
        return 'null';
    if (Array.isArray(value))
        return 'an array';
    if (value === undefined)
        return 'nothing';
    return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
