import path from 'node:path';
import { ConfigError } from './errors.js';
import { readEnvironment } from './env.js';
import { formatIssues } from './issues.js';
import { deepMerge, deleteAt, getAt, leafPaths, setAt } from './merge.js';
import { configSchema } from './schema.js';
import { configKeys } from './schema-keys.js';
import { redactText, urlPassword } from '../wire/redact.js';
export function validateLayers(inputs) {
    const { env, cwd, filePath, context } = inputs;
    const warnings = [];
    const fileLayer = { name: 'file', values: structuredClone(inputs.fileValues ?? {}) };
    resolvePaths(fileLayer.values, path.dirname(inputs.file));
    const environment = readEnvironment(env);
    warnings.push(...environment.warnings);
    const envLayer = { name: 'env', values: environment.values };
    resolvePaths(envLayer.values, cwd);
    const flagValues = (deepMerge({}, inputs.overrides ?? {}) ?? {});
    if (getAt(flagValues, ['service', 'token']) !== undefined) {
        throw new ConfigError(['service.token cannot be given as a flag (other users can read command lines); use STATION_AGENT_TOKEN or service.tokenFile'], filePath, context);
    }
    const flagLayer = { name: 'flags', values: flagValues };
    resolvePaths(flagLayer.values, cwd);
    const layers = [fileLayer, envLayer, flagLayer];
    const secrets = [
        env.STATION_AGENT_ADMIN_TOKEN,
        ...layers.map((l) => getAt(l.values, ['service', 'token'])),
        ...layers.map((l) => urlPassword(asString(getAt(l.values, ['mqtt', 'url'])))),
    ].filter((s) => typeof s === 'string');
    const tokenWarning = settleTokenConflict(layers);
    if (tokenWarning)
        warnings.push(tokenWarning);
    const merged = layers.reduce((acc, layer) => deepMerge(acc, layer.values), {});
    const flagIds = new Set(leafPaths(flagLayer.values).map((p) => p.join('.')));
    const sourceOf = (id) => {
        if (flagIds.has(id))
            return FLAG_SOURCE;
        return environment.sources.get(id);
    };
    const parsed = configSchema.safeParse(merged, { reportInput: true });
    if (!parsed.success) {
        const problems = formatIssues(parsed.error.issues, { sourceOf }).map((p) => redactText(p, secrets));
        throw new ConfigError(problems, filePath, context);
    }
    const config = parsed.data;
    let tokenSource = null;
    let tokenVariable;
    if (config.service.tokenFile !== undefined)
        tokenSource = 'tokenFile';
    else if (config.service.token !== undefined) {
        tokenVariable = environment.sources.get('service.token');
        tokenSource = getAt(envLayer.values, ['service', 'token']) !== undefined ? 'env' : 'file';
    }
    return { config, tokenSource, ...(tokenSource === 'env' && tokenVariable ? { tokenVariable } : {}), warnings };
}
export function parseConfig(input, file = null) {
    const parsed = configSchema.safeParse(input, { reportInput: true });
    if (!parsed.success)
        throw new ConfigError(formatIssues(parsed.error.issues), file);
    return parsed.data;
}
const FLAG_SOURCE = 'a command-line flag';
function asString(value) {
    return typeof value === 'string' ? value : null;
}
function resolvePaths(values, base) {
    for (const key of configKeys()) {
        if (key.meta.path !== true)
            continue;
        const value = getAt(values, key.path);
        if (typeof value === 'string' && value !== '')
            setAt(values, key.path, path.resolve(base, value));
    }
}
function settleTokenConflict(layers) {
    const top = (key) => layers.findLastIndex((l) => getAt(l.values, ['service', key]) !== undefined);
    const tokenAt = top('token');
    const fileAt = top('tokenFile');
    if (tokenAt < 0 || fileAt < 0 || tokenAt === fileAt)
        return null;
    const [loser, winner] = tokenAt > fileAt ? ['tokenFile', 'token'] : ['token', 'tokenFile'];
    const winnerLayer = layers[Math.max(tokenAt, fileAt)].name;
    const loserLayer = layers[Math.min(tokenAt, fileAt)].name;
    for (const layer of layers.slice(0, Math.max(tokenAt, fileAt)))
        deleteAt(layer.values, ['service', loser]);
    return `service.${winner} from the ${layerWords(winnerLayer)} replaces service.${loser} from the ${layerWords(loserLayer)}`;
}
function layerWords(name) {
    return name === 'file' ? 'config file' : name === 'env' ? 'environment' : 'command line';
}
