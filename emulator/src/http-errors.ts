import { EmulatorError } from './error-base.js';

/**
 * An error that ends a request with a given status and JSON body. Route code
 * throws these; the app's error handler writes them out unchanged.
 */
export class EmulatorHttpError extends EmulatorError {
  readonly code = 'ERR_EMULATOR_HTTP' as const;

  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(typeof body.message === 'string' ? body.message : `HTTP ${status}`);
  }
}

/** 422 `{success: false, errors: {field: [message]}}`, the service's validation shape. */
export function validationFailed(errors: Record<string, string[]>): EmulatorHttpError {
  return new EmulatorHttpError(422, { success: false, errors });
}

/** The real service's answer to an unknown or inactive token, word for word. */
export function accessDenied(): EmulatorHttpError {
  return new EmulatorHttpError(403, { success: false, message: 'Access denied' });
}

export function notFound(message = 'Not found'): EmulatorHttpError {
  return new EmulatorHttpError(404, { success: false, message });
}

/** Rails-style messages the service uses in `errors`. */
export const MESSAGES = {
  blank: "can't be blank",
  invalid: 'is invalid',
  mustExist: 'must exist',
  notIncluded: 'is not included in the list',
} as const;
