import { HttpStatusError, NetworkError, OutcomeUnknownError, ServiceRejectedError } from '../api/errors.js';
import { isTokenRefusal } from '../api/answer.js';
import { errorCode, errorMessage } from '../errors.js';
export function decide(err, kind) {
    if (err instanceof NetworkError) {
        return { action: 'retry', serviceDown: true, throttle: false, code: err.code, message: err.message };
    }
    if (err instanceof OutcomeUnknownError) {
        return { action: 'unknown', code: err.code, message: err.message };
    }
    if (err instanceof HttpStatusError)
        return decideHttp(err, kind);
    if (err instanceof ServiceRejectedError) {
        return { action: 'fail', code: err.code, message: err.message };
    }
    const code = errorCode(err);
    if (code.startsWith('SQLITE_')) {
        return { action: 'unknown', code, message: `the queue database refused the write: ${errorMessage(err)}` };
    }
    return { action: 'fail', code, message: errorMessage(err) };
}
function decideHttp(err, kind) {
    const { status } = err;
    const base = { code: `HTTP_${status}`, message: err.message };
    if (status === 429 || status === 503) {
        return { action: 'retry', retryAfterMs: err.retryAfterMs, serviceDown: status === 503, throttle: true, ...base };
    }
    if (status === 502 || status === 504 || (err.html && status >= 500)) {
        return { action: 'unknown', code: base.code, message: base.message };
    }
    if (status >= 500 || status === 408 || err.html) {
        return { action: 'retry', retryAfterMs: err.retryAfterMs, serviceDown: true, throttle: false, ...base };
    }
    if (isTokenRefusal(status, err.html) || (status >= 300 && status < 400)) {
        return {
            action: 'pause',
            scope: 'station',
            reason: 'token-rejected',
            ...base,
            message: `the service refused the station token (${err.message}); check service.token and service.baseUrl`,
        };
    }
    if (status === 415 && kind === 'recording') {
        return {
            action: 'pause',
            scope: 'soundscapes',
            reason: 'soundscape-format-rejected',
            ...base,
            message: `the service refused the soundscape format (${err.message})`,
        };
    }
    return { action: 'fail', ...base };
}
