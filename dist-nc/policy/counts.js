import { getMeta, setMeta } from '../queue/meta.js';
export const POLICY_COUNTS_KEY = 'policyCounts';
export function emptyCounts() {
    return { humanSoundscapesWithheld: 0, nonBird: {}, excluded: 0, belowSpeciesMinConfidence: 0, speciesGateExpired: 0 };
}
export function readPolicyCounts(q) {
    const stored = getMeta(q, POLICY_COUNTS_KEY) ?? {};
    return { ...emptyCounts(), ...stored, nonBird: { ...stored.nonBird } };
}
export function isEmpty(d) {
    return d.humanSoundscapesWithheld + d.excluded + d.belowSpeciesMinConfidence + d.speciesGateExpired === 0 && Object.keys(d.nonBird).length === 0;
}
export function mergeCounts(into, d) {
    into.humanSoundscapesWithheld += d.humanSoundscapesWithheld;
    into.excluded += d.excluded;
    into.belowSpeciesMinConfidence += d.belowSpeciesMinConfidence;
    into.speciesGateExpired += d.speciesGateExpired;
    for (const [name, n] of Object.entries(d.nonBird))
        into.nonBird[name] = (into.nonBird[name] ?? 0) + n;
}
export function addPolicyCounts(q, d, options = {}) {
    if (isEmpty(d))
        return;
    q.write(() => {
        const c = readPolicyCounts(q);
        mergeCounts(c, d);
        setMeta(q, POLICY_COUNTS_KEY, c, options);
    });
}
