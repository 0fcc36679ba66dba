import { emptyCounts } from './counts.js';
import { NameMap, NameSet } from './names.js';
export function createStationPolicy(config) {
    const humans = new NameSet(config.privacy.humanClasses);
    const nonBird = new NameSet(config.filters.nonBirdClasses);
    const include = new NameSet(config.filters.include);
    const exclude = new NameSet(config.filters.exclude);
    const speciesMin = new NameMap(config.filters.speciesMinConfidence);
    const minConfidence = config.input.minConfidence;
    const { withholdHumanRecordings, humanMinConfidence } = config.privacy;
    return {
        gateMinDetections: config.filters.minDetectionsPer24h,
        keepsAudio: config.privacy.audio !== 'never',
        decide(rows) {
            const counts = emptyCounts();
            const post = [];
            let below = 0;
            let human = null;
            for (const row of rows) {
                const override = speciesMin.get(row);
                const threshold = override ?? minConfidence;
                const isHuman = humans.has(row);
                if (isHuman && withholdHumanRecordings && row.confidence >= humanMinConfidence && (!human || row.confidence > human.confidence)) {
                    human = { reason: 'human', className: row.commonName, confidence: row.confidence, line: row.line };
                }
                if (row.confidence < threshold) {
                    below++;
                    if (override !== undefined && row.confidence >= minConfidence && !isHuman && !nonBird.has(row))
                        counts.belowSpeciesMinConfidence++;
                    continue;
                }
                if (isHuman || nonBird.has(row)) {
                    counts.nonBird[row.commonName] = (counts.nonBird[row.commonName] ?? 0) + 1;
                }
                else if (exclude.has(row) || (include.size > 0 && !include.has(row))) {
                    counts.excluded++;
                }
                else {
                    post.push(row);
                }
            }
            let withheld = null;
            if (config.privacy.audio === 'never')
                withheld = { reason: 'audio-never' };
            else if (human) {
                withheld = human;
                counts.humanSoundscapesWithheld++;
            }
            return { post, withheld, below, counts };
        },
    };
}
