import path from 'node:path';
import { ConfigError } from './errors.js';
import { readEnvironment } from './env.js';
import { formatIssues } from './issues.js';
import { findJsonSyntaxError } from './json-syntax.js';
import { folderOverlapProblem } from './folder-overlap.js';
import { deepMerge, deleteAt, getAt, isPlainObject, leafPaths, setAt } from './merge.js';
import { configSchema, type Config, type ConfigInput } from './schema.js';
import { configKeys } from './schema-keys.js';
import { redactText, redactUrl, urlPassword } from '../wire/redact.js';
import { SecretFileError, fileProblem, looseModeWarning, readSecretFile } from './secret-files.js';
import { readRegularFileBounded } from '../system/regular-file.js';

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

/** Where the station token came from: `service.token` in the config file, the environment, or `service.tokenFile`. */
export type TokenSource = 'file' | 'env' | 'tokenFile' | null;

type DeepPartial<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> | undefined }
    : T;

/**
 * Values from command-line flags, shaped like the config file; `undefined` means "not
 * given". The token has no flag: other users can read a process's arguments.
 */
export type ConfigOverrides = DeepPartial<
  Omit<ConfigInput, 'service'> & { service?: Omit<NonNullable<ConfigInput['service']>, 'token'> }
>;

export interface LoadConfigOptions {
  /** The config file; default `$STATION_AGENT_CONFIG`, else `/etc/station-agent/config.json`. */
  path?: string | undefined;
  env?: NodeJS.ProcessEnv;
  overrides?: ConfigOverrides | undefined;
  /** Base of relative paths from the environment and flags; default `process.cwd()`. */
  cwd?: string;
}

export interface LoadedConfig {
  /** Validated, every default filled in, every path absolute; `service.token` holds the token file's content when one is used. */
  config: Config;
  /** The config file read, or null when there was none. */
  path: string | null;
  /** Things the operator should fix that do not stop the agent (loose file modes, plain http, unknown variables). */
  warnings: string[];
  tokenSource: TokenSource;
}

const FLAG_SOURCE = 'a command-line flag';

interface Layer {
  name: 'file' | 'env' | 'flags';
  values: Record<string, unknown>;
}

export async function loadConfig(options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const warnings: string[] = [];

  const named = options.path ?? (env.STATION_AGENT_CONFIG || undefined);
  const file = path.resolve(cwd, named ?? DEFAULT_CONFIG_PATH);
  const fromEnv = options.path === undefined && named !== undefined;
  const fileValues = await readConfigFile(file, named !== undefined, fromEnv);
  const filePath = fileValues ? file : null;
  const context = filePath ? `config file ${filePath}` : `no config file at ${file}`;
  if (!fileValues) {
    warnings.push(
      `no config file at ${file} (set STATION_AGENT_CONFIG or pass a path to use another); using defaults, environment and flags only`,
    );
  }

  const fileLayer: Layer = { name: 'file', values: fileValues ?? {} };
  resolvePaths(fileLayer.values, path.dirname(file));

  const environment = readEnvironment(env);
  warnings.push(...environment.warnings);
  const envLayer: Layer = { name: 'env', values: environment.values };
  resolvePaths(envLayer.values, cwd);

  const flagValues = (deepMerge({}, options.overrides ?? {}) ?? {}) as Record<string, unknown>;
  if (getAt(flagValues, ['service', 'token']) !== undefined) {
    throw new ConfigError(
      ['service.token cannot be given as a flag (other users can read command lines); use STATION_AGENT_TOKEN or service.tokenFile'],
      filePath,
      context,
    );
  }
  const flagLayer: Layer = { name: 'flags', values: flagValues };
  resolvePaths(flagLayer.values, cwd);

  const layers = [fileLayer, envLayer, flagLayer];
  // Problems never echo a token key's value; a token pasted into another key is removed too.
  const secrets = [
    env.STATION_AGENT_ADMIN_TOKEN,
    ...layers.map((l) => getAt(l.values, ['service', 'token'])),
    // A broker password written into mqtt.url is as secret as the token.
    ...layers.map((l) => urlPassword(asString(getAt(l.values, ['mqtt', 'url'])))),
  ].filter((s): s is string => typeof s === 'string');
  const tokenWarning = settleTokenConflict(layers);
  if (tokenWarning) warnings.push(tokenWarning);

  const merged = layers.reduce<unknown>((acc, layer) => deepMerge(acc, layer.values), {});
  const flagIds = new Set(leafPaths(flagLayer.values).map((p) => p.join('.')));
  const sourceOf = (id: string): string | undefined => {
    if (flagIds.has(id)) return FLAG_SOURCE;
    return environment.sources.get(id);
  };

  const parsed = configSchema.safeParse(merged, { reportInput: true });
  if (!parsed.success) {
    const problems = formatIssues(parsed.error.issues, { sourceOf }).map((p) => redactText(p, secrets));
    throw new ConfigError(problems, filePath, context);
  }
  const config = parsed.data;
  const overlap = await folderOverlapProblem(config.dataDir, config.input.dir);
  if (overlap) throw new ConfigError([overlap], filePath, context);

  let tokenSource: TokenSource = null;
  if (config.service.tokenFile !== undefined) {
    tokenSource = 'tokenFile';
    try {
      const secret = await readSecretFile('service.tokenFile', config.service.tokenFile, { oneWord: true });
      config.service.token = secret.value;
      if (secret.looseMode) warnings.push(secret.looseMode);
    } catch (err) {
      if (err instanceof SecretFileError) throw new ConfigError([err.message], filePath, context, { cause: err });
      throw err;
    }
  } else if (config.service.token !== undefined) {
    tokenSource = getAt(envLayer.values, ['service', 'token']) !== undefined ? 'env' : 'file';
  }

  if (filePath && typeof getAt(fileLayer.values, ['service', 'token']) === 'string') {
    const loose = await looseModeWarning(filePath, 'config file');
    if (loose) warnings.push(loose);
  }
  const plain = plainHttpWarning(config.service.baseUrl);
  if (plain) warnings.push(plain);

  return { config, path: filePath, warnings, tokenSource };
}

/**
 * Validates a config object without files or environment (tests, embedding). Relative
 * paths stay as given and a token file is not read.
 */
export function parseConfig(input: unknown, file: string | null = null): Config {
  const parsed = configSchema.safeParse(input, { reportInput: true });
  if (!parsed.success) throw new ConfigError(formatIssues(parsed.error.issues), file);
  return parsed.data;
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
    const where = findJsonSyntaxError(text);
    const detail = where ? `: ${where.message} at line ${where.line}, column ${where.column}` : '';
    throw new ConfigError([`the file is not valid JSON${detail}`], file, context);
  }
  if (!isPlainObject(value)) throw new ConfigError(['the file must hold a JSON object ({ ... })'], file, context);
  return value;
}

function asString(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function resolvePaths(values: Record<string, unknown>, base: string): void {
  for (const key of configKeys()) {
    if (key.meta.path !== true) continue;
    const value = getAt(values, key.path);
    if (typeof value === 'string' && value !== '') setAt(values, key.path, path.resolve(base, value));
  }
}

/**
 * `service.token` and `service.tokenFile` exclude each other. Set in the same layer,
 * the schema reports it; set in different layers, the higher layer wins (an exported
 * STATION_AGENT_TOKEN beats the file's tokenFile) and the other is dropped with a warning.
 */
function settleTokenConflict(layers: Layer[]): string | null {
  const top = (key: string) => layers.findLastIndex((l) => getAt(l.values, ['service', key]) !== undefined);
  const tokenAt = top('token');
  const fileAt = top('tokenFile');
  if (tokenAt < 0 || fileAt < 0 || tokenAt === fileAt) return null;
  const [loser, winner] = tokenAt > fileAt ? ['tokenFile', 'token'] : ['token', 'tokenFile'];
  const winnerLayer = layers[Math.max(tokenAt, fileAt)].name;
  const loserLayer = layers[Math.min(tokenAt, fileAt)].name;
  for (const layer of layers.slice(0, Math.max(tokenAt, fileAt))) deleteAt(layer.values, ['service', loser]);
  return `service.${winner} from the ${layerWords(winnerLayer)} replaces service.${loser} from the ${layerWords(loserLayer)}`;
}

function layerWords(name: Layer['name']): string {
  return name === 'file' ? 'config file' : name === 'env' ? 'environment' : 'command line';
}

function plainHttpWarning(baseUrl: string): string | null {
  const url = new URL(baseUrl);
  if (url.protocol !== 'http:') return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host === '::1' || /^127\./.test(host)) return null;
  return `service.baseUrl ${redactUrl(baseUrl)} is plain http to another host: the station token travels unencrypted in the URL path; use https://`;
}
