import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { open, readFile, readlink, rename, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
 * the key covers, or the code of validation changed ({@link schemaIdentity}).
 *
 * The token is never written here: the entry says where it came from, and the loader takes
 * it from there again (the token file, the environment, the config file). The key is built
 * from the config file with its `service.token` value left out for the same reason. The
 * file is written only when the inputs changed (a miss), with the mode 0600 of the config
 * it mirrors, fsync'd before its rename (a power cut leaves the old entry or the new one,
 * never a renamed file whose blocks were not written). Each entry carries a digest of what
 * it holds ({@link entryDigest}): an entry edited by hand, or torn, is not trusted, and the
 * config is validated again.
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
  /** The digest of the fields above ({@link entryDigest}), written with them. */
  digest?: string;
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
  /** The system's zone file; default /etc/localtime (a test names its own). */
  localtime?: string;
}

export async function configCacheKey(inputs: ConfigCacheInputs): Promise<string> {
  const fileValues = inputs.fileValues ? withoutToken(inputs.fileValues) : null;
  const env = Object.keys(inputs.env)
    .filter((name) => name.startsWith('STATION_AGENT_'))
    .sort()
    .map((name) => [name, SECRET_VARIABLES.has(name) ? inputs.env[name] !== '' : inputs.env[name]]);
  const localtime = await zoneFileIdentity(inputs.localtime ?? '/etc/localtime');
  const material = JSON.stringify([VERSION, inputs.file, fileValues, env, inputs.overrides ?? null, inputs.cwd, hostname(), process.env.TZ ?? null, localtime]);
  return createHash('sha256').update(material).digest('hex');
}

/**
 * The system's zone as the key sees it: where /etc/localtime links to, or, where it is a
 * regular file (a copy of the zone's file, as some images and `timedatectl` on older systems
 * leave it), a hash of its content; '' when it is missing. A few KiB, read at each start.
 */
async function zoneFileIdentity(file: string): Promise<string> {
  try {
    return `link ${await readlink(file)}`;
  } catch {
    // Not a link: the file's own content, read like every file the agent opens.
  }
  try {
    const { bytes } = await readRegularFileBounded(file, ZONE_FILE_MAX_BYTES, { followSymlinks: true });
    return `file ${createHash('sha256').update(bytes).digest('hex')}`;
  } catch {
    return '';
  }
}
/** A zone file (TZif) is a few KiB; the largest of the tz database under 4 KiB. */
const ZONE_FILE_MAX_BYTES = 256 * 1024;

/**
 * The identity of validation's code: a hash of every module validation runs (validate.ts, the
 * validation child, and each module they import, transitively: the schema, its ranges in
 * wire/types, time ranges, the env parser, the merge, ...) and of the versions of the npm
 * packages they import (zod), computed by the build ({@link computeValidationIdentity},
 * scripts/validation-identity.mjs) into `validation-identity.json` beside this module. The
 * agent's version alone does not tell one validation from another: a build from a clone, or a
 * package whose version was not raised, can tighten a range or add a key with a default, and an
 * entry validated before would hand the daemon a config its own rules refuse, or one without
 * that key. Under the tests (the sources, `.ts`), computed from the sources at the first use.
 * Read once per process.
 */
export function schemaIdentity(): Promise<string> {
  return (identity ??= readValidationIdentity());
}
let identity: Promise<string> | undefined;

/** The file the build writes beside this module (scripts/validation-identity.mjs). */
export const VALIDATION_IDENTITY_FILE = 'validation-identity.json';
/** The modules validation starts from, beside this one. */
const VALIDATION_ENTRIES = ['validate', 'validate-child'];

async function readValidationIdentity(): Promise<string> {
  const here = new URL(import.meta.url);
  if (path.extname(here.pathname) === '.ts') return (await computeValidationIdentity(fileURLToPath(here))).identity;
  try {
    const { identity: value } = JSON.parse(await readFile(new URL(`./${VALIDATION_IDENTITY_FILE}`, here), 'utf8')) as { identity?: unknown };
    if (typeof value === 'string' && /^[0-9a-f]{64}$/.test(value)) return value;
  } catch {
    // Missing or unreadable (a build that did not write it): no entry is ever trusted.
  }
  return `unknown ${process.pid} ${Date.now()}`;
}

/** `from './x.js'`, `import './x.js'`, `import('./x.js')`, `require('luxon')`: a module's or a package's name. */
const IMPORT_SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]([^'"\n]+)['"]/g;

/**
 * What {@link schemaIdentity} hashes, from `cacheModule` (this module's file: validation's
 * entries are beside it): every module reached by relative imports from them, by its path
 * relative to the folder above (`config/schema.js`, `wire/types.js`) and its bytes, and
 * `name@version` of each package they import. `.js` imports of the sources resolve to their
 * `.ts`. Used by the build, and by the tests on the sources.
 */
export async function computeValidationIdentity(cacheModule: string): Promise<{ identity: string; modules: string[]; packages: string[] }> {
  const ext = path.extname(cacheModule);
  const root = path.dirname(path.dirname(cacheModule));
  const pending = VALIDATION_ENTRIES.map((name) => path.join(path.dirname(cacheModule), `${name}${ext}`));
  const seen = new Map<string, Buffer>();
  const packages = new Set<string>();
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (seen.has(file)) continue;
    // A path a comment quotes, not a module: hashed as missing.
    const bytes = await readFile(file).catch(() => Buffer.from('missing'));
    seen.set(file, bytes);
    for (const [, specifier] of bytes.toString('utf8').matchAll(IMPORT_SPECIFIER)) {
      if (specifier.startsWith('node:')) continue;
      if (specifier.startsWith('.')) {
        const target = path.resolve(path.dirname(file), specifier);
        pending.push(ext === '.ts' && !existsSync(target) ? target.replace(/\.js$/, '.ts') : target);
      } else {
        packages.add(await packageVersion(specifier, file));
      }
    }
  }
  const modules = [...seen.keys()].map((file) => path.relative(root, file)).sort();
  const hash = createHash('sha256');
  for (const module of modules) hash.update(`${module}\0`).update(seen.get(path.join(root, module)) as Buffer).update('\0');
  const sortedPackages = [...packages].sort();
  hash.update(sortedPackages.join('\0'));
  return { identity: hash.digest('hex'), modules, packages: sortedPackages };
}

/** `name@version` of the package `specifier` names, found as `require` would from `from`. */
async function packageVersion(specifier: string, from: string): Promise<string> {
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  for (let dir = path.dirname(from); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'node_modules', name, 'package.json');
    if (existsSync(manifest)) return `${name}@${(JSON.parse(await readFile(manifest, 'utf8')) as { version?: string }).version ?? '?'}`;
    if (path.dirname(dir) === dir) return `${name}@?`;
  }
}

/**
 * The digest an entry is written with: of its key, schema, config, token source and warnings.
 * An entry whose digest does not match what it holds was edited (by hand, by another program)
 * or torn, and is not trusted: what the daemon runs on is always what validation gave.
 */
export function entryDigest(entry: ConfigCacheEntry): string {
  const { key, schema, config, tokenSource, tokenVariable, warnings } = entry;
  return createHash('sha256').update(JSON.stringify([key, schema, config, tokenSource, tokenVariable ?? null, warnings])).digest('hex');
}

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
    return fresh && typeof entry.config === 'object' && entry.config !== null && entry.digest === entryDigest(entry) ? entry : null;
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
    const written = { ...entry, config };
    const fh = await open(tmp, 'w', 0o600);
    try {
      await fh.writeFile(JSON.stringify({ ...written, digest: entryDigest(written) }));
      await fh.sync();
    } finally {
      await fh.close();
    }
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
