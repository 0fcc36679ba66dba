import { z } from 'zod';
import { configSchema } from './schema.js';
export const ENV_PREFIX = 'STATION_AGENT_';
export function upperSnake(key) {
    return key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}
export function envNameFor(path) {
    return ENV_PREFIX + path.map(upperSnake).join('_');
}
function unwrap(schema) {
    const layers = [];
    let current = schema;
    for (;;) {
        const meta = z.globalRegistry.get(current);
        if (meta)
            layers.push(meta);
        if (current instanceof z.ZodDefault ||
            current instanceof z.ZodPrefault ||
            current instanceof z.ZodOptional ||
            current instanceof z.ZodNullable) {
            current = current.unwrap();
        }
        else if (current instanceof z.ZodPipe) {
            current = current.in;
        }
        else {
            break;
        }
    }
    return { inner: current, meta: Object.assign({}, ...layers.reverse()) };
}
function walk(schema, prefix, out) {
    const { inner, meta } = unwrap(schema);
    if (inner instanceof z.ZodObject) {
        const shape = inner.shape;
        for (const [key, child] of Object.entries(shape))
            walk(child, [...prefix, key], out);
        return;
    }
    out.push({ path: prefix, id: prefix.join('.'), envName: envNameFor(prefix), schema, meta });
}
let cached;
export function configKeys() {
    if (!cached) {
        const out = [];
        walk(configSchema, [], out);
        cached = out;
    }
    return cached;
}
export function sectionDescriptions() {
    const out = new Map();
    const visit = (schema, prefix) => {
        const { inner, meta } = unwrap(schema);
        if (!(inner instanceof z.ZodObject))
            return;
        if (prefix.length > 0 && typeof meta.description === 'string')
            out.set(prefix.join('.'), meta.description);
        const shape = inner.shape;
        for (const [key, child] of Object.entries(shape))
            visit(child, [...prefix, key]);
    };
    visit(configSchema, []);
    return out;
}
