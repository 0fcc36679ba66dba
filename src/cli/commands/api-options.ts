import { Option } from 'commander';
import {
  BAT_BEHAVIOR_KEYS,
  CLASSIFICATIONS,
  LIST_LIMIT_MAX,
  REST_PERIODS,
  SOUNDSCAPE_MODES,
} from '../../wire/types.js';
import { integerIn, isoDate, listOf } from './support/options.js';

/**
 * The options of `station-agent api ...`: one per query parameter of the REST V1
 * reads, named after the parameter in kebab case (`speciesId` -> `--species-id`).
 * Enumerations are checked here, so a typo is a usage error (exit 2) naming the
 * accepted values, not a silent empty result from the service.
 */

const SPECIES_SORTS = ['common_name', 'scientific_name', 'top'] as const;
const ORDERS = ['asc', 'desc'] as const;

export const apiOption = {
  period: () => new Option('--period <period>', 'day, week, month or all (service default: day)').choices(REST_PERIODS),
  since: () => new Option('--since <time>', 'ISO 8601 start; overrides --period').argParser(isoDate),
  from: () => new Option('--from <time>', 'ISO 8601 start (inclusive)').argParser(isoDate),
  to: () => new Option('--to <time>', 'ISO 8601 end (inclusive)').argParser(isoDate),
  mode: () => new Option('--mode <mode>', `recording mode: ${SOUNDSCAPE_MODES.join(', ')}`).choices(SOUNDSCAPE_MODES),
  classification: () =>
    new Option('--classification <list>', `one or more of ${CLASSIFICATIONS.join(', ')} (comma-separated)`).argParser(listOf(CLASSIFICATIONS)),
  behavior: () =>
    new Option('--behavior <list>', `bat behaviour keys, comma-separated: ${BAT_BEHAVIOR_KEYS.join(', ')}`).argParser(listOf(BAT_BEHAVIOR_KEYS)),
  limit: () => new Option('--limit <n>', `items per page, 1 to ${LIST_LIMIT_MAX} (service default: ${LIST_LIMIT_MAX})`).argParser(integerIn(1, LIST_LIMIT_MAX)),
  page: () => new Option('--page <n>', 'page number, from 1').argParser(integerIn(1)),
  cursor: () => new Option('--cursor <id>', 'continue after this id (the last id of the previous page)').argParser(integerIn(0)),
  sort: () => new Option('--sort <field>', 'common_name, scientific_name or top (service default: top)').choices(SPECIES_SORTS),
  order: () => new Option('--order <dir>', 'asc or desc (service default: asc by name, else desc)').choices(ORDERS),
  speciesId: () => new Option('--species-id <id>', 'only this species (numeric id)').argParser(integerIn(1)),
  query: () => new Option('--query <text>', 'search species names (ignored with --species-id)'),
  locale: () => new Option('--locale <locale>', 'language of --query, e.g. de'),
  shortlist: () => new Option('--shortlist', 'include the candidate species shortlist (bat edition stations)'),
  detections: () => new Option('--detections', 'include the detections of each soundscape'),
  all: () => new Option('--all', 'follow the pages to the end, printing page by page'),
} as const;
