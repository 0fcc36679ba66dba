import { ENV_PREFIX, configKeys } from './schema-keys.js';
import { setAt } from './merge.js';
export const NON_KEY_VARIABLES = ['STATION_AGENT_CONFIG', 'STATION_AGENT_ADMIN_TOKEN'];
export const ENV_SHORTCUTS = {
    STATION_AGENT_TOKEN: 'service.token',
    STATION_AGENT_BASE_URL: 'service.baseUrl',
};
export function readEnvironment(env) {
    const keysByEnv = new Map(configKeys().map((k) => [k.envName, k]));
    const keysById = new Map(configKeys().map((k) => [k.id, k]));
    const layer = { values: {}, sources: new Map(), warnings: [] };
    const apply = (name, key, raw) => {
        const previous = layer.sources.get(key.id);
        if (previous && env[previous] !== raw) {
            layer.warnings.push(`${name} and ${previous} are both set and differ; ${name} is used`);
        }
        setAt(layer.values, key.path, parseValue(key, raw));
        layer.sources.set(key.id, name);
    };
    const names = Object.keys(env)
        .filter((n) => n.startsWith(ENV_PREFIX))
        .sort();
    for (const name of names) {
        const raw = env[name];
        if (raw === undefined || raw === '')
            continue;
        if (NON_KEY_VARIABLES.includes(name) || name in ENV_SHORTCUTS)
            continue;
        const key = keysByEnv.get(name);
        if (key)
            apply(name, key, raw);
        else
            layer.warnings.push(`environment variable ${name} is not a config setting and is ignored`);
    }
    for (const [name, id] of Object.entries(ENV_SHORTCUTS)) {
        const raw = env[name];
        if (raw === undefined || raw === '')
            continue;
        apply(name, keysById.get(id), raw);
    }
    return layer;
}
function parseValue(key, raw) {
    let parsed;
    try {
        parsed = JSON.parse(raw);
    }
    catch {
        return raw;
    }
    if (key.schema.safeParse(parsed).success)
        return parsed;
    if (key.schema.safeParse(raw).success)
        return raw;
    return typeof parsed === 'object' && parsed !== null ? raw : parsed;
}
