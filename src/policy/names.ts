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
  return name.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();
}

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
