import path from 'node:path';
import { ConfigError } from './errors.js';
import { isPlainObject } from './merge.js';
import type { Config } from './schema.js';
// Declared beside the validation that uses them (loaded lazily), so the two modules form no circle.
import type { ConfigOverrides, TokenSource } from './validate.js';
import { addSecret, redactUrl } from '../wire/redact.js';
import { SecretFileError, fileProblem, looseModeWarning, readSecretFile } from './secret-files.js';
import { folderOverlapProblem } from './folder-overlap.js';
import { addConfigSecrets } from './show.js';
import { readRegularFileBounded } from '../system/regular-file.js';
import { DEFAULT_DATA_DIR } from './data-dir.js';
import { configCacheKey, expectedDataDir, readConfigCache, schemaIdentity, writeConfigCache, type ConfigCacheEntry } from './cache.js';

/**
 * Loading the configuration. Precedence: defaults < config file < environment < flags.
 *
 * The file is `options.path`, else `$STATION_AGENT_CONFIG`, else
 * `/etc/station-agent/config.json`. A missing file is an error when it was named, and a
 * warning when only the default path was tried (the environment may hold everything).
 * Relative paths in the file are resolved against the file's folder; relative paths
 * from the environment or flags against the working directory.
 */

export const DEFAULT_CONFIG_PATH = '/etc/station-agent/config.json';

export type { ConfigOverrides, TokenSource };

export interface LoadConfigOptions {
  /** The config file; default `$STATION_AGENT_CONFIG`, else `/etc/station-agent/config.json`. */
  path?: string | undefined;
  env?: NodeJS.ProcessEnv;
  overrides?: ConfigOverrides | undefined;
  /** Base of relative paths from the environment and flags; default `process.cwd()`. */
  cwd?: string;
  /**
   * Use the validated config of the last start when nothing it depends on changed
   * (cache.ts). Default true; `config validate` and `doctor` validate every time.
   */
  cache?: boolean;
  /**
   * Validate, when the cache misses, in a short-lived child process (validate-apart.ts),
   * so that this process never loads zod and the schema: the daemon's choice. Default false.
   */
  validateApart?: boolean;
  /**
   * What an unreadable `service.tokenFile` is: `error` (default) a ConfigError; `report`
   * no token, with the problem in `tokenProblem`, for the commands that show what they
   * can without the token (`status`, `doctor`).
   */
  unreadableTokenFile?: 'error' | 'report';
}

export interface LoadedConfig {
  /** Validated, every default filled in, every path absolute; `service.token` holds the token file's content when one is used. */
  config: Config;
  /** The config file read, or null when there was none. */
  path: string | null;
  /** Things the operator should fix that do not stop the agent (loose file modes, plain http, unknown variables). */
  warnings: string[];
  tokenSource: TokenSource;
  /**
   * With `unreadableTokenFile: 'report'`: why the token file could not be read, naming the
   * key, never the path or the content (secret-files.ts says why); else null.
   */
  tokenProblem: string | null;
  /**
   * With `validateApart`: why validation ran in this process instead of its child, the first
   * time it did in this process (also in `warnings`); else null.
   */
  validationFallback: string | null;
}

export async function loadConfig(options: LoadConfigOptions = {}): Promise<LoadedConfig> {
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

  // Known before anything is validated or checked: any message below may show a setting the token was pasted into.
  const rawService = fileValues?.service;
  if (isPlainObject(rawService) && typeof rawService.token === 'string') addSecret(rawService.token);
  addSecret(env.STATION_AGENT_TOKEN);

  const useCache = options.cache !== false;
  const cacheInputs = { file: filePath, fileValues, env, overrides: options.overrides, cwd };
  const key = useCache ? await configCacheKey(cacheInputs) : '';
  const dataDir = expectedDataDir(cacheInputs, DEFAULT_DATA_DIR);
  let entry = useCache ? await readConfigCache(dataDir, key) : null;
  let token: string | undefined;
  let validationFallback: string | null = null;
  if (entry) {
    token = cachedToken(entry, fileValues, env);
    // A token of the wrong shape is the schema's to report.
    if (token !== undefined && !/^\S+$/.test(token)) entry = null;
  }
  if (!entry) {
    // zod and the schema load only here (cache.ts says why), or in a child process.
    const inputs = { file, filePath, fileValues, context, env, cwd, overrides: options.overrides };
    let validated;
    if (options.validateApart) {
      const apart = await (await import('./validate-apart.js')).validateApart(inputs);
      validated = apart.validated;
      validationFallback = apart.fallback;
    } else {
      validated = (await import('./validate.js')).validateLayers(inputs);
    }
    entry = { key, schema: await schemaIdentity(), ...validated };
    // The child's answer holds no token: it is read from its source, as for a cached entry.
    token = validated.config.service.token ?? cachedToken(entry, fileValues, env);
    if (useCache && validated.config.dataDir === dataDir) await writeConfigCache(dataDir, entry);
  }
  const config: Config = structuredClone(entry.config);
  const warnings = [...noFile, ...entry.warnings, ...(validationFallback ? [validationFallback] : [])];
  addSecret(token);

  let tokenProblem: string | null = null;
  if (entry.tokenSource === 'tokenFile' && config.service.tokenFile !== undefined) {
    try {
      const secret = await readSecretFile('service.tokenFile', config.service.tokenFile, { oneWord: true });
      config.service.token = secret.value;
      if (secret.looseMode) warnings.push(secret.looseMode);
    } catch (err) {
      if (!(err instanceof SecretFileError)) throw err;
      if (options.unreadableTokenFile !== 'report') throw new ConfigError([err.message], filePath, context, { cause: err });
      tokenProblem = err.message;
      delete (config.service as { token?: string }).token;
    }
  } else if (token !== undefined) {
    config.service.token = token;
  } else {
    delete (config.service as { token?: string }).token;
  }
  addConfigSecrets(config);
  const pasted = keysHoldingToken(config);
  if (pasted.length > 0) {
    throw new ConfigError(
      pasted.map((key) => `${key} holds the station token (pasted into the wrong place?): the token belongs in service.tokenFile (or service.token) alone`),
      filePath,
      context,
    );
  }
  // What the file system says is checked at every start: a folder moved, a file's mode.
  const overlap = await folderOverlapProblem(config.dataDir, config.input.dir);
  if (overlap) throw new ConfigError([overlap], filePath, context);

  const service = fileValues?.service;
  if (filePath && isPlainObject(service) && typeof service.token === 'string') {
    const loose = await looseModeWarning(filePath, 'config file');
    if (loose) warnings.push(loose);
  }
  const plain = plainHttpWarning(config.service.baseUrl);
  if (plain) warnings.push(plain);

  return { config, path: filePath, warnings, tokenSource: entry.tokenSource, tokenProblem, validationFallback };
}

/** A token this short is not looked for in other settings: a refusal for a common word would stop a station (no real token is that short). */
const TOKEN_SEARCH_MIN_LENGTH = 8;

/**
 * The keys, other than `service.token`, whose text holds the token: a folder named after it
 * would be printed and logged, a station name pushed to the service as its public name.
 * Tokens shorter than {@link TOKEN_SEARCH_MIN_LENGTH} are not looked for (a test's `x` is everywhere).
 */
function keysHoldingToken(config: Config): string[] {
  const token = config.service.token;
  if (!token || token.length < TOKEN_SEARCH_MIN_LENGTH) return [];
  const found: string[] = [];
  const walk = (value: unknown, key: string) => {
    if (typeof value === 'string') {
      if (key !== 'service.token' && value.includes(token)) found.push(key);
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => walk(v, `${key}.${i}`));
    } else if (isPlainObject(value)) {
      for (const [k, v] of Object.entries(value)) walk(v, key ? `${key}.${k}` : k);
    }
  };
  walk(config, '');
  return found;
}

/** The token of a cached config, from where it came from at validation (the entry never holds it). */
function cachedToken(entry: ConfigCacheEntry, fileValues: Record<string, unknown> | null, env: NodeJS.ProcessEnv): string | undefined {
  if (entry.tokenSource === 'env') return env[entry.tokenVariable ?? 'STATION_AGENT_TOKEN'] || undefined;
  if (entry.tokenSource === 'file') {
    const service = fileValues?.service;
    return isPlainObject(service) && typeof service.token === 'string' ? service.token : undefined;
  }
  return undefined;
}

/** The token, for commands that talk to the service; a ConfigError saying how to set one otherwise. */
export function requireToken(loaded: Pick<LoadedConfig, 'config' | 'path'>): string {
  const token = loaded.config.service.token;
  if (token) return token;
  throw new ConfigError(
    ['service.token is required: set service.tokenFile or service.token in the config file, or STATION_AGENT_TOKEN'],
    loaded.path,
  );
}

/** A config file is a few kilobytes. */
const CONFIG_FILE_MAX_BYTES = 1024 * 1024;

async function readConfigFile(file: string, named: boolean, fromEnv: boolean): Promise<Record<string, unknown> | null> {
  const context = `config file ${file}`;
  let text: string;
  try {
    // A regular file only, with a bound: a FIFO in its place must not block a reload.
    text = (await readRegularFileBounded(file, CONFIG_FILE_MAX_BYTES, { followSymlinks: true })).text;
  } catch (err) {
    const problem = fileProblem(err);
    if (problem === 'does not exist' && !named) return null;
    const origin = fromEnv ? ' (named by STATION_AGENT_CONFIG)' : '';
    throw new ConfigError([`the file ${problem}${origin}`], file, context);
  }
  text = text.replace(/^\uFEFF/, '');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The scanner that finds where is loaded only for a file that needs it.
    const { findJsonSyntaxError } = await import('./json-syntax.js');
    const where = findJsonSyntaxError(text);
    const detail = where ? `: ${where.message} at line ${where.line}, column ${where.column}` : '';
    throw new ConfigError([`the file is not valid JSON${detail}`], file, context);
  }
  if (!isPlainObject(value)) throw new ConfigError(['the file must hold a JSON object ({ ... })'], file, context);
  return value;
}

function plainHttpWarning(baseUrl: string): string | null {
  const url = new URL(baseUrl);
  if (url.protocol !== 'http:') return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host === '::1' || /^127\./.test(host)) return null;
  return `service.baseUrl ${redactUrl(baseUrl)} is plain http to another host: the station token travels unencrypted in the URL path; use https://`;
}
