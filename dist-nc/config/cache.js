import { createHash } from 'node:crypto';
import { readlink, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { VERSION } from '../version.js';
import { readRegularFileBounded } from '../system/regular-file.js';
export const CONFIG_CACHE_FILE = 'config-cache.json';
const SECRET_VARIABLES = new Set(['STATION_AGENT_TOKEN', 'STATION_AGENT_SERVICE_TOKEN', 'STATION_AGENT_ADMIN_TOKEN']);
export async function configCacheKey(inputs) {
    const fileValues = inputs.fileValues ? withoutToken(inputs.fileValues) : null;
    const env = Object.keys(inputs.env)
        .filter((name) => name.startsWith('STATION_AGENT_'))
        .sort()
        .map((name) => [name, SECRET_VARIABLES.has(name) ? inputs.env[name] !== '' : inputs.env[name]]);
    const localtime = await readlink('/etc/localtime').catch(() => '');
    const material = JSON.stringify([VERSION, inputs.file, fileValues, env, inputs.overrides ?? null, inputs.cwd, hostname(), process.env.TZ ?? null, localtime]);
    return createHash('sha256').update(material).digest('hex');
}
const CONFIG_CACHE_MAX_BYTES = 1024 * 1024;
export async function readConfigCache(dataDir, key) {
    try {
        const { text } = await readRegularFileBounded(path.join(dataDir, CONFIG_CACHE_FILE), CONFIG_CACHE_MAX_BYTES);
        const entry = JSON.parse(text);
        return entry.key === key && typeof entry.config === 'object' && entry.config !== null ? entry : null;
    }
    catch {
        return null;
    }
}
export async function writeConfigCache(dataDir, entry) {
    const file = path.join(dataDir, CONFIG_CACHE_FILE);
    const tmp = `${file}.${process.pid}.tmp`;
    try {
        const dir = await stat(dataDir);
        if (!dir.isDirectory() || (typeof process.getuid === 'function' && dir.uid !== process.getuid()))
            return;
        const config = structuredClone(entry.config);
        delete config.service.token;
        await writeFile(tmp, JSON.stringify({ ...entry, config }), { mode: 0o600 });
        await rename(tmp, file);
    }
    catch {
        await unlink(tmp).catch(() => { });
    }
}
export function expectedDataDir(inputs, defaultDir) {
    const fromFlags = inputs.overrides?.dataDir;
    if (typeof fromFlags === 'string' && fromFlags !== '')
        return path.resolve(inputs.cwd, fromFlags);
    const fromEnv = inputs.env.STATION_AGENT_DATA_DIR;
    if (fromEnv)
        return path.resolve(inputs.cwd, fromEnv);
    const fromFile = inputs.fileValues?.dataDir;
    if (typeof fromFile === 'string' && fromFile !== '' && inputs.file)
        return path.resolve(path.dirname(inputs.file), fromFile);
    return defaultDir;
}
function withoutToken(values) {
    const service = values.service;
    if (typeof service !== 'object' || service === null || !('token' in service))
        return values;
    return { ...values, service: { ...service, token: typeof (service).token === 'string' ? '<set>' : (service).token } };
}
