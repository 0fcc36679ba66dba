import { z } from 'zod';
import { configSchema } from './schema.js';

/**
 * The leaf keys of the config schema, found by walking it. Environment variable names,
 * relative-path resolution and "did you mean" hints are all derived from this list, so a
 * key added to the schema gets them without further code.
 */

export const ENV_PREFIX = 'STATION_AGENT_';

export interface ConfigKey {
  /** Key path, e.g. `['upload', 'concurrency']`. */
  path: readonly string[];
  /** Dotted key path, e.g. `upload.concurrency`. */
  id: string;
  /** Its environment variable, e.g. `STATION_AGENT_UPLOAD_CONCURRENCY`. */
  envName: string;
  /** The leaf schema (with its default/optional/nullable wrappers): validates one value. */
  schema: z.ZodType;
  /** Metadata of the leaf and its wrappers (description, examples, path, secret, defaultText). */
  meta: z.GlobalMeta;
}

/** `minHumanConfidence` -> `MIN_HUMAN_CONFIDENCE`. */
export function upperSnake(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}

export function envNameFor(path: readonly string[]): string {
  return ENV_PREFIX + path.map(upperSnake).join('_');
}

/** Strips default/prefault/optional/nullable/pipe wrappers, merging their metadata (outer wins). */
function unwrap(schema: z.ZodType): { inner: z.ZodType; meta: z.GlobalMeta } {
  const layers: z.GlobalMeta[] = [];
  let current: z.ZodType = schema;
  for (;;) {
    const meta = z.globalRegistry.get(current);
    if (meta) layers.push(meta);
    if (
      current instanceof z.ZodDefault ||
      current instanceof z.ZodPrefault ||
      current instanceof z.ZodOptional ||
      current instanceof z.ZodNullable
    ) {
      current = current.unwrap() as z.ZodType;
    } else if (current instanceof z.ZodPipe) {
      current = current.in as z.ZodType;
    } else {
      break;
    }
  }
  return { inner: current, meta: Object.assign({}, ...layers.reverse()) as z.GlobalMeta };
}

function walk(schema: z.ZodType, prefix: readonly string[], out: ConfigKey[]): void {
  const { inner, meta } = unwrap(schema);
  if (inner instanceof z.ZodObject) {
    const shape: Record<string, z.ZodType> = inner.shape;
    for (const [key, child] of Object.entries(shape)) walk(child, [...prefix, key], out);
    return;
  }
  out.push({ path: prefix, id: prefix.join('.'), envName: envNameFor(prefix), schema, meta });
}

let cached: readonly ConfigKey[] | undefined;

/** Every leaf key of the config schema, in schema order. */
export function configKeys(): readonly ConfigKey[] {
  if (!cached) {
    const out: ConfigKey[] = [];
    walk(configSchema, [], out);
    cached = out;
  }
  return cached;
}

/** Section descriptions (metadata of object-valued keys), e.g. `upload` -> its description. */
export function sectionDescriptions(): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (schema: z.ZodType, prefix: readonly string[]) => {
    const { inner, meta } = unwrap(schema);
    if (!(inner instanceof z.ZodObject)) return;
    if (prefix.length > 0 && typeof meta.description === 'string') out.set(prefix.join('.'), meta.description);
    const shape: Record<string, z.ZodType> = inner.shape;
    for (const [key, child] of Object.entries(shape)) visit(child, [...prefix, key]);
  };
  visit(configSchema, []);
  return out;
}
