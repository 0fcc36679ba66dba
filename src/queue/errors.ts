import { StationAgentError } from '../errors.js';

/**
 * Errors of the durable queue. One class, several stable codes:
 *
 * | code                   | meaning                                                          |
 * |------------------------|------------------------------------------------------------------|
 * | `ERR_QUEUE`            | the database cannot be opened, is not a database, or is corrupt   |
 * | `ERR_QUEUE_TRANSITION` | a state change the state machine does not allow (see state.ts)    |
 * | `ERR_QUEUE_NOT_FOUND`  | no item with that id                                              |
 * | `ERR_QUEUE_INVALID`    | a caller passed a value the queue refuses (bad id, bad timestamp) |
 */
export type QueueErrorCode = 'ERR_QUEUE' | 'ERR_QUEUE_TRANSITION' | 'ERR_QUEUE_NOT_FOUND' | 'ERR_QUEUE_INVALID';

export class QueueError extends StationAgentError {
  readonly code: QueueErrorCode;

  constructor(code: QueueErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
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
