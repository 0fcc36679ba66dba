import { ENV_PREFIX, configKeys, type ConfigKey } from './schema-keys.js';
import { setAt } from './merge.js';

/**
 * Environment overrides, zigbee2mqtt style: every leaf key has a variable named
 * `STATION_AGENT_` + its key path in upper snake case (`upload.concurrency` ->
 * `STATION_AGENT_UPLOAD_CONCURRENCY`, `station.settings.minScore` ->
 * `STATION_AGENT_STATION_SETTINGS_MIN_SCORE`). Values are read as JSON when that gives a
 * value the key accepts (`4`, `true`, `null`), else as the plain string; an empty value
 * counts as unset.
 */

/** Variables that are not config keys: the config file's path and the CLI's admin token. */
const NON_KEY_VARIABLES = ['STATION_AGENT_CONFIG', 'STATION_AGENT_ADMIN_TOKEN'] as const;

/** Short names for the two keys most often set from the environment. */
export const ENV_SHORTCUTS: Readonly<Record<string, string>> = {
  STATION_AGENT_TOKEN: 'service.token',
  STATION_AGENT_BASE_URL: 'service.baseUrl',
};

export interface EnvironmentLayer {
  /** Nested values, shaped like the config file. */
  values: Record<string, unknown>;
  /** Dotted key path -> the variable it came from. */
  sources: Map<string, string>;
  warnings: string[];
}

export function readEnvironment(env: NodeJS.ProcessEnv): EnvironmentLayer {
  const keysByEnv = new Map(configKeys().map((k) => [k.envName, k]));
  const keysById = new Map(configKeys().map((k) => [k.id, k]));
  const layer: EnvironmentLayer = { values: {}, sources: new Map(), warnings: [] };

  const apply = (name: string, key: ConfigKey, raw: string) => {
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
    if (raw === undefined || raw === '') continue;
    if ((NON_KEY_VARIABLES as readonly string[]).includes(name) || name in ENV_SHORTCUTS) continue;
    const key = keysByEnv.get(name);
    if (key) apply(name, key, raw);
    else layer.warnings.push(`environment variable ${name} is not a config setting and is ignored`);
  }
  // Shortcuts last: they win over their long forms.
  for (const [name, id] of Object.entries(ENV_SHORTCUTS)) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    apply(name, keysById.get(id)!, raw);
  }
  return layer;
}

/** JSON when the key accepts the result (`2` -> 2, `null` -> null), else the string itself. */
function parseValue(key: ConfigKey, raw: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return raw;
  }
  if (key.schema.safeParse(parsed).success) return parsed;
  if (key.schema.safeParse(raw).success) return raw;
  // Neither fits: keep the JSON reading so the error says e.g. "must be at most 16 (got 20)".
  return typeof parsed === 'object' && parsed !== null ? raw : parsed;
}
