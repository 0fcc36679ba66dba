import type {
  Classification,
  DetectionListQuery,
  RestPeriod,
  SoundscapeListQuery,
  SoundscapeMode,
  SpeciesListQuery,
  StatsQuery,
  BatBehaviorKey,
} from '../../wire/types.js';
import { LIST_LIMIT_MAX } from '../../wire/types.js';
import type { ServiceClient } from '../../api/index.js';
import { DETECTION_LIST_PARAMS, SOUNDSCAPE_LIST_PARAMS, SPECIES_LIST_PARAMS, STATS_PARAMS, pickParams } from '../../api/query.js';
import { redactDeep } from '../../wire/redact.js';
import { detectionColumns, detectionFields, soundscapeColumns, soundscapeFields, speciesColumns, speciesFields } from '../format/api-view.js';
import { JsonArrayWriter } from '../format/json.js';
import { createOutput, type Output } from '../format/output.js';
import { layoutTable, renderHeader, renderRows, renderTable, type Column, type TableLayout } from '../format/table.js';
import { pagesByCursor, pagesByNumber } from './api-pages.js';
import { createCliClient, type ClientFlags } from './support/client.js';
import { loadCliConfig } from './support/context.js';
import { UsageError } from './support/errors.js';

/** The actions of `station-agent api ...`, loaded only when one runs. */

export interface ApiFlags extends ClientFlags {
  config?: string;
  json?: boolean;
  period?: RestPeriod;
  since?: string;
  from?: string;
  to?: string;
  mode?: SoundscapeMode;
  classification?: Classification[];
  behavior?: BatBehaviorKey[];
  limit?: number;
  page?: number;
  cursor?: number;
  sort?: SpeciesListQuery['sort'];
  order?: SpeciesListQuery['order'];
  speciesId?: number;
  query?: string;
  locale?: string;
  shortlist?: boolean;
  detections?: boolean;
  all?: boolean;
  global?: boolean;
  fields?: string;
}

interface Session {
  client: ServiceClient;
  out: Output;
  /** Removes every secret of the client from what is printed (a body might echo one back). */
  clean: <T>(value: T) => T;
}

async function session(flags: ApiFlags, station: boolean, fn: (s: Session) => Promise<void>): Promise<void> {
  const loaded = await loadCliConfig(flags);
  const { client } = await createCliClient(loaded, flags, station);
  try {
    await fn({ client, out: createOutput(), clean: (value) => redactDeep(value) });
  } finally {
    await client.close();
  }
}

export async function statsAction(flags: ApiFlags): Promise<void> {
  const query: StatsQuery = pickParams(flags, STATS_PARAMS);
  await session(flags, true, async ({ client, out, clean }) => {
    const stats = clean(await client.stats(query));
    if (flags.json) return out.json(stats);
    out.lines([`detections: ${stats.detections}`, `species:    ${stats.species}`]);
  });
}

export async function speciesAction(flags: ApiFlags): Promise<void> {
  const query: SpeciesListQuery = pickParams(flags, SPECIES_LIST_PARAMS);
  await session(flags, true, async ({ client, out, clean }) => {
    await listing(out, flags, {
      key: 'species',
      columns: speciesColumns(out.style),
      empty: 'no species match',
      page: async () => clean(await client.listStationSpecies(query)),
      rows: (response) => response.species,
      more: (rows, limit) => {
        if (rows.length >= limit) out.note(`more species: add --page ${(flags.page ?? 1) + 1} (or --all)`);
      },
      all: (limit) => pagesByNumber(async (page) => clean((await client.listStationSpecies({ ...query, limit, page })).species), limit, flags.page ?? 1),
    });
  });
}

export async function detectionsAction(flags: ApiFlags): Promise<void> {
  const query: DetectionListQuery = pickParams(flags, DETECTION_LIST_PARAMS);
  await session(flags, true, async ({ client, out, clean }) => {
    await listing(out, flags, {
      key: 'detections',
      columns: detectionColumns(out.style),
      empty: 'no detections match',
      page: async () => clean(await client.listDetections(query)),
      rows: (response) => response.detections,
      more: (rows, limit, response) => {
        if (rows.length === 0 && response.unfiltered_detections?.length) {
          out.note(`the service sent ${response.unfiltered_detections.length} unfiltered detections as a fallback (see --json); none match the filters`);
        }
        moreByCursor(out, rows, limit, 'detections');
      },
      all: (limit) => pagesByCursor(async (cursor) => clean((await client.listDetections({ ...query, limit, cursor })).detections), limit, flags.cursor),
    });
  });
}

export async function detectionAction(id: number, flags: ApiFlags): Promise<void> {
  if (flags.global && flags.stationId !== undefined) throw new UsageError('--global reads without a station: it cannot be combined with --station-id');
  await session(flags, !flags.global, async ({ client, out, clean }) => {
    const detection = clean(flags.global ? await client.getGlobalDetection(id) : await client.getDetection(id));
    if (flags.json) return out.json({ success: true, detection });
    out.lines(detectionFields(detection, out.style));
  });
}

export async function soundscapesAction(flags: ApiFlags): Promise<void> {
  const query: SoundscapeListQuery = pickParams(flags, SOUNDSCAPE_LIST_PARAMS);
  await session(flags, true, async ({ client, out, clean }) => {
    await listing(out, flags, {
      key: 'soundscapes',
      columns: soundscapeColumns(),
      empty: 'no soundscapes match',
      page: async () => clean(await client.listSoundscapes(query)),
      rows: (response) => response.soundscapes,
      more: (rows, limit) => moreByCursor(out, rows, limit, 'soundscapes'),
      all: (limit) => pagesByCursor(async (cursor) => clean((await client.listSoundscapes({ ...query, limit, cursor })).soundscapes), limit, flags.cursor),
    });
  });
}

export async function soundscapeAction(id: number, flags: ApiFlags): Promise<void> {
  await session(flags, true, async ({ client, out, clean }) => {
    const soundscape = clean(await client.getSoundscape(id, { detections: flags.detections }));
    if (flags.json) return out.json({ success: true, soundscape });
    out.lines(soundscapeFields(soundscape));
    if (soundscape.detections) {
      out.line();
      printTable(out, detectionColumns(out.style), soundscape.detections, 'no detections in this soundscape');
    }
  });
}

export async function speciesInfoAction(id: number, flags: ApiFlags): Promise<void> {
  await session(flags, false, async ({ client, out, clean }) => {
    const species = clean(await client.getSpecies(id));
    if (flags.json) return out.json({ success: true, species });
    out.lines(speciesFields(species));
  });
}

export async function speciesLookupAction(names: string[], flags: ApiFlags): Promise<void> {
  for (const name of names) {
    const at = name.indexOf('_');
    if (at <= 0 || at === name.length - 1) {
      throw new UsageError(`species "${name}" must be written "<scientific name>_<common name>", e.g. "Pica pica_Eurasian Magpie"`);
    }
  }
  const fields = flags.fields
    ?.split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  if (flags.fields !== undefined && !fields?.length) throw new UsageError('--fields needs one or more field names, comma-separated');
  await session(flags, false, async ({ client, out, clean }) => {
    const response = clean(await client.lookupSpecies(names, fields));
    if (flags.json) return out.json(response);
    for (const [key, species] of Object.entries(response.species)) {
      out.line(out.style.bold(key));
      out.lines(speciesFields(species).map((l) => `  ${l}`));
    }
    const missing = names.filter((n) => !(n in response.species));
    for (const n of missing) out.note(`not found: ${n}`);
  });
}

function printTable<Row>(out: Output, columns: Column<Row>[], rows: readonly Row[], empty: string): void {
  if (rows.length === 0) {
    out.note(empty);
    return;
  }
  out.lines(renderTable(columns, rows, out.style.dim));
}

/** One listing command: one page as the service answers it (`--json`: the answer as it is), or with `--all` every page, streamed. */
interface Listing<Row, Response> {
  /** The rows' name: the JSON key with `--all`, and the summary's noun. */
  key: string;
  columns: Column<Row>[];
  empty: string;
  page(): Promise<Response>;
  rows(response: Response): Row[];
  /** After one page's table: how to ask for the next (`limit`: `--limit` or the service's maximum). */
  more(rows: Row[], limit: number, response: Response): void;
  all(limit: number): AsyncIterable<Row[]>;
}

async function listing<Row, Response>(out: Output, flags: ApiFlags, list: Listing<Row, Response>): Promise<void> {
  const limit = flags.limit ?? LIST_LIMIT_MAX;
  if (flags.all) return streamListing(out, flags, list.key, list.all(limit), list.columns, list.empty);
  const response = await list.page();
  if (flags.json) return out.json(response);
  const rows = list.rows(response);
  printTable(out, list.columns, rows, list.empty);
  list.more(rows, limit, response);
}

function moreByCursor(out: Output, rows: readonly { id: number }[], limit: number, what: string): void {
  if (rows.length > 0 && rows.length >= limit) {
    out.note(`more ${what}: add --cursor ${rows[rows.length - 1].id} (or --all)`);
  }
}

/** Prints pages as they arrive: a JSON document built incrementally, or one table whose widths the first page sets. */
async function streamListing<Row>(
  out: Output,
  flags: ApiFlags,
  key: string,
  pages: AsyncIterable<Row[]>,
  columns: Column<Row>[],
  empty: string,
): Promise<void> {
  let count = 0;
  let pageCount = 0;
  if (flags.json) {
    const writer = new JsonArrayWriter(out.stdout, key);
    try {
      for await (const page of pages) {
        writer.push(page);
        pageCount++;
      }
    } finally {
      // A failure half way still leaves valid JSON behind; the error goes to stderr and the exit code.
      writer.end({ pages: pageCount });
    }
    return;
  }
  let layout: TableLayout | undefined;
  for await (const page of pages) {
    if (!layout) {
      layout = layoutTable(columns, page);
      out.line(renderHeader(columns, layout, out.style.dim));
    }
    out.lines(renderRows(columns, page, layout));
    count += page.length;
    pageCount++;
  }
  if (count === 0) out.note(empty);
  else out.note(`${count} ${key} in ${pageCount} page${pageCount === 1 ? '' : 's'}`);
}
