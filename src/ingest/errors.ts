import { StationAgentError, type CodeOf } from '../errors.js';

/**
 * A result file that cannot be read as a whole: unrecognised header, wrong delimiter,
 * not JSON. Problems with single rows are `RowError`s in the parse result instead, so one
 * bad row never hides the good ones.
 */
export class ResultFileError extends StationAgentError {
  readonly code: CodeOf<'ResultFileError'> = 'ERR_RESULT_FILE';

  constructor(
    readonly fileName: string,
    problem: string,
    options?: ErrorOptions,
  ) {
    super(`${fileName}: ${problem}`, options);
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), fileName: this.fileName };
  }
}

/** A labels file that cannot be read or holds no labels. */
export class LabelsFileError extends StationAgentError {
  readonly code: CodeOf<'LabelsFileError'> = 'ERR_LABELS_FILE';

  constructor(
    readonly fileName: string,
    problem: string,
    options?: ErrorOptions,
  ) {
    super(`labels file ${fileName}: ${problem}`, options);
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), fileName: this.fileName };
  }
}

/**
 * A result with detections but no recording start: neither the file nor its name (nor an
 * audio file's name or metadata) gives the date and time, and no audio is beside it. Not
 * queued: a detection is never stamped with the time of ingest.
 */
export class NoRecordingStartError extends StationAgentError {
  readonly code: CodeOf<'NoRecordingStartError'> = 'ERR_NO_RECORDING_START';

  constructor(readonly fileName: string) {
    super(
      `${fileName}: no recording start: neither the file nor its name (nor an audio file's name or metadata) gives the date and time, ` +
        `and no audio is beside it; not queued (a detection is never stamped with the time of ingest). ` +
        `Put the audio beside it, name it like <prefix>_YYYYMMDD_HHMMSS, or write a sidecar (docs/SIDECAR.md), then run station-agent ingest --force on it`,
    );
  }
}

/**
 * A result file could not be taken in for a reason that carries no code of its own (not
 * the system's, not one of the agent's classes): a fault of the agent. The file is
 * recorded as an error; the others go on.
 */
export class IngestError extends StationAgentError {
  readonly code: CodeOf<'IngestError'> = 'ERR_INGEST';

  constructor(
    readonly fileName: string,
    cause: unknown,
  ) {
    super(`${fileName}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}
