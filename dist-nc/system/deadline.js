import { StationAgentError } from '../errors.js';
export function deadline(ms, caller, what) {
    const controller = new AbortController();
    let expired = false;
    const onCaller = () => controller.abort(caller?.reason);
    const timer = setTimeout(() => {
        expired = true;
        controller.abort(new DeadlineError(what, ms));
    }, ms);
    timer.unref();
    if (caller?.aborted)
        onCaller();
    else
        caller?.addEventListener('abort', onCaller, { once: true });
    return {
        signal: controller.signal,
        get expired() {
            return expired;
        },
        clear() {
            clearTimeout(timer);
            caller?.removeEventListener('abort', onCaller);
        },
    };
}
export class DeadlineError extends StationAgentError {
    ms;
    code = 'ERR_DEADLINE';
    constructor(what, ms) {
        super(`${what ? `${what}: ` : ''}no complete answer within ${ms} ms`);
        this.ms = ms;
    }
}
