import path from 'node:path';
import { ConfigError } from './errors.js';
import { readEnvironment } from './env.js';
import { formatIssues, type IssueContext } from './issues.js';
import { deepMerge, deleteAt, getAt, leafPaths, setAt } from './merge.js';
import { configSchema, type Config, type ConfigInput } from './schema.js';
import { configKeys } from './schema-keys.js';
import { addSecret, redactText, urlPassword } from '../wire/redact.js';

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

/**
 * The schema's half of loading (load.ts reads the file and keeps the rest): layers
 * merged (defaults < file < environment < flags), validated, every default filled in,
 * relative paths resolved. Loaded only when the config cache misses (cache.ts): zod and
 * the schema are the largest thing a start would otherwise load.
 */
export interface ValidatedLayers {
  /** `service.token` as the layers give it (a token file is read by the loader). */
  config: Config;
  tokenSource: TokenSource;
  /** With `tokenSource: 'env'`: the variable it came from. */
  tokenVariable?: string;
  /** The warnings that follow from the inputs alone. */
  warnings: string[];
}

export interface LayerInputs {
  /** The config file's path (relative paths in it are resolved against its folder). */
  file: string;
  filePath: string | null;
  fileValues: Record<string, unknown> | null;
  context: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  overrides: ConfigOverrides | undefined;
}

export function validateLayers(inputs: LayerInputs): ValidatedLayers {
  const { env, cwd, filePath, context } = inputs;
  const warnings: string[] = [];
  const fileLayer: Layer = { name: 'file', values: structuredClone(inputs.fileValues ?? {}) };
  resolvePaths(fileLayer.values, path.dirname(inputs.file));

  const environment = readEnvironment(env);
  warnings.push(...environment.warnings);
  const envLayer: Layer = { name: 'env', values: environment.values };
  resolvePaths(envLayer.values, cwd);

  const flagValues = (deepMerge({}, inputs.overrides ?? {}) ?? {}) as Record<string, unknown>;
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
  addSecret(
    env.STATION_AGENT_ADMIN_TOKEN,
    ...layers.map((l) => asString(getAt(l.values, ['service', 'token']))),
    // A broker password written into mqtt.url is as secret as the token.
    ...layers.map((l) => urlPassword(asString(getAt(l.values, ['mqtt', 'url'])))),
  );
  const tokenWarning = settleTokenConflict(layers);
  if (tokenWarning) warnings.push(tokenWarning);

  const merged = layers.reduce<unknown>((acc, layer) => deepMerge(acc, layer.values), {});
  const flagIds = new Set(leafPaths(flagLayer.values).map((p) => p.join('.')));
  const sourceOf = (id: string): string | undefined => {
    if (flagIds.has(id)) return FLAG_SOURCE;
    return environment.sources.get(id);
  };

  const config = parseConfig(merged, filePath, { sourceOf, context });
  let tokenSource: TokenSource = null;
  let tokenVariable: string | undefined;
  if (config.service.tokenFile !== undefined) tokenSource = 'tokenFile';
  else if (config.service.token !== undefined) {
    tokenVariable = environment.sources.get('service.token');
    tokenSource = getAt(envLayer.values, ['service', 'token']) !== undefined ? 'env' : 'file';
  }
  return { config, tokenSource, ...(tokenSource === 'env' && tokenVariable ? { tokenVariable } : {}), warnings };
}

/**
 * The schema's check of merged values: every default filled in, or a ConfigError with one
 * line per problem (a registered secret never quoted). The last step of `validateLayers`,
 * and on its own a config object's check without files or environment (tests, embedding):
 * relative paths stay as given and a token file is not read.
 */
export function parseConfig(
  input: unknown,
  file: string | null = null,
  how: { sourceOf?: IssueContext['sourceOf']; context?: string } = {},
): Config {
  const parsed = configSchema.safeParse(input, { reportInput: true });
  if (!parsed.success) {
    const problems = formatIssues(parsed.error.issues, { sourceOf: how.sourceOf }).map((p) => redactText(p));
    throw new ConfigError(problems, file, how.context);
  }
  return parsed.data;
}

const FLAG_SOURCE = 'a command-line flag';

interface Layer {
  name: 'file' | 'env' | 'flags';
  values: Record<string, unknown>;
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
