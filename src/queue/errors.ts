import { StationAgentError, type CodeOf } from '../errors.js';

/**
 * Errors of the durable queue, with their codes in the register (src/errors.ts): a
 * `QueueError` for an item or a value the queue refuses (`ERR_QUEUE_TRANSITION`,
 * `ERR_QUEUE_NOT_FOUND`, `ERR_QUEUE_INVALID`), a {@link QueueDatabaseError} when the
 * database itself is unusable (`ERR_QUEUE`, the CLI's exit 5).
 */
export type QueueErrorCode = CodeOf<'QueueError' | 'QueueDatabaseError'>;

export class QueueError extends StationAgentError {
  readonly code: QueueErrorCode;

  /** `ERR_QUEUE` is a {@link QueueDatabaseError}'s (test/lint/error-codes.test.ts holds each `new` to its class). */
  constructor(code: QueueErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

/** `ERR_QUEUE`: the queue database cannot be opened, is not a database or is corrupt, or refused a transaction. */
export class QueueDatabaseError extends QueueError {
  constructor(message: string, options?: ErrorOptions) {
    super('ERR_QUEUE', message, options);
  }
}

/** A refused state change: names the item, the state it was in and the state asked for. */
export class QueueTransitionError extends QueueError {
  constructor(
    /** Operator id of the item, e.g. `r12` or `d345`. */
    readonly item: string,
    readonly from: string,
    readonly to: string,
    allowedFrom: readonly string[],
    /** Why the move was refused when the state alone allows it (an extra condition failed). */
    detail?: string,
  ) {
    super(
      'ERR_QUEUE_TRANSITION',
      detail
        ? `cannot move ${item} from ${from} to ${to}: ${detail}`
        : `cannot move ${item} from ${from} to ${to} (allowed from: ${allowedFrom.join(', ') || 'nothing'})`,
    );
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), item: this.item, from: this.from, to: this.to };
  }
}
