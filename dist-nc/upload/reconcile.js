const SAME_INSTANT_MS = 1;
const WINDOW_MS = 1_000;
const PAGE = 100;
const MAX_PAGES = 5;
export async function findSoundscape(api, item, isTaken, signal) {
    const at = Date.parse(item.timestamp);
    const { from, to } = window(item.timestamp, at);
    return findInPages(async (cursor) => (await api.listSoundscapes({ from, to, limit: PAGE, cursor }, signal)).soundscapes, (page) => {
        const matches = page.filter((s) => soundscapeMatches(s, at, item) && !isTaken(s.id));
        return matches.find((s) => item.filesize != null && Number(s.filesize) === item.filesize) ?? matches[0];
    });
}
async function findInPages(list, pick) {
    let cursor;
    for (let page = 0; page < MAX_PAGES; page++) {
        const items = await list(cursor);
        const found = pick(items);
        if (found)
            return found.id;
        if (items.length < PAGE)
            return null;
        cursor = items[items.length - 1]?.id;
    }
    return null;
}
function soundscapeMatches(s, at, item) {
    if (Math.abs(Date.parse(s.timestamp) - at) > SAME_INSTANT_MS)
        return false;
    if (item.durationS == null || s.duration == null)
        return true;
    return Math.abs(Number(s.duration) - item.durationS) <= 1;
}
export class SpeciesIdCache {
    ids = new Map();
    static MAX = 2_000;
    async idFor(api, scientificName, commonName, signal) {
        const key = `${scientificName}_${commonName}`;
        if (this.ids.has(key))
            return this.ids.get(key) ?? null;
        let id = null;
        try {
            const res = await api.lookupSpecies([key], ['id'], signal);
            const found = res.species[key];
            id = typeof found?.id === 'number' ? found.id : null;
        }
        catch {
            return null;
        }
        if (this.ids.size >= SpeciesIdCache.MAX)
            this.ids.clear();
        this.ids.set(key, id);
        return id;
    }
}
export async function findDetection(api, item, species, isTaken, signal) {
    const at = Date.parse(item.timestamp);
    const { from, to } = window(item.timestamp, at);
    const speciesId = await species.idFor(api, item.scientificName, item.commonName, signal);
    return findInPages(async (cursor) => {
        const query = { from, to, limit: PAGE, cursor };
        if (speciesId != null)
            query.speciesId = speciesId;
        return (await api.listDetections(query, signal)).detections;
    }, (page) => page.find((d) => detectionMatches(d, at, item) && !isTaken(d.id)));
}
function detectionMatches(d, at, item) {
    if (Math.abs(Date.parse(d.timestamp) - at) > SAME_INSTANT_MS)
        return false;
    if (d.species?.scientificName?.toLowerCase() !== item.scientificName.toLowerCase())
        return false;
    if (typeof d.confidence === 'number' && Math.abs(d.confidence - item.confidence) > 1e-4)
        return false;
    const ref = d.soundscape;
    if (item.soundscapeRemoteId != null && ref) {
        if (typeof ref.startTime === 'number' && Math.abs(ref.startTime - item.startS) > 1e-3)
            return false;
    }
    return true;
}
function window(timestamp, at) {
    if (Number.isNaN(at))
        throw new RangeError(`cannot reconcile an item with an invalid timestamp: ${timestamp}`);
    return { from: new Date(at - WINDOW_MS).toISOString(), to: new Date(at + WINDOW_MS).toISOString() };
}
