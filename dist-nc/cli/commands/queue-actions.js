import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import { pino } from 'pino';
import { createLogger } from '../../log/index.js';
import { dropItems, formatItemRef, getItem, listItems, parseItemId, releaseHeld, retryItems, } from '../../queue/index.js';
import { createOutput } from '../format/output.js';
import { describeItem, itemJson, queueListColumns, renderItem, toCliKind, toQueueKind } from '../format/queue-view.js';
import { renderTable } from '../format/table.js';
import { CommandFailure, UsageError } from './support/errors.js';
import { loadCliConfig, openExistingQueue } from './support/context.js';
import { QueueError } from '../../queue/errors.js';
import { queueDbPath, queueExists } from '../../status/queue-file.js';
async function withQueue(flags, fn, ifMissing) {
    const loaded = await loadCliConfig(flags);
    const { dataDir } = loaded.config;
    if (ifMissing && !queueExists(dataDir))
        return ifMissing(createOutput(), queueDbPath(dataDir));
    const q = await openExistingQueue(dataDir);
    try {
        return await fn(q, createOutput());
    }
    finally {
        q.close();
    }
}
function parseIds(ids, flags) {
    const kind = flags.kind ? toQueueKind(flags.kind) : undefined;
    return ids.map((text) => {
        try {
            return parseItemId(text, kind);
        }
        catch (err) {
            if (err instanceof QueueError)
                throw new UsageError(err.message);
            throw err;
        }
    });
}
export async function listAction(flags) {
    if (flags.after !== undefined)
        parseIds([flags.after], flags);
    const print = (out, page, empty = 'no items match') => {
        if (flags.json) {
            out.json({ items: page.items.map(itemJson), next: page.next });
            return;
        }
        if (page.items.length === 0) {
            out.note(empty);
            return;
        }
        out.lines(renderTable(queueListColumns(out.style), page.items, out.style.dim));
        if (page.next)
            out.note(`more items: add --after ${page.next}`);
    };
    await withQueue(flags, (q, out) => {
        const page = listItems(q, {
            limit: flags.limit ?? 50,
            ...(flags.state ? { state: flags.state } : {}),
            ...(flags.kind ? { kind: toQueueKind(flags.kind) } : {}),
            ...(flags.after ? { afterId: flags.after } : {}),
            ...(flags.held ? { held: flags.held } : {}),
        });
        print(out, page);
    }, (out, file) => print(out, { items: [], next: null }, `no items: the queue ${file} does not exist yet (the daemon creates it on its first start)`));
}
export async function showAction(id, flags) {
    const ref = parseIds([id], flags)[0];
    const missing = (_out, file) => {
        throw new CommandFailure(`no ${toCliKind(ref.kind)} ${id}: the queue ${file} does not exist yet (the daemon creates it on its first start)`);
    };
    await withQueue(flags, async (q, out) => {
        const item = getItem(q, ref.kind, ref.id);
        if (!item)
            throw new CommandFailure(`no ${toCliKind(ref.kind)} ${id} in the queue ${q.path}`);
        const recording = item.kind === 'detection' && item.recordingId !== null ? (getItem(q, 'recording', item.recordingId) ?? null) : null;
        const files = [];
        const audio = item.kind === 'recording' ? item : recording;
        if (audio) {
            files.push(await fileFact('source', audio.sourcePath));
            if (audio.spoolPath)
                files.push(await fileFact('spool', audio.spoolPath));
        }
        if (flags.json) {
            out.json({ item: itemJson(item), recording: recording ? itemJson(recording) : null, files });
            return;
        }
        out.lines(renderItem(item, files, recording, out.style));
    }, missing);
}
async function fileFact(role, file) {
    try {
        const s = await stat(file);
        return { role, path: file, exists: true, bytes: s.size };
    }
    catch {
        return { role, path: file, exists: false, bytes: null };
    }
}
function selection(ids, flags, verb) {
    if (flags.failed && ids.length > 0)
        throw new UsageError(`give item ids or --failed, not both (queue ${verb})`);
    if (flags.failed)
        return flags.kind ? { failed: true, kind: toQueueKind(flags.kind) } : { failed: true };
    if (ids.length === 0)
        throw new UsageError(`queue ${verb} needs item ids (e.g. r12 d345) or --failed`);
    return parseIds(ids, flags);
}
export async function retryAction(ids, flags) {
    const which = selection(ids, flags, 'retry');
    await withQueue(flags, (q, out) => {
        const result = retryItems(q, which);
        reportMoved(out, flags, 'retried', result.retried, result.refused);
    });
}
function reportMoved(out, flags, verb, moved, refused) {
    const ids = moved.map(formatItemRef);
    if (flags.json) {
        out.json({ [verb]: ids, refused: refused.map((r) => ({ id: r.item, kind: toCliKind(r.kind), state: r.state, reason: r.reason })) });
    }
    else {
        out.line(ids.length ? `${verb} ${ids.length}: ${ids.join(' ')}` : `nothing ${verb}`);
        for (const r of refused)
            out.line(`${out.style.red('refused')} ${r.item}: ${r.reason}`);
    }
    if (refused.length > 0)
        process.exitCode = 1;
}
export async function releaseAction(ids, flags) {
    if (flags.held && ids.length > 0)
        throw new UsageError('give item ids or --held, not both (queue release)');
    if (!flags.held && ids.length === 0)
        throw new UsageError('queue release needs item ids (e.g. r12 d345) or --held [reason]');
    const kind = flags.kind ? toQueueKind(flags.kind) : undefined;
    const which = flags.held
        ? { held: true, ...(typeof flags.held === 'string' ? { reason: flags.held } : {}), ...(kind ? { kind } : {}) }
        : parseIds(ids, flags);
    await withQueue(flags, (q, out) => {
        const result = releaseHeld(q, which);
        reportMoved(out, flags, 'released', result.released, result.refused);
    });
}
export async function dropAction(ids, flags) {
    const which = selection(ids, flags, 'drop');
    if (!flags.yes && process.stdin.isTTY !== true) {
        throw new UsageError('queue drop needs --yes when stdin is not a terminal (dropped items are never uploaded)');
    }
    await withQueue(flags, async (q, out) => {
        if (!flags.yes) {
            if (Array.isArray(which)) {
                for (const ref of which) {
                    const item = getItem(q, ref.kind, ref.id);
                    out.note(`  ${formatItemRef(ref)}  ${item ? `${item.state}  ${describeItem(item)}` : 'no such item'}`);
                }
            }
            const what = Array.isArray(which) ? (ids.length === 1 ? `item ${ids[0]}` : `these ${ids.length} items`) : `every failed ${flags.kind ?? 'item'}`;
            if (!(await confirm(`Drop ${what}? Dropped items are never uploaded. [y/N] `))) {
                out.note('nothing dropped');
                return;
            }
        }
        const result = dropItems(q, which);
        const log = createLogger({ level: 'info', destination: pino.destination({ dest: 2, sync: true }) });
        for (const d of result.dropped) {
            const json = itemJson(d.value);
            log.warn({ event: 'queue-drop', item: d.item, kind: json.kind, from: d.from, file: json.sourcePath, species: json.scientificName, timestamp: json.timestamp, queue: q.path }, `operator dropped ${d.item} (${String(json.kind)}, was ${d.from}): it will never be uploaded`);
        }
        const dropped = result.dropped.map((d) => d.item);
        if (flags.json) {
            out.json({
                dropped: result.dropped.map((d) => ({ id: d.item, kind: toCliKind(d.value.kind), from: d.from })),
                refused: result.refused.map((r) => ({ id: r.item, kind: toCliKind(r.kind), state: r.state, reason: r.reason })),
            });
        }
        else {
            out.line(dropped.length ? `dropped ${dropped.length}: ${dropped.join(' ')}` : 'nothing dropped');
            for (const r of result.refused)
                out.line(`${out.style.red('refused')} ${r.item}: ${r.reason}`);
        }
        if (result.refused.length > 0)
            process.exitCode = 1;
    });
}
async function confirm(question) {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
        const answer = await rl.question(question);
        return /^y(es)?$/i.test(answer.trim());
    }
    finally {
        rl.close();
    }
}
