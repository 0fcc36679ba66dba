import { createHash } from 'node:crypto';
import { readFile, readlink, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { VERSION } from '../version.js';
import { readRegularFileBounded } from '../system/regular-file.js';
import type { Config } from './schema.js';

/**
 * The validated config of the last start, kept in `dataDir` so that a start whose inputs
 * did not change skips the schema. Validation needs zod and the whole schema, about 16 MB
 * of resident memory and tens of milliseconds on a Pi Zero 2 W, paid by every `status` and
 * kept by the daemon for its whole life; the result is the same as last time unless the
 * config file, the environment, the flags, the agent's version, the host name or the
 * system time zone (the defaults of `mqtt.clientId` and `station.timezone`) changed, which
 * the key covers, or the schema itself changed ({@link schemaIdentity}).
 *
 * The token is never written here: the entry says where it came from, and the loader takes
 * it from there again (the token file, the environment, the config file). The key is built
 * from the config file with its `service.token` value left out for the same reason. The
 * file is written only when the inputs changed (a miss), with the mode 0600 of the config
 * it mirrors, and never fsync'd: a lost entry is only a slower start.
 */
export interface ConfigCacheEntry {
  key: string;
  /** The schema the config was validated by ({@link schemaIdentity}). */
  schema: string;
  /** The validated config without `service.token`. */
  config: Config;
  tokenSource: 'file' | 'env' | 'tokenFile' | null;
  /** With `tokenSource: 'env'`: the variable the token came from. */
  tokenVariable?: string;
  /** The warnings that follow from the inputs alone (environment, token conflicts); file modes are checked again. */
  warnings: string[];
}

export const CONFIG_CACHE_FILE = 'config-cache.json';

/** Variables whose value is a secret: only whether they are set enters the key. */
const SECRET_VARIABLES = new Set(['STATION_AGENT_TOKEN', 'STATION_AGENT_SERVICE_TOKEN', 'STATION_AGENT_ADMIN_TOKEN']);

export interface ConfigCacheInputs {
  /** The config file's path, or null. */
  file: string | null;
  /** The config file's parsed content (null without a file). */
  fileValues: Record<string, unknown> | null;
  env: NodeJS.ProcessEnv;
  overrides: unknown;
  cwd: string;
}

export async function configCacheKey(inputs: ConfigCacheInputs): Promise<string> {
  const fileValues = inputs.fileValues ? withoutToken(inputs.fileValues) : null;
  const env = Object.keys(inputs.env)
    .filter((name) => name.startsWith('STATION_AGENT_'))
    .sort()
    .map((name) => [name, SECRET_VARIABLES.has(name) ? inputs.env[name] !== '' : inputs.env[name]]);
  const localtime = await readlink('/etc/localtime').catch(() => '');
  const material = JSON.stringify([VERSION, inputs.file, fileValues, env, inputs.overrides ?? null, inputs.cwd, hostname(), process.env.TZ ?? null, localtime]);
  return createHash('sha256').update(material).digest('hex');
}

/**
 * The schema's identity: a hash of its module, beside this one and of the same kind
 * (`schema.js` in a build, `schema.ts` under the tests), whose defaults and rules make the
 * validated config. The agent's version alone does not tell one schema from another: a build
 * from a clone, or a package whose version was not raised, can add a key with a default, and
 * an entry validated by the schema before would hand the daemon a config without that key.
 * Read once per process (some 40 kB).
 */
export function schemaIdentity(): Promise<string> {
  const schemaModule = new URL(`./schema${path.extname(new URL(import.meta.url).pathname)}`, import.meta.url);
  return (identity ??= readFile(schemaModule).then(
    (bytes) => createHash('sha256').update(bytes).digest('hex'),
    // Not beside this module (a bundler moved it): no entry is ever trusted.
    () => `unknown ${process.pid} ${Date.now()}`,
  ));
}
let identity: Promise<string> | undefined;

/** A validated config is a few KiB; anything much larger is not ours. */
const CONFIG_CACHE_MAX_BYTES = 1024 * 1024;

/** The entry in `dataDir` when its key is `key`; null when there is none, it is unreadable or stale. */
export async function readConfigCache(dataDir: string, key: string): Promise<ConfigCacheEntry | null> {
  try {
    // Read like every file the agent opens (system/regular-file.ts): a FIFO put in its place
    // would hold a libuv thread, and the start, for ever.
    const { text } = await readRegularFileBounded(path.join(dataDir, CONFIG_CACHE_FILE), CONFIG_CACHE_MAX_BYTES);
    const entry = JSON.parse(text) as ConfigCacheEntry;
    const fresh = entry.key === key && entry.schema === (await schemaIdentity());
    return fresh && typeof entry.config === 'object' && entry.config !== null ? entry : null;
  } catch {
    return null;
  }
}

/**
 * Writes the entry when `dataDir` exists and belongs to this user: a command run by
 * another user (root, say) must not leave a file the daemon's user cannot replace.
 * Best effort: any failure leaves the next start to validate again.
 */
export async function writeConfigCache(dataDir: string, entry: ConfigCacheEntry): Promise<void> {
  const file = path.join(dataDir, CONFIG_CACHE_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    const dir = await stat(dataDir);
    if (!dir.isDirectory() || (typeof process.getuid === 'function' && dir.uid !== process.getuid())) return;
    const config = structuredClone(entry.config);
    delete (config.service as { token?: string }).token;
    await writeFile(tmp, JSON.stringify({ ...entry, config }), { mode: 0o600 });
    await rename(tmp, file);
  } catch {
    await unlink(tmp).catch(() => {});
  }
}

/** The `dataDir` a config will have, read without the schema: flags, then environment, then file, then the default. */
export function expectedDataDir(inputs: ConfigCacheInputs, defaultDir: string): string {
  const fromFlags = (inputs.overrides as { dataDir?: unknown } | undefined)?.dataDir;
  if (typeof fromFlags === 'string' && fromFlags !== '') return path.resolve(inputs.cwd, fromFlags);
  const fromEnv = inputs.env.STATION_AGENT_DATA_DIR;
  if (fromEnv) return path.resolve(inputs.cwd, fromEnv);
  const fromFile = inputs.fileValues?.dataDir;
  if (typeof fromFile === 'string' && fromFile !== '' && inputs.file) return path.resolve(path.dirname(inputs.file), fromFile);
  return defaultDir;
}

function withoutToken(values: Record<string, unknown>): Record<string, unknown> {
  const service = values.service;
  if (typeof service !== 'object' || service === null || !('token' in service)) return values;
  return { ...values, service: { ...service, token: typeof (service).token === 'string' ? '<set>' : (service).token } };
}
