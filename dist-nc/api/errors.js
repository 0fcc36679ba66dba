import { StationAgentError } from '../errors.js';
export class ApiError extends StationAgentError {
    request;
    constructor(message, request, options) {
        super(`${message} (${request})`, options);
        this.request = request;
    }
}
class TransportError extends ApiError {
    cause_code;
    constructor(message, request, causeCode, options) {
        super(message, request, options);
        this.cause_code = causeCode;
    }
    toJSON() {
        return { ...super.toJSON(), request: this.request, causeCode: this.cause_code };
    }
}
export class NetworkError extends TransportError {
    code = 'ERR_NETWORK_BEFORE_SEND';
}
export class OutcomeUnknownError extends TransportError {
    code = 'ERR_OUTCOME_UNKNOWN';
}
export class HttpStatusError extends ApiError {
    code = 'ERR_HTTP_STATUS';
    status;
    body;
    serverMessage;
    errors;
    html;
    retryAfterMs;
    constructor(request, details) {
        super(describeHttp(details), request);
        this.status = details.status;
        this.body = details.body;
        this.serverMessage = details.serverMessage;
        this.errors = details.errors;
        this.html = details.html;
        this.retryAfterMs = details.retryAfterMs;
    }
    toJSON() {
        return {
            ...super.toJSON(),
            request: this.request,
            status: this.status,
            serverMessage: this.serverMessage,
            errors: this.errors,
            html: this.html,
            retryAfterMs: this.retryAfterMs,
        };
    }
}
export class ServiceRejectedError extends ApiError {
    code = 'ERR_SERVICE_REJECTED';
    status;
    body;
    field;
    constructor(message, request, status, body, field) {
        super(message, request);
        this.status = status;
        this.body = body;
        this.field = field;
    }
    toJSON() {
        return { ...super.toJSON(), request: this.request, status: this.status, field: this.field };
    }
}
function describeHttp(d) {
    const parts = [`HTTP ${d.status}`];
    if (d.html)
        parts.push('(HTML page instead of JSON)');
    if (d.serverMessage)
        parts.push(`: ${d.serverMessage}`);
    if (d.errors) {
        const fields = Object.entries(d.errors).map(([k, v]) => `${k} ${v.join(', ')}`);
        if (fields.length)
            parts.push(`: ${fields.join('; ')}`);
    }
    return parts.join(' ');
}
