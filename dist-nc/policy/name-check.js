import { editDistance } from '../config/edit-distance.js';
import { nameKey } from './names.js';
export function unknownConfigNames(config, known) {
    const lists = [
        ['privacy.humanClasses', config.privacy.humanClasses],
        ['filters.nonBirdClasses', config.filters.nonBirdClasses],
        ['filters.include', config.filters.include],
        ['filters.exclude', config.filters.exclude],
        ['filters.speciesMinConfidence', Object.keys(config.filters.speciesMinConfidence)],
    ];
    const unknown = [];
    for (const [key, names] of lists) {
        for (const name of names) {
            if (known.knows(name))
                continue;
            const suggestion = closeMatch(name, known);
            unknown.push(suggestion === undefined ? { key, name } : { key, name, suggestion });
        }
    }
    return unknown;
}
export function describeUnknownName(u) {
    return (`${u.key}: ${JSON.stringify(u.name)} is no species or class of the labels file (input.labels), so it matches no row` +
        (u.suggestion === undefined ? '' : `; did you mean ${JSON.stringify(u.suggestion)}?`));
}
function closeMatch(name, known) {
    const key = nameKey(name);
    if (key.length === 0)
        return undefined;
    const words = new RegExp(`(^| )${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( |$)`);
    const limit = Math.max(1, Math.floor(key.length / 3));
    let containing;
    let nearest;
    let nearestDistance = limit + 1;
    for (const candidate of known.names()) {
        const c = nameKey(candidate);
        if (words.test(c) && (containing === undefined || candidate.length < containing.length))
            containing = candidate;
        if (Math.abs(c.length - key.length) > limit)
            continue;
        const d = editDistance(key, c);
        if (d < nearestDistance) {
            nearestDistance = d;
            nearest = candidate;
        }
    }
    return containing ?? nearest;
}
