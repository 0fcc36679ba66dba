import path from 'node:path';
import type { DetectionItem, ItemKind, QueueItem, RecordingItem } from '../../queue/index.js';
import type { Style } from './style.js';
import { renderFields, type Column } from './table.js';
import { formatBytes, formatScore, isoOrNull } from './units.js';

/**
 * Queue items as the CLI shows them. The queue calls audio "recordings"; operators
 * (and `status`) say soundscapes: `kind` is `soundscape` or `detection`, and ids are
 * the queue's operator ids (`r12` for soundscape 12, `d345` for detection 345).
 */

export type CliKind = 'soundscape' | 'detection';

export const CLI_KINDS: readonly CliKind[] = ['soundscape', 'detection'];

export function toQueueKind(kind: CliKind): ItemKind {
  return kind === 'soundscape' ? 'recording' : 'detection';
}

export function toCliKind(kind: ItemKind): CliKind {
  return kind === 'recording' ? 'soundscape' : 'detection';
}

function operatorId(kind: ItemKind, id: number): string {
  return `${kind === 'recording' ? 'r' : 'd'}${id}`;
}

/** An item for `--json`: every field, instants as ISO 8601. */
export function itemJson(item: QueueItem): Record<string, unknown> {
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
    const r: RecordingItem = item;
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
  const d: DetectionItem = item;
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

/** What the item is, in a few words: the audio file's name, or the species and confidence. */
export function describeItem(item: QueueItem): string {
  if (item.kind === 'recording') return path.basename(item.sourcePath);
  return `${item.commonName} (${item.scientificName}) ${formatScore(item.confidence, 2)}`;
}

export function queueListColumns(s: Style): Column<QueueItem>[] {
  return [
    { header: 'ID', value: (i) => operatorId(i.kind, i.id) },
    { header: 'STATE', value: (i) => (i.state === 'failed' ? s.red(i.state) : i.state) },
    { header: 'TRIES', value: (i) => String(i.attempts), align: 'right' },
    { header: 'TIME', value: (i) => i.timestamp },
    { header: 'ITEM', value: describeItem, maxWidth: 50 },
    { header: 'LAST ERROR', value: (i) => i.lastError ?? (i.holdReason ? `held: ${i.holdReason}` : ''), maxWidth: 70 },
  ];
}

export interface FileFact {
  role: string;
  path: string;
  exists: boolean;
  bytes: number | null;
}

/** `queue show` for people: every field, then the files. */
export function renderItem(item: QueueItem, files: readonly FileFact[], recording: QueueItem | null, s: Style): string[] {
  const fields: [string, string][] = [
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
    fields.push(
      ['time source', item.timeSource],
      ['source key', item.sourceKey],
      ['audio', `${item.audioFormat ?? 'none'}, ${item.durationS ?? '-'} s, ${item.sampleRate ?? '-'} Hz, ${formatBytes(item.filesize)}`],
    );
  } else {
    fields.push(
      ['species', `${item.commonName} (${item.scientificName})`],
      ['confidence', formatScore(item.confidence, 4)],
      ['offsets', `${item.startS} s to ${item.endS} s`],
      ['location', item.lat === null || item.lon === null ? 'station default' : `${item.lat}, ${item.lon}`],
      ['dedupe key', item.dedupeKey],
      ['soundscape', recording ? `${operatorId('recording', recording.id)} (${recording.state})` : 'none'],
    );
    // A start read from the audio's modification time is the weakest: say so on the detection too.
    if (recording?.kind === 'recording') fields.push(['time source', `${recording.timeSource} (its soundscape's start)`]);
  }
  for (const f of files) {
    fields.push([`${f.role} file`, `${f.path} ${f.exists ? `(${formatBytes(f.bytes)})` : s.yellow('(missing)')}`]);
  }
  return renderFields(fields);
}
