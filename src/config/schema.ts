import { IANAZone } from 'luxon';
import { z } from 'zod';
import { CONFIG_RANGES } from '../wire/types.js';

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

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const INPUT_FORMATS = ['auto', 'results', 'analyzerpi'] as const;
export const AFTER_UPLOAD_ACTIONS = ['keep', 'delete', 'move'] as const;
export const CLOCK_SYNC_MODES = ['auto', 'always', 'never'] as const;

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
  return zone && IANAZone.isValidZone(zone) ? zone : 'UTC';
}

const LISTEN_ADDRESS = /^(?:(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/;

function isListenAddress(value: string): boolean {
  const match = LISTEN_ADDRESS.exec(value);
  return match !== null && Number(match[1]) <= 65535;
}

// ---------------------------------------------------------------------------
// service

const serviceSchema = z
  .strictObject({
    baseUrl: httpUrl()
      .refine((v) => !/\/api\/v1\/*$/.test(v), { error: 'must be the base URL without /api/v1 (the agent adds it)' })
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
      .refine((v) => IANAZone.isValidZone(v), { error: 'must be an IANA time zone name such as Europe/Berlin' })
      .default(systemTimeZone)
      .describe(
        'IANA time zone of the analyzer\'s local timestamps: recording times without an offset are read in this zone, and timestamps are sent with its offset.',
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
        'A detection whose audio cannot be spooled or uploaded is posted without a soundscape once it has waited this many seconds.',
      )
      .meta({ examples: [3_600] }),
    probeIntervalSec: wholeBetween(1, 3_600)
      .default(60)
      .describe(
        'Seconds between probes while uploads are paused (circuit breaker open, or the service rejected the token).',
      )
      .meta({ examples: [60] }),
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
      .describe('Days to keep the spooled (FLAC) copy of an uploaded soundscape; 0 deletes it right after upload.')
      .meta({ examples: [0] }),
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
    .default('/var/lib/station-agent')
    .describe('Folder of the queue database and the audio spool. Must be on a file system that survives reboots.')
    .meta({ examples: ['/var/lib/station-agent'], path: true }),
  upload: uploadSchema.prefault({}).describe('How the queue is sent to the service.'),
  retention: retentionSchema.prefault({}).describe('What the agent keeps in `dataDir` after upload.'),
  disk: diskSchema.prefault({}).describe('Protects the SD card from filling up.'),
  clock: clockSchema.prefault({}).describe('A Raspberry Pi has no real-time clock: after boot its time is wrong until NTP syncs.'),
  metrics: metricsSchema.prefault({}).describe('Prometheus metrics.'),
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
