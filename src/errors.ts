/**
 * station-agent's error classes and the register of their codes (undici's
 * `lib/core/errors.js` is the model: every code in one file).
 *
 * Every error the agent raises on purpose is a subclass of {@link StationAgentError} and
 * carries a stable `code`, so callers (the uploader's decision table, the CLI's exit
 * codes, `--json` output) branch on classes and codes, never on message text. Each code
 * is in {@link ERROR_CODES} once, with the class that carries it, what it means, whether
 * it may pass by itself ({@link isTransient}) and the CLI's exit code for it (the same
 * for every code of a class). A class may only declare a code of the register (the type
 * of `code` says so); `test/lint/error-codes.test.ts` holds every class of `src/`, every
 * `ERR_` literal of `src/` and docs/ARCHITECTURE.md's table against it.
 */

/**
 * The process's exit codes, documented in `--help` (src/cli/exit-codes.ts) and
 * docs/OPERATOR.md ("Exit codes", held against {@link EXIT_MEANINGS} by
 * test/lint/error-codes.test.ts). Scripts (and systemd's `Restart=on-failure`,
 * `RestartPreventExitStatus=`) branch on them, so they never change meaning. A failed
 * command's code follows from its error's class: the register's `exit`.
 */
export const EXIT = {
  OK: 0,
  FAILURE: 1,
  USAGE: 2,
  CONFIG: 3,
  NETWORK: 4,
  QUEUE: 5,
  /** `run` only, from the daemon itself (src/daemon/runtime-reporter.ts), not from an error. */
  QUEUE_UNWRITABLE: 70,
} as const;

/** Each exit code's meaning: `label` in `--help`, `meaning` in docs/OPERATOR.md. */
export const EXIT_MEANINGS = {
  OK: { label: 'ok', meaning: 'ok' },
  FAILURE: {
    label: 'failure (a check failed, an operation did not complete)',
    meaning: 'the command ran and something failed (a doctor check, an item that could not be retried, a file that could not be ingested)',
  },
  USAGE: { label: 'usage error (unknown option, missing argument)', meaning: 'usage error: unknown option, bad value (`--period year`), missing argument' },
  CONFIG: { label: 'configuration invalid', meaning: 'the configuration (file, environment or flags) is invalid' },
  NETWORK: { label: 'service unreachable or request refused', meaning: 'the service could not be reached or refused the request' },
  QUEUE: { label: 'queue database unusable', meaning: 'the queue database cannot be opened or is damaged' },
  QUEUE_UNWRITABLE: {
    label: 'run: the queue database stays unwritable (systemd restarts it)',
    meaning: '`run` only: the queue database stays unwritable (three failed writes of the status snapshot in a row); systemd restarts the agent',
  },
} as const satisfies Record<keyof typeof EXIT, { label: string; meaning: string }>;

/** The exit code of a failed command, by name: what the register gives each class. */
export type ExitKind = Exclude<keyof typeof EXIT, 'OK' | 'QUEUE_UNWRITABLE'>;

/** A code an error class declares as its `code`. */
interface ClassCode {
  readonly class: string;
  readonly exit: ExitKind;
  /** It may pass by itself: the same work, tried again later unchanged, may succeed. */
  readonly transient: boolean;
  readonly meaning: string;
}

/**
 * A code that travels inside an error of `in` as its `cause_code` (the reason under a
 * transport failure), never as an error's own `code`.
 */
interface CauseCode {
  readonly cause: true;
  readonly in: string;
  readonly meaning: string;
}

/**
 * A queue row's `last_error_code` that no error carries: why the agent moved the item
 * itself (dropped it, sent it again).
 */
interface ReasonCode {
  readonly reason: true;
  readonly meaning: string;
}

export const ERROR_CODES = {
  // The service (src/api/errors.ts): the split is when the failure came, relative to the request reaching the service.
  ERR_NETWORK_BEFORE_SEND: {
    class: 'NetworkError',
    exit: 'NETWORK',
    transient: true,
    meaning: 'the request never reached the service (also one still queued for a connection when its total time limit came)',
  },
  ERR_OUTCOME_UNKNOWN: {
    class: 'OutcomeUnknownError',
    exit: 'NETWORK',
    transient: true,
    meaning:
      "sent, no complete response (a reset, a caller's abort, or the total time limit `service.timeoutMs`: the `cause_code` `ERR_DEADLINE`); also the `last_error_code` of an item a stop or a refused write left `unknown`",
  },
  ERR_HTTP_STATUS: {
    class: 'HttpStatusError',
    // Whether a status may pass is the uploader's decision table's (src/upload/decide.ts).
    exit: 'NETWORK',
    transient: false,
    meaning: 'a non-2xx response (its `status`, and whether the body is an HTML page)',
  },
  ERR_SERVICE_REJECTED: {
    class: 'ServiceRejectedError',
    exit: 'NETWORK',
    transient: false,
    meaning: '2xx with `success: false`, or a create without a numeric id; `field` names the answer\'s field (`success`, `detection.id`, ...)',
  },
  ERR_CONNECT_TIMEOUT: { cause: true, in: 'NetworkError', meaning: 'no connection within `service.connectTimeoutMs`' },
  ERR_POOL_CLOSED: { cause: true, in: 'NetworkError', meaning: 'the client was closed before the request left' },
  ERR_RESPONSE_TOO_LARGE: { cause: true, in: 'OutcomeUnknownError', meaning: 'an answer larger than any the service sends (16 MiB)' },
  ERR_BODY_NOT_JSON: { cause: true, in: 'OutcomeUnknownError', meaning: "a 2xx whose body is not the service's JSON" },
  ERR_ODD_ID: { cause: true, in: 'OutcomeUnknownError', meaning: 'a 201 whose created id is no id the agent can keep (a word, beyond 2^53, negative, a fraction)' },
  ERR_DEADLINE: {
    class: 'DeadlineError',
    exit: 'FAILURE',
    transient: true,
    meaning:
      'the total time limit of an outbound request (the service, the alert webhook, GraphQL, `watch`, an MQTT publish), however slowly the peer answers; mostly seen inside another error (the `cause_code` of the two transport errors)',
  },

  // Files and audio.
  ERR_AUDIO_INVALID: { class: 'AudioFileError', exit: 'FAILURE', transient: false, meaning: 'audio that is not an encodable WAV/FLAC (its `reason`), or a spool reference whose file changed' },
  ERR_FLAC_ENCODER: { class: 'FlacEncoderError', exit: 'FAILURE', transient: true, meaning: 'the encoder itself failed (libFLAC refused to start, the worker died)' },
  ERR_NOT_REGULAR_FILE: { class: 'NotRegularFileError', exit: 'FAILURE', transient: false, meaning: 'an input file that is a FIFO, socket, device, folder or symbolic link' },
  ERR_FILE_TOO_LARGE: { class: 'FileTooLargeError', exit: 'FAILURE', transient: false, meaning: "a file larger than its reader's bound (the config file, a secret file, a labels file)" },
  ERR_DISK_FULL: { class: 'DiskFullError', exit: 'FAILURE', transient: true, meaning: 'no space to spool audio' },

  // Ingest.
  ERR_RESULT_FILE: { class: 'ResultFileError', exit: 'FAILURE', transient: false, meaning: 'a result file that is not a recognised format, not a regular file, or larger than `input.maxResultFileMb`' },
  ERR_NO_RECORDING_START: {
    class: 'NoRecordingStartError',
    exit: 'FAILURE',
    transient: false,
    meaning: 'a result with detections but no recording start (no time in it, its names or metadata, and no audio)',
  },
  ERR_INGEST: { class: 'IngestError', exit: 'FAILURE', transient: false, meaning: 'a result file could not be taken in for a reason without a code of its own (a fault of the agent)' },
  ERR_LABELS_FILE: { class: 'LabelsFileError', exit: 'FAILURE', transient: false, meaning: 'the labels file (`input.labels`) cannot be read or holds no labels' },

  // The queue.
  ERR_QUEUE: {
    class: 'QueueDatabaseError',
    exit: 'QUEUE',
    // A database that refused a write or a transaction may take it later (the disk filled, the CLI held it).
    transient: true,
    meaning: 'the queue database cannot be opened, is not a database or is corrupt, or refused a transaction',
  },
  ERR_QUEUE_TRANSITION: {
    class: 'QueueError',
    exit: 'FAILURE',
    // The item's state may change (an operator, the uploader): the same move may be allowed then.
    transient: true,
    meaning: 'a state change the state machine does not allow (src/queue/state.ts)',
  },
  ERR_QUEUE_NOT_FOUND: { class: 'QueueError', exit: 'FAILURE', transient: false, meaning: 'no item with that id' },
  ERR_QUEUE_INVALID: { class: 'QueueError', exit: 'FAILURE', transient: false, meaning: 'a caller passed a value the queue refuses (bad id, bad timestamp)' },
  ERR_SPECIES_GATE: { reason: true, meaning: 'a detection held by the species gate (`filters.minDetectionsPer24h`) and expired: dropped' },
  ERR_NO_AUDIO: { reason: true, meaning: 'a recording queued without audio (the disk was low), retired once its detections went without it: dropped' },
  ERR_PRIVACY_AUDIO: { reason: true, meaning: 'a recording whose audio `privacy.audio: never` withholds: dropped' },
  ERR_DELIVERY_MISSING: { reason: true, meaning: 'an item the delivery audit found acknowledged but missing at the service: sent again (once)' },

  // The daemon and its settings.
  ERR_CONFIG_INVALID: { class: 'ConfigError', exit: 'CONFIG', transient: false, meaning: 'the config file, environment or flags are invalid (`problems`, each naming its key)' },
  ERR_SECRET_FILE: {
    class: 'SecretFileError',
    exit: 'FAILURE',
    transient: false,
    meaning: 'a secret file missing, empty, not a regular file or larger than 64 KiB; the message names the key, never the path or the content',
  },
  ERR_DAEMON_RUNNING: { class: 'DaemonLockError', exit: 'FAILURE', transient: false, meaning: "another daemon holds the dataDir's lock, or watches the same input folder" },
  ERR_DAEMON_LOCK: { class: 'DaemonLockFileError', exit: 'FAILURE', transient: false, meaning: "the dataDir or its lock file cannot be opened or locked (permissions, a read-only mount, no `flock` program), or the input folder's lock socket not bound" },
  ERR_METRICS: { class: 'MetricsError', exit: 'FAILURE', transient: false, meaning: 'the metrics endpoint cannot start: a bad `metrics.listen`, or the address is taken' },
  ERR_AUDIT: { class: 'AuditError', exit: 'FAILURE', transient: true, meaning: 'the delivery audit could not read what the service holds (a listing that does not end)' },
  ERR_MQTT_CONFIG: { class: 'MqttError', exit: 'FAILURE', transient: false, meaning: 'a file named by the `mqtt` settings (password, CA) cannot be read' },
  ERR_MQTT_BROKER: { class: 'MqttError', exit: 'FAILURE', transient: true, meaning: 'the broker cannot be reached, refused the connection, or dropped it' },
  ERR_MQTT_PUBLISH: { class: 'MqttError', exit: 'FAILURE', transient: true, meaning: 'a publish was not acknowledged (the connection closed first, or the broker refused it)' },
  ERR_ALERT_RECEIVER: {
    class: 'ReceiverError',
    exit: 'FAILURE',
    // A receiver that is down or refusing may take the notice later: the webhook sends it again, the heartbeat pings again.
    transient: true,
    meaning: 'the alert webhook or the heartbeat\'s monitor did not take a notice: an answer other than 2xx (its `status`) or none (its `cause_code`); the message names the receiver by its origin, never its URL',
  },

  // The CLI.
  ERR_USAGE: { class: 'UsageError', exit: 'USAGE', transient: false, meaning: 'flags or arguments that do not fit together (commander\'s own usage errors too)' },
  ERR_COMMAND_FAILED: { class: 'CommandFailure', exit: 'FAILURE', transient: false, meaning: 'a command ran and could not do what was asked (no such queue item, a failed doctor check)' },

  // The demo (its own package, demo/src/errors.ts; `station-agent demo` loads it).
  ERR_DEMO: { class: 'DemoError', exit: 'FAILURE', transient: false, meaning: 'the demo could not finish: the pipeline stalled, or the service holds something else than was written' },

  /** What {@link errorCode} says of an error that is not the agent's and has no code. */
  ERR_UNKNOWN: { class: 'Error', exit: 'FAILURE', transient: false, meaning: 'an error that is not the agent\'s and carries no code of its own' },
} as const satisfies Record<`ERR_${string}`, ClassCode | CauseCode | ReasonCode>;

/**
 * Node's own codes the agent reads (they are not the agent's: not in the register).
 */
export const NODE_ERROR_CODES: ReadonlySet<string> = new Set(['ERR_MODULE_NOT_FOUND', 'ERR_TLS_CERT_ALTNAME_INVALID']);

type Register = typeof ERROR_CODES;
export type RegisteredCode = keyof Register;

/** Every code an error class declares. */
export type ErrorCode = { [C in RegisteredCode]: Register[C] extends ClassCode ? C : never }[RegisteredCode];

/** The codes the register gives to class `Name`: the type of that class's `code`. */
export type CodeOf<Name extends string> = { [C in ErrorCode]: Register[C]['class'] extends Name ? C : never }[ErrorCode];

export abstract class StationAgentError extends Error {
  abstract readonly code: ErrorCode;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }

  /** A plain object for logs and `--json` output. Never contains a token. */
  toJSON(): Record<string, unknown> {
    return { name: this.name, code: this.code, message: this.message };
  }
}

export function errorCode(err: unknown): string {
  if (err instanceof StationAgentError) return err.code;
  if (err && typeof err === 'object' && 'code' in err && typeof err.code === 'string') return err.code;
  return 'ERR_UNKNOWN';
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The codes of the system and of SQLite (better-sqlite3's `code`) that may pass by
 * themselves; `*` takes the code's extended codes too (`SQLITE_BUSY_SNAPSHOT`). The disk or
 * a quota full, an I/O error (a card that hiccups), too many open files in the process or
 * the system; the database busy or locked by another connection (the CLI writes beside the
 * daemon), its disk full, its I/O failing. Not a corrupt, read-only or constraint-refused
 * database: those stay. docs/ARCHITECTURE.md's "Error codes" lists them.
 */
export const TRANSIENT_SYSTEM_CODES = ['ENOSPC', 'EDQUOT', 'EIO', 'EMFILE', 'ENFILE', 'SQLITE_BUSY*', 'SQLITE_LOCKED*', 'SQLITE_FULL', 'SQLITE_IOERR*'] as const;

const TRANSIENT_EXACT: ReadonlySet<string> = new Set(TRANSIENT_SYSTEM_CODES.map((c) => c.replace(/\*$/, '')));
const TRANSIENT_FAMILIES = TRANSIENT_SYSTEM_CODES.filter((c) => c.endsWith('*')).map((c) => `${c.slice(0, -1)}_`);

/**
 * The one rule of what may pass by itself: the same work, tried again later unchanged,
 * may succeed. The agent's own codes say it in the register; of the system's and SQLite's,
 * a full disk, an I/O error, too many open files, a busy or locked database. Anything
 * else (a bad file, a refused value, a fault of the agent) stays as it is.
 *
 * Ingest looks at a result file again later when its failure is transient, instead of
 * recording it as done (src/ingest/pairing.ts); the uploader retries an item whose send
 * failed so, instead of failing it (src/upload/decide.ts, after its rows of the service's
 * answers).
 *
 * @example isTransient('SQLITE_BUSY') // true; isTransient('ERR_AUDIO_INVALID') // false
 */
export function isTransient(code: string): boolean {
  const entry = registered(code);
  if (entry) return 'transient' in entry && entry.transient;
  return TRANSIENT_EXACT.has(code) || TRANSIENT_FAMILIES.some((family) => code.startsWith(family));
}

/** The CLI's exit code for a failed command, by the class of its error (the register's `exit`). */
export function exitKind(err: unknown): ExitKind {
  const entry = registered(errorCode(err));
  return entry && 'exit' in entry ? entry.exit : 'FAILURE';
}

function registered(code: string): ClassCode | CauseCode | ReasonCode | undefined {
  return Object.hasOwn(ERROR_CODES, code) ? (ERROR_CODES as Record<string, ClassCode | CauseCode | ReasonCode>)[code] : undefined;
}
