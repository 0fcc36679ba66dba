import path from 'node:path';
import { renderFields } from './table.js';
import { formatBytes, formatScore, isoOrNull } from './units.js';
export const CLI_KINDS = ['soundscape', 'detection'];
export function toQueueKind(kind) {
    return kind === 'soundscape' ? 'recording' : 'detection';
}
export function toCliKind(kind) {
    return kind === 'recording' ? 'soundscape' : 'detection';
}
function operatorId(kind, id) {
    return `${kind === 'recording' ? 'r' : 'd'}${id}`;
}
export function itemJson(item) {
    const common = {
        id: operatorId(item.kind, item.id),
        kind: toCliKind(item.kind),
        number: item.id,
        state: item.state,
        attempts: item.attempts,
        nextAttemptAt: isoOrNull(item.nextAttemptAt),
        lastError: item.lastError,
        lastErrorCode: item.lastErrorCode,
        remoteId: item.remoteId,
        holdReason: item.holdReason,
        reconcile: item.reconcile,
        createdAt: isoOrNull(item.createdAt),
        updatedAt: isoOrNull(item.updatedAt),
    };
    if (item.kind === 'recording') {
        const r = item;
        return {
            ...common,
            timestamp: r.timestamp,
            timeSource: r.timeSource,
            sourceKey: r.sourceKey,
            sourcePath: r.sourcePath,
            spoolPath: r.spoolPath,
            audioFormat: r.audioFormat,
            durationS: r.durationS,
            sampleRate: r.sampleRate,
            filesize: r.filesize,
        };
    }
    const d = item;
    return {
        ...common,
        timestamp: d.timestamp,
        recording: d.recordingId === null ? null : operatorId('recording', d.recordingId),
        dedupeKey: d.dedupeKey,
        scientificName: d.scientificName,
        commonName: d.commonName,
        confidence: d.confidence,
        startS: d.startS,
        endS: d.endS,
        lat: d.lat,
        lon: d.lon,
    };
}
export function describeItem(item) {
    if (item.kind === 'recording')
        return path.basename(item.sourcePath);
    return `${item.commonName} (${item.scientificName}) ${formatScore(item.confidence, 2)}`;
}
export function queueListColumns(s) {
    return [
        { header: 'ID', value: (i) => operatorId(i.kind, i.id) },
        { header: 'STATE', value: (i) => (i.state === 'failed' ? s.red(i.state) : i.state) },
        { header: 'TRIES', value: (i) => String(i.attempts), align: 'right' },
        { header: 'TIME', value: (i) => i.timestamp },
        { header: 'ITEM', value: describeItem, maxWidth: 50 },
        { header: 'LAST ERROR', value: (i) => i.lastError ?? (i.holdReason ? `held: ${i.holdReason}` : ''), maxWidth: 70 },
    ];
}
export function renderItem(item, files, recording, s) {
    const fields = [
        ['id', `${operatorId(item.kind, item.id)} (${toCliKind(item.kind)} ${item.id})`],
        ['state', item.state === 'failed' ? s.red(item.state) : item.state],
        ['attempts', String(item.attempts)],
        ['next attempt', isoOrNull(item.nextAttemptAt) ?? '-'],
        ['last error', item.lastError ? `${item.lastError}${item.lastErrorCode ? ` [${item.lastErrorCode}]` : ''}` : '-'],
        ['service id', item.remoteId === null ? '-' : String(item.remoteId)],
        ['held', item.holdReason ?? 'no'],
        ['reconcile', item.reconcile ? 'yes (look up at the service before posting again)' : 'no'],
        ['queued', isoOrNull(item.createdAt) ?? '-'],
        ['updated', isoOrNull(item.updatedAt) ?? '-'],
        ['timestamp', item.timestamp],
    ];
    if (item.kind === 'recording') {
        fields.push(['time source', item.timeSource], ['source key', item.sourceKey], ['audio', `${item.audioFormat ?? 'none'}, ${item.durationS ?? '-'} s, ${item.sampleRate ?? '-'} Hz, ${formatBytes(item.filesize)}`]);
    }
    else {
        fields.push(['species', `${item.commonName} (${item.scientificName})`], ['confidence', formatScore(item.confidence, 4)], ['offsets', `${item.startS} s to ${item.endS} s`], ['location', item.lat === null || item.lon === null ? 'station default' : `${item.lat}, ${item.lon}`], ['dedupe key', item.dedupeKey], ['soundscape', recording ? `${operatorId('recording', recording.id)} (${recording.state})` : 'none']);
        if (recording?.kind === 'recording')
            fields.push(['time source', `${recording.timeSource} (its soundscape's start)`]);
    }
    for (const f of files) {
        fields.push([`${f.role} file`, `${f.path} ${f.exists ? `(${formatBytes(f.bytes)})` : s.yellow('(missing)')}`]);
    }
    return renderFields(fields);
}
