import { editDistance } from '../config/edit-distance.js';
import type { Config } from '../config/index.js';
import { nameKey } from './names.js';

/**
 * Names in the config that no labels file knows: a class `Human` where the labels say
 * `Human vocal`, a species misspelt in `filters.include`. Such a name matches no row, so a
 * filter the owner believes on is off; nothing else would say so. Asked where the labels
 * are loaded: at start (daemon, `ingest`), by `config validate` and by `doctor`.
 */

/** What the analyzer's labels know (`Labels` from the labels files). */
export interface KnownNames {
  /** Whether a configured name (scientific, common, or a whole `Scientific_Common` line) is one of them. */
  knows(name: string): boolean;
  /** Every scientific and common name, for a suggestion. */
  names(): Iterable<string>;
}

export interface UnknownName {
  /** The config key, e.g. `filters.include`. */
  key: string;
  name: string;
  /** The closest name the labels know, when one is close. */
  suggestion?: string;
}

type NamePolicies = Pick<Config, 'privacy' | 'filters'>;

/** Every configured class or species name the labels do not know, in config order. */
export function unknownConfigNames(config: NamePolicies, known: KnownNames): UnknownName[] {
  const lists: [key: string, names: readonly string[]][] = [
    ['privacy.humanClasses', config.privacy.humanClasses],
    ['filters.nonBirdClasses', config.filters.nonBirdClasses],
    ['filters.include', config.filters.include],
    ['filters.exclude', config.filters.exclude],
    ['filters.speciesMinConfidence', Object.keys(config.filters.speciesMinConfidence)],
  ];
  const unknown: UnknownName[] = [];
  for (const [key, names] of lists) {
    for (const name of names) {
      if (known.knows(name)) continue;
      const suggestion = closeMatch(name, known);
      unknown.push(suggestion === undefined ? { key, name } : { key, name, suggestion });
    }
  }
  return unknown;
}

/** One line for the log, `config validate` and `doctor`. */
export function describeUnknownName(u: UnknownName): string {
  return (
    `${u.key}: ${JSON.stringify(u.name)} is no species or class of the labels file (input.labels), so it matches no row` +
    (u.suggestion === undefined ? '' : `; did you mean ${JSON.stringify(u.suggestion)}?`)
  );
}

/**
 * The known name the configured one most likely meant: one that holds it as whole words
 * (`Human` -> `Human vocal`), else the nearest by edit distance within a third of its
 * length (`Turdus merla` -> `Turdus merula`).
 */
function closeMatch(name: string, known: KnownNames): string | undefined {
  const key = nameKey(name);
  if (key.length === 0) return undefined;
  const words = new RegExp(`(^| )${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( |$)`);
  const limit = Math.max(1, Math.floor(key.length / 3));
  let containing: string | undefined;
  let nearest: string | undefined;
  let nearestDistance = limit + 1;
  for (const candidate of known.names()) {
    const c = nameKey(candidate);
    if (words.test(c) && (containing === undefined || candidate.length < containing.length)) containing = candidate;
    if (Math.abs(c.length - key.length) > limit) continue;
    const d = editDistance(key, c);
    if (d < nearestDistance) {
      nearestDistance = d;
      nearest = candidate;
    }
  }
  return containing ?? nearest;
}
