import { describeUnknownName, unknownConfigNames } from '../policy/name-check.js';
import { createStationPolicy } from '../policy/recording-policy.js';
import { Labels } from './labels.js';
import { Spool } from './spool.js';
export async function createIngestContext(config, queue, log, options = {}) {
    const spool = new Spool(config.dataDir, config.input.ramDiskAudio === 'keep' ? config.input.dir : null);
    if (!options.dryRun) {
        const note = await spool.init();
        if (note)
            log.warn(note);
    }
    const labels = config.input.labels
        ? await Labels.load(config.input.labels, config.input.localizedLabels ?? undefined)
        : undefined;
    if (labels)
        for (const u of unknownConfigNames(config, labels))
            log.warn({ key: u.key, name: u.name, suggestion: u.suggestion }, describeUnknownName(u));
    const format = config.input.format === 'results' || config.input.format === 'analyzerpi' ? 'auto' : config.input.format;
    return {
        queue,
        spool,
        labels,
        zone: config.station.timezone,
        policy: createStationPolicy(config),
        format,
        lat: config.station.latitude ?? null,
        lon: config.station.longitude ?? null,
        minFreeMb: config.disk.minFreeMb,
        maxResultFileBytes: config.input.maxResultFileMb * 1024 * 1024,
        log,
        dryRun: options.dryRun,
        settleMs: options.settleMs,
    };
}
