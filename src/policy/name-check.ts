import type { Config } from '../config/index.js';
import { NameSuggester } from './name-suggest.js';

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

/** One index per labels, built at the first name they do not know (most configs have none). */
const suggesters = new WeakMap<KnownNames, NameSuggester>();

function closeMatch(name: string, known: KnownNames): string | undefined {
  let suggester = suggesters.get(known);
  if (!suggester) suggesters.set(known, (suggester = new NameSuggester(known.names())));
  return suggester.suggest(name);
}
