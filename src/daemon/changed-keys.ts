/** Does `pattern` (a key or `section.*`) cover the key `id`? */
export function keyMatches(pattern: string, id: string): boolean {
  return pattern.endsWith('.*') ? id.startsWith(pattern.slice(0, -1)) : id === pattern;
}

/**
 * The keys a reload changed, by id (`upload.windows`, `privacy.audio`); `has` takes keys
 * or `section.*` patterns, as `reload-keys.ts` writes them. Its own module: the daemon
 * loads it at start, and the key table (which walks the schema) only at the first reload.
 * @example changed.has('privacy.*', 'input.minConfidence')
 */
export class ChangedKeys {
  constructor(readonly ids: readonly string[]) {}

  has(...patterns: string[]): boolean {
    return this.ids.some((id) => patterns.some((pattern) => keyMatches(pattern, id)));
  }
}
