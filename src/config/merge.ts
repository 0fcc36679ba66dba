/** Small helpers over plain nested objects, used to layer file, environment and flags. */

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

export function getAt(root: unknown, path: readonly string[]): unknown {
  let current = root;
  for (const key of path) {
    if (!isPlainObject(current)) return undefined;
    current = current[key];
  }
  return current;
}

/** Sets a value, creating the objects on the way (replacing non-objects in the way). */
export function setAt(root: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let current = root;
  for (const key of path.slice(0, -1)) {
    const next = current[key];
    if (!isPlainObject(next)) current[key] = {};
    current = current[key] as Record<string, unknown>;
  }
  current[path[path.length - 1]] = value;
}

export function deleteAt(root: unknown, path: readonly string[]): void {
  const parent = getAt(root, path.slice(0, -1));
  if (isPlainObject(parent)) delete parent[path[path.length - 1]];
}

/**
 * `over` laid onto `base`, recursively for plain objects; anything else in `over`
 * replaces. `undefined` in `over` means "not given" (unset CLI flags) and changes nothing.
 */
export function deepMerge(base: unknown, over: unknown): unknown {
  if (over === undefined) return base;
  if (!isPlainObject(over) || !isPlainObject(base)) return isPlainObject(over) ? deepMerge({}, over) : over;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    out[key] = deepMerge(base[key], value);
  }
  return out;
}

/** Dotted paths of every non-object value, e.g. `['upload.concurrency', ...]`. */
export function leafPaths(root: unknown, prefix: readonly string[] = []): string[][] {
  if (!isPlainObject(root)) return prefix.length ? [[...prefix]] : [];
  const out: string[][] = [];
  for (const [key, value] of Object.entries(root)) {
    if (value === undefined) continue;
    out.push(...leafPaths(value, [...prefix, key]));
  }
  return out;
}
