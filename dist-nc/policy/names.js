export function nameKey(name) {
    return name.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();
}
function keysOf(species) {
    return [nameKey(species.scientificName), nameKey(species.commonName), nameKey(`${species.scientificName}_${species.commonName}`)];
}
export class NameSet {
    keys;
    constructor(names) {
        this.keys = new Set(names.map(nameKey));
    }
    get size() {
        return this.keys.size;
    }
    has(species) {
        return keysOf(species).some((k) => this.keys.has(k));
    }
}
export class NameMap {
    byKey;
    constructor(entries) {
        this.byKey = new Map(Object.entries(entries).map(([name, value]) => [nameKey(name), value]));
    }
    get(species) {
        for (const key of keysOf(species)) {
            const value = this.byKey.get(key);
            if (value !== undefined)
                return value;
        }
        return undefined;
    }
}
