import { LIST_LIMIT_MAX } from '../../wire/types.js';
import { DETECTION_LIST_PARAMS, SOUNDSCAPE_LIST_PARAMS, SPECIES_LIST_PARAMS, STATS_PARAMS, pickParams } from '../../api/query.js';
import { redactDeep } from '../../wire/redact.js';
import { detectionColumns, detectionFields, soundscapeColumns, soundscapeFields, speciesColumns, speciesFields } from '../format/api-view.js';
import { JsonArrayWriter } from '../format/json.js';
import { createOutput } from '../format/output.js';
import { layoutTable, renderHeader, renderRows, renderTable } from '../format/table.js';
import { pagesByCursor, pagesByNumber } from './api-pages.js';
import { createCliClient } from './support/client.js';
import { loadCliConfig } from './support/context.js';
import { UsageError } from './support/errors.js';
async function session(flags, station, fn) {
    const loaded = await loadCliConfig(flags);
    const { client, secrets } = await createCliClient(loaded, flags, station);
    try {
        await fn({ client, out: createOutput(), clean: (value) => redactDeep(value, secrets) });
    }
    finally {
        await client.close();
    }
}
export async function statsAction(flags) {
    const query = pickParams(flags, STATS_PARAMS);
    await session(flags, true, async ({ client, out, clean }) => {
        const stats = clean(await client.stats(query));
        if (flags.json)
            return out.json(stats);
        out.lines([`detections: ${stats.detections}`, `species:    ${stats.species}`]);
    });
}
export async function speciesAction(flags) {
    const query = pickParams(flags, SPECIES_LIST_PARAMS);
    await session(flags, true, async ({ client, out, clean }) => {
        if (!flags.all) {
            const response = clean(await client.listStationSpecies(query));
            if (flags.json)
                return out.json(response);
            printTable(out, speciesColumns(out.style), response.species, 'no species match');
            const limit = flags.limit ?? LIST_LIMIT_MAX;
            if (response.species.length >= limit)
                out.note(`more species: add --page ${(flags.page ?? 1) + 1} (or --all)`);
            return;
        }
        const limit = flags.limit ?? LIST_LIMIT_MAX;
        const pages = pagesByNumber(async (page) => clean((await client.listStationSpecies({ ...query, limit, page })).species), limit, flags.page ?? 1);
        await streamListing(out, flags, 'species', pages, speciesColumns(out.style), 'no species match');
    });
}
export async function detectionsAction(flags) {
    const query = pickParams(flags, DETECTION_LIST_PARAMS);
    await session(flags, true, async ({ client, out, clean }) => {
        if (!flags.all) {
            const response = clean(await client.listDetections(query));
            if (flags.json)
                return out.json(response);
            printTable(out, detectionColumns(out.style), response.detections, 'no detections match');
            if (response.detections.length === 0 && response.unfiltered_detections?.length) {
                out.note(`the service sent ${response.unfiltered_detections.length} unfiltered detections as a fallback (see --json); none match the filters`);
            }
            moreByCursor(out, response.detections, flags.limit, 'detections');
            return;
        }
        const limit = flags.limit ?? LIST_LIMIT_MAX;
        const pages = pagesByCursor(async (cursor) => clean((await client.listDetections({ ...query, limit, cursor })).detections), limit, flags.cursor);
        await streamListing(out, flags, 'detections', pages, detectionColumns(out.style), 'no detections match');
    });
}
export async function detectionAction(id, flags) {
    if (flags.global && flags.stationId !== undefined)
        throw new UsageError('--global reads without a station: it cannot be combined with --station-id');
    await session(flags, !flags.global, async ({ client, out, clean }) => {
        const detection = clean(flags.global ? await client.getGlobalDetection(id) : await client.getDetection(id));
        if (flags.json)
            return out.json({ success: true, detection });
        out.lines(detectionFields(detection, out.style));
    });
}
export async function soundscapesAction(flags) {
    const query = pickParams(flags, SOUNDSCAPE_LIST_PARAMS);
    await session(flags, true, async ({ client, out, clean }) => {
        if (!flags.all) {
            const response = clean(await client.listSoundscapes(query));
            if (flags.json)
                return out.json(response);
            printTable(out, soundscapeColumns(), response.soundscapes, 'no soundscapes match');
            moreByCursor(out, response.soundscapes, flags.limit, 'soundscapes');
            return;
        }
        const limit = flags.limit ?? LIST_LIMIT_MAX;
        const pages = pagesByCursor(async (cursor) => clean((await client.listSoundscapes({ ...query, limit, cursor })).soundscapes), limit, flags.cursor);
        await streamListing(out, flags, 'soundscapes', pages, soundscapeColumns(), 'no soundscapes match');
    });
}
export async function soundscapeAction(id, flags) {
    await session(flags, true, async ({ client, out, clean }) => {
        const soundscape = clean(await client.getSoundscape(id, { detections: flags.detections }));
        if (flags.json)
            return out.json({ success: true, soundscape });
        out.lines(soundscapeFields(soundscape));
        if (soundscape.detections) {
            out.line();
            printTable(out, detectionColumns(out.style), soundscape.detections, 'no detections in this soundscape');
        }
    });
}
export async function speciesInfoAction(id, flags) {
    await session(flags, false, async ({ client, out, clean }) => {
        const species = clean(await client.getSpecies(id));
        if (flags.json)
            return out.json({ success: true, species });
        out.lines(speciesFields(species));
    });
}
export async function speciesLookupAction(names, flags) {
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
    if (flags.fields !== undefined && !fields?.length)
        throw new UsageError('--fields needs one or more field names, comma-separated');
    await session(flags, false, async ({ client, out, clean }) => {
        const response = clean(await client.lookupSpecies(names, fields));
        if (flags.json)
            return out.json(response);
        for (const [key, species] of Object.entries(response.species)) {
            out.line(out.style.bold(key));
            out.lines(speciesFields(species).map((l) => `  ${l}`));
        }
        const missing = names.filter((n) => !(n in response.species));
        for (const n of missing)
            out.note(`not found: ${n}`);
    });
}
function printTable(out, columns, rows, empty) {
    if (rows.length === 0) {
        out.note(empty);
        return;
    }
    out.lines(renderTable(columns, rows, out.style.dim));
}
function moreByCursor(out, rows, limit, what) {
    if (rows.length > 0 && rows.length >= (limit ?? LIST_LIMIT_MAX)) {
        out.note(`more ${what}: add --cursor ${rows[rows.length - 1].id} (or --all)`);
    }
}
async function streamListing(out, flags, key, pages, columns, empty) {
    let count = 0;
    let pageCount = 0;
    if (flags.json) {
        const writer = new JsonArrayWriter(out.stdout, key);
        try {
            for await (const page of pages) {
                writer.push(page);
                pageCount++;
            }
        }
        finally {
            writer.end({ pages: pageCount });
        }
        return;
    }
    let layout;
    for await (const page of pages) {
        if (!layout) {
            layout = layoutTable(columns, page);
            out.line(renderHeader(columns, layout, out.style.dim));
        }
        out.lines(renderRows(columns, page, layout));
        count += page.length;
        pageCount++;
    }
    if (count === 0)
        out.note(empty);
    else
        out.note(`${count} ${key} in ${pageCount} page${pageCount === 1 ? '' : 's'}`);
}
