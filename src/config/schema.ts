import { hostname } from 'node:os';
import { z } from 'zod';
import { CONFIG_RANGES } from '../wire/types.js';
import { parseTimeRange } from './time-range.js';
import { DEFAULT_DATA_DIR } from './data-dir.js';
import { luxon } from '../system/luxon.js';

/**
 * The configuration schema: the single source of truth that validates the config,
 * types it (`Config`), and documents it (`docs/CONFIGURATION.md` is rendered from the
 * `.describe()` texts and metadata here by `reference.ts`).
 *
 * Metadata keys used besides `description`:
 * - `examples`: one example value, shown in the reference.
 * - `path: true`: a file system path; relative values in the config file are resolved
 *   against the config file's folder, relative values from the environment or flags
 *   against the working directory.
 * - `secret: true`: never printed (`config show`, error messages, logs).
 * - `defaultText`: the default as words when it is computed at load time.
 * - `typeText`: the type as words where the JSON type says too little (URL, time zone).
 *
 * Messages of our own checks start with "must"/"is"/"cannot" so that `issues.ts` prints
 * them after the key path as they are.
 */

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const INPUT_FORMATS = ['auto', 'results', 'analyzerpi'] as const;
const AFTER_UPLOAD_ACTIONS = ['keep', 'delete', 'move'] as const;
const RAM_DISK_AUDIO_CHOICES = ['copy', 'keep'] as const;
const CLOCK_SYNC_MODES = ['auto', 'always', 'never'] as const;
/** `upload.flacEncoder`: see src/audio/flac-encoder.ts. */
const FLAC_ENGINE_CHOICES = ['auto', 'native', 'program', 'wasm'] as const;
export type FlacEngineChoice = (typeof FLAC_ENGINE_CHOICES)[number];

/** A number in [min, max], with a message that states both ends. */
function between(min: number, max: number) {
  const error = `must be between ${min} and ${max}`;
  return z.number().min(min, { error }).max(max, { error });
}

/** A whole number in [min, max]. */
function wholeBetween(min: number, max: number) {
  return between(min, max).int({ error: 'must be a whole number' });
}

function pathString() {
  return z.string().min(1, { error: 'must not be empty' });
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

function httpUrl() {
  return z.string().refine(isHttpUrl, { error: 'must be an http:// or https:// URL' });
}

function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** The zone the system runs in; the analyzer writes local times of this zone. */
export function systemTimeZone(): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return zone && luxon().IANAZone.isValidZone(zone) ? zone : 'UTC';
}

const LISTEN_ADDRESS = /^(?:(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/;

function isListenAddress(value: string): boolean {
  const match = LISTEN_ADDRESS.exec(value);
  return match !== null && Number(match[1]) <= 65535;
}

/** An upload window `HH:MM-HH:MM` (windows.ts parses it; the message says what is expected). */
function timeRange() {
  return z.string().superRefine((value, ctx) => {
    const parsed = parseTimeRange(value);
    if (typeof parsed === 'string') ctx.addIssue({ code: 'custom', message: parsed });
  });
}

// ---------------------------------------------------------------------------
// service

const serviceSchema = z
  .strictObject({
    baseUrl: httpUrl()
      .refine((v) => !/\/api\/v1\/*$/.test(v), { error: 'must be the base URL without /api/v1 (the agent adds it)' })
      .refine((v) => !/[?#]/.test(v), { error: 'must not have a query or fragment (the agent adds paths to it)' })
      .describe(
        'Base URL of the service (the interface spec\'s `{base_url}`). REST requests go to `{baseUrl}/api/v1/...`. A trailing slash is ignored. Plain http:// to a host other than this machine sends the token unencrypted (a warning says so).',
      )
      .meta({ examples: ['https://service.example.org'], typeText: 'URL' }),
    token: z
      .string()
      .min(1, { error: 'must not be empty' })
      .regex(/^\S+$/, { error: 'must not contain white space' })
      .optional()
      .describe(
        'The station\'s authentication token. Needed by `run` and every command that talks to the service: set exactly one of `service.token`, `service.tokenFile` or the environment variable `STATION_AGENT_TOKEN`. A config file holding it should be readable by its owner only (`chmod 600`). Never logged or printed.',
      )
      .meta({ examples: ['STATION_TOKEN'], secret: true }),
    tokenFile: pathString()
      .optional()
      .describe(
        'Path of a file holding the station token (surrounding white space is trimmed). Keeps the token out of the config file; make it readable by its owner only. The administrator token has no config key: CLI read commands take it from the environment variable `STATION_AGENT_ADMIN_TOKEN` only.',
      )
      .meta({ examples: ['/etc/station-agent/token'], path: true }),
    timeoutMs: wholeBetween(1_000, 600_000)
      .default(60_000)
      .describe(
        'Time limit of one request in milliseconds, from connecting to the complete response. Soundscape uploads over a slow link need time; a request cut off after it was sent is reconciled, never blindly repeated.',
      )
      .meta({ examples: [60_000] }),
    graphqlUrl: httpUrl()
      .optional()
      .describe('URL of the service\'s GraphQL endpoint (the spec\'s `{graphql_url}`), used by read commands.')
      .meta({ examples: ['https://service.example.org/graphql'], defaultText: '`{baseUrl}/graphql`', typeText: 'URL' }),
  })
  .refine((s: { token?: unknown; tokenFile?: unknown }) => s.token === undefined || s.tokenFile === undefined, {
    error: 'cannot be combined with service.token: set only one',
    path: ['tokenFile'],
    when: () => true,
  })
  .transform((s) => {
    const baseUrl = withoutTrailingSlash(s.baseUrl);
    return { ...s, baseUrl, graphqlUrl: s.graphqlUrl ?? `${baseUrl}/graphql` };
  });

// ---------------------------------------------------------------------------
// station

function settingRange(key: keyof typeof CONFIG_RANGES) {
  const [min, max] = CONFIG_RANGES[key];
  return between(min, max).optional();
}

const STATION_SETTINGS_DESCRIPTION =
  'Station settings pushed to the service\'s config endpoint (`POST {baseUrl}/api/v1/stations/{token}/config`) at start-up and by `config push`. Every key is optional: only the keys given are sent, the others keep the service\'s values.';

export const stationSettingsSchema = z
  .strictObject({
    name: z
      .string()
      .trim()
      .min(1, { error: 'must not be empty' })
      .max(200, { error: 'must be at most 200 characters' })
      .optional()
      .describe('The station\'s display name on the service.')
      .meta({ examples: ['Garden'] }),
    locationPrivacy: z
      .boolean()
      .optional()
      .describe('Hide the station\'s exact location on the service.')
      .meta({ examples: [false] }),
    minConfidence: settingRange('minConfidence')
      .describe(
        `The service's display threshold for detection confidence, ${CONFIG_RANGES.minConfidence[0]} to ${CONFIG_RANGES.minConfidence[1]}. (The agent's own upload threshold is \`input.minConfidence\`.)`,
      )
      .meta({ examples: [0.7] }),
    minProbability: settingRange('minProbability')
      .describe(
        `Minimum occurrence probability for a detection to count on the service, ${CONFIG_RANGES.minProbability[0]} to ${CONFIG_RANGES.minProbability[1]}.`,
      )
      .meta({ examples: [0.03] }),
    minScore: settingRange('minScore')
      .describe(`Minimum score for a detection to count on the service, ${CONFIG_RANGES.minScore[0]} to ${CONFIG_RANGES.minScore[1]}.`)
      .meta({ examples: [3] }),
    minHumanConfidence: settingRange('minHumanConfidence')
      .describe(
        `Confidence above which a human voice in the audio is treated as present (privacy), ${CONFIG_RANGES.minHumanConfidence[0]} to ${CONFIG_RANGES.minHumanConfidence[1]}; the service's default is 0.04.`,
      )
      .meta({ examples: [0.04] }),
  })
  .describe(STATION_SETTINGS_DESCRIPTION);

const stationSchema = z
  .strictObject({
    latitude: between(-90, 90)
      .describe('Latitude of the station in decimal degrees (WGS 84), sent with every detection.')
      .meta({ examples: [52.52] }),
    longitude: between(-180, 180)
      .describe('Longitude of the station in decimal degrees (WGS 84), sent with every detection.')
      .meta({ examples: [13.4] }),
    timezone: z
      .string()
      .refine((v) => luxon().IANAZone.isValidZone(v), { error: 'must be an IANA time zone name such as Europe/Berlin' })
      .default(systemTimeZone)
      .describe(
        'IANA time zone of the analyzer\'s local timestamps: recording times without an offset are read in this zone, and timestamps are sent with its offset. The system\'s own zone (the default) and UTC are read through the system\'s local time; any other zone loads luxon and ICU\'s data, some 7 MB more memory: when the analyzer writes another zone\'s local times, set the system to that zone (`sudo timedatectl set-timezone Europe/Berlin`) and leave this at its default.',
      )
      .meta({ examples: ['Europe/Berlin'], defaultText: 'the system\'s time zone', typeText: 'IANA time zone' }),
    settings: stationSettingsSchema.prefault({}).describe(STATION_SETTINGS_DESCRIPTION),
  });

// ---------------------------------------------------------------------------
// input

const inputSchema = z
  .strictObject({
    dir: pathString()
      .describe('The analyzer\'s output folder, watched for audio and result files (subfolders included).')
      .meta({ examples: ['/home/pi/analyzer/output'], path: true }),
    format: z
      .enum(INPUT_FORMATS)
      .default('auto')
      .describe(
        'Layout of the output folder: `results` (audio files beside `.BirdNET.results.csv` / `.BirdNET.selection.table.txt` result files), `analyzerpi` (the analyzerpi layout: WAV files plus a JSON file per recording, common names only), or `auto` (decided per file).',
      )
      .meta({ examples: ['auto'] }),
    minConfidence: between(0, 1)
      .default(0.7)
      .describe('Detections below this confidence are not uploaded.')
      .meta({ examples: [0.7] }),
    labels: pathString()
      .nullable()
      .default(null)
      .describe(
        'The analyzer\'s labels file (lines `Scientific name_Common name`), used to find the scientific name of a common name. Required when `input.format` is `analyzerpi` (its output names species by common name only); with `auto`, analyzerpi files found without it fail with a message naming this key.',
      )
      .meta({ examples: ['/home/pi/analyzer/model/labels.txt'], path: true }),
    localizedLabels: pathString()
      .nullable()
      .default(null)
      .describe(
        'A labels file in the analyzer\'s display language, when its output uses translated common names: matched to `input.labels` by scientific name (the common name of `input.labels` is the one uploaded).',
      )
      .meta({ examples: ['/home/pi/analyzer/model/labels_de.txt'], path: true }),
    afterUpload: z
      .enum(AFTER_UPLOAD_ACTIONS)
      .default('keep')
      .describe(
        'What happens to the analyzer\'s files once a recording and all its detections are uploaded: `keep` them, `delete` them, or `move` them to `input.moveTo`.',
      )
      .meta({ examples: ['keep'] }),
    moveTo: pathString()
      .nullable()
      .default(null)
      .describe('Folder the analyzer\'s files are moved to after upload. Required when `input.afterUpload` is `move`.')
      .meta({ examples: ['/home/pi/analyzer/uploaded'], path: true }),
    analyzerpiJsonTimeoutSec: wholeBetween(1, 86_400)
      .default(300)
      .describe(
        'analyzerpi input: seconds to wait for a WAV file\'s JSON result file. A WAV spooled on sight whose JSON never comes is discarded after this.',
      )
      .meta({ examples: [300] }),
    rescanIntervalSec: wholeBetween(10, 86_400)
      .default(300)
      .describe('Seconds between full rescans of `input.dir`, which catch files the file watcher missed.')
      .meta({ examples: [300] }),
    stableMs: wholeBetween(100, 600_000)
      .default(2_000)
      .describe('A file is taken once its size has not changed for this many milliseconds (the analyzer may still be writing).')
      .meta({ examples: [2_000] }),
    maxResultFileMb: wholeBetween(1, 4_096)
      .default(256)
      .describe(
        'A result file larger than this many MB is refused with an error naming it (tables are read as a stream, so memory does not grow with their size; a file this large is not analyzer output). JSON result files are read whole and are refused above 16 MB whatever this says.',
      )
      .meta({ examples: [256] }),
    ramDiskAudio: z
      .enum(RAM_DISK_AUDIO_CHOICES)
      .default('copy')
      .describe(
        'Where a recording\'s audio waits for its upload when `input.dir` is on another file system than `dataDir` (a RAM disk): `copy` it onto the card (`dataDir/spool`: a power cut loses nothing; some 1.4 MB written per 15 s WAV), or `keep` it on that file system, as a hard link in the hidden folder `.station-agent-spool` of `input.dir` (nothing written to the card; a power cut or reboot loses the soundscapes not yet uploaded, never their detections, which then go without them). With `keep`, audio is copied as with `copy` while less than half of that file system is free, so the analyzer keeps room during an outage; `retention.keepUploadedDays` applies there too. No effect when both are on one file system (the spool hard-links the audio). Needs a restart.',
      )
      .meta({ examples: ['copy'] }),
  })
  .refine(
    (i: { format?: unknown; labels?: unknown }) => i.format !== 'analyzerpi' || typeof i.labels === 'string',
    {
      error: 'is required when input.format is analyzerpi (its output names species by common name only; the labels file gives the scientific names)',
      path: ['labels'],
      when: () => true,
    },
  )
  .refine((i: { afterUpload?: unknown; moveTo?: unknown }) => i.afterUpload !== 'move' || typeof i.moveTo === 'string', {
    error: 'is required when input.afterUpload is move',
    path: ['moveTo'],
    when: () => true,
  });

// ---------------------------------------------------------------------------
// privacy and filters (station policies: src/policy/)

const AUDIO_MODES = ['upload', 'never'] as const;
/** The analyzer's human classes (labels file lines `Human vocal_Human vocal`, ...). */
const HUMAN_CLASSES = ['Human vocal', 'Human non-vocal', 'Human whistle'] as const;
/** Classes of the analyzer's labels that the service refuses (422): never posted. */
const NON_BIRD_CLASSES = ['Dog', 'Engine', 'Environmental', 'Fireworks', 'Gun', 'Noise', 'Power tools', 'Siren', ...HUMAN_CLASSES] as const;

/** A list of species or class names as the labels file writes them. */
function nameList(defaults: readonly string[]) {
  return z
    .array(z.string().trim().min(1, { error: 'must not hold an empty name' }))
    .default(() => [...defaults])
    .meta({ typeText: 'list of names' });
}

const privacySchema = z.strictObject({
  audio: z
    .enum(AUDIO_MODES)
    .default('upload')
    .describe(
      '`upload`: soundscapes are uploaded with their detections. `never`: only detections are posted; no audio is spooled, kept or uploaded at all (analyzerpi WAVs are not even linked into the spool). Soundscapes queued before the switch are not uploaded either: at the next start (or reload) they are dropped (`ERR_PRIVACY_AUDIO`), their spooled audio deleted, and their detections posted without them.',
    )
    .meta({ examples: ['upload'] }),
  withholdHumanRecordings: z
    .boolean()
    .default(true)
    .describe(
      'A recording in which the analyzer found one of `privacy.humanClasses` at or above `privacy.humanMinConfidence` (in any row it wrote, also rows below `input.minConfidence`) is never uploaded as a soundscape: its spooled audio is deleted at once, its other detections are posted without a soundscape. Each such recording is logged (file, class, confidence) and counted in `status` and the metrics.',
    )
    .meta({ examples: [true] }),
  humanClasses: nameList(HUMAN_CLASSES)
    .describe(
      'The classes that mean a person is audible, by scientific or common name as in the labels file (case-insensitive). Detections of these classes are never posted, whatever the other settings.',
    )
    .meta({ examples: [[...HUMAN_CLASSES]] }),
  humanMinConfidence: between(0, 1)
    .default(0.04)
    .describe(
      'Confidence from which a human-class row withholds its recording\'s soundscape. Low on purpose (the service\'s own default for `station.settings.minHumanConfidence`): a false alarm costs one soundscape, a miss uploads a voice. The analyzer writes only rows above its own threshold, so anything below that means "any human row".',
    )
    .meta({ examples: [0.04] }),
});

const filtersSchema = z.strictObject({
  nonBirdClasses: nameList(NON_BIRD_CLASSES)
    .describe(
      'Classes never posted (the service answers 422 for them), by scientific or common name as in the labels file (`Dog` for the line `Dog_Dog`), case-insensitive. They are dropped at ingest and counted per class in `status` and the metrics, never queued.',
    )
    .meta({ examples: [[...NON_BIRD_CLASSES]] }),
  include: nameList([])
    .describe(
      'When not empty, only these species are posted (scientific or common name, case-insensitive). `filters.exclude` wins over it. Others are dropped at ingest and counted.',
    )
    .meta({ examples: [['Pica pica', 'Eurasian Blackbird']] }),
  exclude: nameList([])
    .describe('Species never posted (scientific or common name, case-insensitive), even when `filters.include` lists them. Dropped at ingest and counted.')
    .meta({ examples: [['House Sparrow']] }),
  speciesMinConfidence: z
    .record(z.string().trim().min(1, { error: 'must not be an empty name' }), between(0, 1))
    .default(() => ({}))
    .describe(
      'Per-species upload threshold, replacing `input.minConfidence` for that species (higher or lower), keyed by scientific or common name (case-insensitive). Rows below it are dropped at ingest and counted.',
    )
    .meta({ examples: [{ 'Pica pica': 0.9, 'Eurasian Blackbird': 0.5 }], typeText: 'object: name -> 0..1' }),
  minDetectionsPer24h: wholeBetween(1, 1_000)
    .default(1)
    .describe(
      'A species is posted only once it has this many detections within 24 h (counted by detection time, so a backfill behaves like live ingest). The first ones are queued held (`species-gate`) and released when the count is reached; a recording whose detections are all held waits with them. Held detections that never reach it expire 24 h after their detection (or after ingest, whichever is later): they become `dropped` with code `ERR_SPECIES_GATE`, and a recording left with only expired detections is dropped too, its spooled audio deleted by retention. Expiry never follows a clock jumped more than a day ahead of the last known time of the queue (until the system reports NTP sync, or the jump has held for a day). 1 turns the gate off.',
    )
    .meta({ examples: [1] }),
});

// ---------------------------------------------------------------------------
// the rest

const uploadSchema = z
  .strictObject({
    concurrency: wholeBetween(1, 16)
      .default(4)
      .describe('Most requests in flight at once; the uploader lowers it on its own while the service struggles.')
      .meta({ examples: [4] }),
    backoffBaseMs: wholeBetween(100, 3_600_000)
      .default(1_000)
      .describe(
        'First retry delay in milliseconds after a transient failure; doubles per attempt (with jitter) up to `upload.backoffMaxMs`. Transient failures never drop an item: it is retried until it is uploaded.',
      )
      .meta({ examples: [1_000] }),
    backoffMaxMs: wholeBetween(1_000, 86_400_000)
      .default(300_000)
      .describe('Longest retry delay in milliseconds.')
      .meta({ examples: [300_000] }),
    noSoundscapeAfterSec: wholeBetween(0, 2_592_000)
      .default(3_600)
      .describe(
        'A detection whose audio cannot be spooled or uploaded is posted without a soundscape once it has waited this many seconds. This includes audio held back by `upload.windowsAudioOnly` or `upload.audioBytesPerDay`: the soundscape is uploaded later, but its detections were already posted without a link to it. To keep detections with their audio on a metered link, make this longer than the longest wait (e.g. 86400 with a nightly window).',
      )
      .meta({ examples: [3_600] }),
    flacEncoder: z
      .enum(FLAC_ENGINE_CHOICES)
      .default('auto')
      .describe(
        'Which FLAC encoder turns spooled WAVs into the FLAC the service accepts. `auto`: the system\'s libFLAC in the agent\'s own process (flac-bindings, an optional addon the .deb carries; least CPU, no process per recording) when it loads, else Debian\'s `flac` program when it is on PATH, else libflacjs (WebAssembly, bundled, about ten times the CPU). `native`: native libFLAC only, the addon, else the `flac` program; with neither, soundscapes wait (retried) and `station-agent doctor` fails. `program`: the `flac` program only (float and 32-bit WAVs still go to libflacjs). `wasm`: libflacjs only. The addon needs libFLAC.so.12 (Debian\'s libflac12, which `flac` depends on).',
      )
      .meta({ examples: ['auto'] }),
    flacCompressionLevel: wholeBetween(0, 8)
      .default(0)
      .describe(
        'libFLAC\'s compression level for the soundscapes, 0 (least CPU) to 8 (smallest files); every encoder (`upload.flacEncoder`) honours it. The default 0 spends some 30 % less CPU on the encoding than the usual 5 (what the `flac` program and libsndfile pick) for files some 5 % larger: on a Pi Zero 2 W the analyzer needs the CPU more than the link needs the bytes. On a metered link, 5 saves those bytes for that CPU (docs/INSTALL.md, "What a recording costs the CPU").',
      )
      .meta({ examples: [0] }),
    probeIntervalSec: wholeBetween(1, 3_600)
      .default(60)
      .describe(
        'Seconds between probes while uploads are paused (circuit breaker open, or the service rejected the token).',
      )
      .meta({ examples: [60] }),
    windows: z
      .array(timeRange())
      .default([])
      .describe(
        'Upload windows: local time ranges `HH:MM-HH:MM` in `station.timezone` (a range may cross midnight, `00:00-24:00` is the whole day) during which uploads go. Outside every window nothing is sent (or only detections, with `upload.windowsAudioOnly`); uploads in flight finish. Empty: always.',
      )
      .meta({ examples: [['22:00-06:00', '12:00-13:00']] }),
    windowsAudioOnly: z
      .boolean()
      .default(false)
      .describe(
        'With `upload.windows`: the windows hold back only soundscapes; detections are posted all day (those whose soundscape waits go without it after `upload.noSoundscapeAfterSec`).',
      )
      .meta({ examples: [true] }),
    audioBytesPerSec: wholeBetween(1_024, 1_000_000_000)
      .nullable()
      .default(null)
      .describe(
        'Bandwidth cap of soundscape uploads in bytes per second, for all uploads in flight together (a token bucket paces the bytes as they are sent). Detections are not paced. null: no cap.',
      )
      .meta({ examples: [65_536] }),
    audioBytesPerDay: wholeBetween(1, Number.MAX_SAFE_INTEGER)
      .nullable()
      .default(null)
      .describe(
        'Daily data budget of soundscape uploads in bytes per local day (`station.timezone`). Once the bytes sent today reach it, soundscapes wait for the next day (uploads in flight finish, so it can be exceeded by up to `upload.concurrency` files). The count survives restarts, and its day only moves forward: a clock set back (or jumped far ahead) does not renew it. Counted only while a budget is set. null: no budget.',
      )
      .meta({ examples: [50_000_000] }),
  })
  .refine(
    (u: { backoffBaseMs?: unknown; backoffMaxMs?: unknown }) =>
      typeof u.backoffBaseMs !== 'number' || typeof u.backoffMaxMs !== 'number' || u.backoffMaxMs >= u.backoffBaseMs,
    { error: 'must be at least upload.backoffBaseMs', path: ['backoffMaxMs'], when: () => true },
  );

const retentionSchema = z
  .strictObject({
    keepUploadedDays: wholeBetween(0, 3_650)
      .default(0)
      .describe('Days to keep the spooled (FLAC) copy of an uploaded soundscape; 0 deletes it right after upload. The delivery audit can send a soundscape the service lost again only while this copy is kept (2 covers the daily audit of yesterday); with 0 it reports it.')
      .meta({ examples: [0] }),
  });

const queueSchema = z
  .strictObject({
    retainDays: wholeBetween(8, 3_650)
      .default(30)
      .describe(
        'Days a settled item (uploaded or dropped) stays in the queue database after it settled; then its row is deleted (a recording once its detections and its spooled audio are gone too), so the file stops growing at about this many days of history. At least 8: the delivery audit compares the items the service acknowledged in the recent days with what it holds, and needs their rows (and the ids the service gave). `failed` items stay until an operator retries or drops them.',
      )
      .meta({ examples: [30] }),
  });

const diskSchema = z
  .strictObject({
    minFreeMb: wholeBetween(0, 1_000_000)
      .default(200)
      .describe(
        'Below this much free space (MiB) on the file system of `dataDir`, no more audio is spooled; detections still queue and are later posted without a soundscape.',
      )
      .meta({ examples: [200] }),
  });

const clockSchema = z
  .strictObject({
    requireSync: z
      .enum(CLOCK_SYNC_MODES)
      .default('auto')
      .describe(
        'Whether uploads wait for a synchronized system clock: `always` (wait until the system reports NTP sync), `never` (trust the clock), or `auto` (wait when the system can report sync, trust the clock where it cannot, as in containers). Implausible timestamps (before 2020, or more than a day ahead) are always held back.',
      )
      .meta({ examples: ['auto'] }),
  });

const metricsSchema = z
  .strictObject({
    listen: z
      .string()
      .refine(isListenAddress, { error: 'must be host:port or a port, e.g. 127.0.0.1:9464' })
      .nullable()
      .default(null)
      .describe(
        'Address of the Prometheus metrics endpoint (`GET /metrics`), with `/healthz` (the process answers) and `/readyz` (watcher ready, queue answering, token accepted); a bare port binds 127.0.0.1. null turns it off.',
      )
      .meta({ examples: ['127.0.0.1:9464'], typeText: '`host:port` or a port' }),
  });

const MQTT_RETAIN_POLICIES = ['state', 'all', 'none'] as const;
const MQTT_VERSIONS = ['3.1.1', '5'] as const;
const MQTT_PROTOCOLS = ['mqtt:', 'mqtts:', 'ws:', 'wss:'];

function isBrokerUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return MQTT_PROTOCOLS.includes(url.protocol) && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Topic levels: no wildcards, no empty level, no leading or trailing slash. */
const TOPIC_PREFIX = /^[^#+/\s]+(?:\/[^#+/\s]+)*$/;

/** The machine's host name as an MQTT client id / Home Assistant node id: letters, digits, `_` and `-` only. */
function defaultMqttClientId(): string {
  const host = hostname().toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '');
  return `station-agent-${host || 'station'}`;
}

const mqttSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(false)
      .describe(
        'Publish detections, state and Home Assistant discovery to an MQTT broker (docs/MQTT.md). Set it to false with `mqtt.url` still given to remove the station from the broker (discovery and retained topics) at the next start.',
      )
      .meta({ examples: [true] }),
    url: z
      .string()
      .refine(isBrokerUrl, { error: 'must be an mqtt://, mqtts://, ws:// or wss:// URL' })
      .nullable()
      .default(null)
      .describe(
        'The broker, e.g. `mqtt://homeassistant.local:1883`, `mqtts://broker:8883` (TLS) or `ws://broker:9001/mqtt`. Required when `mqtt.enabled` is true. A password written into the URL is treated as a secret (never logged or printed), but `mqtt.passwordFile` is the better place for it.',
      )
      // secret: an error never echoes the value (it may hold a password, and a URL too broken to parse cannot be redacted).
      .meta({ examples: ['mqtt://homeassistant.local:1883'], typeText: 'URL', secret: true }),
    clientId: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'must be 1 to 64 letters, digits, _ or -' })
      .default(defaultMqttClientId)
      .describe(
        'MQTT client id; also the station\'s node id in topics and in Home Assistant (`<topicPrefix>/<clientId>/...`). Two stations on one broker need different ids.',
      )
      .meta({ examples: ['station-agent-garden'], defaultText: '`station-agent-<host name>`' }),
    username: z
      .string()
      .min(1, { error: 'must not be empty' })
      .optional()
      .describe('User name at the broker.')
      .meta({ examples: ['station'] }),
    passwordFile: pathString()
      .optional()
      .describe(
        'Path of a file holding the broker password (surrounding white space is trimmed); make it readable by the agent\'s user only. The password is never logged, printed or put into an error message.',
      )
      .meta({ examples: ['/etc/station-agent/mqtt-password'], path: true }),
    caFile: pathString()
      .optional()
      .describe('PEM file of the certificate authority that signed the broker\'s certificate (mqtts:// or wss:// with a private CA).')
      .meta({ examples: ['/etc/station-agent/broker-ca.pem'], path: true }),
    topicPrefix: z
      .string()
      .regex(TOPIC_PREFIX, { error: 'must be topic levels separated by / without +, #, spaces or empty levels' })
      .default('station-agent')
      .describe('First topic levels of every topic the station publishes (`<topicPrefix>/<clientId>/detection`, ...).')
      .meta({ examples: ['station-agent'] }),
    qos: z
      .union([z.literal(0), z.literal(1), z.literal(2)], { error: 'must be 0, 1 or 2' })
      .default(1)
      .describe(
        'MQTT quality of service of every message. With 1 or 2 a detection counts as published only once the broker acknowledged it; with 0 a message lost on the way is not sent again.',
      )
      .meta({ examples: [1] }),
    retain: z
      .enum(MQTT_RETAIN_POLICIES)
      .default('state')
      .describe(
        'Which messages the broker keeps for new subscribers: `state` (the state topic; detections are events and are not retained), `all` (also the last detection and the last upload update), `none`. The availability topic and Home Assistant discovery are always retained (Home Assistant needs them).',
      )
      .meta({ examples: ['state'] }),
    version: z
      .enum(MQTT_VERSIONS)
      .default('3.1.1')
      .describe('MQTT protocol version spoken to the broker.')
      .meta({ examples: ['3.1.1'] }),
    discovery: z
      .boolean()
      .default(true)
      .describe('Publish Home Assistant MQTT discovery, so the station appears in Home Assistant as a device with its sensors. Turning it off removes the entities again.')
      .meta({ examples: [true] }),
    discoveryPrefix: z
      .string()
      .regex(TOPIC_PREFIX, { error: 'must be topic levels separated by / without +, #, spaces or empty levels' })
      .default('homeassistant')
      .describe('Home Assistant\'s discovery prefix (its MQTT integration setting; `homeassistant` unless changed there).')
      .meta({ examples: ['homeassistant'] }),
  })
  .refine((m: { enabled?: unknown; url?: unknown }) => m.enabled !== true || typeof m.url === 'string', {
    error: 'is required when mqtt.enabled is true',
    path: ['url'],
    when: () => true,
  });
const webhookSchema = z.strictObject({
  url: httpUrl()
    .nullable()
    .default(null)
    .describe(
      'Where alerts are POSTed as JSON (`{ event, state, station, message, since, at, ... }`): an ntfy topic URL, a Gotify `/message` URL, a Home Assistant webhook URL, or any endpoint taking JSON. Only its origin is ever logged (a Home Assistant webhook id in the path is a secret). null: no alerts.',
    )
    .meta({ examples: ['https://ntfy.sh/my-station-alerts'], typeText: 'URL' }),
  headers: z
    .record(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, { error: 'must be an HTTP header name' }), z.string())
    .default({})
    .describe('Extra request headers, e.g. `{ "Title": "Garden station" }`. Put secrets in `alerts.webhook.secretFile`, not here.')
    .meta({ examples: [{ Tags: 'bird' }] }),
  secretFile: pathString()
    .nullable()
    .default(null)
    .describe(
      'A file holding the webhook\'s secret (trimmed), sent as `alerts.webhook.secretHeader: alerts.webhook.secretPrefix<secret>`, e.g. `Authorization: Bearer tk_...` for ntfy or `X-Gotify-Key: ...` for Gotify. Never logged.',
    )
    .meta({ examples: ['/etc/station-agent/alert-token'], path: true }),
  secretHeader: z
    .string()
    .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, { error: 'must be an HTTP header name' })
    .default('Authorization')
    .describe('The header that carries the secret of `alerts.webhook.secretFile`.')
    .meta({ examples: ['X-Gotify-Key'] }),
  secretPrefix: z
    .string()
    .default('Bearer ')
    .describe('Text before the secret in its header (`Bearer ` for ntfy and most APIs, empty for Gotify\'s `X-Gotify-Key`).')
    .meta({ examples: [''] }),
});

const heartbeatSchema = z.strictObject({
  url: httpUrl()
    .nullable()
    .default(null)
    .describe(
      'A dead-man\'s switch: while the agent is healthy it sends a GET to this URL every `alerts.heartbeat.intervalSec`; while it is not (uploads failing, disk low, clock held, queue not draining) a POST to the URL + `/fail` with a one-line reason. The healthchecks.io and Uptime Kuma push convention (docs/OPERATOR.md, "Heartbeat"). The URL is a secret: never logged or shown, only its origin. null: no heartbeat.',
    )
    .meta({ examples: ['https://hc-ping.com/0b0c4f3e-5d1a-4f7e-9a2b-1c2d3e4f5a6b'], typeText: 'URL' }),
  intervalSec: wholeBetween(10, 86_400)
    .default(300)
    .describe('Seconds between two pings. Set the monitor\'s period to this and its grace to a few periods.')
    .meta({ examples: [300] }),
});

const alertsSchema = z.strictObject({
  webhook: webhookSchema.prefault({}).describe('The HTTP webhook alerts go to.'),
  heartbeat: heartbeatSchema.prefault({}).describe('Pings to an external monitor that alerts when they stop (the station is dead) or say `/fail`.'),
  noUploadHours: between(0.01, 720)
    .default(6)
    .describe(
      'Alert when nothing was uploaded for this many hours while items wait and uploads are allowed (time outside `upload.windows` does not count).',
    )
    .meta({ examples: [6] }),
  holdSec: wholeBetween(0, 86_400)
    .default(300)
    .describe(
      'An alert fires only after its condition has held this many seconds (a short outage or a flapping link stays quiet); a resolved notice is sent only for an alert that fired.',
    )
    .meta({ examples: [300] }),
  minIntervalSec: wholeBetween(0, 604_800)
    .default(3_600)
    .describe('Least seconds between two notifications of the same alert (firing or resolved), so a flapping link does not spam.')
    .meta({ examples: [3_600] }),
});

const auditSchema = z.strictObject({
  enabled: z
    .boolean()
    .default(true)
    .describe(
      'Audit delivery: once a day (yesterday, at `audit.hour`) and for the last hour after an outage or a reconciliation, compare what the service holds for the station with what it acknowledged (docs/OPERATOR.md, "Verified delivery"). Runs only while uploads and audio may go (upload windows, data budget), paced by the bandwidth cap.',
    )
    .meta({ examples: [true] }),
  repair: z
    .enum(['report', 'requeue'])
    .default('requeue')
    .describe('What the audit does with an item acknowledged but missing at the service: `requeue` sends it again, once (a soundscape only while its audio is still in the spool, `retention.keepUploadedDays`), then reports it; `report` only reports. Altered and foreign items are always only reported.')
    .meta({ examples: ['requeue'] }),
  hour: wholeBetween(0, 23)
    .default(3)
    .describe('The local hour from which the daily audit of yesterday runs (it waits for the upload window and an empty queue).')
    .meta({ examples: [3] }),
});

const logSchema = z
  .strictObject({
    level: z
      .enum(LOG_LEVELS)
      .default('info')
      .describe('Log level. Logs are JSON lines on standard output (the journal under systemd).')
      .meta({ examples: ['info'] }),
  });

/**
 * A section with required keys defaults to `{}` too (run through the schema), so a
 * missing section reports its required keys one by one (`service.baseUrl is required`)
 * rather than "service is required". `{}` does not type as its input, hence the cast.
 */
function withRequiredKeys<T extends z.ZodType>(section: T) {
  return section.prefault({} as z.input<T>);
}

export const configSchema = z.strictObject({
  service: withRequiredKeys(serviceSchema).describe('Where the service is and how the station authenticates.'),
  station: withRequiredKeys(stationSchema).describe('Where the station is.'),
  input: withRequiredKeys(inputSchema).describe('The analyzer\'s output: where it is, how to read it, what to do with it after upload.'),
  dataDir: pathString()
    .default(DEFAULT_DATA_DIR)
    .describe('Folder of the queue database and the audio spool. Must be on a file system that survives reboots, and apart from `input.dir` (neither inside the other, compared by real path).')
    .meta({ examples: ['/var/lib/station-agent'], path: true }),
  upload: uploadSchema.prefault({}).describe('How the queue is sent to the service.'),
  retention: retentionSchema.prefault({}).describe('What the agent keeps in `dataDir` after upload.'),
  queue: queueSchema.prefault({}).describe('How long the queue database keeps what is settled.'),
  disk: diskSchema.prefault({}).describe('Protects the SD card from filling up.'),
  clock: clockSchema.prefault({}).describe('A Raspberry Pi has no real-time clock: after boot its time is wrong until NTP syncs.'),
  privacy: privacySchema
    .prefault({})
    .describe('What never leaves the station: audio altogether (`audio: never`), or the soundscapes in which the analyzer heard a person.'),
  filters: filtersSchema
    .prefault({})
    .describe(
      'Which detections are posted: classes the service refuses, include and exclude lists, per-species thresholds, and a gate that waits for several detections of a species. Decided at ingest (never queued, counted) except the gate, which holds items in the queue.',
    ),
  metrics: metricsSchema.prefault({}).describe('Prometheus metrics.'),
  mqtt: mqttSchema.prefault({}).describe('Publishing to an MQTT broker, with Home Assistant discovery (docs/MQTT.md).'),
  alerts: alertsSchema
    .prefault({})
    .describe(
      'Notifications to the station\'s owner: nothing uploaded for `alerts.noUploadHours` while items wait, uploads paused (token refused, soundscape format refused, clock not synchronised), disk low; and again when each recovers.',
    ),
  audit: auditSchema.prefault({}).describe('The delivery audit: does the service hold what it acknowledged?'),
  log: logSchema.prefault({}).describe('Logging.'),
});

/** The validated configuration, every default filled in. */
export type Config = z.output<typeof configSchema>;
/** What a config file may hold (before defaults). */
export type ConfigInput = z.input<typeof configSchema>;
export type StationSettings = z.output<typeof stationSettingsSchema>;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type InputFormat = (typeof INPUT_FORMATS)[number];
export type AfterUploadAction = (typeof AFTER_UPLOAD_ACTIONS)[number];
export type ClockSyncMode = (typeof CLOCK_SYNC_MODES)[number];
export type MqttConfig = Config['mqtt'];
export type MqttRetainPolicy = (typeof MQTT_RETAIN_POLICIES)[number];
export type AudioMode = (typeof AUDIO_MODES)[number];
