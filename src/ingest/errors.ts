import { StationAgentError } from '../errors.js';

/**
 * A result file that cannot be read as a whole: unrecognised header, wrong delimiter,
 * not JSON. Problems with single rows are `RowError`s in the parse result instead, so one
 * bad row never hides the good ones.
 */
export class ResultFileError extends StationAgentError {
  readonly code = 'ERR_RESULT_FILE';

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
  readonly code = 'ERR_LABELS_FILE';

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
