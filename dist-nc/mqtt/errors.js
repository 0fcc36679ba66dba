import { StationAgentError } from '../errors.js';
export class MqttError extends StationAgentError {
    code;
    constructor(code, message, options) {
        super(message, options);
        this.code = code;
    }
}
