import { HttpStatusError, type CallArg, type SoundscapeInfoQuery } from '../api/index.js';
import {
  deliveredDetections,
  deliveredRecordings,
  deliveredSpeciesCounts,
  formatItemId,
  isRemoteIdTaken,
  parseItemId,
  requeueMissing,
  waitingInstants,
  type DeliveredDetection,
  type DeliveredRecording,
  type Queue,
} from '../queue/index.js';
import { isoDate, isoWithOffsetMs, localFieldsAt, localTimeInZone, midnightAfter } from '../system/zone.js';
import type {
  Detection,
  DetectionListQuery,
  DetectionListResponse,
  Soundscape,
  SoundscapeListQuery,
  SoundscapeListResponse,
  SpeciesListQuery,
  SpeciesListResponse,
} from '../wire/types.js';
import { AuditError } from './errors.js';
import {
  AUDIT_REPORT_VERSION,
  NO_AUDIO_REASON,
  QUEUE_KIND,
  SECOND_UPLOADER,
  emptyTally,
  type AlteredField,
  type AuditedKind,
  type AuditReport,
  type DayReport,
  type Finding,
  type KindTally,
} from './report.js';

/**
 * The delivery audit: what the service holds for the station against what it
 * acknowledged to the queue, day by day (the station's local days), cheapest read first.
 *
 * - Soundscapes: the service offers no count of them, so each day's listing is read
 *   (`GET /soundscapes?from&to`, 100 a page, by cursor).
 * - Detections: first the day's species counts (`GET /species?from&to`, one small
 *   answer a day), against the queue's per species; only a day whose counts differ has its
 *   listing read (`GET /detections?from&to`). A day whose counts match is taken as
 *   delivered: a detection altered within its day and species is not seen.
 * - An acknowledged id absent from its day's listing is asked for by id before it is called
 *   missing (a 404): one whose time the service moved is then altered, not missing.
 *
 * Findings: missing (acknowledged, absent), altered (filesize, duration, sample rate,
 * time or species other than sent), foreign (held for the station, never sent by this
 * agent; one at the time, and species, of one of ours is named a likely duplicate from
 * another uploader). An item of the service whose id another item of the queue holds, or
 * at the time of an item still waiting (its outcome not yet known), is not foreign.
 *
 * Repair (`requeue`): a missing item goes back to the queue once (queue/delivered.ts);
 * altered and foreign items are reported, never deleted. The CLI's `audit` and the
 * daemon's audit component both run this function.
 */
export interface AuditApi {
  listSoundscapes(query: SoundscapeListQuery, call?: CallArg): Promise<SoundscapeListResponse>;
  listDetections(query: DetectionListQuery, call?: CallArg): Promise<DetectionListResponse>;
  listStationSpecies(query: SpeciesListQuery, call?: CallArg): Promise<SpeciesListResponse>;
  getSoundscape(id: number, query?: SoundscapeInfoQuery, call?: CallArg): Promise<Soundscape>;
  getDetection(id: number, call?: CallArg): Promise<Detection>;
}

export type AuditRepair = 'report' | 'requeue';

export interface AuditOptions {
  /** The period, epoch ms, both inclusive. */
  fromMs: number;
  toMs: number;
  /** The station's zone: the days of the report are its local days. */
  zone: string;
  repair: AuditRepair;
  signal?: AbortSignal;
  /** Called with each answer's bytes before the next request: the daemon's bandwidth cap. */
  pace?: (bytes: number) => Promise<void>;
  now?: () => number;
}

/** The service's page size at most (spec: limit max 100). */
const PAGE = 100;
/** A listing of more pages than this in one day is not followed further (a cursor that does not advance). */
const MAX_PAGES_PER_DAY = 500;
/** Two times closer than this are the same item's (the service keeps milliseconds; some round to seconds). */
const SAME_TIME_MS = 1_000;
/** The service reports whole (or float) seconds of the same audio. */
const SAME_DURATION_S = 1;

export async function runAudit(q: Queue, api: AuditApi, options: AuditOptions): Promise<AuditReport> {
  const cost = { requests: 0, bytes: 0 };
  const signal = options.signal;
  // Every request goes through here: counted, its answer weighed, paced by the caller.
  const ask = async <T>(request: () => Promise<T>): Promise<T> => {
    signal?.throwIfAborted();
    cost.requests++;
    const answer = await request();
    const bytes = Buffer.byteLength(JSON.stringify(answer));
    cost.bytes += bytes;
    await options.pace?.(bytes);
    return answer;
  };
  const findings: Finding[] = [];
  const days: DayReport[] = [];
  /** Soundscapes (queue ids) whose audio the spool no longer holds. */
  const audioGone = new Set<string>();
  for (const day of localDays(options.fromMs, options.toMs, options.zone)) {
    const soundscapes = await auditSoundscapes(q, api, ask, day, findings, audioGone, signal);
    const detections = await auditDetections(q, api, ask, day, findings, signal);
    days.push({ date: day.date, soundscapes, detections });
  }
  const requeued = repair(q, findings, options.repair, options.now ?? Date.now, audioGone);
  const count = (f: Finding['finding']) => findings.filter((x) => x.finding === f).length;
  return {
    version: AUDIT_REPORT_VERSION,
    from: new Date(options.fromMs).toISOString(),
    to: new Date(options.toMs).toISOString(),
    zone: options.zone,
    finishedAt: new Date((options.now ?? Date.now)()).toISOString(),
    days,
    findings,
    totals: { missing: count('missing'), altered: count('altered'), foreign: count('foreign'), requeued },
    cost,
  };
}

type Ask = <T>(request: () => Promise<T>) => Promise<T>;

interface Day {
  date: string;
  fromMs: number;
  toMs: number;
  /** The day's bounds as the service is asked for them (inclusive). */
  from: string;
  to: string;
}

/** The station's local days that `[fromMs, toMs]` touches, each clipped to it. */
function localDays(fromMs: number, toMs: number, zone: string): Day[] {
  const out: Day[] = [];
  let at = fromMs;
  while (at <= toMs) {
    const fields = localFieldsAt(at, zone);
    const next = localTimeInZone(midnightAfter(fields, 1), zone)?.getTime() ?? at + 86_400_000;
    const end = Math.min(next - 1, toMs);
    out.push({ date: isoDate(fields), fromMs: at, toMs: end, from: new Date(at).toISOString(), to: new Date(end).toISOString() });
    at = next;
  }
  return out;
}

/** Every item of a day's listing, page by page (the cursor is the last id of a page). */
async function listAll<T extends { id: number }>(ask: Ask, list: (cursor: number | undefined) => Promise<readonly T[]>): Promise<T[]> {
  const all: T[] = [];
  let cursor: number | undefined;
  for (let page = 0; page < MAX_PAGES_PER_DAY; page++) {
    const items = await ask(() => list(cursor));
    all.push(...items);
    const last = items[items.length - 1]?.id;
    if (items.length < PAGE || last === undefined || last === cursor) return all;
    cursor = last;
  }
  throw new AuditError(`the service's listing did not end after ${MAX_PAGES_PER_DAY} pages of ${PAGE}`);
}

/** The service's answer for one id, or null when it has none (404). */
async function byId<T>(ask: Ask, read: () => Promise<T>): Promise<T | null> {
  try {
    return await ask(read);
  } catch (err) {
    if (err instanceof HttpStatusError && err.status === 404 && !err.html) return null;
    throw err;
  }
}

const instant = (iso: string): number => {
  const ms = isoWithOffsetMs(iso);
  return Number.isNaN(ms) ? Date.parse(iso) : ms;
};

function soundscapeChanges(ours: DeliveredRecording, s: Soundscape): AlteredField[] {
  const out: AlteredField[] = [];
  if (Math.abs(instant(s.timestamp) - instant(ours.timestamp)) > SAME_TIME_MS) out.push({ field: 'timestamp', sent: ours.timestamp, atService: s.timestamp });
  const duration = Number(s.duration);
  if (ours.durationS !== null && !(Math.abs(duration - ours.durationS) <= SAME_DURATION_S)) {
    out.push({ field: 'duration', sent: ours.durationS, atService: Number.isFinite(duration) ? duration : null });
  }
  const filesize = Number(s.filesize);
  if (ours.sentBytes !== null && filesize !== ours.sentBytes) out.push({ field: 'filesize', sent: ours.sentBytes, atService: Number.isFinite(filesize) ? filesize : null });
  const rate = Number(s.sampleRate);
  if (ours.sampleRate !== null && rate !== ours.sampleRate) out.push({ field: 'sampleRate', sent: ours.sampleRate, atService: Number.isFinite(rate) ? rate : null });
  return out;
}

function detectionChanges(ours: DeliveredDetection, d: Detection): AlteredField[] {
  const out: AlteredField[] = [];
  if (Math.abs(instant(d.timestamp) - instant(ours.timestamp)) > SAME_TIME_MS) out.push({ field: 'timestamp', sent: ours.timestamp, atService: d.timestamp });
  const name = d.species?.scientificName ?? null;
  if (name?.toLowerCase() !== ours.scientificName.toLowerCase()) out.push({ field: 'species', sent: ours.scientificName, atService: name });
  return out;
}

/** One kind's comparison of a listed day: the queue's acknowledged items against the service's listing. */
interface Compared<O, S> {
  kind: AuditedKind;
  ours: readonly (O & { id: number; remoteId: number; timestamp: string })[];
  listed: readonly (S & { id: number; timestamp: string })[];
  changes: (ours: O, theirs: S) => AlteredField[];
  /** The service's item for an id, or null (404). */
  readById: (remoteId: number) => Promise<S | null>;
  /** Whether one of ours is the same item as a foreign one of the service (time, species). */
  sameAs: (ours: O, theirs: S) => boolean;
  species?: (item: O | S) => string | undefined;
}

async function compareDay<O, S>(q: Queue, day: Day, c: Compared<O, S>, findings: Finding[], tally: KindTally): Promise<void> {
  const queueKind = QUEUE_KIND[c.kind];
  const listed = new Map(c.listed.map((s) => [s.id, s]));
  const oursIds = new Set<number>();
  for (const ours of c.ours) {
    oursIds.add(ours.remoteId);
    const item = formatItemId(queueKind, ours.id);
    const base = { kind: c.kind, item, remoteId: ours.remoteId, timestamp: ours.timestamp, ...speciesOf(c, ours) };
    const theirs = listed.get(ours.remoteId) ?? (await c.readById(ours.remoteId));
    if (theirs === null) {
      findings.push({ ...base, finding: 'missing' });
      tally.missing++;
      continue;
    }
    const fields = c.changes(ours, theirs);
    if (fields.length > 0) {
      findings.push({ ...base, finding: 'altered', fields });
      tally.altered++;
    }
  }
  // Read after the listing: an outcome committed meanwhile is then in the queue.
  const waiting = waitingInstants(q, queueKind, day.fromMs - SAME_TIME_MS, day.toMs + SAME_TIME_MS);
  for (const theirs of c.listed) {
    if (oursIds.has(theirs.id) || isRemoteIdTaken(q, queueKind, theirs.id)) continue;
    const at = instant(theirs.timestamp);
    if (waiting.some((w) => Math.abs(w - at) <= SAME_TIME_MS)) continue;
    const twin = c.ours.find((o) => Math.abs(instant(o.timestamp) - at) <= SAME_TIME_MS && c.sameAs(o, theirs));
    findings.push({
      kind: c.kind,
      finding: 'foreign',
      item: null,
      remoteId: theirs.id,
      timestamp: theirs.timestamp,
      ...speciesOf(c, theirs),
      ...(twin ? { duplicateOf: formatItemId(queueKind, twin.id), likelyCause: SECOND_UPLOADER } : {}),
    });
    tally.foreign++;
  }
}

function speciesOf<O, S>(c: Compared<O, S>, item: O | S): { species?: string } {
  const species = c.species?.(item);
  return species === undefined ? {} : { species };
}

async function auditSoundscapes(q: Queue, api: AuditApi, ask: Ask, day: Day, findings: Finding[], audioGone: Set<string>, signal?: AbortSignal): Promise<KindTally> {
  const tally = emptyTally();
  const listed = await listAll(ask, async (cursor) => (await api.listSoundscapes({ from: day.from, to: day.to, limit: PAGE, cursor }, signal)).soundscapes);
  const ours = deliveredRecordings(q, day.fromMs, day.toMs);
  for (const r of ours) if (!r.hasAudio) audioGone.add(formatItemId('recording', r.id));
  tally.acknowledged = ours.length;
  tally.atService = listed.length;
  await compareDay<DeliveredRecording, Soundscape>(
    q,
    day,
    {
      kind: 'soundscape',
      ours,
      listed,
      changes: soundscapeChanges,
      readById: (id) => byId(ask, () => api.getSoundscape(id, {}, signal)),
      sameAs: () => true,
    },
    findings,
    tally,
  );
  return tally;
}

async function auditDetections(q: Queue, api: AuditApi, ask: Ask, day: Day, findings: Finding[], signal?: AbortSignal): Promise<KindTally & { listed: boolean }> {
  const tally = emptyTally();
  const counts = new Map<string, number>();
  for (let page = 1; page <= MAX_PAGES_PER_DAY; page++) {
    const species = (await ask(() => api.listStationSpecies({ from: day.from, to: day.to, limit: PAGE, page }, signal))).species;
    for (const s of species) {
      const name = s.scientificName.toLowerCase();
      counts.set(name, (counts.get(name) ?? 0) + Number(s.detections?.total ?? 0));
    }
    if (species.length < PAGE) break;
  }
  const ourCounts = deliveredSpeciesCounts(q, day.fromMs, day.toMs);
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  tally.acknowledged = sum(ourCounts);
  tally.atService = sum(counts);
  const same = counts.size === ourCounts.size && [...counts].every(([name, n]) => ourCounts.get(name) === n);
  if (same) return { ...tally, listed: false };

  const listed = await listAll(ask, async (cursor) => (await api.listDetections({ from: day.from, to: day.to, limit: PAGE, cursor }, signal)).detections);
  const ours = deliveredDetections(q, day.fromMs, day.toMs);
  tally.acknowledged = ours.length;
  tally.atService = listed.length;
  await compareDay<DeliveredDetection, Detection>(
    q,
    day,
    {
      kind: 'detection',
      ours,
      listed,
      changes: detectionChanges,
      readById: (id) => byId(ask, () => api.getDetection(id, signal)),
      sameAs: (o, d) => d.species?.scientificName?.toLowerCase() === o.scientificName.toLowerCase(),
      species: (item) => ('scientificName' in item ? item.scientificName : item.species?.scientificName),
    },
    findings,
    tally,
  );
  return { ...tally, listed: true };
}

/**
 * The repair of the missing findings; returns how many went back to the queue. A
 * soundscape whose audio the spool no longer holds cannot be sent again whatever the mode
 * (retention.keepUploadedDays 0, the default, deletes it after its upload): its reason
 * says so in `report` mode too, so an operator does not expect `--repair` to mend it.
 */
function repair(q: Queue, findings: Finding[], mode: AuditRepair, now: () => number, audioGone: ReadonlySet<string>): number {
  let requeued = 0;
  for (const f of findings) {
    if (f.finding !== 'missing' || f.item === null) continue;
    if (mode === 'report') {
      Object.assign(f, { repair: 'reported', reason: audioGone.has(f.item) ? NO_AUDIO_REASON : 'audit.repair is report' });
      continue;
    }
    const outcome = requeueMissing(q, QUEUE_KIND[f.kind], parseItemId(f.item).id, now());
    if (outcome === 'requeued') {
      requeued++;
      f.repair = 'requeued';
    } else {
      f.repair = 'reported';
      f.reason = outcome === 'no-audio' ? NO_AUDIO_REASON : 'missing again after it was sent again once';
    }
  }
  return requeued;
}
