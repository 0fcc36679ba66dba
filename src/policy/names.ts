/**
 * Species and class names as operators write them in the config: a scientific name
 * (`Pica pica`), a common name (`Eurasian Magpie`) or a whole labels-file line
 * (`Pica pica_Eurasian Magpie`, `Dog_Dog`), matched case-insensitively with the
 * labels' own name key (NFC, trimmed, inner white space collapsed).
 */
export interface NamedSpecies {
  scientificName: string;
  commonName: string;
}

/**
 * The key under which names are compared, in the config and in the analyzer's labels alike:
 * NFC, trimmed, inner whitespace collapsed, lower case.
 */
export function nameKey(name: string): string {
  let key = RECENT_KEYS.get(name);
  if (key === undefined) {
    if (RECENT_KEYS.size >= RECENT_KEYS_MAX) RECENT_KEYS.clear();
    key = name.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();
    RECENT_KEYS.set(name, key);
  }
  return key;
}

/**
 * The keys of the names met most recently. A station's detections name the same few hundred
 * species again and again, each checked against several name lists, and the NFC step is most
 * of a key's cost: ingest spent more time making keys than parsing rows. Emptied when full,
 * so it never holds more than RECENT_KEYS_MAX names.
 */
const RECENT_KEYS = new Map<string, string>();
const RECENT_KEYS_MAX = 1024;

/** The keys a configured name may match for one species. */
function keysOf(species: NamedSpecies): string[] {
  return [nameKey(species.scientificName), nameKey(species.commonName), nameKey(`${species.scientificName}_${species.commonName}`)];
}

/** A set of configured names. */
export class NameSet {
  private readonly keys: Set<string>;

  constructor(names: readonly string[]) {
    this.keys = new Set(names.map(nameKey));
  }

  get size(): number {
    return this.keys.size;
  }

  has(species: NamedSpecies): boolean {
    return keysOf(species).some((k) => this.keys.has(k));
  }
}

/** Configured names with a value each (e.g. a per-species threshold). */
export class NameMap<T> {
  private readonly byKey: Map<string, T>;

  constructor(entries: Readonly<Record<string, T>>) {
    this.byKey = new Map(Object.entries(entries).map(([name, value]) => [nameKey(name), value]));
  }

  /** The value for a species: by scientific name first, then common name, then the labels line. */
  get(species: NamedSpecies): T | undefined {
    for (const key of keysOf(species)) {
      const value = this.byKey.get(key);
      if (value !== undefined) return value;
    }
    return undefined;
  }
}
