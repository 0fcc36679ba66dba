export class StationAgentError extends Error {
    constructor(message, options) {
        super(message, options);
        this.name = new.target.name;
    }
    toJSON() {
        return { name: this.name, code: this.code, message: this.message };
    }
}
export function errorCode(err) {
    if (err instanceof StationAgentError)
        return err.code;
    if (err && typeof err === 'object' && 'code' in err && typeof err.code === 'string')
        return err.code;
    return 'ERR_UNKNOWN';
}
export function errorMessage(err) {
    return err instanceof Error ? err.message : String(err);
}
