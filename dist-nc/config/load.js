import path from 'node:path';
import { ConfigError } from './errors.js';
import { isPlainObject } from './merge.js';
import { redactUrl } from '../wire/redact.js';
import { SecretFileError, fileProblem, looseModeWarning, readSecretFile } from './secret-files.js';
import { folderOverlapProblem } from './folder-overlap.js';
import { MIN_SECRET_LENGTH, rememberSecret } from './secrets-read.js';
import { readRegularFileBounded } from '../system/regular-file.js';
import { DEFAULT_DATA_DIR } from './data-dir.js';
import { configCacheKey, expectedDataDir, readConfigCache, writeConfigCache } from './cache.js';
export const DEFAULT_CONFIG_PATH = '/etc/station-agent/config.json';
export async function loadConfig(options = {}) {
    const env = options.env ?? process.env;
    const cwd = options.cwd ?? process.cwd();
    const named = options.path ?? (env.STATION_AGENT_CONFIG || undefined);
    const file = path.resolve(cwd, named ?? DEFAULT_CONFIG_PATH);
    const fromEnv = options.path === undefined && named !== undefined;
    const fileValues = await readConfigFile(file, named !== undefined, fromEnv);
    const filePath = fileValues ? file : null;
    const context = filePath ? `config file ${filePath}` : `no config file at ${file}`;
    const noFile = fileValues
        ? []
        : [`no config file at ${file} (set STATION_AGENT_CONFIG or pass a path to use another); using defaults, environment and flags only`];
    const rawService = fileValues?.service;
    if (isPlainObject(rawService) && typeof rawService.token === 'string')
        rememberSecret(rawService.token);
    rememberSecret(env.STATION_AGENT_TOKEN);
    const useCache = options.cache !== false;
    const cacheInputs = { file: filePath, fileValues, env, overrides: options.overrides, cwd };
    const key = useCache ? await configCacheKey(cacheInputs) : '';
    const dataDir = expectedDataDir(cacheInputs, DEFAULT_DATA_DIR);
    let entry = useCache ? await readConfigCache(dataDir, key) : null;
    let token;
    if (entry) {
        token = cachedToken(entry, fileValues, env);
        if (token !== undefined && !/^\S+$/.test(token))
            entry = null;
    }
    if (!entry) {
        const inputs = { file, filePath, fileValues, context, env, cwd, overrides: options.overrides };
        const validated = options.validateApart
            ? await (await import('./validate-apart.js')).validateApart(inputs)
            : (await import('./validate.js')).validateLayers(inputs);
        entry = { key, ...validated };
        token = validated.config.service.token ?? cachedToken(entry, fileValues, env);
        if (useCache && validated.config.dataDir === dataDir)
            await writeConfigCache(dataDir, entry);
    }
    const config = structuredClone(entry.config);
    const warnings = [...noFile, ...entry.warnings];
    rememberSecret(token);
    let tokenProblem = null;
    if (entry.tokenSource === 'tokenFile' && config.service.tokenFile !== undefined) {
        try {
            const secret = await readSecretFile('service.tokenFile', config.service.tokenFile, { oneWord: true });
            config.service.token = secret.value;
            if (secret.looseMode)
                warnings.push(secret.looseMode);
        }
        catch (err) {
            if (!(err instanceof SecretFileError))
                throw err;
            if (options.unreadableTokenFile !== 'report')
                throw new ConfigError([err.message], filePath, context, { cause: err });
            tokenProblem = err.message;
            delete config.service.token;
        }
    }
    else if (token !== undefined) {
        config.service.token = token;
    }
    else {
        delete config.service.token;
    }
    const pasted = keysHoldingToken(config);
    if (pasted.length > 0) {
        throw new ConfigError(pasted.map((key) => `${key} holds the station token (pasted into the wrong place?): the token belongs in service.tokenFile (or service.token) alone`), filePath, context);
    }
    const overlap = await folderOverlapProblem(config.dataDir, config.input.dir);
    if (overlap)
        throw new ConfigError([overlap], filePath, context);
    const service = fileValues?.service;
    if (filePath && isPlainObject(service) && typeof service.token === 'string') {
        const loose = await looseModeWarning(filePath, 'config file');
        if (loose)
            warnings.push(loose);
    }
    const plain = plainHttpWarning(config.service.baseUrl);
    if (plain)
        warnings.push(plain);
    return { config, path: filePath, warnings, tokenSource: entry.tokenSource, tokenProblem };
}
function keysHoldingToken(config) {
    const token = config.service.token;
    if (!token || token.length < MIN_SECRET_LENGTH)
        return [];
    const found = [];
    const walk = (value, key) => {
        if (typeof value === 'string') {
            if (key !== 'service.token' && value.includes(token))
                found.push(key);
        }
        else if (Array.isArray(value)) {
            value.forEach((v, i) => walk(v, `${key}.${i}`));
        }
        else if (isPlainObject(value)) {
            for (const [k, v] of Object.entries(value))
                walk(v, key ? `${key}.${k}` : k);
        }
    };
    walk(config, '');
    return found;
}
function cachedToken(entry, fileValues, env) {
    if (entry.tokenSource === 'env')
        return env[entry.tokenVariable ?? 'STATION_AGENT_TOKEN'] || undefined;
    if (entry.tokenSource === 'file') {
        const service = fileValues?.service;
        return isPlainObject(service) && typeof service.token === 'string' ? service.token : undefined;
    }
    return undefined;
}
export function requireToken(loaded) {
    const token = loaded.config.service.token;
    if (token)
        return token;
    throw new ConfigError(['service.token is required: set service.tokenFile or service.token in the config file, or STATION_AGENT_TOKEN'], loaded.path);
}
const CONFIG_FILE_MAX_BYTES = 1024 * 1024;
async function readConfigFile(file, named, fromEnv) {
    const context = `config file ${file}`;
    let text;
    try {
        text = (await readRegularFileBounded(file, CONFIG_FILE_MAX_BYTES, { followSymlinks: true })).text;
    }
    catch (err) {
        const problem = fileProblem(err);
        if (problem === 'does not exist' && !named)
            return null;
        const origin = fromEnv ? ' (named by STATION_AGENT_CONFIG)' : '';
        throw new ConfigError([`the file ${problem}${origin}`], file, context);
    }
    text = text.replace(/^\uFEFF/, '');
    let value;
    try {
        value = JSON.parse(text);
    }
    catch {
        const { findJsonSyntaxError } = await import('./json-syntax.js');
        const where = findJsonSyntaxError(text);
        const detail = where ? `: ${where.message} at line ${where.line}, column ${where.column}` : '';
        throw new ConfigError([`the file is not valid JSON${detail}`], file, context);
    }
    if (!isPlainObject(value))
        throw new ConfigError(['the file must hold a JSON object ({ ... })'], file, context);
    return value;
}
function plainHttpWarning(baseUrl) {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:')
        return null;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (host === 'localhost' || host === '::1' || /^127\./.test(host))
        return null;
    return `service.baseUrl ${redactUrl(baseUrl)} is plain http to another host: the station token travels unencrypted in the URL path; use https://`;
}
