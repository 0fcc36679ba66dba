import { lstat, opendir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import pino from 'pino';
import { isFileDone } from '../queue/ingested-files.js';
import { sourceHoldReasons } from '../queue/hold-counts.js';
import { INGEST_BATCH, WriteBatch } from '../queue/write-batch.js';
import { notTakenReason } from '../system/regular-file.js';
import { createIngestContext } from './context.js';
import { classifyPath } from './formats.js';
import { Pairing } from './pairing.js';
const BACKFILL_SETTLE_MIN_MS = 5_000;
const RESULT_NAMES = '*.BirdNET.selection.table.txt, *.BirdNET.results.csv, *.BirdNET.results.txt, *.BirdNET.results.kaleidoscope.csv, <audio>.csv, <audio>.json, *.detections.json';
const MAX_LISTED = 1_000;
export async function ingestPaths(options) {
    const log = options.log ?? pino({ level: 'silent' });
    const settleMs = Math.max(options.config.input.stableMs, BACKFILL_SETTLE_MIN_MS);
    const ctx = await createIngestContext(options.config, options.queue, log, { dryRun: options.dryRun, settleMs });
    const writes = options.dryRun ? undefined : new WriteBatch(options.queue, INGEST_BATCH);
    ctx.writes = writes;
    try {
        const result = await ingestAll(options, ctx, log, writes);
        writes?.commit();
        return result;
    }
    catch (err) {
        writes?.rollback();
        throw err;
    }
}
async function ingestAll(options, ctx, log, writes) {
    const result = { recordings: 0, detections: 0, skipped: [], errors: [] };
    const skip = (file, reason) => {
        if (result.skipped.length < MAX_LISTED)
            result.skipped.push({ file, reason });
    };
    let total = 0;
    for (const p of options.paths) {
        for await (const _found of resultFiles(p))
            total++;
    }
    let done = 0;
    const pairing = new Pairing({
        ctx,
        mode: 'auto',
        jsonTimeoutMs: 0,
        audioWaitMs: 0,
        recheck: () => { },
        onOutcome: (file, outcome) => record(file, outcome),
    });
    const record = (file, outcome) => {
        done++;
        options.onProgress?.(done, total, file);
        if (outcome.status === 'queued') {
            result.recordings++;
            result.detections += outcome.newDetections;
            if (outcome.newDetections === 0)
                skip(file, alreadyQueued(options.queue, outcome.sourceKey));
            for (const problem of outcome.problems)
                log.warn(problem);
        }
        else if (outcome.status === 'no-detections') {
            const why = outcome.below === 0 && outcome.problems.length > 0
                ? `no readable detection: ${outcome.problems[0]}${outcome.problems.length > 1 ? ` (and ${outcome.problems.length - 1} more)` : ''}`
                : `no detection to post: none at or above input.minConfidence ${options.config.input.minConfidence} (${outcome.below} below) or the filters left none`;
            skip(file, why);
        }
        else if (outcome.status === 'error') {
            if (result.errors.length < MAX_LISTED)
                result.errors.push({ file, message: outcome.message });
        }
        else {
            skip(file, outcome.reason);
        }
    };
    for (const p of options.paths) {
        for await (const found of resultFiles(p)) {
            const { file } = found;
            if (found.error !== undefined) {
                done++;
                if (result.errors.length < MAX_LISTED)
                    result.errors.push({ file, message: found.error });
                continue;
            }
            if (found.skip !== undefined) {
                done++;
                options.onProgress?.(done, total, file);
                log.warn({ file }, `skipped ${file}: ${found.skip}`);
                skip(file, found.skip);
                continue;
            }
            const { st } = found;
            if (!options.force && isFileDone(options.queue, file, st.size, st.mtimeMs)) {
                done++;
                options.onProgress?.(done, total, file);
                skip(file, 'already ingested');
                continue;
            }
            writes?.begin();
            await pairing.scheduleIngest(file, st, found.what);
            writes?.commitIfFull();
        }
    }
    return result;
}
async function* resultFiles(p, named = true) {
    let full = path.resolve(p);
    let st;
    try {
        st = named ? await stat(full) : await lstat(full);
        if (named && st.isFile())
            full = await realpath(full);
    }
    catch (err) {
        yield { file: full, error: `${full}: ${err.code === 'ENOENT' ? 'no such file or folder' : String(err)}` };
        return;
    }
    const c = classifyPath(full);
    const readable = c.kind === 'result' || c.kind === 'analyzerpi-json';
    if (st.isFile()) {
        if (readable)
            yield { file: full, st, what: c };
        else if (named)
            yield { file: full, error: `${full}: not a result file the agent reads (${RESULT_NAMES}); audio is found through its result file` };
        return;
    }
    if (!st.isDirectory()) {
        const why = notTakenReason(st);
        if (why !== null && (named || readable || st.isSymbolicLink()))
            yield { file: full, skip: why };
        return;
    }
    const dir = await opendir(full).catch(() => null);
    if (!dir) {
        yield { file: full, error: `${full}: cannot read the folder` };
        return;
    }
    for await (const entry of dir) {
        if (entry.name.startsWith('.'))
            continue;
        yield* resultFiles(path.join(full, entry.name), false);
    }
}
function alreadyQueued(queue, sourceKey) {
    const reasons = sourceKey === null ? [] : sourceHoldReasons(queue, sourceKey);
    if (reasons.length === 0)
        return 'already queued';
    return `already queued, held: ${reasons.join(', ')} (station-agent queue list --held shows them; queue release ends the hold)`;
}
