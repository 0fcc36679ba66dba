/**
 * When did a recording start? The service needs each detection's absolute time
 * (recording start + the detection's offset), and the analyzers record it in different places.
 * In order of trust:
 *
 * 1. `sidecar`: the result file itself (sidecar `recordingStart`, analyzerpi `timestamp`);
 * 2. `filename`: the audio file's name;
 * 3. `metadata`: the WAV's AudioMoth comment or GUANO `Timestamp`;
 * 4. `mtime`: the audio file's modification time minus its duration (the recorder closes the
 *    file at the end of the recording), the weakest and so flagged by its source. Only with
 *    audio: a result file's own time says when it was analysed, not when it was recorded.
 *
 * Without any of these there is no start, and the result is not queued (an error naming it).
 *
 * Names and timestamps without an offset are local time of the station, read in its IANA zone.
 * Daylight-saving rule (documented in docs/SIDECAR.md): a local time in a gap (never happened)
 * or an overlap (happened twice) takes the offset in effect BEFORE the change: the first 02:30
 * of an autumn night, and 02:30 at winter time in the spring gap. luxon alone would pick the
 * later offset for overlaps, hence system/zone.ts's `localTimeInZone`.
 *
 * Instants are plain `Date`s; the zone matters only for reading naive times and for
 * `formatServiceTimestamp`, which writes the station's offset at that instant. A zone's
 * offsets come from system/zone.ts: without luxon or Intl for UTC and the system's own zone.
 */
import type { DateTime } from 'luxon';
import { luxon } from '../system/luxon.js';
import { timeImplausibility } from '../system/plausible-time.js';
import { isoWithOffsetMs, localTimeInZone, luxonZone, wallMillis, zoneOffset, type LocalFields } from '../system/zone.js';

export type RecordingStartSource = 'sidecar' | 'filename' | 'metadata' | 'mtime';

export interface RecordingStart {
  start: Date;
  source: RecordingStartSource;
  /** Before 2020-01-01 or more than a day in the future: the uploader holds such recordings. */
  implausible: boolean;
  implausibleReason?: string;
}

/** The service's timestamp shape, `YYYY-MM-DDTHH:MM:SS.mmm+HH:MM`. */
const SERVICE_FORMAT = "yyyy-MM-dd'T'HH:mm:ss.SSSZZ";


/** A fixed offset from `Z`, `+02:00`, `+0200`, `+02` or `-03-30` (file names cannot hold `:` everywhere). */
function offsetMinutes(text: string): number | undefined {
  if (text === 'Z' || text === 'z') return 0;
  const m = /^([+-])(\d{2})(?:[:-]?(\d{2}))?$/.exec(text);
  if (!m) return undefined;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  if (minutes > 18 * 60) return undefined;
  return m[1] === '-' ? -minutes : minutes;
}

function atOffset(fields: LocalFields, offset: number): Date | undefined {
  const wall = wallMillis(fields);
  return wall === undefined ? undefined : new Date(wall - offset * 60_000);
}

const n = (s: string | undefined) => Number(s);

function fieldsOf(m: RegExpExecArray, from: number): LocalFields {
  return { year: n(m[from]), month: n(m[from + 1]), day: n(m[from + 2]), hour: n(m[from + 3]), minute: n(m[from + 4]), second: n(m[from + 5]) };
}

function fraction(digits: string | undefined): number {
  return digits ? Math.floor(Number(`0.${digits}`) * 1000) : 0;
}

// analyzerpi: 2024-02-24-birdnet-16:19:37, 2024-02-24-birdnet-RTSP_1-16:19:37
const ANALYZERPI = /^(\d{4})-(\d{2})-(\d{2})-birdnet-(?:RTSP_\d+-)?(\d{2}):(\d{2}):(\d{2})$/;
// AudioMoth [SERIAL_]YYYYMMDD_HHMMSS and Song Meter PREFIX_YYYYMMDD_HHMMSS
const DATE_UNDERSCORE_TIME = /^(?:(.+)_)?(\d{4})(\d{2})(\d{2})_(\d{2})(\d{2})(\d{2})$/;
const AUDIOMOTH_SERIAL = /^[0-9A-F]{16}$/i;
// ISO-like anywhere in the name: 2024-05-01T06-00-00, 2024-05-01T06:00:00.5+02:00, 20240501T060000Z
const ISO_LIKE =
  /(?<!\d)(\d{4})-?(\d{2})-?(\d{2})T(\d{2})[-:]?(\d{2})[-:]?(\d{2})(?:[.,](\d{1,9}))?(Z|[+-]\d{2}(?:[:-]?\d{2})?(?!\d))?(?!\d)/i;

export interface NameOptions {
  /**
   * The zone AudioMoth names are written in. AudioMoth names use the time the device was
   * configured with, which is UTC unless an offset was set in its configuration app.
   */
  audioMothZone?: string;
}

/** The recording start from an audio file name (folder and extension are ignored); naive names are read in `zone`. */
export function recordingStartFromName(fileName: string, zone: string, options: NameOptions = {}): Date | undefined {
  zoneOffset(zone);
  const base = fileName.split(/[\\/]/).pop()!.replace(/\.[^.]+$/, '');

  const pi = ANALYZERPI.exec(base);
  if (pi) return localTimeInZone(fieldsOf(pi, 1), zone);

  const du = DATE_UNDERSCORE_TIME.exec(base);
  if (du) {
    const fields = fieldsOf(du, 2);
    const prefix = du[1];
    if (prefix === undefined || AUDIOMOTH_SERIAL.test(prefix)) {
      return localTimeInZone(fields, options.audioMothZone ?? 'UTC');
    }
    return localTimeInZone(fields, zone); // Song Meter: local time
  }

  const iso = ISO_LIKE.exec(base);
  if (iso) {
    const fields = { ...fieldsOf(iso, 1), millisecond: fraction(iso[7]) };
    if (iso[8] === undefined) return localTimeInZone(fields, zone);
    const offset = offsetMinutes(iso[8]);
    return offset === undefined ? undefined : atOffset(fields, offset);
  }
  return undefined;
}

// AudioMoth: "Recorded at 10:25:00 04/04/2020 (UTC) by AudioMoth ...", also (UTC+1), (UTC-3:30)
const AUDIOMOTH_COMMENT = /Recorded at (\d{2}):(\d{2}):(\d{2}) (\d{2})\/(\d{2})\/(\d{4}) \(UTC(?:([+-])(\d{1,2})(?::(\d{2}))?)?\)/;

export interface RecordingMetadata {
  /** The WAV's LIST/INFO comment (`ICMT`). */
  comment?: string | undefined;
  /** GUANO fields by key, or the GUANO chunk's text (`Key: value` lines). */
  guano?: Record<string, string> | string | undefined;
}

/** The recording start from WAV metadata: the AudioMoth comment, else the GUANO `Timestamp`. */
export function recordingStartFromMetadata(metadata: RecordingMetadata, zone: string): Date | undefined {
  zoneOffset(zone);
  const am = metadata.comment ? AUDIOMOTH_COMMENT.exec(metadata.comment) : null;
  if (am) {
    const fields = { year: n(am[6]), month: n(am[5]), day: n(am[4]), hour: n(am[1]), minute: n(am[2]), second: n(am[3]) };
    const minutes = n(am[8] ?? '0') * 60 + n(am[9] ?? '0');
    const found = atOffset(fields, am[7] === '-' ? -minutes : minutes);
    if (found) return found;
  }
  const timestamp = guanoField(metadata.guano, 'Timestamp');
  return timestamp === undefined ? undefined : parseGuanoTimestamp(timestamp, zone);
}

function guanoField(guano: RecordingMetadata['guano'], key: string): string | undefined {
  if (guano === undefined) return undefined;
  if (typeof guano !== 'string') return guano[key]?.trim();
  for (const line of guano.split(/\r\n|\n|\r/)) {
    const cut = line.indexOf(':');
    if (cut > 0 && line.slice(0, cut).trim() === key) return line.slice(cut + 1).trim();
  }
  return undefined;
}

const GUANO_TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** GUANO `Timestamp`: ISO 8601; with an offset it is absolute, without one it is local time. */
function parseGuanoTimestamp(value: string, zone: string): Date | undefined {
  const m = GUANO_TIMESTAMP.exec(value);
  if (!m) return undefined;
  const fields = { ...fieldsOf(m, 1), millisecond: fraction(m[7]) };
  if (m[8] === undefined) return localTimeInZone(fields, zone);
  const offset = offsetMinutes(m[8]);
  return offset === undefined ? undefined : atOffset(fields, offset);
}

/**
 * Why a start time is implausible (system/plausible-time.ts: before 2020-01-01, or more
 * than a day after `now`), in words for the log, or undefined when it is plausible.
 * `zone` only shapes the time in the message.
 */
export function implausibility(start: Date, now: Date = new Date(), zone = 'UTC'): string | undefined {
  const why = timeImplausibility(start, now);
  if (why === undefined) return undefined;
  if (why === 'invalid') return 'recording start is not a valid time';
  const shown = formatServiceTimestamp(start, zone);
  if (why === 'before-earliest') return `recording start ${shown} is before 2020-01-01 (device clock not set?)`;
  return `recording start ${shown} is more than a day in the future`;
}

export interface ResolveRecordingStartInput {
  /** The station's IANA time zone. */
  zone: string;
  /** The audio file's name (or path), or several candidates tried in order (the audio, the name a result file gives, the result's own base name). */
  fileName: string | readonly string[];
  /** ISO 8601 with offset from the result file (`ParsedResultFile.recordingStart`). */
  sidecarStart?: string | undefined;
  metadata?: RecordingMetadata | undefined;
  /**
   * The AUDIO file's modification time, when there is audio. Never a result file's: the
   * analyzer writes that after the recording, at any delay (a backlog, a re-analysis).
   */
  mtime?: Date | undefined;
  /** The recording's length; the mtime fallback subtracts it. */
  durationSec?: number | undefined;
  audioMothZone?: string | undefined;
  /** For the plausibility check; defaults to the current time. */
  now?: Date;
}

/**
 * The recording start by the order in the module comment, with its source and plausibility;
 * undefined when no source gives one (no sidecar time, no time in any name, no metadata, no
 * audio). The caller must then not invent one: a detection is never stamped with "now".
 */
export function resolveRecordingStart(input: ResolveRecordingStartInput): RecordingStart | undefined {
  const { zone } = input;
  zoneOffset(zone);
  const found = ((): { start: Date; source: RecordingStartSource } | undefined => {
    if (input.sidecarStart) {
      const start = isoWithOffsetMs(input.sidecarStart);
      if (!Number.isNaN(start)) return { start: new Date(start), source: 'sidecar' };
    }
    const names = typeof input.fileName === 'string' ? [input.fileName] : input.fileName;
    const nameOptions = input.audioMothZone ? { audioMothZone: input.audioMothZone } : {};
    for (const name of names) {
      const byName = recordingStartFromName(name, zone, nameOptions);
      if (byName) return { start: byName, source: 'filename' };
    }
    const byMetadata = input.metadata ? recordingStartFromMetadata(input.metadata, zone) : undefined;
    if (byMetadata) return { start: byMetadata, source: 'metadata' };
    if (!input.mtime) return undefined;
    const durationMs = Math.round((input.durationSec ?? 0) * 1000);
    return { start: new Date(input.mtime.getTime() - durationMs), source: 'mtime' };
  })();
  if (!found) return undefined;
  const reason = implausibility(found.start, input.now, zone);
  return reason === undefined ? { ...found, implausible: false } : { ...found, implausible: true, implausibleReason: reason };
}

/** `YYYY-MM-DDTHH:MM:SS.mmm+HH:MM` in the station's offset at that instant, as the service expects. */
export function formatServiceTimestamp(date: Date | DateTime, zone: string): string {
  const ms = date instanceof Date ? date.getTime() : date.toMillis();
  const year = new Date(ms).getUTCFullYear();
  // Outside four-digit years the plain ISO shape below does not hold: luxon writes those.
  if (!Number.isFinite(ms) || year < 100 || year > 9998) {
    const dt = date instanceof Date ? luxon().DateTime.fromJSDate(date) : date;
    return dt.setZone(luxonZone(zone)).toFormat(SERVICE_FORMAT);
  }
  const offset = offsetAt(zone, ms);
  const local = new Date(ms + offset * 60_000).toISOString().slice(0, 23);
  const abs = Math.abs(offset);
  return `${local}${offset < 0 ? '-' : '+'}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`;
}

const pad2 = (n: number) => String(n).padStart(2, '0');

const HOUR_MS = 3_600_000;
/** Per zone: UTC hour -> the zone's offset through that whole hour, or NaN when it changes within it. */
const offsetsByHour = new Map<string, Map<number, number>>();

/**
 * The zone's UTC offset in minutes at an instant. Asking the zone (Intl) for every detection
 * of a million-row table costs seconds, and an offset changes at most once in an hour: an
 * hour whose two ends agree has that offset throughout, so it is asked once per hour.
 */
function offsetAt(zone: string, ms: number): number {
  let hours = offsetsByHour.get(zone);
  if (!hours) offsetsByHour.set(zone, (hours = new Map<number, number>()));
  const hour = Math.floor(ms / HOUR_MS);
  let cached = hours.get(hour);
  if (cached === undefined) {
    const offset = zoneOffset(zone);
    const first = offset(hour * HOUR_MS);
    cached = first === offset((hour + 1) * HOUR_MS - 1) ? first : Number.NaN;
    if (hours.size >= 50_000) hours.clear();
    hours.set(hour, cached);
  }
  return Number.isNaN(cached) ? zoneOffset(zone)(ms) : cached;
}

/** A detection's timestamp: recording start + the detection's start (rounded to the millisecond). */
export function detectionTimestamp(recordingStart: Date | DateTime, startSec: number, zone: string): string {
  const start = recordingStart instanceof Date ? recordingStart.getTime() : recordingStart.toMillis();
  return formatServiceTimestamp(new Date(start + Math.round(startSec * 1000)), zone);
}
