import { nameKey } from '../policy/names.js';
import { FileTooLargeError, NotRegularFileError, readRegularFileBounded } from '../system/regular-file.js';
import { LabelsFileError } from './errors.js';
export function parseLabelLines(text) {
    const entries = [];
    for (const raw of text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/)) {
        const line = raw.trim();
        if (line === '')
            continue;
        const cut = line.indexOf('_');
        const scientificName = (cut < 0 ? line : line.slice(0, cut)).trim();
        const commonName = (cut < 0 ? line : line.slice(cut + 1)).trim();
        entries.push({ scientificName, commonName });
    }
    return entries;
}
export class Labels {
    size;
    bySci = new Map();
    byCommon = new Map();
    constructor(size) {
        this.size = size;
    }
    static fromText(primary, localized) {
        const primaryEntries = parseLabelLines(primary.text);
        if (primaryEntries.length === 0)
            throw new LabelsFileError(primary.name, 'holds no labels');
        const labels = new Labels(primaryEntries.length);
        for (const entry of primaryEntries)
            labels.add(entry, true);
        if (localized) {
            const localizedEntries = parseLabelLines(localized.text);
            if (localizedEntries.length === 0)
                throw new LabelsFileError(localized.name, 'holds no labels');
            for (const entry of localizedEntries)
                labels.add(entry, false);
        }
        return labels;
    }
    static async load(primaryPath, localizedPath) {
        const primary = { name: primaryPath, text: await readLabelsFile(primaryPath) };
        const localized = localizedPath
            ? { name: localizedPath, text: await readLabelsFile(localizedPath) }
            : undefined;
        return Labels.fromText(primary, localized);
    }
    byScientificName(name) {
        return this.bySci.get(nameKey(name));
    }
    byCommonName(name) {
        const found = this.lookupCommonName(name);
        return found.kind === 'found' ? found.species : undefined;
    }
    lookupCommonName(name) {
        const sciKeys = this.byCommon.get(nameKey(name));
        if (!sciKeys)
            return { kind: 'missing' };
        const candidates = [...sciKeys].map((key) => this.bySci.get(key));
        if (candidates.length === 1)
            return { kind: 'found', species: candidates[0] };
        return { kind: 'ambiguous', candidates };
    }
    knows(name) {
        const key = nameKey(name);
        if (this.bySci.has(key) || this.byCommon.has(key))
            return true;
        const cut = name.indexOf('_');
        return cut > 0 && this.bySci.has(nameKey(name.slice(0, cut))) && this.byCommon.has(nameKey(name.slice(cut + 1)));
    }
    *names() {
        for (const entry of this.bySci.values()) {
            yield entry.scientificName;
            if (entry.commonName !== entry.scientificName)
                yield entry.commonName;
        }
    }
    add(entry, primary) {
        const sciKey = nameKey(entry.scientificName);
        if (!this.bySci.has(sciKey))
            this.bySci.set(sciKey, entry);
        else if (primary)
            return;
        const commonKey = nameKey(entry.commonName);
        let sciKeys = this.byCommon.get(commonKey);
        if (!sciKeys)
            this.byCommon.set(commonKey, (sciKeys = new Set()));
        sciKeys.add(sciKey);
    }
}
export const LABELS_FILE_MAX_BYTES = 4 * 1024 * 1024;
async function readLabelsFile(filePath) {
    try {
        return (await readRegularFileBounded(filePath, LABELS_FILE_MAX_BYTES, { followSymlinks: true })).text;
    }
    catch (err) {
        if (err instanceof NotRegularFileError)
            throw new LabelsFileError(filePath, `not a regular file (${err.kind})`, { cause: err });
        if (err instanceof FileTooLargeError)
            throw new LabelsFileError(filePath, `larger than ${LABELS_FILE_MAX_BYTES} bytes, not read`, { cause: err });
        throw new LabelsFileError(filePath, `cannot be read (${err.code ?? String(err)})`, {
            cause: err,
        });
    }
}
export function resolveSpecies(names, labels) {
    const scientificName = names.scientificName?.trim() ?? '';
    const commonName = names.commonName?.trim() ?? '';
    if (scientificName !== '') {
        const known = labels?.byScientificName(scientificName);
        if (known)
            return { ok: true, species: known };
        if (commonName === '') {
            return {
                ok: false,
                problem: `no common name for "${scientificName}" and ${labels ? 'the labels do not list it' : 'no labels file is configured'}`,
            };
        }
        return { ok: true, species: { scientificName, commonName } };
    }
    if (commonName === '')
        return { ok: false, problem: 'neither a scientific nor a common name' };
    if (!labels) {
        return {
            ok: false,
            problem: `only the common name "${commonName}" is given and no labels file is configured to find its scientific name`,
        };
    }
    const found = labels.lookupCommonName(commonName);
    if (found.kind === 'found')
        return { ok: true, species: found.species };
    if (found.kind === 'ambiguous') {
        const both = found.candidates.map((c) => `"${c.scientificName}" (${c.commonName})`).join(' and ');
        return { ok: false, problem: `common name "${commonName}" is ambiguous in the labels: ${both}` };
    }
    return { ok: false, problem: `common name "${commonName}" is not in the labels file(s)` };
}
